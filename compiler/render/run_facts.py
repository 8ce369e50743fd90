"""What `blueprint check` found about a blueprint's runs, shaped for its docs page.

People would rather see than read where a blueprint spends its inferences, so the page
draws the analysis: each stage's worst-case visits and inferences as a heat colour on its
box (with a legend), each counterexample run (a loop, a strand, a skipped output) as a path
over the diagram's arrows with its steps, and a chart of the ceilings. Everything here comes
from one `Analysis` (the one `check` made, when there is one: nothing is explored twice).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compiler.records import record

if TYPE_CHECKING:
    from ..analysis.core import Analysis
    from ..analysis.traces import TraceStep
    from .diagram import Drawing

#: The heat scale, coolest first (light enough for dark text), and the colour of a stage
#: whose worst case has no limit. A stage no run enters keeps the plain fill.
HEAT = ("#fff5d6", "#fde3a7", "#fbc77c", "#f7a35c", "#f07c4a")
UNBOUNDED_HEAT = "#d9472b"


@record
class StageFacts:
    stage: str
    #: The most times one run enters the stage, inferences per visit, and their product
    #: (None: no limit).
    visits: int | None
    per_visit: int | None
    inferences: int | None
    #: The heat colour of its box ("" when no run enters it).
    heat: str


@record
class Step:
    number: int
    text: str
    #: The drawing's arrow the step leaves by (its index), if it leaves by one.
    arrow: int | None
    #: The step is part of the repeating part of a loop.
    repeats: bool


@record
class TraceFacts:
    number: int
    code: str
    stage: str | None
    message: str
    outcome: str
    verified: bool
    steps: tuple[Step, ...]
    #: Node ids of the stages the run visits, in the drawing.
    nodes: tuple[str, ...]

    @property
    def arrows(self) -> tuple[int, ...]:
        return tuple(sorted({s.arrow for s in self.steps if s.arrow is not None}))


@record
class RunFacts:
    complete: bool
    states: int
    #: The most stage visits and inferences one run makes (None: unbounded, or not known
    #: because the exploration was cut short).
    visits: int | None
    inferences: int | None
    stages: tuple[StageFacts, ...]
    traces: tuple[TraceFacts, ...]
    #: The heat scale's bins: (colour, lowest, highest inferences) — empty without ceilings.
    scale: tuple[tuple[str, int, int], ...] = ()

    def heat_of(self, stage: str) -> str:
        return next((s.heat for s in self.stages if s.stage == stage), "")

    def stage_facts(self, stage: str) -> StageFacts | None:
        return next((s for s in self.stages if s.stage == stage), None)


def run_facts(analysis: "Analysis", picture: "Drawing", shown: set[tuple[str, str]] | None = None) -> RunFacts:
    """The page's view of `analysis`, tied to the arrows of `picture`. `shown` keeps only the
    traced findings reported with these (code, message) pairs (None: every traced finding)."""
    ceilings = analysis.ceilings
    stages: tuple[StageFacts, ...] = ()
    scale: tuple[tuple[str, int, int], ...] = ()
    if ceilings is not None:
        top = max((s.inferences for s in ceilings.stages if s.inferences is not None), default=0)
        scale = _scale(top)
        stages = tuple(
            StageFacts(s.stage, s.visits, s.per_visit, s.inferences, _heat(s.visits, s.inferences, top))
            for s in ceilings.stages
        )
    traced = [f for f in analysis.findings if f.trace is not None and (shown is None or (f.code, f.message) in shown)]
    traces = tuple(_trace(number, finding, picture) for number, finding in enumerate(traced, 1))
    return RunFacts(
        analysis.complete,
        analysis.states,
        ceilings.visits if ceilings is not None else None,
        ceilings.inferences if ceilings is not None else None,
        stages,
        traces,
        scale,
    )


def _heat(visits: int | None, inferences: int | None, top: int) -> str:
    if visits == 0:
        return ""
    if inferences is None:
        return UNBOUNDED_HEAT
    if top <= 0:
        return HEAT[0]
    return HEAT[min(len(HEAT) - 1, inferences * len(HEAT) // (top + 1))]


def _scale(top: int) -> tuple[tuple[str, int, int], ...]:
    """Each colour with the inferences it stands for (the bins `_heat` uses)."""
    bins = []
    for i, colour in enumerate(HEAT):
        low = -(-i * (top + 1) // len(HEAT))  # the smallest n with n * len(HEAT) // (top + 1) == i
        high = -(-(i + 1) * (top + 1) // len(HEAT)) - 1
        if low <= high:
            bins.append((colour, low, high))
    return tuple(bins)


def _trace(number: int, finding, picture: "Drawing") -> TraceFacts:
    trace = finding.trace
    ids = {node.name: node.id for node in picture.nodes if node.kind == "stage"}
    steps = tuple(
        Step(
            i + 1,
            step.describe(),
            _arrow_of(step, picture, ids),
            trace.loop_from is not None and i >= trace.loop_from,
        )
        for i, step in enumerate(trace.steps)
    )
    nodes = tuple(dict.fromkeys(ids[s.stage] for s in trace.steps if s.stage in ids))
    return TraceFacts(number, finding.code, finding.stage, finding.message, trace.outcome, trace.verified, steps, nodes)


def _arrow_of(step: "TraceStep", picture: "Drawing", ids: dict[str, str]) -> int | None:
    """The arrow a step leaves its stage by: the transition with its target and condition,
    or the fall-through or merge hand-off."""
    if step.exit[0] != "edge":
        return None
    source, target, condition = ids.get(step.stage), ids.get(step.exit[1]), step.exit[2]
    kind = condition if condition in ("fall_through", "merge") else "transition"
    for index, arrow in enumerate(picture.arrows):
        if (arrow.source, arrow.target, arrow.kind) != (source, target, kind):
            continue
        if kind != "transition" or (arrow.condition or "always") == condition:
            return index
    return None


__all__ = ["HEAT", "UNBOUNDED_HEAT", "RunFacts", "StageFacts", "Step", "TraceFacts", "run_facts"]
