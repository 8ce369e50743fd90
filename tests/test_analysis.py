"""The run analysis: each finding on a small blueprint and its near miss, the traces, the ceilings."""

from __future__ import annotations

import subprocess
import sys
from textwrap import dedent

import pytest

from compiler.analysis import analyze
from compiler.analysis.runs import explore_runs
from compiler.analysis.traces import verify
from compiler.ir.model import Blueprint, Edge, Stage
from compiler.runtime import replay_step
from compiler.runtime.machine import start
from tests.helpers import CORPUS, requires_shared, run

QUIET = "[agent.nudge]\nenabled = false\n"


def blueprint(source: str) -> Blueprint:
    result = run(source)
    assert result.ok, [d.message for d in result.diagnostics if d.severity == "error"]
    assert result.blueprint is not None
    return result.blueprint


def findings(source: str) -> list[tuple[str, str | None]]:
    return sorted((f.code, f.stage) for f in analyze(blueprint(source)).findings)


def replay(ir: Blueprint, events) -> object:
    state, _ = start(ir, 0)
    for event in events:
        state, _ = replay_step(ir, state, event)
    return state


STRAND = """
[stages.draft]
max_revisits = 2
[stages.draft.transitions.review]
[stages.review]
max_revisits = 1
[stages.review.transitions.draft]
[stages.review.transitions.publish]
[stages.publish]
transitions = {}
"""


def test_a_stage_whose_targets_run_out_strands_and_the_trace_replays_to_the_failure():
    ir = blueprint(STRAND)
    [finding] = [f for f in analyze(ir).findings if f.code == "run-can-strand"]
    assert finding.stage == "draft" and finding.path == ("stages", "draft")
    trace = finding.trace
    assert trace is not None and trace.verified and trace.outcome == "fail:dead_end"
    assert [s.stage for s in trace.steps] == ["draft", "review", "draft", "review", "draft"]
    assert [s.visit for s in trace.steps] == [1, 1, 2, 2, 3]
    state = replay(ir, trace.events)
    assert state.status == "error" and "dead-ended" in (state.reason or "") and state.stage == "draft"


def test_the_heuristic_case_that_cannot_strand_is_not_reported():
    # Leviath's dead-end-possible warns here: both of draft's targets have budgets. But
    # draft is entered twice at most, and review's budget is never spent by then.
    source = STRAND.replace("max_revisits = 2", "max_revisits = 1")
    assert "run-can-strand" not in [code for code, _ in findings(source)]
    assert "dead-end-possible" in [d.code for d in run(source).diagnostics]


def test_a_dead_end_edge_to_an_open_stage_removes_the_strand():
    source = STRAND.replace(
        "[stages.review]\n", '[stages.draft.transitions.publish]\ncondition = "dead_end"\n[stages.review]\n'
    )
    assert "run-can-strand" not in [code for code, _ in findings(source)]


def test_an_error_edge_is_the_dead_ends_fallback():
    source = (
        STRAND.replace(
            "[stages.review]\n",
            '[stages.draft.transitions.fix]\ncondition = "error"\n[stages.review]\n',
        )
        + "[stages.fix]\nmax_revisits = 0\ntransitions = {}\n"
    )
    # 'fix' can be entered once, and a run that enters it ends there: when draft dead-ends,
    # fix is still unspent, so the dead end goes down the error edge instead of failing
    analysis = analyze(blueprint(source))
    assert [f.code for f in analysis.findings] == []
    dead_end_exits = {
        exit.key[:3]
        for key, result in analysis.runs.visits.items()
        if key[0] == "draft"
        for exit in result.exits
        if exit.cause == "end" and exit.condition == "error"
    }
    assert dead_end_exits == {("edge", "fix", "error")}


LOOP = """
[stages.work]
[stages.work.transitions.check]
[stages.check]
[stages.check.transitions.work]
[stages.check.transitions.done]
[stages.done]
transitions = {}
"""


def test_an_unbounded_cycle_is_a_loop_whose_trace_comes_back_to_its_start():
    ir = blueprint(LOOP)
    [finding] = [f for f in analyze(ir).findings if f.code == "run-can-loop-forever"]
    trace = finding.trace
    assert trace is not None and trace.verified and trace.outcome == "loop"
    assert trace.loop_from is not None
    assert [s.stage for s in trace.steps[trace.loop_from :]] == ["work", "check"]
    analysis = analyze(ir)
    assert analysis.ceilings is not None and analysis.ceilings.visits is None


def test_a_capped_stage_on_the_cycle_bounds_it():
    assert findings(LOOP.replace("[stages.work]\n", "[stages.work]\nmax_revisits = 2\n")) == []


def test_a_loop_through_error_edges_is_found():
    source = """
    [stages.work]
    max_iterations = 3
    [stages.work.transitions.done]
    [stages.work.transitions.retry]
    condition = "error"
    [stages.retry]
    max_iterations = 3
    [stages.retry.transitions.work]
    [stages.done]
    transitions = {}
    """
    codes = [code for code, _ in findings(source)]
    assert "run-can-loop-forever" in codes


