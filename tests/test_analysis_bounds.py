"""`check` stays bounded: a blueprint's numbers, up to 2**63 - 1, and its number of stages never
make the run analysis enumerate what a count can say.

One test per way it used to blow up: a stuck threshold met by a reply of that many calls (a
tuple of 2**63 calls: MemoryError), runs of identical steps up to a huge budget (20,000 states
explored one by one, then "incomplete"), a trace padded to a huge cap (2**31 events: dropped),
a chain of stages (every explored state counting every stage before it: quadratic), and a
tree of files (every file's analysis kept until the report).
"""

from __future__ import annotations

import gc
import json
import tracemalloc
import weakref
from pathlib import Path

import pytest

from compiler.analysis import analyze, core
from compiler.analysis.repeats import EventRuns, delta, longest_run, replay_run
from compiler.analysis.traces import verify
from compiler.ir.model import Blueprint
from compiler.runtime import InferenceFinished, ToolCall, replay_step, start
from compiler.runtime.events import event_from_dict, event_to_dict
from compiler.runtime.ndjson import read_events
from tests.conftest import invoke_cli
from tests.helpers import run

HUGE = 2**63 - 1


def blueprint(source: str) -> Blueprint:
    result = run(source)
    assert result.ok, [d.message for d in result.diagnostics if d.severity == "error"]
    assert result.blueprint is not None
    return result.blueprint


def nodes_explored(analysis) -> int:
    return sum(len(result.nodes) for result in analysis.runs.visits.values())


def codes(analysis) -> set[tuple[str, str | None]]:
    return {(f.code, f.stage) for f in analysis.findings}


# --- a threshold met by one reply: a count, not a list ------------------------------------------------

STUCK = """
[stages.a]
max_iterations = 5
available_tools = ["read_file", "edit_file"]
[stages.a.transitions.b]
condition = "stuck"
{threshold} = {value}
[stages.b]
max_iterations = 2
[stages.b.transitions]
"""


@pytest.mark.parametrize("threshold", ["stuck_after_tool_calls", "stuck_after_same_file_edits"])
def test_a_stuck_threshold_of_2_63_is_tripped_by_one_reply_counted_not_listed(threshold):
    ir = blueprint(STUCK.format(threshold=threshold, value=HUGE))
    analysis = analyze(ir)
    assert analysis.complete and codes(analysis) == set()  # the stuck edge is taken: 'b' is entered
    assert analysis.ceilings is not None and analysis.ceilings.inferences == 5 + 2
    assert nodes_explored(analysis) < 100


def test_the_runner_counts_a_repeated_call_in_one_step():
    ir = blueprint(STUCK.format(threshold="stuck_after_same_file_edits", value=HUGE))
    state, _ = start(ir, 0)
    call = ToolCall("edit_file", "a.py", count=HUGE)
    state, _ = replay_step(ir, state, InferenceFinished(tool_calls=(call, ToolCall("read_file")), now=0))
    assert state.stage == "b"  # the churn threshold tripped at once
    assert state.flags.modified_file_count == HUGE


def test_a_tool_call_count_round_trips_through_ndjson_and_a_bad_one_reads_as_one():
    event = InferenceFinished(tool_calls=(ToolCall("read_file", count=HUGE),), now=1.0)
    assert event_from_dict(json.loads(json.dumps(event_to_dict(event)))) == event
    for bad in (0, -3, True, "7", 1.5):
        data = {"event": "inference", "tool_calls": [{"name": "read_file", "count": bad}]}
        assert event_from_dict(data).tool_calls[0].count == 1


def test_a_native_line_may_stand_for_a_run_of_identical_events_up_to_a_limit():
    line = {"event": "inference", "tool_calls": [{"name": "read_file"}], "repeat": 3}
    events, skipped = read_events([json.dumps(line)])
    assert len(events) == 3 and len(set(events)) == 1 and skipped == 0
    for bad in (0, 10**12, "3", True):
        events, skipped = read_events([json.dumps(line | {"repeat": bad})])
        assert events == [] and skipped == 1


# --- runs of identical steps up to a huge number --------------------------------------------------------

