"""Budget lints: edges and thresholds that the runner's caps and budgets make dead.

Each finds an edge or a stuck threshold the author wrote as a safety net that never fires
at run time, because an iteration cap, a revisit budget or an earlier edge always decides
first (runner.md §2.1, §3.2, §4.2). The run then behaves as if the net were not there.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...graph import run_edge
from ...ir.model import Stage
from ...rulebook.registry import LINT
from ...rulebook.snippets import blueprint as _blueprint
from ...rulebook.snippets import stage as declared
from ..common import edge_path, edges
from ..context import RuleContext

#: Conditions of which the runtime takes only the first edge whose target is within budget.
CONDITIONED = ("error", "dead_end", "max_iterations", "stuck")


STUCK_THRESHOLD_AFTER_CAP = LINT.define(
    "stuck-threshold-after-cap",
    severity="warning",
    summary="`stuck_after_iterations` is at or above the stage's iteration cap, so it never trips.",
    rationale=(
        "Before each inference the runner checks the iteration cap first and stuck detection "
        "second. With `stuck_after_iterations` at or above the cap the cap ends the stage on "
        "the very turn the threshold would have tripped, so the stuck edge (with its report "
        "and its recovery stage) never fires on that count, and a churning stage is cut off "
        "by the cap instead. The cap is the stage's `max_iterations`, or, when that is unset "
        "or 0, the default cap (`default-max-iterations`, 50 unless configured, as Leviath's "
        "daemon applies it). Fan-out stages are exempt: no cap applies to them."
    ),
    example=_blueprint(
        declared("implement"),
        "[stages.implement.transitions.review]",
        '[stages.implement.transitions.rethink]\ncondition = "stuck"\nstuck_after_iterations = 20',
        declared("rethink"),
        "[stages.rethink.transitions]",
        declared("review"),
        "[stages.review.transitions]",
    ),
    example_fixed=_blueprint(
        declared("implement"),
        "[stages.implement.transitions.review]",
        '[stages.implement.transitions.rethink]\ncondition = "stuck"\nstuck_after_iterations = 15',
        declared("rethink"),
        "[stages.rethink.transitions]",
        declared("review"),
        "[stages.review.transitions]",
    ),
    fix="set stuck_after_iterations below the stage's iteration cap, or raise max_iterations",
)

MAX_ITERATIONS_EDGE_WITHOUT_CAP = LINT.define(
    "max-iterations-edge-without-cap",
    severity="warning",
    summary='An edge with `condition = "max_iterations"` leaves a stage that no iteration cap ends.',
    rationale=(
        "A `max_iterations` edge is taken when the stage hits its iteration cap. A stage with "
        "`max_iterations` unset or 0 takes the default cap (`default-max-iterations`, 50 "
        "unless configured, as Leviath's daemon applies it), so its edge fires after that "
        "many turns. A fan-out stage (no cap ever applies to it), or a stage without its own "
        "cap when the default is 0, never hits one, so the edge is never taken and a stage "
        "that keeps working is never handed to the stage meant to take over."
    ),
    example=_blueprint(
        declared("split", 'worker_agent = "helper"\nmerge_stage = "merge"', mode="fan_out", max_iterations=None),
        '[stages.split.transitions.error_report]\ncondition = "error"',
        '[stages.split.transitions.merge]\ncondition = "max_iterations"',
        declared("merge"),
        "[stages.merge.transitions]",
        declared("error_report"),
        "[stages.error_report.transitions]",
    ),
    example_fixed=_blueprint(
        declared("split", 'worker_agent = "helper"\nmerge_stage = "merge"', mode="fan_out", max_iterations=None),
        '[stages.split.transitions.error_report]\ncondition = "error"',
        declared("merge"),
        "[stages.merge.transitions]",
        declared("error_report"),
        "[stages.error_report.transitions]",
    ),
    fix="set max_iterations on the stage, or remove the edge",
)

EDGE_TARGET_ALWAYS_SPENT = LINT.define(
    "edge-target-always-spent",
    severity="warning",
    summary="An edge leads to a stage with `max_revisits = 0` that every run has already entered.",
    rationale=(
        "A transition is refused once its target has been entered more than `max_revisits` "
        "times, and `max_revisits = 0` allows a single visit. When every path from the entry "
        "to this edge's stage passes through the target (or the target is the stage itself, "
        "or the entry), that visit is spent before the edge could fire, so the edge is never "
        "taken: a review that 'sends the plan back' never does, and a stuck or error edge "
        "gives no recovery (a stuck edge whose target is spent is not even watched)."
    ),
    example=_blueprint(
        declared("plan", "max_revisits = 0"),
        "[stages.plan.transitions.review]",
        declared("review"),
        '[stages.review.transitions.plan]\nhint = "the plan needs work"',
        '[stages.review.transitions.done]\nhint = "approved"',
        declared("done"),
        "[stages.done.transitions]",
    ),
    example_fixed=_blueprint(
        declared("plan", "max_revisits = 2"),
        "[stages.plan.transitions.review]",
        declared("review"),
        '[stages.review.transitions.plan]\nhint = "the plan needs work"',
        '[stages.review.transitions.done]\nhint = "approved"',
        declared("done"),
        "[stages.done.transitions]",
    ),
    fix="raise max_revisits on the target (0 allows no re-entry), or remove the edge",
)

SHADOWED_EDGE = LINT.define(
    "shadowed-edge",
    severity="warning",
    summary=(
        "In declaration order, a conditioned edge is never taken: an earlier edge with the same condition always wins."
    ),
    rationale=(
        "For an error, dead end, iteration cap or stuck interrupt our stage-runner takes the "
        "first edge of that condition, in declaration order, whose target is within its "
        "revisit budget. When an earlier one leads to a stage without `max_revisits`, it is "
        "always available, so every later edge with the same condition is dead in "
        "`blueprint run` and `blueprint check`; for `stuck` edges their thresholds are never "
        "even evaluated. Leviath has no such order: it picks among the edges in hash-map "
        "order, which changes from process to process, so there either edge may be taken "
        "(`ambiguous-edge-order` reports that). Either way the author's second recovery path, "
        "or second stuck watch, is not what it seems."
    ),
    example=_blueprint(
        declared("work"),
        "[stages.work.transitions.done]",
        '[stages.work.transitions.retry]\ncondition = "error"',
        '[stages.work.transitions.report]\ncondition = "error"',
        declared("retry"),
        "[stages.retry.transitions]",
        declared("report"),
        "[stages.report.transitions]",
        declared("done"),
        "[stages.done.transitions]",
    ),
    example_fixed=_blueprint(
        declared("work"),
        "[stages.work.transitions.done]",
        '[stages.work.transitions.report]\ncondition = "error"',
        declared("report"),
        "[stages.report.transitions]",
        declared("done"),
        "[stages.done.transitions]",
    ),
    fix="keep one edge per condition, or cap the earlier target with max_revisits so this one takes over",
    differs=(
        "Leviath's runtime keeps edges in a hash map, so which of two such edges it takes is "
        "random per process; we take the first in declaration order."
    ),
)


@LINT.check(STUCK_THRESHOLD_AFTER_CAP)
def check_stuck_after_cap(ctx: RuleContext) -> Iterator[Diagnostic]:
    default = ctx.settings.default_max_iterations
    for stage, edge in edges(ctx):
        stuck, cap = edge.stuck, stage.iteration_cap(default)
        if edge.condition != "stuck" or stuck is None or stuck.iterations is None:
            continue
        if not cap or stuck.iterations < cap:
            continue
        others = any(v is not None for v in (stuck.minutes, stuck.same_file_edits, stuck.tool_calls))
        tail = "" if others else ", and it is the edge's only threshold, so the edge never fires"
        own = bool(stage.max_iterations)
        stops = f"max_iterations = {cap}" if own else f"the default cap of {cap} (default-max-iterations)"
        yield ctx.report(
            STUCK_THRESHOLD_AFTER_CAP,
            f"stuck_after_iterations = {stuck.iterations} on the stuck transition from '{stage.name}' to "
            f"'{edge.target}' never trips: stage '{stage.name}' stops at {stops} first "
            f"(the cap is checked before stuck detection){tail}",
            edge_path(stage.name, edge.target) + ("stuck_after_iterations",),
            fix=f"set stuck_after_iterations below {cap}, or raise max_iterations",
        )


@LINT.check(MAX_ITERATIONS_EDGE_WITHOUT_CAP)
def check_uncapped_max_iterations_edges(ctx: RuleContext) -> Iterator[Diagnostic]:
    default = ctx.settings.default_max_iterations
    for stage, edge in edges(ctx):
        if edge.condition != "max_iterations" or stage.iteration_cap(default):
            continue
        if stage.mode == "fan_out":
            why = "fan-out stages are never capped"
        else:
            own = "sets no max_iterations" if stage.max_iterations is None else "has max_iterations = 0"
            why = f"stage '{stage.name}' {own} and default-max-iterations is 0, so no cap ever ends it"
        yield ctx.report(
            MAX_ITERATIONS_EDGE_WITHOUT_CAP,
            f"the max_iterations transition from '{stage.name}' to '{edge.target}' is never taken: {why}",
            edge_path(stage.name, edge.target),
        )


@LINT.check(EDGE_TARGET_ALWAYS_SPENT)
def check_spent_targets(ctx: RuleContext) -> Iterator[Diagnostic]:
    graph = ctx.graph
    single_visit = {node.name for node in graph.nodes if node.stage.max_revisits == 0}
    if not single_visit:
        return
    dominators = graph.dominators(run_edge)
    for stage, edge in edges(ctx):
        if edge.target not in single_visit or not dominators.dominates(edge.target, stage.name):
            continue
        what = f"the {edge.condition} transition from '{stage.name}' to '{edge.target}' is never taken"
        if edge.target == stage.name:
            why = f"'{stage.name}' has max_revisits = 0, so it can never be re-entered"
        elif edge.target == graph.entry:
            why = f"'{edge.target}' has max_revisits = 0 and, as the stage every run starts in, has had its one visit"
        else:
            why = (
                f"'{edge.target}' has max_revisits = 0 and every run reaches '{stage.name}' through it, "
                "so its one visit is already spent"
            )
        if edge.condition == "stuck":
            why += f" (stuck detection in '{stage.name}' does not even watch an edge whose target is spent)"
        yield ctx.report(
            EDGE_TARGET_ALWAYS_SPENT,
            f"{what}: {why}",
            edge_path(stage.name, edge.target),
            fix=f"raise max_revisits on '{edge.target}' (0 allows no re-entry), or remove the transition",
        )


def _always_open(ctx: RuleContext, stage: Stage, condition: str):
    """The first edge of `condition` whose target exists and has no max_revisits."""
    for edge in stage.edges(condition):
        target = ctx.blueprint.stage(edge.target)
        if target is not None and target.max_revisits is None:
            return edge
    return None


@LINT.check(SHADOWED_EDGE)
def check_shadowed_edges(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        for condition in CONDITIONED:
            winner = _always_open(ctx, stage, condition)
            if winner is None:
                continue
            later = stage.edges(condition)
            for edge in later[later.index(winner) + 1 :]:
                tail = ", and its thresholds are never evaluated" if condition == "stuck" else ""
                yield ctx.report(
                    SHADOWED_EDGE,
                    f"in declaration order, the {condition} transition from '{stage.name}' to '{edge.target}' "
                    f"is never taken: the {condition} transition to '{winner.target}' comes first and is always "
                    f"available ('{winner.target}' has no max_revisits){tail}; Leviath's order is not this one "
                    "(ambiguous-edge-order)",
                    edge_path(stage.name, edge.target),
                )
