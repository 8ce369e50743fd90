"""Reading the IR back: every version we ever wrote, and a clear refusal of anything else."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from compiler import IRError, load_ir
from compiler.ir import serialize
from compiler.ir.serialize import IR_VERSION, dumps, read_ir, to_ir
from tests.test_ir_serialize import HASH, rich_blueprint


@pytest.fixture
def ir() -> dict:
    return to_ir(rich_blueprint(), path="agents/rich.leviath", sha256=HASH)


def refused(document, match: str) -> None:
    with pytest.raises(IRError, match=match):
        load_ir(document)


# --- sources ------------------------------------------------------------------------------


def test_reads_a_dict_text_bytes_and_paths(ir, tmp_path):
    expected = rich_blueprint()
    text = dumps(ir)
    file = tmp_path / "rich.ir.json"
    file.write_text(text, encoding="utf-8")
    assert load_ir(ir) == expected
    assert load_ir(text) == expected
    assert load_ir(text.encode("utf-8")) == expected
    assert load_ir(b"\xef\xbb\xbf" + text.encode("utf-8")) == expected  # a BOM is tolerated
    assert load_ir(file) == expected
    assert load_ir(str(file)) == expected


def test_read_ir_returns_the_source_and_version(ir):
    document = read_ir(ir)
    assert document.blueprint == rich_blueprint()
    assert document.source.path == "agents/rich.leviath" and document.source.sha256 == HASH
    assert document.ir_version == IR_VERSION


def test_a_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_ir(tmp_path / "absent.json")


def test_the_caller_document_is_not_modified(ir):
    before = copy.deepcopy(ir)
    load_ir(ir)
    assert ir == before


# --- versions -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "version, match",
    [
        (IR_VERSION + 1, rf"ir_version {IR_VERSION + 1} is newer than this blueprint-compiler reads"),
        (99, "upgrade agent-blueprint-compiler"),
        (0, "ir_version 0 does not exist"),
        (-1, "ir_version -1 does not exist"),
        ("1", "ir_version must be an integer, not the string"),
        (1.0, "ir_version must be an integer, not the number"),
        (True, "ir_version must be an integer, not a boolean"),
        (None, "ir_version must be an integer, not null"),
    ],
)
def test_unknown_versions_are_refused_clearly(ir, version, match):
    ir["ir_version"] = version
    refused(ir, match)


def test_a_document_without_a_version_is_not_an_ir(ir):
    del ir["ir_version"]
    refused(ir, "not an IR document: it has no 'ir_version'")


def test_older_versions_are_upgraded_step_by_step(ir, monkeypatch):
    """What the next version would do: bump IR_VERSION and register the step from this one."""
    calls = []
    now, later = IR_VERSION, IR_VERSION + 1

    def step(document: dict) -> dict:
        calls.append(document["ir_version"])
        return {**document, "ir_version": later}

    monkeypatch.setattr(serialize, "IR_VERSION", later)
    monkeypatch.setitem(serialize.MIGRATIONS, now, step)
    document = read_ir(ir)
    assert calls == [now]
    assert document.ir_version == now  # the version it was written in
    assert document.blueprint == rich_blueprint()


def test_a_gap_in_the_migrations_is_reported(ir, monkeypatch):
    monkeypatch.setattr(serialize, "IR_VERSION", IR_VERSION + 2)
    monkeypatch.setitem(serialize.MIGRATIONS, IR_VERSION, lambda d: {**d, "ir_version": IR_VERSION + 1})
    refused(ir, f"no migration from ir_version {IR_VERSION + 1} to {IR_VERSION + 2}")


def test_a_migration_that_forgets_the_version_is_reported(ir, monkeypatch):
    monkeypatch.setattr(serialize, "IR_VERSION", IR_VERSION + 1)
    monkeypatch.setitem(serialize.MIGRATIONS, IR_VERSION, lambda d: d)
    refused(ir, f"did not produce version {IR_VERSION + 1}")


def _v1_with_gate(gate_value) -> dict:
    document = json.loads((FIXTURES / "v1" / "feature-rich.ir.json").read_text(encoding="utf-8"))
    gate = document["blueprint"]["stages"][0]["transitions"][0]["gate"]
    assert gate["require_region_entries"] is None  # what every v1 compile of a loadable file wrote
    gate["require_region_entries"] = gate_value
    return document


def test_v2_drops_an_unset_require_region_entries():
    assert load_ir(_v1_with_gate(None)) == load_ir(FIXTURES / "v1" / "feature-rich.ir.json")


def test_a_v1_gate_that_set_require_region_entries_is_refused_by_name():
    """Leviath refuses the key, so v2 has no field for it; its meaning is never dropped in silence."""
    refused(
        _v1_with_gate({"region": "files", "at_least": 4}),
        r"stages\[0\]\.transitions\[0\]\.gate\.require_region_entries: .*compile the blueprint again",
    )


# --- malformed documents ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, match",
    [
        ("{", "not valid JSON: line 1 column 2"),
        ('{"ir_version": NaN}', "NaN is not a JSON value"),
        ('{"ir_version": 1, "ir_version": 1}', "key 'ir_version' appears twice"),
        (b"{\xff}", "not valid UTF-8"),
        ('{"ir_version": ' + "9" * 5000 + "}", "not valid JSON: Exceeds the limit"),
        ("[1, 2]", None),  # not an object: a str not starting with '{' is a path
    ],
)
def test_text_that_is_not_an_ir_document(text, match):
    if match is None:
        with pytest.raises(OSError):
            load_ir(text)
        with pytest.raises(IRError, match="is a JSON object, not an array"):
            load_ir(text.encode())
        return
    refused(text, match)


def test_deep_nesting_is_refused_not_a_crash():
    refused("{" + '"a": {' * 100_000 + "}" * 100_001, "nested too deeply")


def mutate(ir: dict, path: str, value=..., delete: bool = False) -> dict:
    node = ir
    parts = [int(p) if p.isdigit() else p for p in path.split(".")]
    for part in parts[:-1]:
        node = node[part]
    if delete:
        del node[parts[-1]]
    else:
        node[parts[-1]] = value
    return ir


@pytest.mark.parametrize(
    "path, value, match",
    [
        ("extra", 1, "unknown top-level key 'extra'"),
        ("source.sha256", "ABC", "source.sha256: expected 64 lower-case hexadecimal digits"),
        ("source.path", None, "source.path: expected a string, got null"),
        ("source.mtime", 0, "source: unknown key 'mtime'"),
        ("blueprint.stages.0.colour", "red", r"blueprint\.stages\[0\]: unknown key 'colour' in Stage"),
        ("blueprint.stages.0.mode", "outupt", r"blueprint\.stages\[0\]\.mode: expected one of \"autonomous\""),
        (
            "blueprint.stages.0.max_iterations",
            "20",
            r"stages\[0\]\.max_iterations: expected an integer, got the string",
        ),
        ("blueprint.stages.0.max_iterations", 2.0, r"max_iterations: expected an integer, got the number 2.0"),
        ("blueprint.stages.0.allow_complete", 1, r"allow_complete: expected true or false, got the number 1"),
        ("blueprint.dynamic_tools", None, r"blueprint\.dynamic_tools: expected true or false, got null"),
        (
            "blueprint.stages.0.transitions.1.stuck.minutes",
            [],
            r"transitions\[1\]\.stuck\.minutes: expected an integer",
        ),
        ("blueprint.stages", {}, r"blueprint\.stages: expected an array, got an object"),
        (
            "blueprint.stages.0.interaction_points.0.directives.0",
            ["yes"],
            r"directives\[0\]: expected an array of 2 items",
        ),
        (
            "blueprint.stages.0.tool_routing.max_result_tokens_per_tool.0.1",
            "400",
            r"max_result_tokens_per_tool\[0\]\[1\]",
        ),
        ("blueprint.stages.0.model.parameters", [], r"model\.parameters: expected an object, got an array"),
        ("blueprint.compaction.temperature", "hot", r"compaction\.temperature: expected a number"),
        ("blueprint.layout", None, r"blueprint\.layout: expected an object \(Layout\), got null"),
    ],
)
def test_malformed_documents_are_refused_with_the_place(ir, path, value, match):
    refused(mutate(ir, path, value), match)


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda bp: bp.update(stages=[]), r"blueprint\.stages: a blueprint has at least one stage"),
        (lambda bp: bp["stages"][1].update(name="plan"), r"stages\[1\]\.name: stage 'plan' appears twice"),
        (lambda bp: bp.update(entry_stage="nowhere"), r"blueprint\.entry_stage: 'nowhere' names no stage"),
        (lambda bp: bp["stages"][0]["transitions"][0].update(target="gone"), r"transitions\[0\]\.target: 'gone'"),
        (lambda bp: bp["stages"][1]["fan_out"].update(merge_stage="gone"), r"stages\[1\]\.fan_out\.merge_stage"),
    ],
)
def test_stage_references_must_lead_somewhere(ir, change, match):
    """`compile` never writes these; a hand-edited IR must not reach a runner with them."""
    change(ir["blueprint"])
    refused(ir, match)


def test_a_missing_key_is_named(ir):
    refused(
        mutate(ir, "blueprint.stages.0.transitions.0.gate.max_attempts", delete=True),
        "missing key 'max_attempts' of Gate",
    )
    ir2 = to_ir(rich_blueprint(), path="x", sha256=HASH)
    del ir2["blueprint"]
    refused(ir2, "missing top-level key 'blueprint'")


def test_irerror_is_a_value_error():
    assert issubclass(IRError, ValueError)


# --- the fixtures of every version ever written -------------------------------------------

FIXTURES = Path(__file__).parent / "fixtures" / "ir"
FIXTURE_FILES = sorted(FIXTURES.glob("v*/*.ir.json"))


def test_there_is_a_fixture_for_every_version():
    versions = {int(p.parent.name[1:]) for p in FIXTURE_FILES}
    assert versions == set(range(1, IR_VERSION + 1))


@pytest.mark.parametrize("fixture", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_keeps_loading(fixture):
    """Never edit these files: they are what an old compiler wrote, and must stay readable."""
    written = json.loads(fixture.read_text(encoding="utf-8"))
    assert written["ir_version"] == int(fixture.parent.name[1:])
    document = read_ir(fixture)
    assert document.ir_version == written["ir_version"]
    assert document.source.path == written["source"]["path"]
    bp = document.blueprint
    # Facts any later version must preserve about the same blueprint.
    assert bp.stage_names == tuple(s["name"] for s in written["blueprint"]["stages"])
    for stage, raw in zip(bp.stages, written["blueprint"]["stages"], strict=True):
        raw_edges = raw["transitions"]
        assert (stage.transitions is None) == (raw_edges is None)
        assert [(e.target, e.condition) for e in stage.edges()] == [
            (e["target"], e["condition"]) for e in raw_edges or ()
        ]


def test_the_v1_fixture_means_what_it_meant():
    """What the v1 feature-rich blueprint says; whatever migrations run, it must keep saying it."""
    bp = load_ir(FIXTURES / "v1" / "feature-rich.ir.json")
    assert bp.name == "feature-rich" and bp.entry == "plan"
    assert bp.stage_names == ("plan", "split", "implement", "done", "abandon", "report")
    plan, split, implement, done, abandon, report = bp.stages
    approve = plan.edges()[0]
    assert (approve.target, approve.condition, approve.transform) == ("split", "llm_choice", "compact")
    assert approve.gate.max_attempts == 0 and approve.gate.require_no_open_items == "todo"
    assert plan.interaction_points[0].directives == (("revise", "Say what to change."),)
    assert plan.effective_nudge.enabled is False and plan.effective_nudge.max == 4
    assert [e.provider for e in plan.model.entries] == ["anthropic", "openai"]
    assert split.fan_out.worker_stage == "implement" and split.fan_out.max_items is None
    stuck = implement.edges("stuck")[0]
    assert stuck.stuck.iterations == 15 and stuck.custom.carry == ("scratch",)
    assert implement.tool_routing.max_result_tokens_per_tool == (("shell", 1500), ("run_tests", 3000))
    assert implement.model.parameters == {"temperature": 0.2, "stop": ["END"], "extra": {"b": 1, "a": 2}}
    assert done.transitions == () and abandon.transitions is None
    assert report.require_output and "submit_output" in report.available_tools
    assert bp.layout.get("files").kind == "hashmap"
    assert bp.layout.get("notes").budget_percent == 20.0
    assert [(p.tool, p.policy) for p in bp.tool_permissions] == [
        ("write_file", "ask"),
        ("edit_file", "ask"),
        ("shell", "deny"),
    ]