CHAINS = {
    "nudges": """
        [agent.nudge]
        max = {big}
        [stages.a]
        available_tools = ["read_file"]
        [stages.a.transitions.b]
        [stages.b]
        max_iterations = 2
        [stages.b.transitions]
    """,
    "gate blocks before any tool call": """
        [stages.a]
        available_tools = ["read_file", "write_file"]
        [stages.a.transitions.b]
        gate = {{ require_modifications = true, max_attempts = {big} }}
        [stages.b]
        max_iterations = 2
        [stages.b.transitions]
    """,
    "routing answers held by a gate at the cap": """
        [stages.a]
        max_iterations = 5
        available_tools = ["read_file", "write_file"]
        [stages.a.transitions.b]
        hint = "done"
        gate = {{ require_modifications = true, max_attempts = {big} }}
        [stages.a.transitions.c]
        hint = "give up"
        [stages.b]
        max_iterations = 2
        [stages.b.transitions]
        [stages.c]
        max_iterations = 2
        [stages.c.transitions]
    """,
    "gate blocks between a reply and its routing answer": """
        [stages.a]
        max_iterations = {big}
        available_tools = ["read_file", "write_file"]
        [stages.a.transitions.b]
        hint = "done"
        gate = {{ require_modifications = true, max_attempts = {big} }}
        [stages.a.transitions.c]
        hint = "give up"
        [stages.b]
        max_iterations = 2
        [stages.b.transitions]
        [stages.c]
        max_iterations = 2
        [stages.c.transitions]
    """,
    "tool calls counted while far from every threshold": """
        [agent.nudge]
        max = {big}
        [stages.a]
        max_iterations = {big}
        available_tools = ["read_file", "write_file"]
        [stages.a.transitions.b]
        hint = "done"
        gate = {{ require_modifications = true, max_attempts = {big} }}
        [stages.a.transitions.c]
        hint = "give up"
        [stages.a.transitions.d]
        condition = "stuck"
        stuck_after_tool_calls = {big}
        [stages.b]
        max_iterations = 2
        [stages.b.transitions]
        [stages.c]
        max_iterations = 2
        [stages.c.transitions]
        [stages.d]
        max_iterations = 2
        [stages.d.transitions]
    """,
    "required-region re-runs": """
        [context.regions]
        conversation = {{ kind = "sliding_window", max_tokens = 12000, max_items = 20 }}
        notes = {{ kind = "pinned", max_tokens = 2000, required = true }}
        [stages.a]
        max_revisits = {big}
        available_tools = ["read_file", "context_write"]
        [stages.a.transitions.b]
        [stages.b]
        max_iterations = 2
        [stages.b.transitions]
    """,
    "fan-out re-asks": """
        [stages.split]
        mode = "fan_out"
        max_iterations = 5
        available_tools = ["read_file"]
        worker_stage = "work"
        merge_stage = "merge"
        max_attempts = {big}
        [stages.split.transitions.merge]
        hint = "nothing to split"
        [stages.work]
        max_iterations = 3
        allow_as_worker = true
        [stages.work.transitions]
        [stages.merge]
        max_iterations = 3
        [stages.merge.transitions]
    """,
    "tool calls counted up to a stuck threshold": """
        [stages.a]
        available_tools = ["read_file"]
        [stages.a.transitions.b]
        [stages.a.transitions.c]
        condition = "stuck"
        stuck_after_tool_calls = {big}
        [stages.b]
        max_iterations = 2
        [stages.b.transitions]
        [stages.c]
        max_iterations = 2
        [stages.c.transitions]
    """,
}


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_a_run_of_identical_steps_up_to_2_63_is_explored_in_a_few_states_with_the_same_findings(name):
    small, huge = (analyze(blueprint(CHAINS[name].format(big=big))) for big in (40, HUGE))
    assert huge.complete and nodes_explored(huge) < 2_000  # not 20,000 (the limit) as before
    assert codes(huge) == codes(small)
    taken = {(exit.pre.stage, exit.key[:3]) for result in huge.runs.visits.values() for exit in result.exits}
    assert taken == {(exit.pre.stage, exit.key[:3]) for result in small.runs.visits.values() for exit in result.exits}


def test_a_ceiling_past_2_63_is_an_exact_number():
    analysis = analyze(blueprint(CHAINS["routing answers held by a gate at the cap"].format(big=HUGE)))
    stage_a = next(s for s in analysis.ceilings.stages if s.stage == "a")
    # five replies, then every answer the gate holds (2**63 - 1 of them) and the one that leaves
    assert stage_a.per_visit == 5 + 2**63 and type(stage_a.per_visit) is int
    assert analysis.ceilings.inferences == 5 + 2**63 + 2


def test_a_visit_capped_at_2_62_without_a_tool_call_reaches_its_cap_exactly():
    source = CHAINS["nudges"].replace("[stages.a]\n", "[stages.a]\nmax_iterations = 4611686018427387904\n")
    analysis = analyze(blueprint(source.format(big=HUGE)))
    assert analysis.complete and analysis.ceilings.inferences == 2**62 + 2


# --- a trace through a huge cap ---------------------------------------------------------------------------

PADDED = """
[stages.a]
max_iterations = {cap}
available_tools = ["read_file"]
[stages.a.transitions.out]
[stages.a.transitions.b]
condition = "max_iterations"
[stages.b]
max_iterations = 3
[stages.b.transitions]
[stages.out]
mode = "output"
max_iterations = 3
[stages.out.transitions]
"""


def test_a_trace_padded_to_a_cap_of_2_31_is_one_event_and_a_count_and_replays():
    ir = blueprint(PADDED.format(cap=2**31))
    [finding] = [f for f in analyze(ir).findings if f.code == "output-can-be-skipped"]
    trace = finding.trace
    assert trace is not None and trace.verified and verify(ir, trace)
    assert len(trace.events) == 2**31 + 2 and len(trace.events.runs) == 3
    [padded] = [event for event in trace.event_dicts() if event.get("repeat")]
    assert padded["repeat"] == 2**31
    assert "calls tools for 2,147,483,647 turns" in trace.steps[0].describe()


