"""The summaries that keep the run analysis bounded change none of its answers.

Two of them make a visit's exploration independent of how large a blueprint's numbers are:
a run of repeats (a step, or a lap of two moves, that only adds counts) is skipped through
once RUN_JUMP explored states lead up to it (`visit._Runs`), and tool calls far from every
threshold that reads them are keyed by how far iterations are ahead of them rather than
exactly (`facts.StageFacts.counting`). Over random blueprints whose caps, thresholds and
budgets are long enough for both to act (up to 48 steps), the analysis with them finds the
same findings, the same ceilings and the same run states as the analysis without them
(both pushed out of reach). Bounded: deterministic examples, a few seconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from compiler.analysis import analyze, facts, visit
from compiler.ir.model import Blueprint, Gate, ResolvedNudge, Stage, StuckThresholds
from tests import ir_strategies
from tests.ir_strategies import LAYOUT, NAMES

TOOLS = ["read_file", "write_file", "edit_file", "context_write", "submit_output"]
#: Caps, thresholds and budgets: mostly longer than RUN_JUMP steps.
LONG = [None, 6, 40, 48]


@contextmanager
def exact() -> Iterator[None]:
    """The analysis without the summaries: no run is ever long enough, no count far enough."""
    saved = visit.RUN_JUMP, facts.FAR
    visit.RUN_JUMP, facts.FAR = 10**9, 10**30
    try:
        yield
    finally:
        visit.RUN_JUMP, facts.FAR = saved


def gates():
    return st.one_of(
        st.none(),
        st.builds(Gate, require_modifications=st.just(True), max_attempts=st.sampled_from([2, 40])),
        st.builds(Gate, require_regions=st.just(("plan",)), max_attempts=st.sampled_from([1, 40])),
    )


def stuck_thresholds(draw, edge):
    """A stuck edge's thresholds, long ones among them (the shared strategy's are short)."""
    if edge.stuck is None:
        return edge
    stuck = StuckThresholds(
        iterations=edge.stuck.iterations,
        same_file_edits=draw(st.sampled_from([None, 2, 40])),
        tool_calls=draw(st.sampled_from([None, 7, 30, 48])),
    )
    return replace(edge, stuck=stuck if stuck.armed else StuckThresholds(iterations=44))


@st.composite
def blueprints(draw) -> Blueprint:
    """A working first stage (plain, modifying and context tools; nudges on) whose cap, nudges,
    gates, required-region budget and stuck thresholds draw long values, then up to two more."""
    names = NAMES[: draw(st.integers(2, 3))]
    stages = []
    for number, name in enumerate(names):
        first = number == 0
        mode = "autonomous" if first else draw(st.sampled_from(["autonomous", "output"]))
        tools = (
            ("read_file", "write_file", "context_write")
            if first
            else tuple(draw(st.lists(st.sampled_from(TOOLS), unique=True, min_size=1, max_size=3)))
        )
        edges = draw(
            ir_strategies.edges(
                names,
                gates=gates(),
                spread=2,
                conditions=["always", "llm_choice", "llm_choice", "max_iterations", "stuck", "dead_end"],
                stuck_iterations=[None, 44],
                stuck_fallback=44,
                transforms=["direct"],
            )
            if first
            else st.one_of(
                st.just(()),
                ir_strategies.edges(
                    names,
                    gates=gates(),
                    spread=2,
                    conditions=["always", "llm_choice"],
                    stuck_iterations=[None],
                    stuck_fallback=3,
                    transforms=["direct"],
                ),
            )
        )
        stages.append(
            Stage(
                name=name,
                mode=mode,
                available_tools=tools
                + (("submit_output",) if mode == "output" and "submit_output" not in tools else ()),
                max_iterations=draw(st.sampled_from(LONG if first else [None, 3])),
                max_revisits=draw(st.sampled_from([None, 0, 1, 40])),
                allow_complete=draw(st.booleans()) or mode == "output",
                require_output=mode == "output",
                effective_nudge=ResolvedNudge(enabled=first, max=draw(st.sampled_from([2, 40]))),
                transitions=tuple(stuck_thresholds(draw, edge) for edge in edges),
            )
        )
    return Blueprint(name="long", stages=tuple(stages), layout=LAYOUT)


def answers(ir: Blueprint, limit: int) -> tuple | None:
    analysis = analyze(ir, limit=limit)
    if not analysis.complete:
        return None
    findings = sorted((f.code, f.stage, f.path) for f in analysis.findings)
    return findings, analysis.ceilings, sorted(analysis.runs.nodes, key=repr)


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(blueprints())
def test_summarised_runs_and_far_counts_find_what_step_by_step_exploration_finds(ir):
    summarised = answers(ir, 2_000)
    with exact():
        stepped = answers(ir, 2_000)
    assume(summarised is not None and stepped is not None)
    assert summarised == stepped
