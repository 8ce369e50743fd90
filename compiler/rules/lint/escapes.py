"""Escape-hatch lints: stages that can dead-end, fan-outs that fail whole, useless escapes.

A stage dead-ends when it ends normally and every always/llm_choice target has spent its
`max_revisits`; the runtime then takes the first `dead_end` edge (else the first `error`
edge) whose target is within budget, and fails the run when there is none.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...graph import StageGraph, run_edge
from ...ir.model import Edge, Stage
from ...rulebook.registry import LINT
from ...rulebook.snippets import blueprint as _blueprint
from ...rulebook.snippets import stage as declared
from ..common import edge_path, quoted, reached_stages, stage_path
from ..context import RuleContext

ESCAPE_CONDITIONS = ("dead_end", "error")

#: The fixed example of two rules: a capped review loop whose draft stage can escape to the output.
_ESCAPING_REVIEW_LOOP = _blueprint(
    declared("draft", "max_revisits = 2"),
    "[stages.draft.transitions.review]",
    '[stages.draft.transitions.publish]\ncondition = "dead_end"',
    declared("review", "max_revisits = 2"),
    '[stages.review.transitions.draft]\nhint = "needs changes"',
    '[stages.review.transitions.publish]\nhint = "approved"',
    declared("publish"),
    "[stages.publish.transitions]",
)


DEAD_END_POSSIBLE = LINT.define(
    "dead-end-possible",
    severity="warning",
    summary="A stage can run out of normal ways on, with no dead_end or error edge to take instead.",
    rationale=(
        "When every always/llm_choice target of a stage has used up its `max_revisits`, the "
        "stage dead-ends: the runtime looks for a `dead_end` edge, then an `error` edge, and "
        "fails the run when neither can be taken, throwing away the work so far. A target "
        "can only be spent by the time this stage ends again if the run can come back here "
        "from it, so targets outside this stage's loop never count as spent, and neither "
        "does an escape target with `max_revisits` that cannot lead back here (it is still "
        "unvisited when the dead end comes). Stages no run reaches are left to "
        "`unreachable-stage`; a stage without a transitions table falls through and cannot "
        "dead-end."
    ),
    example=_blueprint(
        declared("draft", "max_revisits = 2"),
        "[stages.draft.transitions.review]",
        declared("review", "max_revisits = 2"),
        '[stages.review.transitions.draft]\nhint = "needs changes"',
        '[stages.review.transitions.publish]\nhint = "approved"',
        declared("publish"),
        "[stages.publish.transitions]",
    ),
    example_fixed=_ESCAPING_REVIEW_LOOP,
    fix='add a condition = "dead_end" edge to a stage without max_revisits (usually the output stage)',
    leviath="dead-end-possible",
    differs=(
        "Leviath's check is local: it counts every capped target as spendable and every "
        "capped escape as spent, even for a stage no loop ever brings back, and it also "
        "reports stages no run reaches."
    ),
)

FANOUT_NO_ESCAPE = LINT.define(
    "fanout-no-escape",
    severity="warning",
    summary='A fan-out stage with `on_worker_failure = "fail_all"` has no error or dead_end edge.',
    rationale=(
        "Under `fail_all` one failed worker fails the whole fan-out stage. The runtime then "
        "looks for the stage's `error` edge (then its `dead_end` edge); without one, a single "
        "flaky worker ends the entire run in error and every other worker's result is lost. "
        "A capped recovery target is accepted: spending its budget is a limit the author "
        "chose."
    ),
    example=_blueprint(
        declared("split", 'worker_stage = "item"\non_worker_failure = "fail_all"', mode="fan_out"),
        "[stages.split.transitions.merge]",
        declared("item", "allow_as_worker = true"),
        "[stages.item.transitions]",
        declared("merge"),
        "[stages.merge.transitions]",
    ),
    example_fixed=_blueprint(
        declared("split", 'worker_stage = "item"\non_worker_failure = "fail_all"', mode="fan_out"),
        "[stages.split.transitions.merge]",
        '[stages.split.transitions.report]\ncondition = "error"',
        declared("item", "allow_as_worker = true"),
        "[stages.item.transitions]",
        declared("merge"),
        "[stages.merge.transitions]",
        declared("report"),
        "[stages.report.transitions]",
    ),
    fix='add a condition = "error" edge to a recovery stage, or keep on_worker_failure = "continue"',
    leviath="fanout-no-escape",
)

DEAD_END_EDGE_TO_ITSELF = LINT.define(
    "dead-end-edge-to-itself",
    severity="warning",
    summary="A `dead_end` edge leads back to its own stage, which cannot end the dead end.",
    rationale=(
        "A dead end means every normal target of the stage has spent its `max_revisits`. "
        "Re-entering the same stage changes none of those budgets, so its next normal end "
        "dead-ends again: the edge only re-runs the stage until its own revisits are spent "
        "too, paying for every lap, and then the run takes the error edge or fails, as it "
        "would have at once. (Without `max_revisits` such a self-loop is the structure "
        "error `self-loop-without-max-revisits`.)"
    ),
    example=_blueprint(
        declared("draft", "max_revisits = 2"),
        "[stages.draft.transitions.review]",
        '[stages.draft.transitions.draft]\ncondition = "dead_end"',
        declared("review", "max_revisits = 2"),
        '[stages.review.transitions.draft]\nhint = "needs changes"',
        '[stages.review.transitions.publish]\nhint = "approved"',
        declared("publish"),
        "[stages.publish.transitions]",
    ),
    example_fixed=_ESCAPING_REVIEW_LOOP,
    fix="point the dead_end edge at a stage that can finish the run (usually the output stage)",
)


def _open_escape(graph: StageGraph, stage: Stage, edge: Edge, loop: dict[str, int]) -> bool:
    """The escape can still be taken when the stage dead-ends: its target is uncapped, or it
    cannot lead back here (so the run has never entered it before)."""
    target = graph.node(edge.target)
    if target is None:
        return False
    return not target.capped or loop.get(edge.target) != loop.get(stage.name)


def _spendable(graph: StageGraph, stage: Stage, edge: Edge, loop: dict[str, int]) -> bool:
    """The target may be out of budget when this stage ends: it is capped and the run can
    come back here after entering it."""
    target = graph.node(edge.target)
    return target is not None and target.capped and loop.get(edge.target) == loop.get(stage.name)


@LINT.check(DEAD_END_POSSIBLE)
def check_dead_ends(ctx: RuleContext) -> Iterator[Diagnostic]:
    graph = ctx.graph
    reached = reached_stages(ctx)
    loop = graph.component_ids(run_edge)
    for node in graph.nodes:
        stage = node.stage
        normal = stage.normal_edges
        if not normal or node.name not in reached or any(graph.node(e.target) is None for e in normal):
            continue  # nothing to route, never runs, or `unknown-stage` already explains the dead end
        if not all(_spendable(graph, stage, edge, loop) for edge in normal):
            continue
        escapes = [e for e in stage.edges() if e.condition in ESCAPE_CONDITIONS]
        if any(_open_escape(graph, stage, e, loop) for e in escapes):
            continue
        targets = list(dict.fromkeys(e.target for e in normal))
        one = len(targets) == 1
        message = (
            f"stage '{node.name}' can dead-end: its normal {'target' if one else 'targets'} {quoted(targets)} "
            f"{'has' if one else 'have'} max_revisits and the run can loop back here, "
            f"so once {'it is' if one else 'they are'} spent the stage has nowhere to go"
        )
        spent = [e.target for e in escapes if graph.node(e.target) is not None]
        if spent:
            message += f", and its escape {'edge' if len(spent) == 1 else 'edges'} to {quoted(spent)} may be spent too"
        yield ctx.report(DEAD_END_POSSIBLE, message + "; the run then fails", stage_path(node.name))


@LINT.check(FANOUT_NO_ESCAPE)
def check_fan_out_escape(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        if stage.mode != "fan_out" or stage.fan_out is None or stage.fan_out.on_worker_failure != "fail_all":
            continue
        if any(e.condition in ESCAPE_CONDITIONS and ctx.blueprint.stage(e.target) is not None for e in stage.edges()):
            continue
        yield ctx.report(
            FANOUT_NO_ESCAPE,
            f"fan-out stage '{stage.name}' fails as a whole when one worker fails "
            '(on_worker_failure = "fail_all"), and it has no error or dead_end edge to recover, '
            "so one failed worker ends the run in error",
            ("stages", stage.name, "on_worker_failure"),
        )


@LINT.check(DEAD_END_EDGE_TO_ITSELF)
def check_dead_end_self_loops(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        if not stage.max_revisits:
            continue  # None: self-loop-without-max-revisits; 0: edge-target-always-spent
        for edge in stage.edges("dead_end"):
            if edge.target != stage.name:
                continue
            yield ctx.report(
                DEAD_END_EDGE_TO_ITSELF,
                f"the dead_end transition of stage '{stage.name}' leads back to '{stage.name}': its normal "
                "targets stay spent, so each re-run dead-ends again, up to "
                f"{stage.max_revisits} more time{'s' if stage.max_revisits != 1 else ''}, before the run "
                "falls back on an error edge or fails",
                edge_path(stage.name, edge.target),
            )