def test_a_stage_that_never_ends_normally_never_takes_its_normal_edge():
    source = """
    [stages.intake]
    max_iterations = 1
    [stages.intake.transitions.work]
    [stages.intake.transitions.triage]
    condition = "max_iterations"
    [stages.work]
    transitions = {}
    [stages.triage]
    transitions = {}
    """
    # one inference: a text reply is nudged, a tool call is not an end; then the cap fires
    assert findings(source) == [("stage-never-entered", "work")]
    assert findings(dedent(source).replace("max_iterations = 1", "max_iterations = 2")) == []


def test_a_stuck_threshold_that_always_trips_first_leaves_the_cap_edge_untaken():
    source = """
    [stages.work]
    max_iterations = 20
    [stages.work.transitions.review]
    [stages.work.transitions.rethink]
    condition = "stuck"
    stuck_after_iterations = 10
    [stages.work.transitions.handover]
    condition = "max_iterations"
    [stages.rethink.transitions.review]
    [stages.review.transitions.handover]
    [stages.handover]
    transitions = {}
    """
    [finding] = analyze(blueprint(source)).findings
    assert (finding.code, finding.path) == ("edge-never-taken", ("stages", "work", "transitions", "handover"))
    edits = dedent(source).replace("stuck_after_iterations = 10", "stuck_after_same_file_edits = 5")
    assert findings(edits) == []


def test_a_terminal_stage_before_the_output_stage_skips_it():
    source = """
    [stages.research]
    [stages.research.transitions.answer]
    [stages.research.transitions.give_up]
    [stages.give_up]
    transitions = {}
    [stages.answer]
    mode = "output"
    transitions = {}
    """
    ir = blueprint(source)
    [finding] = analyze(ir).findings
    assert (finding.code, finding.stage) == ("output-can-be-skipped", "give_up")
    assert finding.trace is not None and finding.trace.verified and finding.trace.outcome == "fail:no_output"
    state = replay(ir, finding.trace.events)
    assert state.status == "error" and "final output" in (state.reason or "")
    fixed = dedent(source).replace("[stages.give_up]\ntransitions = {}", "[stages.give_up.transitions.answer]")
    assert findings(fixed) == []


def test_done_before_the_output_stage_skips_it():
    source = """
    [stages.work]
    allow_complete = true
    [stages.work.transitions.answer]
    [stages.answer]
    mode = "output"
    transitions = {}
    """
    [finding] = analyze(blueprint(source)).findings
    assert (finding.code, finding.path) == ("output-can-be-skipped", ("stages", "work", "allow_complete"))
    assert finding.trace.outcome == "complete" and finding.trace.verified


def test_a_fan_out_stage_that_never_fans_out_ends_the_run():
    source = """
    [stages.split]
    mode = "fan_out"
    max_iterations = 5
    worker_stage = "item"
    merge_stage = "merge"
    [stages.split.transitions.merge]
    condition = "error"
    [stages.item]
    allow_as_worker = true
    transitions = {}
    [stages.merge]
    max_iterations = 5
    [stages.merge.transitions.answer]
    [stages.answer]
    mode = "output"
    max_iterations = 5
    transitions = {}
    """
    analysis = analyze(blueprint(source))
    assert [(f.code, f.stage) for f in analysis.findings] == [("output-can-be-skipped", "split")]
    assert analysis.ceilings is not None and analysis.ceilings.endless == ("split",)  # the cap never binds fan-out


def test_ceilings_of_a_linear_run_are_the_caps():
    source = (
        QUIET
        + """
    [stages.a]
    max_iterations = 3
    [stages.b]
    max_iterations = 5
    """
    )
    ceilings = analyze(blueprint(source)).ceilings
    assert ceilings is not None and ceilings.bounded
    assert (ceilings.visits, ceilings.inferences) == (2, 8)
    assert [(s.stage, s.visits, s.per_visit) for s in ceilings.stages] == [("a", 1, 3), ("b", 1, 5)]


def test_routing_answers_count_and_gate_blocks_add_routing_rounds():
    source = (
        QUIET
        + """
    [stages.a]
    max_iterations = 4
    available_tools = ["write_file"]
    [stages.a.transitions.b]
    gate = { require_modifications = true, max_attempts = 2 }
    [stages.a.transitions.c]
    [stages.b]
    max_iterations = 1
    transitions = {}
    [stages.c]
    max_iterations = 1
    transitions = {}
    """
    )
    ceilings = analyze(blueprint(source)).ceilings
    # 4 replies, and routing answers: two held by the gate, then the one that leaves
    assert ceilings.stages[0].per_visit == 4 + 3
    assert ceilings.inferences == 7 + 1


def test_a_stage_without_max_iterations_takes_the_default_cap():
    ir = blueprint("[stages.a]\n[stages.b]\nmax_iterations = 2\n")
    ceilings = analyze(ir).ceilings
    assert ceilings.visits == 2 and ceilings.inferences == 52 and ceilings.endless == ()
    assert ceilings.stages[0].per_visit == 50 and ceilings.stages[1].per_visit == 2
    assert analyze(ir, default_max_iterations=7).ceilings.inferences == 9


