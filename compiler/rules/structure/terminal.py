"""Whether a graph blueprint can end at all (the reference's terminal-path rule, V19).

Exactly the reference's search (format.md §3.7): from the entry stage, follow every edge
whatever its condition; a fan-out stage with a merge stage leads only to the merge stage;
a stage without transitions leads to the next declared stage, and is terminal only when
it is the last; an empty transitions table is terminal. Budgets and conditions are
ignored. Edges to stages that do not exist lead nowhere (`unknown-stage` reports them).
"""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...ir.model import Blueprint, Stage
from ...rulebook.registry import STRUCTURE
from ...rulebook.snippets import blueprint
from ...rulebook.snippets import stage as declared
from ..context import RuleContext
from .common import quoted, stage_path

NO_TERMINAL_PATH = STRUCTURE.define(
    "no-terminal-path",
    severity="error",
    summary="No stage that ends the run can be reached from the entry stage.",
    rationale=(
        "A run ends in a stage with an empty transitions table, or in the last declared stage "
        "when it has no transitions. If none of them can be reached from the entry stage, "
        "every run loops or strands and never completes. The reference runtime refuses such "
        "a graph. Like the reference, the search follows every edge whatever its condition."
    ),
    example=blueprint(
        declared("plan", "max_revisits = 3"),
        "[stages.plan.transitions.work]",
        declared("work"),
        "[stages.work.transitions.plan]",
    ),
    example_fixed=blueprint(
        declared("plan", "max_revisits = 3"),
        "[stages.plan.transitions.work]",
        declared("work"),
        "[stages.work.transitions.plan]\n[stages.work.transitions.done]",
        declared("done"),
    ),
    fix="give the final stage an empty transitions table, or add an edge to a stage that ends the run",
    leviath="V19",
)


def successors(blueprint: Blueprint, stage: Stage) -> tuple[Stage, ...] | None:
    """The stages the terminal-path search moves to from `stage`; None when it is terminal."""
    merge = stage.fan_out.merge_stage if stage.fan_out else None
    merge_stage = blueprint.stage(merge) if merge is not None else None
    if merge_stage is not None:
        return (merge_stage,)
    if stage.transitions is None:
        following = blueprint.next_stage(stage)
        return None if following is None else (following,)
    if not stage.transitions:
        return None
    targets = (blueprint.stage(edge.target) for edge in stage.transitions)
    return tuple(t for t in targets if t is not None)


def reachable_without_end(blueprint: Blueprint, entry: Stage) -> list[Stage] | None:
    """Every stage the search reaches, in discovery order, or None once it finds a terminal."""
    seen = {entry.name}
    order = [entry]
    stack = [entry]
    while stack:
        following = successors(blueprint, stack.pop())
        if following is None:
            return None
        for stage in reversed(following):
            if stage.name not in seen:
                seen.add(stage.name)
                order.append(stage)
                stack.append(stage)
    return order


@STRUCTURE.check(NO_TERMINAL_PATH)
def check_terminal_path(ctx: RuleContext) -> Iterator[Diagnostic]:
    blueprint = ctx.blueprint
    if not blueprint.graph_mode:
        return
    entry = blueprint.stage(blueprint.entry)
    if entry is None:
        return
    reached = reachable_without_end(blueprint, entry)
    if reached is None:
        return
    names = [s.name for s in reached]
    if len(names) == 1:
        what = f"entry stage '{entry.name}' never ends the run and leads to no stage that does"
    else:
        what = (
            f"none of the {len(names)} stages reachable from entry stage '{entry.name}' ({quoted(names)}) ends the run"
        )
    yield ctx.report(
        NO_TERMINAL_PATH,
        f"no run can complete: {what} (a run ends in a stage with an empty transitions table, "
        "or in the last declared stage when it has no transitions)",
        stage_path(entry.name),
    )
