"""Property-based checks of the run analysis against the stage-runner itself.

Over random blueprints (typed IR, up to four stages, small caps and budgets, gates, stuck
edges, interaction points, fan-out and output stages):

- every finding's trace, fed to a fresh run as events, does what the finding says;
- random runs of the runner — random replies, tool calls, region reports, routing answers,
  failures, provider fallbacks, time passing, child runs — stay inside what the analysis
  explored: every stage they enter and every edge they take was found, every strand and
  every skipped output stage they hit was reported, and on blueprints whose runs are
  bounded they never exceed the visit and inference ceilings;
- the shortcuts that only save work (`reduce=False` turns them off) find the same graph.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import event as tally
from hypothesis import strategies as st

from compiler.analysis import analyze
from compiler.analysis.runs import explore_runs
from compiler.analysis.traces import verify
from compiler.analysis.visit import ending
from compiler.ir.model import Blueprint, FanOut, Gate, ResolvedNudge, Stage
from compiler.runtime import (
    ChildFinished,
    ChildStarted,
    InferenceFailed,
    InferenceFinished,
    InteractionAnswered,
    RegionChanged,
    RoutingAnswer,
    RunState,
    TakeEdge,
    Tick,
    ToolCall,
    WorkersFinished,
    WorkspaceLost,
    replay_step,
    start,
    texts,
)
from tests import ir_strategies
from tests.ir_strategies import LAYOUT, NAMES, review_point

TOOLS = ["read_file", "write_file", "edit_file", "context_write", "submit_output", "fan_out"]
SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def gates():
    return st.one_of(
        st.none(),
        st.builds(Gate, require_modifications=st.just(True), max_attempts=st.integers(0, 2)),
        st.builds(
            Gate,
            require_modifications=st.booleans(),
            max_attempts=st.integers(0, 2),
            region=st.sampled_from([None, "notes"]),
            require_region_updated=st.sampled_from([None, "plan"]),
            require_regions=st.sampled_from([(), ("plan",)]),
            require_no_open_items=st.sampled_from([None, "todos"]),
        ),
    )


def edges(names: list[str]):
    return ir_strategies.edges(
        names,
        gates=gates(),
        spread=2,
        conditions=["always", "llm_choice", "llm_choice", "error", "max_iterations", "stuck", "dead_end"],
        stuck_iterations=[None, 2, 3],
        stuck_fallback=2,
        transforms=["direct", "clear"],
    )


@st.composite
def blueprints(draw, bounded: bool = False) -> Blueprint:
    names = NAMES[: draw(st.integers(1, len(NAMES)))]
    stages = []
    for name in names:
        mode = draw(
            st.sampled_from(["autonomous", "autonomous", "autonomous", "output", "interactive_points", "fan_out"])
        )
        if bounded and mode == "fan_out":
            mode = "autonomous"
        tools = tuple(draw(st.lists(st.sampled_from(TOOLS), unique=True, max_size=3)))
        points = ()
        if mode == "interactive_points":
            points = (review_point(draw(st.sampled_from(["auto_approve", "ask"]))),)
        fan_out = None
        if mode == "fan_out":
            fan_out = FanOut(
                worker_stage=draw(st.sampled_from([None, *names])),
                merge_stage=draw(st.sampled_from([None, *names])),
                on_worker_failure=draw(st.sampled_from(["continue", "fail_all"])),
                max_attempts=draw(st.sampled_from([None, 0, 1])),
            )
            tools += ("fan_out",) if "fan_out" not in tools else ()
        caps = [1, 2, 3] if bounded else [None, 0, 1, 2, 3]
        stages.append(
            Stage(
                name=name,
                mode=mode,
                available_tools=tools
                + (("submit_output",) if mode == "output" and "submit_output" not in tools else ()),
                max_iterations=draw(st.sampled_from(caps)),
                max_revisits=draw(st.sampled_from([None, 0, 1, 2])),
                allow_complete=draw(st.booleans()) or mode == "output",
                require_output=mode == "output",
                effective_nudge=ResolvedNudge(enabled=draw(st.booleans()), max=draw(st.integers(0, 2))),
                transitions=draw(st.one_of(st.none(), st.just(()), edges(names), edges(names))),
                interaction_points=points,
                fan_out=fan_out,
            )
        )
    entry = draw(st.sampled_from([None, *names]))
    return Blueprint(name="random", entry_stage=entry, stages=tuple(stages), layout=LAYOUT)


# --- random runs ----------------------------------------------------------------------------------------


def calls():
    return st.builds(
        ToolCall,
        name=st.sampled_from(TOOLS + ["shell", "web_search"]),
        path=st.sampled_from([None, "a.py"]),
        outcome=st.sampled_from(["ok", "ok", "denied", "error", "unavailable"]),
    )


def host_event(state: RunState):
    replies = st.sampled_from(NAMES + ["DONE", "nonsense", ""])
    region = st.builds(
        RegionChanged,
        region=st.sampled_from(["plan", "todos", "notes"]),
        hash=st.sampled_from(["h1", "h2"]),
        entries=st.integers(0, 2),
        open_items=st.sampled_from([(), (("1", "x"),)]),
    )
    by_phase = {
        "infer": st.one_of(
            st.builds(InferenceFinished, text=st.just("done")),
            st.builds(InferenceFinished, tool_calls=st.lists(calls(), min_size=1, max_size=3).map(tuple)),
            st.builds(InferenceFinished, tool_calls=st.lists(calls(), min_size=1, max_size=3).map(tuple)),
            st.builds(InferenceFailed, kind=st.sampled_from(["error", "auth", "forbidden"])),
            region,
            st.builds(Tick),
            st.builds(ChildStarted, child=st.just("c1")),
            st.builds(WorkspaceLost),
        ),
        "route": st.one_of(
            st.builds(RoutingAnswer, reply=replies),
            st.builds(RoutingAnswer, reply=replies),
            region,
            st.builds(InferenceFailed),
        ),
        "interact": st.builds(
            InteractionAnswered,
            answer=st.sampled_from(["Approve", "Revise", "Edit", "Abort", "", None]),
            edited=st.sampled_from([None, "new"]),
        ),
        "children": st.builds(ChildFinished, child=st.just("c1")),
        "workers": st.builds(WorkersFinished, completed=st.integers(0, 1), failed=st.integers(0, 1)),
    }
    return by_phase.get(state.phase, st.builds(Tick))


class Walk:
    """One random run, with what it did: stages, edges, inferences per stage, how it ended."""

    def __init__(self, ir: Blueprint) -> None:
        self.ir = ir
        self.state, _ = start(ir, 0)
        self.entered = {self.state.stage: 1} if not self.state.terminal else {}
        self.taken: set[tuple[str, str, str]] = set()
        self.inferences: dict[str, int] = {}
        self.ended: tuple | None = None
        self.outputs_entered = ir.stage(self.state.stage) is not None and ir.stage(self.state.stage).mode == "output"

    def feed(self, event) -> None:
        before = self.state
        after, actions = replay_step(self.ir, before, event)
        answered = before.phase == "route" and isinstance(event, (RoutingAnswer, InferenceFinished)) and after != before
        count = after.iteration - before.iteration + (1 if answered else 0)
        if count:
            self.inferences[before.stage] = self.inferences.get(before.stage, 0) + count
        for action in actions:
            if isinstance(action, TakeEdge):
                self.entered[action.target] = self.entered.get(action.target, 0) + 1
                self.taken.add((action.source, action.target, action.condition))
                stage = self.ir.stage(action.target)
                self.outputs_entered = self.outputs_entered or (stage is not None and stage.mode == "output")
        stage = self.ir.stage(before.stage)
        if stage is not None and self.ended is None:
            self.ended = ending(self.ir, stage, actions) if after.terminal else None
            if self.ended is not None:
                self.ended = (before.stage, *self.ended)
        self.state = after


def walk(ir: Blueprint, data, steps: int) -> Walk:
    run = Walk(ir)
    now = 0
    for _ in range(steps):
        if run.state.terminal or run.state.status == "paused":
            break
        event = data.draw(host_event(run.state), label="event")
        now += data.draw(st.sampled_from([0, 0, 30, 3600]), label="elapsed")
        run.feed(type(event)(**{**event.__dict__, "now": now}))
    return run


# --- the properties ----------------------------------------------------------------------------------


@SETTINGS
@given(ir=blueprints())
def test_every_trace_replays_to_what_its_finding_claims(ir):
    analysis = analyze(ir)
    for finding in analysis.findings:
        trace = finding.trace
        tally(finding.code)
        if trace is None:
            continue
        assert trace.verified and verify(ir, trace)
        state, _ = start(ir, 0)
        for event in trace.events:
            state, _ = replay_step(ir, state, event)
        if finding.code == "run-can-strand":
            assert state.status == "error" and state.reason == texts.dead_end(finding.stage)
        elif finding.code == "output-can-be-skipped":
            outputs = {s.name for s in ir.stages if s.mode == "output"}
            assert state.terminal and not {s.stage for s in trace.steps} & outputs
        elif finding.code == "run-can-loop-forever":
            assert not state.terminal and state.stage == trace.steps[trace.loop_from].stage


@SETTINGS
@given(ir=blueprints(), data=st.data())
def test_random_runs_stay_inside_what_the_analysis_explored(ir, data):
    analysis = analyze(ir)
    if not analysis.complete:
        return
    runs = analysis.runs
    entered = {node[0] for node in runs.nodes}
    taken = {
        (key[0], exit.target, exit.condition)
        for key, result in runs.visits.items()
        for exit in result.exits
        if exit.kind == "edge"
    }
    strands = {f.stage for f in analysis.findings if f.code == "run-can-strand"}
    skips = {f.stage for f in analysis.findings if f.code == "output-can-be-skipped"}
    for _ in range(3):
        run = walk(ir, data, 40)
        tally(f"run ended: {run.ended[1:3] if run.ended else 'no'}")
        assert set(run.entered) <= entered
        assert run.taken <= taken
        if run.ended and run.ended[1:3] == ("fail", "dead_end"):
            assert run.ended[0] in strands
        outputs = [s for s in ir.stages if s.mode == "output"]
        if (
            run.ended
            and outputs
            and not run.outputs_entered
            and (run.ended[1] == "complete" or run.ended[2] == "no_output")
        ):
            assert run.ended[0] in skips


@SETTINGS
@given(ir=blueprints(bounded=True), data=st.data())
def test_no_random_run_exceeds_the_ceilings(ir, data):
    analysis = analyze(ir)
    ceilings = analysis.ceilings
    tally(f"bounded: {ceilings is not None and ceilings.bounded}")
    if ceilings is None or not ceilings.bounded:
        return
    by_stage = {c.stage: c for c in ceilings.stages}
    for _ in range(3):
        run = walk(ir, data, 80)
        assert sum(run.entered.values()) <= ceilings.visits
        assert sum(run.inferences.values()) <= ceilings.inferences
        for stage, visits in run.entered.items():
            assert visits <= by_stage[stage].visits
        for stage, count in run.inferences.items():
            assert count <= by_stage[stage].inferences


@settings(SETTINGS, max_examples=60)
@given(ir=blueprints())
def test_the_shortcuts_change_nothing(ir):
    fast, slow = explore_runs(ir), explore_runs(ir, reduce=False)
    assert set(fast.nodes) == set(slow.nodes)

    def exits(graph):
        return {
            (graph.nodes[node], graph.visits[graph.visit_keys[node]].exits[number].key)
            for node, edges in enumerate(graph.out)
            for number, _ in edges
        }

    assert exits(fast) == exits(slow)
    assert analyze(ir).ceilings == analyze(ir, reduce=False).ceilings