def test_with_no_default_cap_a_stage_without_max_iterations_has_no_inference_ceiling():
    ceilings = analyze(blueprint("[stages.a]\n[stages.b]\nmax_iterations = 2\n"), default_max_iterations=0).ceilings
    assert ceilings.visits == 2 and ceilings.inferences is None and ceilings.endless == ("a",)
    assert ceilings.stages[0].per_visit is None and ceilings.stages[1].per_visit == 2


def test_revisit_budgets_give_the_visit_ceiling():
    ceilings = analyze(blueprint(STRAND)).ceilings
    assert [(s.stage, s.visits) for s in ceilings.stages] == [("draft", 3), ("review", 2), ("publish", 1)]
    assert ceilings.visits == 5


def test_a_state_limit_withholds_the_never_claims_and_says_so():
    analysis = analyze(
        blueprint(
            STRAND.replace(
                "[stages.publish]\ntransitions = {}", "[stages.publish.transitions.x]\n[stages.x]\ntransitions = {}"
            )
        ),
        limit=2,
    )
    assert not analysis.complete and analysis.ceilings is None
    codes = [f.code for f in analysis.findings]
    assert "analysis-incomplete" in codes
    assert "stage-never-entered" not in codes and "edge-never-taken" not in codes


def test_the_shortcuts_find_the_same_run_graph():
    for source in (STRAND, LOOP):
        ir = blueprint(source)
        fast, slow = explore_runs(ir), explore_runs(ir, reduce=False)
        assert set(fast.nodes) == set(slow.nodes)


def test_odd_ir_never_crashes():
    ghost = Blueprint(
        stages=(
            Stage(name="a", transitions=(Edge(target="ghost"), Edge(target="b", condition="error"))),
            Stage(name="b"),
        )
    )
    analysis = analyze(ghost)
    assert analysis.complete
    empty = analyze(Blueprint(stages=()))
    assert empty.findings == () and empty.states == 0


def test_the_networkx_graph_has_every_run_state_and_ending():
    analysis = analyze(blueprint(STRAND))
    graph = analysis.graph
    states = [n for n in graph.nodes if isinstance(n, int)]
    assert len(states) == analysis.states and graph.nodes[0]["start"] and graph.nodes[0]["stage"] == "draft"
    ends = [n for n in graph.nodes if isinstance(n, str)]
    assert "end:draft:fail:dead_end" in ends
    kinds = {data["kind"] for _, _, data in graph.edges(data=True)}
    assert {"edge", "fail"} <= kinds


def test_a_trace_with_a_wrong_event_does_not_verify():
    ir = blueprint(STRAND)
    [finding] = [f for f in analyze(ir).findings if f.code == "run-can-strand"]
    trace = finding.trace
    broken = type(trace)(trace.steps[:-1], trace.outcome, False)
    assert not verify(ir, broken)


def test_importing_the_registry_or_validating_loads_no_exploration():
    code = (
        "import sys\n"
        "from compiler.pipeline import validate_text\n"
        "validate_text('[agent]\\nname = \"x\"\\n[stages.a]\\n')\n"
        "print(','.join(m for m in ('networkx', 'compiler.analysis.core', 'compiler.analysis.visit') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_checking_does_not_import_networkx():
    code = (
        "import sys\n"
        "from compiler.analysis import analyze\n"
        "from compiler.pipeline import validate_text\n"
        "analyze(validate_text('[agent]\\nname = \"x\"\\n[stages.a]\\nmax_iterations = 2\\n').blueprint)\n"
        "print('networkx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@requires_shared
@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/agent.leviath")), ids=lambda p: p.parent.name)
def test_corpus_runs_are_explored_completely_and_every_trace_replays(path):
    from compiler.pipeline import validate_file

    ir = validate_file(path).blueprint
    analysis = analyze(ir)
    assert analysis.complete and analysis.ceilings is not None
    assert analysis.ceilings.visits is not None  # no corpus blueprint loops for ever
    for finding in analysis.findings:
        assert finding.trace is None or verify(ir, finding.trace)
    assert {f.code for f in analysis.findings} <= {"output-can-be-skipped"}


def test_the_missing_output_reason_is_written_once_however_many_stages_owe_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # A hub routing to 30 output leaves: every explored run end that lacks the final output
    # fails with one reason naming all 30; it is written once per blueprint, not per run end.
    from compiler.runtime import texts

    leaves = [f"leaf{i}" for i in range(30)]
    source = '[agent]\nname = "hub"\n\n[stages.hub]\nmode = "autonomous"\nmax_iterations = 3\n'
    source += "".join(
        f'[stages.hub.transitions.{leaf}]\ncondition = "llm_choice"\nhint = "{leaf}"\n' for leaf in leaves
    )
    source += "".join(
        f'[stages.{leaf}]\nmode = "output"\nmax_iterations = 2\n[stages.{leaf}.transitions]\n' for leaf in leaves
    )
    written = []
    quoted = texts.quoted
    monkeypatch.setattr(texts, "quoted", lambda names: written.append(1) or quoted(names))
    analysis = analyze(blueprint(source))
    assert analysis.complete and analysis.ceilings is not None and analysis.ceilings.visits == 2
    assert len(written) == 1
