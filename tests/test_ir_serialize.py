"""Writing the IR: every field, in field order, canonical bytes, and an exact round trip.

These tests use hand-built models, so they hold whatever the builder does; the corpus and
example files are covered in test_ir_schema.py and test_ir_cli.py.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import os
import re
import subprocess
import sys
import typing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from compiler.ir import model as m
from compiler.ir.build import build_blueprint
from compiler.ir.serialize import IR_VERSION, IRError, decode, dumps, encode, load_ir, to_ir
from tests.test_build_properties import document as any_document

HASH = "ab" * 32


def rich_blueprint() -> m.Blueprint:
    """A model that uses every dataclass of the IR and every kind of field value."""
    checklist = m.Region(
        name="todo", kind="checklist", max_tokens=2000, required=True, required_message="fill {region}"
    )
    layout = m.Layout(
        regions=(
            m.Region(name="system", kind="pinned", max_tokens=4000, description="who you are", describe_in_prompt=True),
            m.Region(
                name="task",
                seed=m.RegionSeed(kind="caller", caller_key="task", implicit=True),
            ),
            m.Region(
                name="notes",
                kind="compacting",
                budget_percent=35,  # an int in a float field: written as 35.0
                max_tokens=None,
                min_tokens=1000,
                compact_at_percent=80.0,
                threshold_tokens=12000,
            ),
            m.Region(
                name="history",
                kind="sliding_window",
                strategy="bulk",
                overflow=4,
                max_items=20,
                admission="reject",
                volatility="grows",
            ),
            m.Region(
                name="files",
                kind="hashmap",
                max_entries=50,
                seed=m.RegionSeed(
                    kind="tools",
                    tools=(
                        m.SeedToolCall(name="list_files"),
                        m.SeedToolCall(name="read_file", args={"path": "README.md", "limits": [1, 2.5, None, True]}),
                    ),
                    refresh="each_stage",
                ),
            ),
            m.Region(name="docs", seed=m.RegionSeed(kind="files", files=("a.md", "b/ü.md"))),
            m.Region(name="custom", kind="custom", script="regions/custom.rhai", persistent=True),
            checklist,
        )
    )
    gate = m.Gate(
        require_modifications=True,
        message="write something first",
        region="todo",
        tools=("write_file",),
        max_attempts=0,
        require_region_updated="notes",
        require_regions=("notes", "files"),
        require_no_open_items="todo",
    )
    plan = m.Stage(
        name="plan",
        mode="interactive_points",
        model=m.ModelConfig(
            entries=(m.ModelEntry("anthropic", "claude-opus-4"), m.ModelEntry("openai", "gpt-4o")),
            allow_user_default=False,
            parameters={"temperature": 0.3, "stop": ["\n\n", "END"], "nested": {"z": 1, "a": {"deep": []}}},
            request_timeout_secs=120,
        ),
        description="Plan the work — carefully.",
        system_prompt="You plan.",
        available_tools=("read_file", "write_file"),
        available_connectors=("github",),
        required_tools=("read_file",),
        max_iterations=20,
        max_revisits=2,
        transition_prompt="Where next?",
        allow_complete=True,
        accepts_messages=False,
        batch_tool_hint=True,
        shell_hint=False,
        security=m.Security(taint_tracking=False),
        sandbox=m.Sandbox(
            kind="container", image="python:3.12", engine="podman", mount=("/data",), on_unavailable="warn"
        ),
        nudge=m.NudgeConfig(enabled=True, max=5),
        effective_nudge=m.ResolvedNudge(enabled=True, max=5, text="Keep going."),
        output=m.OutputSpec(format="markdown", instructions="a plan", schema={"type": "object", "required": ["steps"]}),
        hooks=(m.Hook(event="on_stage_enter", script="hooks/enter.rhai"),),
        tool_permissions=(m.ToolPermission(tool="shell", policy="ask"),),
        tool_routing=m.ToolRouting(
            default_region="notes",
            persist=False,
            max_result_tokens=3000,
            overrides=(m.RoutingOverride(tool="read_file", region="files", max_result_tokens=800),),
            max_result_tokens_per_tool=(("grep", 400), ("glob", 200)),
        ),
        layout=m.Layout(regions=(m.Region(name="scratch"),)),
        transitions=(
            m.Edge(target="work", condition="llm_choice", hint="the plan is approved", gate=gate),
            m.Edge(
                target="plan",
                condition="stuck",
                transform="custom",
                custom=m.CustomTransform(
                    carry=("notes",), compact=("history",), clear=("files",), compact_prompt="shorter"
                ),
                stuck=m.StuckThresholds(iterations=10, minutes=15, same_file_edits=3, tool_calls=40),
            ),
            m.Edge(target="done", condition="error", transform="clear"),
        ),
        interaction_points=(
            m.InteractionPoint(
                name="approve",
                prompt="Approve the plan?",
                unattended="ask",
                style="multiple_choice",
                options=("yes", "no", "edit"),
                directives=(("yes", "go ahead"), ("edit", "revise the plan")),
                abort_options=("no",),
                edit_options=("edit",),
                document_region="notes",
            ),
        ),
    )
    work = m.Stage(
        name="work",
        mode="fan_out",
        available_tools=("fan_out",),
        fan_out=m.FanOut(
            worker_stage="worker",
            merge_stage="done",
            split_prompt="split it",
            results_region="notes",
            on_worker_failure="fail_all",
            max_workers=0,
            max_items=12,
            max_attempts=0,
        ),
    )
    worker = m.Stage(name="worker", allow_as_worker=True, transitions=())
    done = m.Stage(name="done", mode="output", require_output=True, available_tools=("submit_output",), transitions=())
    return m.Blueprint(
        name="rich",
        version="2.0.0",
        description="Every feature of the IR, once.",
        entry_stage="plan",
        max_child_depth=2,
        dynamic_tools=True,
        batch_tool_hint=False,
        shell_hint=True,
        nudge=m.NudgeConfig(enabled=False, max=1, text="agent nudge"),
        output=m.OutputSpec(
            format="json", example='{"ok": true}', schema=[1, "two", {"three": 3.0}], validator="v.rhai"
        ),
        stages=(plan, work, worker, done),
        layout=layout,
        file_tracking=m.FileTracking(region="files", track_reads=False, max_file_tokens=9000),
        compaction=m.Compaction(
            provider="openai", model="gpt-4o-mini", system_prompt="  keep it  ", max_summary_tokens=500, temperature=0.0
        ),
        security=m.Security(),
        sandbox=m.Sandbox(kind="namespace", network=False, persist=True),
        read_paths=m.ReadPaths(allow=("~/notes", "glob:docs/**/*.md")),
        safe_commands=m.SafeCommands(tools=("read_file",), shell=("ls", "git status")),
        tool_permissions=(
            m.ToolPermission(tool="write_file", policy="deny"),
            m.ToolPermission(tool="bash", policy="allow"),
        ),
        repetition_detection=m.RepetitionDetection(max_repeat_calls=3, max_readonly_streak=10, enabled=True),
        transforms=(
            m.BlueprintTransform(
                from_blueprint="rich",
                to_blueprint="next",
                mappings=(
                    m.TransformMapping(
                        from_region="notes", to_region="task", transform="extract", fields=("title", "steps")
                    ),
                    m.TransformMapping(from_region="files", to_region="files"),
                ),
            ),
        ),
    )


def model_classes(root: type = m.Blueprint) -> set[type]:
    """Every dataclass reachable from `root` through type hints."""
    seen: set[type] = set()
    todo = [root]
    while todo:
        hint = todo.pop()
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            if hint in seen:
                continue
            seen.add(hint)
            todo.extend(typing.get_type_hints(hint).values())
        else:
            todo.extend(typing.get_args(hint))
    return seen


def instances(value: object) -> set[type]:
    """Every dataclass type used in a model value."""
    found: set[type] = set()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        found.add(type(value))
        for f in dataclasses.fields(value):
            found |= instances(getattr(value, f.name))
    elif isinstance(value, (tuple, list)):
        for item in value:
            found |= instances(item)
    return found


def roundtrip(blueprint: m.Blueprint) -> m.Blueprint:
    return load_ir(dumps(to_ir(blueprint, path="x.leviath", sha256=HASH)))


def test_sample_uses_every_model_class():
    """A class added to the model must be added to the sample, or the tests below miss it."""
    missing = model_classes() - instances(rich_blueprint())
    assert not missing, sorted(c.__name__ for c in missing)


@pytest.mark.parametrize(
    "blueprint",
    [
        m.Blueprint(),
        rich_blueprint(),
        m.Blueprint(stages=(m.Stage(name="a", transitions=None), m.Stage(name="b", transitions=()))),
    ],
    ids=["defaults", "rich", "fall-through-and-terminal"],
)
def test_round_trip_is_exact(blueprint):
    assert roundtrip(blueprint) == blueprint


def test_round_trip_keeps_types_not_just_equality():
    back = roundtrip(rich_blueprint())
    notes = back.layout.get("notes")
    assert type(notes.budget_percent) is float and notes.budget_percent == 35.0
    assert isinstance(back.stages, tuple) and isinstance(back.stages[0].transitions, tuple)
    assert back.stages[0].interaction_points[0].directives == (("yes", "go ahead"), ("edit", "revise the plan"))
    assert back.stages[0].tool_routing.max_result_tokens_per_tool == (("grep", 400), ("glob", 200))
    assert back.stages[0].transitions is not None and back.stages[2].transitions == ()
    assert m.Blueprint().stages[0].transitions is None and roundtrip(m.Blueprint()).stages[0].transitions is None


def test_text_is_canonical_and_idempotent():
    ir = to_ir(rich_blueprint(), path="x.leviath", sha256=HASH)
    text = dumps(ir)
    again = dumps(to_ir(load_ir(text), path="x.leviath", sha256=HASH))
    assert text == again
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert f'\n  "ir_version": {IR_VERSION},\n' in text  # 2-space indent
    assert "b/ü.md" in text and "—" in text  # UTF-8, not \u escapes


def test_document_shape_and_key_order():
    ir = to_ir(rich_blueprint(), path="agents/rich.leviath", sha256=HASH)
    assert list(ir) == ["ir_version", "source", "blueprint"]
    assert ir["ir_version"] == IR_VERSION
    assert ir["source"] == {"path": "agents/rich.leviath", "sha256": HASH}
    assert list(ir["blueprint"]) == [f.name for f in dataclasses.fields(m.Blueprint)]
    stage = ir["blueprint"]["stages"][0]
    assert list(stage) == [f.name for f in dataclasses.fields(m.Stage)]
    assert list(stage["transitions"][0]["gate"]) == [f.name for f in dataclasses.fields(m.Gate)]


def test_every_field_is_written_even_when_default():
    ir = to_ir(m.Blueprint(), path="x", sha256=HASH)["blueprint"]
    assert ir["entry_stage"] is None and ir["nudge"] is None and ir["transforms"] == []
    stage = ir["stages"][0]
    assert stage["effective_nudge"] == {"enabled": True, "max": m.DEFAULT_MAX_NUDGES, "text": m.DEFAULT_NUDGE_TEXT}
    assert stage["transitions"] is None
    assert [r["name"] for r in ir["layout"]["regions"]] == ["system", "conversation"]
    assert ir["layout"]["fallback"] is True


def test_stages_and_edges_keep_declaration_order():
    names = ["zeta", "alpha", "mid"]
    edges = tuple(m.Edge(target=t) for t in ["mid", "alpha", "zeta"])
    bp = m.Blueprint(stages=tuple(m.Stage(name=n, transitions=edges if n == "zeta" else None) for n in names))
    ir = to_ir(bp, path="x", sha256=HASH)["blueprint"]
    assert [s["name"] for s in ir["stages"]] == names
    assert [e["target"] for e in ir["stages"][0]["transitions"]] == ["mid", "alpha", "zeta"]


def test_pairs_are_two_item_arrays():
    stage = to_ir(rich_blueprint(), path="x", sha256=HASH)["blueprint"]["stages"][0]
    assert stage["interaction_points"][0]["directives"] == [["yes", "go ahead"], ["edit", "revise the plan"]]
    assert stage["tool_routing"]["max_result_tokens_per_tool"] == [["grep", 400], ["glob", 200]]


def test_float_fields_are_always_json_floats():
    region = m.Region(name="r", budget_percent=35, compact_at_percent=80)
    out = encode(region, m.Region)
    assert out["budget_percent"] == 35.0 and type(out["budget_percent"]) is float
    assert '"budget_percent": 35.0' in json.dumps(out)


@pytest.mark.parametrize("value, spelled", [(math.inf, "Infinity"), (-math.inf, "-Infinity"), (math.nan, "NaN")])
def test_non_finite_floats_are_named_strings(value, spelled):
    bp = m.Blueprint(compaction=m.Compaction(temperature=value))
    text = dumps(to_ir(bp, path="x", sha256=HASH))
    assert f'"temperature": "{spelled}"' in text
    json.loads(text, parse_constant=pytest.fail)  # strict JSON: no NaN/Infinity literals
    back = load_ir(text).compaction.temperature
    assert (math.isnan(back) and math.isnan(value)) or back == value


def test_opaque_values_are_written_as_written():
    params = {"zeta": 1, "alpha": {"b": [1, 2.5, "x", None, False], "a": {}}, "Ω": "ü"}
    bp = m.Blueprint(stages=(m.Stage(name="s", model=m.ModelConfig(parameters=params)),))
    ir = to_ir(bp, path="x", sha256=HASH)
    written = ir["blueprint"]["stages"][0]["model"]["parameters"]
    assert written == params and list(written) == ["zeta", "alpha", "Ω"]  # key order kept, not sorted
    assert written is not params and written["alpha"] is not params["alpha"]  # copied


def test_opaque_toml_dates_become_text_and_non_finite_floats_null():
    """What the builder does with TOML values JSON lacks; hand-built models get the same."""
    when = datetime.datetime(1979, 5, 27, 7, 32, tzinfo=datetime.timezone(datetime.timedelta(hours=-8)))
    args = {"at": when, "day": datetime.date(1979, 5, 27), "time": datetime.time(7, 32, 0, 999000), "big": math.inf}
    seed = m.RegionSeed(kind="tools", tools=(m.SeedToolCall(name="t", args=args),))
    out = encode(seed, m.RegionSeed)["tools"][0]["args"]
    assert out == {"at": "1979-05-27T07:32:00-08:00", "day": "1979-05-27", "time": "07:32:00.999000", "big": None}


def test_loaded_opaque_values_do_not_alias_the_document():
    ir = to_ir(rich_blueprint(), path="x", sha256=HASH)
    bp = load_ir(ir)
    ir["blueprint"]["stages"][0]["model"]["parameters"]["temperature"] = 99
    assert bp.stages[0].model.parameters["temperature"] == 0.3


@pytest.mark.parametrize(
    "broken, where",
    [
        (m.Blueprint(stages=(m.Stage(name=5),)), "stages[0].name"),
        (m.Blueprint(stages=(m.Stage(name="s", mode="sideways"),)), "stages[0].mode"),
        (m.Blueprint(max_child_depth=True), "max_child_depth"),
        (m.Blueprint(stages=(m.Stage(name="s", model=m.ModelConfig(parameters={"f": object()})),)), "parameters.f"),
        (m.Blueprint(stages=[m.Stage(name="s", transitions=(m.Edge(target="t", gate="no"),))]), "transitions[0].gate"),
    ],
)
def test_a_model_that_breaks_its_types_is_refused_with_the_place(broken, where):
    """Only a bug in the builder can cause this; the message must lead straight to it."""
    with pytest.raises(TypeError, match=r"cannot write the IR: .*" + where.replace("[", r"\[").replace("]", r"\]")):
        to_ir(broken, path="x", sha256=HASH)


def test_subclasses_of_scalars_are_written_as_the_base_type():
    """A str or int subclass (a tomlkit item, an enum) must not leak its type into the IR."""

    class Name(str):
        pass

    class Count(int):
        pass

    out = encode(m.Stage(name=Name("plan"), max_iterations=Count(5)), m.Stage)
    assert type(out["name"]) is str and type(out["max_iterations"]) is int
    assert json.dumps(out["name"]) == '"plan"'


#: Run from the root of the checkout, where `tests` is importable.
_DUMP_SCRIPT = """
import sys
from tests.test_ir_serialize import rich_blueprint, HASH
from compiler.ir.serialize import dumps, to_ir
sys.stdout.buffer.write(dumps(to_ir(rich_blueprint(), path="x", sha256=HASH)).encode("utf-8"))
"""


def test_bytes_are_identical_across_processes_and_hash_seeds():
    outputs = set()
    for seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", _DUMP_SCRIPT],
            capture_output=True,
            env=env,
            cwd=Path(__file__).parent.parent,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert outputs.pop() == dumps(to_ir(rich_blueprint(), path="x", sha256=HASH)).encode("utf-8")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_document)
def test_whatever_the_builder_makes_serialises_and_reads_back(doc):
    """Any document tomllib can produce: wrong types, huge integers, nan, dates, odd keys."""
    blueprint = build_blueprint(doc)
    ir = to_ir(blueprint, path="prop.leviath", sha256=HASH)
    text = dumps(ir)
    json.loads(text, parse_constant=pytest.fail)  # strict JSON
    try:
        back = decode(json.loads(text)["blueprint"])  # load_ir would also check stage references
    except IRError as exc:  # a number the blueprint schema refuses, which `compile` never writes
        assert re.search(r"\]?\.\w+: must (not be negative|be at least 1), got -?\d+$", str(exc)), exc
        return
    assert dumps(to_ir(back, path="prop.leviath", sha256=HASH)) == text
    if '"NaN"' not in text:  # nan != nan, so only the text can be compared then
        assert back == blueprint