def test_event_runs_behave_as_the_events_they_stand_for():
    a, b = InferenceFinished(text="a"), InferenceFinished(text="b")
    runs = EventRuns([(a, 2), (b, 1), (a, 3)])
    assert len(runs) == 6 and list(runs) == [a, a, b, a, a, a] and runs == (a, a, b, a, a, a)
    assert runs[2] == b and runs[-1] == a and runs[1:3] == (a, b)
    with pytest.raises(IndexError):
        runs[6]


def test_a_long_run_is_replayed_as_the_runner_steps_it():
    ir = blueprint(PADDED.format(cap=300))
    state, _ = start(ir, 0)
    event = InferenceFinished(tool_calls=(ToolCall("read_file"),), now=0)
    stepped, actions = state, ()
    for _ in range(300):
        stepped, actions = replay_step(ir, stepped, event)
    fed = replay_run(ir, state, event, 300)
    assert fed is not None and fed[0] == stepped and fed[1] == actions
    first, _ = replay_step(ir, state, event)
    second, _ = replay_step(ir, first, event)
    assert longest_run(ir, first, (event,), delta(first, second)) == 300 - 2


# --- many stages, many files --------------------------------------------------------------------------------


def chain(stages: int) -> str:
    return "\n".join(
        f"[stages.s{i}]\nmax_iterations = 5\n"
        + (f"[stages.s{i}.transitions.s{i + 1}]\n" if i + 1 < stages else f"[stages.s{i}.transitions]\n")
        for i in range(stages)
    )


def analysis_memory(stages: int) -> int:
    ir = blueprint(chain(stages))
    tracemalloc.start()
    try:
        analysis = analyze(ir)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        del analysis


def test_the_memory_per_stage_of_a_chain_stays_flat():
    # Every state explored used to count every stage entered before it: 2.4 times the memory
    # per stage at 800 stages as at 100. Now each state keeps the counts a budget reads.
    small, large = analysis_memory(100), analysis_memory(800)
    assert large / small < 8 * 1.5


def test_no_state_explored_counts_the_stages_before_it():
    analysis = analyze(blueprint(chain(50)))
    assert analysis.ceilings.visits == 50
    assert max(len(exit.pre.visits) for result in analysis.runs.visits.values() for exit in result.exits) <= 2


def test_check_keeps_no_analysis_of_a_file_once_it_is_reported(tmp_path: Path, monkeypatch):
    source = Path(__file__).resolve().parent.parent / "blueprints" / "review-loop.leviath"
    for i in range(6):
        (tmp_path / f"f{i}.leviath").write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    alive: list[weakref.ref] = []
    most_alive = []
    original = core.analyze

    def counted(*args, **kwargs):
        gc.collect()
        most_alive.append(sum(ref() is not None for ref in alive))
        analysis = original(*args, **kwargs)
        alive.append(weakref.ref(analysis))
        return analysis

    monkeypatch.setattr(core, "analyze", counted)
    for output_format in ("text", "json", "sarif", "github"):
        alive.clear()
        most_alive.clear()
        result = invoke_cli("check", "--format", output_format, tmp_path)
        assert result.exit_code == 0, result.output
        assert len(most_alive) == 6 and max(most_alive) == 0, (output_format, most_alive)


def test_checking_a_file_leaves_no_garbage_that_only_the_cycle_collector_frees():
    # The command-line tool runs the cycle collector rarely: a reference cycle per file (a stage
    # graph whose adjacency cache held one of its own methods) kept each file's graph alive.
    from compiler.check import check_bytes
    from compiler.config import Settings

    data = (Path(__file__).resolve().parent.parent / "blueprints" / "review-loop.leviath").read_bytes()
    check_bytes("review-loop.leviath", data, Settings())
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        item = check_bytes("review-loop.leviath", data, Settings())
        assert item.analysis is not None
        del item
        gc.collect()
        assert gc.garbage == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_a_summarised_lap_of_two_moves_replays_to_the_state_it_stands_for():
    from compiler.analysis.traces import _play
    from compiler.analysis.visit import explore_visit

    ir = blueprint(CHAINS["gate blocks between a reply and its routing answer"].format(big=60))
    entry, _ = start(ir, 0)
    result = explore_visit(ir, entry)
    [lapped] = [node for node in result.nodes if node.move is not None and node.move.laps]
    assert lapped.move.times > 1 and "×" in lapped.move.describe()
    played = _play(ir, entry, result.path(result.nodes.index(lapped)))
    assert played is not None and played[1].visit.iterations == lapped.key[5]
    assert sum(times for _, times in played[0]) > 2 * lapped.move.times


def test_a_counterexample_too_long_for_a_scenario_is_named_not_expanded(tmp_path: Path):
    source = Path(__file__).resolve().parent / "check_cases" / "output-can-be-skipped" / "cap-of-2-31.leviath"
    target = tmp_path / "agent.leviath"
    target.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    result = invoke_cli("check", target, "--emit-scenarios", tmp_path / "out")
    assert result.exit_code == 1, result.output  # the run it found ends with nothing: an error
    assert "has 2,147,483,650 events" in result.stderr and not list((tmp_path / "out").iterdir())
