"""Unit tests of the runner's pieces: routing answers, gate order, stuck order, nudges, state JSON."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from compiler.ir.model import Blueprint, Edge, Gate, NudgeConfig, Stage, StuckThresholds
from compiler.runtime import (
    InferenceFinished,
    RegionChanged,
    RegionSnapshot,
    RunState,
    StateError,
    ToolCall,
    Visit,
    event_from_dict,
    event_to_dict,
    start,
    step,
)
from compiler.runtime.gates import BLOCK, FORCED, PASS, decide, first_failure
from compiler.runtime.policy import resolved_nudge
from compiler.runtime.routing import DONE, match_reply
from compiler.runtime.stuck import hottest_edit, stuck_reason
from compiler.runtime.texts import interpolate
from tests.runtime.harness import Driver, blueprint

# --- routing answers (§4.4, S11) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "offered", "allow_done", "expected"),
    [
        ("The implementation follows the plan.\n\nAPPROVED.", ["implement", "error_recovery"], True, DONE),
        ("The implementation follows the plan.\n\nAPPROVED.", ["implement", "error_recovery"], False, "implement"),
        ("The tests still fail.\n\nimplement", ["implement", "error_recovery"], False, "implement"),
        ("REVIEW", ["review", "plan"], False, "review"),
        ("let's go to plan next", ["review", "plan"], False, "plan"),
        ("nonsense", ["review", "plan"], False, "review"),
        ("DONE\n\nThe approved plan is now fully implemented", ["review", "plan"], False, "review"),
        ("DONE\n\nSummary: all good", ["implement"], True, DONE),
        ("I choose done.", ["review"], True, DONE),
        ("", ["review", "plan"], False, "review"),
        ("", ["review"], True, DONE),
        ("   \n  plan  \n", ["review", "plan"], False, "plan"),
        ("Going to plan then review", ["review", "plan"], False, "plan"),
        ("we should review, then plan", ["plan", "review"], False, "review"),
        ("first line\nsecond\nthird: plan", ["review", "plan"], False, "plan"),
        ("first line\nsecond\nno plan for this at all", ["review", "plan"], False, "review"),
        ("re-view it", ["review", "plan"], False, "review"),
        ("use error_recovery now", ["implement", "error_recovery"], False, "error_recovery"),
        ("use error recovery now", ["implement", "error_recovery"], False, "implement"),
    ],
)
def test_routing_answer_matching(reply, offered, allow_done, expected):
    assert match_reply(reply, offered, allow_done) == expected


def test_done_is_ignored_unless_allowed_and_wins_over_a_later_target():
    assert match_reply("done, go to plan", ["plan"], True) is DONE
    assert match_reply("done, go to plan", ["review", "plan"], False) == "plan"


# --- gates (§5.3) ------------------------------------------------------------------------------------------


def _gate_world(gate: Gate, *, regions=None, visit=None, tools=("write_file",)):
    stage = Stage(name="s", available_tools=tools, transitions=(Edge(target="t", gate=gate),))
    from compiler.ir.model import Layout, Region

    layout = Layout(regions=tuple(Region(name=n) for n in ("conversation", "plan", "risks", "todos", "views")))
    ir = Blueprint(stages=(stage, Stage(name="t", transitions=())), layout=layout)
    state = RunState(stage="s", visits={"s": 1}, regions=regions or {}, visit=visit or Visit())
    return ir, stage, state


ALL_CHECKS = Gate(
    require_modifications=True,
    require_region_updated="plan",
    require_no_open_items="todos",
    require_regions=("risks",),
)


def test_gate_checks_run_in_order_and_the_first_failure_decides():
    full = {
        "plan": RegionSnapshot("v1", 1),
        "todos": RegionSnapshot("t", 1, (("1", "x"),)),
    }
    visit = Visit(entry_digests={"plan": "v1"})
    ir, stage, state = _gate_world(ALL_CHECKS, regions=full, visit=visit)
    order = []
    while (failure := first_failure(ir, stage, state, ALL_CHECKS)) is not None:
        check = failure[0]
        order.append(check)
        fix = {
            "require_region_updated": {"plan": RegionSnapshot("v2", 1)},
            "require_no_open_items": {"todos": RegionSnapshot("t2", 1)},
            "require_regions": {"risks": RegionSnapshot("r", 1)},
        }.get(check)
        if fix is None:
            state = replace(state, visit=replace(state.visit, modifications=1))
        else:
            state = replace(state, regions={**state.regions, **fix})
    assert order == [
        "require_region_updated",
        "require_no_open_items",
        "require_regions",
        "require_modifications",
    ]


def test_the_block_budget_is_shared_and_then_forced():
    gate = Gate(require_modifications=True, max_attempts=2, message="custom")
    ir, stage, state = _gate_world(gate)
    assert decide(ir, stage, state, gate).verdict == BLOCK
    assert decide(ir, stage, state, gate).message == "custom"
    state = replace(state, visit=replace(state.visit, gate_reentries=2))
    assert decide(ir, stage, state, gate).verdict == FORCED
    zero = replace(gate, max_attempts=0)
    assert decide(ir, stage, replace(state, visit=Visit()), zero).verdict == FORCED


def test_regions_the_window_does_not_hold_never_block():
    gate = Gate(require_regions=("ghost",), require_no_open_items="nowhere", require_region_updated="nope")
    ir, stage, state = _gate_world(gate)
    assert decide(ir, stage, state, gate).verdict == PASS


# --- stuck (§3.2) --------------------------------------------------------------------------------------


def test_stuck_thresholds_are_checked_in_order():
    every = StuckThresholds(iterations=2, minutes=1, same_file_edits=2, tool_calls=2)
    visit = Visit(iterations=5, tool_calls=5, edits={"b.py": 3, "a.py": 3}, stuck_since=0)
    assert stuck_reason(every, visit, 600) == "'a.py' edited 3 times"
    visit = replace(visit, edits={"a.py": 1})
    assert stuck_reason(every, visit, 600) == "5 inference turns"
    assert stuck_reason(replace(every, iterations=None), visit, 600) == "5 tool calls"
    assert stuck_reason(StuckThresholds(minutes=1), visit, 600) == "10 minutes in the stage"
    assert stuck_reason(StuckThresholds(minutes=1), visit, 59) is None
    assert stuck_reason(StuckThresholds(iterations=0, tool_calls=-1), visit, 600) is None
    assert stuck_reason(StuckThresholds(minutes=1), replace(visit, stuck_since=None), 6000) is None


def test_the_hottest_path_ties_go_to_the_smallest_name():
    assert hottest_edit({"z": 2, "b": 2, "a": 1}) == ("b", 2)
    assert hottest_edit({}) is None


def test_the_cap_wins_over_stuck_on_a_tie():
    d = Driver(
        """
        [stages.a]
        max_iterations = 2
        available_tools = ["read_file"]
        [stages.a.transitions.b]
        condition = "stuck"
        stuck_after_iterations = 2
        [stages.b]
        [stages.c]
        """
    )
    d.C("read_file")
    d.C("read_file")
    assert d.flags.max_iterations_hit == 1 and not d.visit.stuck_fired
    assert d.status == "complete" and d.edges() == []  # a stuck edge only: the capped stage is terminal
    assert [n.kind for n in d.last[-1].notes] == ["cap"]


def test_stuck_fires_once_per_visit():
    d = Driver(
        """
        [stages.a]
        available_tools = ["read_file"]
        [stages.a.transitions.b]
        condition = "stuck"
        stuck_after_tool_calls = 2
        [stages.b]
        max_revisits = 0
        [stages.b.transitions.a]
        """
    )
    d.C("read_file", "read_file")
    assert d.stage == "b"
    d.T()
    assert d.stage == "a"
    for _ in range(4):
        d.C("read_file")
    assert d.stage == "a"  # b is spent: no interrupt


# --- nudges (§2.4) ----------------------------------------------------------------------------------------


def test_nudge_cascade_field_by_field():
    ir = blueprint(
        """
        [agent.nudge]
        max = 5
        [stages.a.nudge]
        text = "stage text"
        [stages.b]
        """,
        nudge=True,
    )
    a, b = ir.stages
    assert resolved_nudge(ir, a, None) == replace(a.effective_nudge, enabled=True, max=5, text="stage text")
    layer = NudgeConfig(enabled=False, max=9, text="global text")
    got = resolved_nudge(ir, a, layer)
    assert (got.enabled, got.max, got.text) == (False, 5, "stage text")
    got = resolved_nudge(ir, b, layer)
    assert (got.enabled, got.max, got.text) == (False, 5, "global text")
    assert resolved_nudge(ir, b, NudgeConfig()).max == 5


def test_a_global_layer_does_not_beat_an_explicit_stage_setting():
    ir = blueprint("[stages.a.nudge]\nenabled = true\nmax = 1\n", nudge=True)
    d = Driver(ir, global_nudge=NudgeConfig(enabled=False, max=7))
    d.T()
    assert d.visit.nudges == 1
    d.T()
    assert d.status == "complete"


def test_nudges_never_reset_within_a_visit():
    d = Driver(blueprint('[stages.a]\navailable_tools = ["read_file"]\n[agent.nudge]\nmax = 2\n', nudge=True))
    d.T()
    d.T()
    d.T()
    assert d.status == "complete" and d.state.iteration == 3


def test_placeholders_are_replaced_in_order_and_unknown_ones_kept():
    assert interpolate("{stage}/{regions}/{other}", stage="s", regions=["a", "b"]) == "s/a, b/{other}"
    assert interpolate("{stage}", stage="{regions}", regions=["x"]) == "x"
    assert interpolate("{regions}", stage="s", regions=[]) == ""


# --- state and events ---------------------------------------------------------------------------------------


def test_state_json_round_trip_and_errors():
    d = Driver(
        '[stages.a]\navailable_tools = ["write_file"]\n'
        "[stages.a.transitions.b]\ngate = { require_modifications = true }\n[stages.b]\n"
    )
    d.region("conversation", 2, open_items=[("1", "x")])
    d.C(ToolCall("write_file", "a.py"))
    text = d.state.to_json()
    assert RunState.from_json(text) == d.state and RunState.from_json(text).to_json() == text
    for bad in (
        "",
        "[]",
        '{"state_version": 99, "stage": "a"}',
        '{"state_version": 1}',
        '{"state_version": 1, "stage": "a", "visits": {"a": "1"}}',
        '{"state_version": 1, "stage": "a", "status": "odd"}',
        '{"state_version": 1, "stage": "a", "iteration": true}',
    ):
        with pytest.raises(StateError):
            RunState.from_json(bad)


def test_state_json_is_canonical_whatever_the_key_order_of_its_input():
    """Records decoded from reordered, padded or partial objects still write the one canonical form."""
    d = Driver('[stages.a]\navailable_tools = ["write_file"]\n[stages.a.transitions.b]\n[stages.b]\n')
    d.region("conversation", 2, open_items=[("1", "x")])
    d.C(ToolCall("write_file", "a.py"))
    text = d.state.to_json()
    canonical = json.dumps(d.state.to_dict(), ensure_ascii=False, separators=(",", ":"))
    assert text == canonical
    data = json.loads(text)
    shuffled = {key: data[key] for key in reversed(list(data))}
    shuffled["visit"] = {key: data["visit"][key] for key in reversed(list(data["visit"]))}
    shuffled["flags"] = {**data["flags"], "unknown": 1}
    del shuffled["visit"]["nudges"]  # a missing field takes its default
    before = json.dumps(shuffled)
    restored = RunState.from_dict(shuffled)
    assert json.dumps(shuffled) == before  # the caller's data is left as it was
    assert restored == d.state and restored.to_json() == text
    assert list(restored.visit.__dict__) == list(Visit.__dataclass_fields__)
    assert RunState.from_json(json.dumps(shuffled)).to_json() == text


def test_native_events_round_trip_and_bad_lines_are_none():
    events = [
        InferenceFinished(
            text="x", tool_calls=(ToolCall("write_file", "a", "denied", "[denied] no"),), now=1.5, request=3
        ),
        RegionChanged(region="todos", hash="h", entries=2, open_items=(("1", "a"),)),
    ]
    for event in events:
        assert event_from_dict(event_to_dict(event)) == event
    for bad in (None, 1, [], {}, {"event": "nope"}, {"event": 3}, {"event": "region"}, {"event": "child_started"}):
        assert event_from_dict(bad) is None
    odd = event_from_dict({"event": "inference", "tool_calls": [{"name": "x", "outcome": "weird"}, 5], "now": "soon"})
    assert odd == InferenceFinished(tool_calls=(ToolCall("x", outcome="error"),))


def test_odd_events_are_ignored_not_fatal():
    ir = blueprint("[stages.a]\n[stages.b]\n")
    state, _ = start(ir, 0)
    for odd in (None, 3, "text", InferenceFinished(text=5, tool_calls=[1, 2], now=float("nan"))):  # type: ignore[arg-type]
        new, _ = step(ir, state, odd)  # type: ignore[arg-type]
        assert new.stage in ("a", "b")


def test_stale_answers_are_ignored():
    d = Driver("[stages.a]\n[stages.b]\n")
    before = d.state
    d.feed(InferenceFinished(text="late", request=before.requests - 1))
    assert d.state == before and d.last == ()
    d.feed(InferenceFinished(text="now", request=before.requests))
    assert d.stage == "b"


def test_a_run_starts_at_the_first_declared_stage_whatever_entry_stage_says():
    """As in Leviath: `entry_stage` picks only the first sandbox and permissions there."""
    ir = blueprint('[agent]\nname = "t"\nentry_stage = "b"\n[agent.nudge]\nenabled = false\n[stages.a]\n[stages.b]\n')
    d = Driver(ir)
    assert d.stage == "a" and d.state.visits == {"a": 1}
    d.T()
    d.T()
    assert d.status == "complete" and d.stages_run() == ["a", "b"]


def test_budgets_survive_a_restart():
    """Deviation: the reference refunds revisit budgets on restart; our state keeps the visits."""
    ir = blueprint(S16_SNIPPET)
    d = Driver(ir)
    d.T()
    restored = RunState.from_json(d.state.to_json())
    assert restored.visits == {"a": 1, "b": 1}


S16_SNIPPET = """
[stages.a.transitions.b]
[stages.b]
max_revisits = 0
[stages.b.transitions.a]
"""


def test_provider_fallback_then_pause_then_resume():
    from compiler.runtime import InferenceFailed, Resumed

    ir = blueprint(
        '[stages.a]\nmodel = { models = [{ provider = "p1", model = "m1" }, { provider = "p2", model = "m2" }] }\n'
    )
    d = Driver(ir)
    assert (d.inference.provider, d.inference.model) == ("p1", "m1")
    d.E("no credits", kind="credits")
    assert (d.inference.provider, d.inference.model) == ("p2", "m2") and d.state.iteration == 0
    d.E("down", kind="unreachable")
    assert d.status == "paused" and d.last == ()
    d.feed(Resumed())
    assert d.status == "active" and d.inference.provider == "p2"
    d.E("bad request")
    assert d.status == "error" and d.ended.reason == "bad request"
    # A failure reported after the run ended changes nothing: no fallback, no new request.
    assert d.feed(InferenceFailed(message="late", kind="credits")) == ()
    assert d.status == "error" and d.ended.reason == "bad request"


def test_workers_and_merge_stage():
    from compiler.runtime import AwaitWorkers, WorkersFinished

    snippet = """
        [stages.split]
        mode = "fan_out"
        worker_agent = "w"
        {extra}
        [stages.other]
        [stages.merge]
    """
    d = Driver(snippet.format(extra='merge_stage = "merge"'))
    d.C("fan_out")
    assert d.status == "waiting" and isinstance(d.last[0], AwaitWorkers)
    d.feed(WorkersFinished(completed=2))
    assert d.edges() == [("split", "merge", "merge")]
    d = Driver(snippet.format(extra=""))
    d.T()
    assert d.stage == "split" and "fan_out" in d.injected()[0]
    d = Driver(snippet.format(extra='on_worker_failure = "fail_all"'))
    d.C("fan_out")
    d.feed(WorkersFinished(completed=1, failed=1))
    assert d.status == "error" and "fail_all" in d.ended.reason
