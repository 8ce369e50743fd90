"""What the blueprint allows a recorded run to do next, by the stage-runner's own rules.

A run log from outside (Leviath's world events) says where a run went, not why: no reply
text, no region contents, no times. So each move is judged against every ending the runner
could have reached there, using the tables the runner resolves edges with (`tables`):

* a normal end — the fall-through, a normal edge within its revisit budget (the single edge,
  or any of them by routing), or at a dead end the first `dead_end` (else `error`) edge;
* the iteration cap, once the visit has made that many inferences — the first
  `max_iterations` edge;
* a stuck interrupt — the first `stuck` edge within budget, when it has a threshold;
* an error — the first `error` (else `dead_end`) edge within budget;
* a fan-out stage's hand-off to its merge stage.

Gates only ever delay a move (a held gate is forced in the end), so they never rule one out.
A move outside all of these departs from the blueprint, and `explain_move` says how.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..ir.model import Blueprint, Edge, Stage
from .policy import canonical_tool, within_budget
from .tables import StageTable, tables


def _table(ir: Blueprint, stage: Stage) -> StageTable:
    return tables(ir).stages[stage.name]


def _choosable(table: StageTable, visits: Mapping[str, int]) -> list[Edge]:
    return [edge for edge, target, limit in table.normal if limit is None or visits.get(target, 0) <= limit]


def _first_stuck(table: StageTable, visits: Mapping[str, int]) -> tuple[str, bool] | None:
    """The target of the first stuck edge within budget, and whether it has a threshold."""
    for target, limit, thresholds in table.stuck:
        if limit is None or visits.get(target, 0) <= limit:
            return target, thresholds is not None
    return None


def _escape(table: StageTable, visits: Mapping[str, int], first: str, then: str) -> Edge | None:
    return table.first_edge(visits, first) or table.first_edge(visits, then)


def merge_stage(ir: Blueprint, stage: Stage) -> str | None:
    target = stage.fan_out.merge_stage if stage.mode == "fan_out" and stage.fan_out is not None else None
    return target if target is not None and ir.stage(target) is not None else None


def move_options(ir: Blueprint, stage: Stage, visits: Mapping[str, int], inferences: int, cap: int) -> dict[str, str]:
    """Target → the condition the runner would most plainly take it by (`move_reasons`)."""
    return {target: reasons[0] for target, reasons in move_reasons(ir, stage, visits, inferences, cap).items()}


def move_reasons(
    ir: Blueprint, stage: Stage, visits: Mapping[str, int], inferences: int, cap: int
) -> dict[str, tuple[str, ...]]:
    """Target → every condition the runner could take it by (an edge's condition, or
    `fall_through` / `merge`), for every move allowed from `stage` after a visit of
    `inferences` inferences (cap `cap`, 0 for none), `visits` as they stand."""
    table = _table(ir, stage)
    reasons: dict[str, list[str]] = {}

    def allow(target: str, condition: str) -> None:
        found = reasons.setdefault(target, [])
        if condition not in found:
            found.append(condition)

    if stage.transitions is None:
        following = ir.next_stage(stage)
        if following is not None:
            allow(following.name, "fall_through")
    else:
        choosable = _choosable(table, visits)
        for edge in choosable:
            allow(edge.target, edge.condition)
        if not choosable and table.has_normal:
            dead = _escape(table, visits, "dead_end", "error")
            if dead is not None:
                allow(dead.target, dead.condition)
    merge = merge_stage(ir, stage)
    if merge is not None:
        allow(merge, "merge")
    if cap > 0 and inferences >= cap:
        capped = table.first_edge(visits, "max_iterations")
        if capped is not None:
            allow(capped.target, "max_iterations")
    stuck = _first_stuck(table, visits)
    if stuck is not None and stuck[1]:
        allow(stuck[0], "stuck")
    error = _escape(table, visits, "error", "dead_end")
    if error is not None:
        allow(error.target, error.condition)
    return {target: tuple(found) for target, found in reasons.items()}


def explain_move(
    ir: Blueprint, stage: Stage, target: str, visits: Mapping[str, int], inferences: int, cap: int
) -> tuple[str, str]:
    """`(kind, message)` for a move `move_options` does not allow; the message ends with the
    moves that were allowed there."""
    kind, message = _departure(ir, stage, target, visits, inferences, cap)
    options = move_options(ir, stage, visits, inferences, cap)
    allowed = ", ".join(f"'{t}' ({c.replace('_', '-')})" for t, c in options.items()) or "none: the run ends there"
    return kind, f"{message}; allowed from '{stage.name}' here: {allowed}"


def _departure(
    ir: Blueprint, stage: Stage, target: str, visits: Mapping[str, int], inferences: int, cap: int
) -> tuple[str, str]:
    source = stage.name
    if ir.stage(target) is None:
        return "unknown-stage", f"the run entered '{target}', which is not a stage of the blueprint"
    edges = [edge for edge in stage.edges() if edge.target == target]
    if not edges:
        if stage.transitions is None:
            following = ir.next_stage(stage)
            goes = f"falls through to '{following.name}'" if following is not None else "ends the run"
            return "no-edge", f"'{source}' has no transitions table (it {goes}): there is no edge {source} → {target}"
        leads = ", ".join(dict.fromkeys(f"'{e.target}'" for e in stage.edges()))
        where = f"its edges lead to {leads}" if leads else "it is terminal"
        return "no-edge", f"the blueprint has no edge {source} → {target} ({where})"
    if not within_budget(ir, visits, target):
        limit = ir.stage(target).max_revisits  # type: ignore[union-attr]
        entries = visits.get(target, 0) + 1
        return "over-budget", (
            f"'{target}' entered for the {_ordinal(entries)} time, beyond its revisit budget "
            f"(max_revisits = {limit} allows {(limit or 0) + 1} visit{'s' if limit else ''})"
        )
    table = _table(ir, stage)
    reasons = [_why_not(table, edge, visits, inferences, cap) for edge in edges]
    return "edge-not-taken", "; ".join(dict.fromkeys(reasons))


def _why_not(table: StageTable, edge: Edge, visits: Mapping[str, int], inferences: int, cap: int) -> str:
    name = f"the {edge.condition} edge {table.stage.name} → {edge.target}"
    if edge.condition == "dead_end":
        open_edges = [e.target for e in _choosable(table, visits)]
        if open_edges:
            still = ", ".join(f"'{t}'" for t in open_edges)
            return f"{name} is taken only when no normal edge is within its budget ({still} still is)"
        dead = _escape(table, visits, "dead_end", "error")
        return f"{name} is not the one a dead end takes ({_leads(dead)})"
    if edge.condition == "max_iterations":
        if cap <= 0:
            return f"{name} is taken at the iteration cap, and the stage has none"
        if inferences < cap:
            return f"{name} is taken at the iteration cap: the visit made {inferences} of its {cap} inferences"
        return f"{name} is not the first max_iterations edge within budget ({_leads(table.first_edge(visits, 'max_iterations'))})"
    if edge.condition == "stuck":
        stuck = _first_stuck(table, visits)
        if stuck is not None and stuck[0] == edge.target:
            return f"{name} has no threshold set, so it never fires"
        return f"only the first stuck edge within budget counts ({'it leads to ' + repr(stuck[0]) if stuck else 'none is'})"
    if edge.condition == "error":
        return (
            f"{name} is not the first error edge within budget ({_leads(_escape(table, visits, 'error', 'dead_end'))})"
        )
    return f"{name} is not one the runner takes here"


def _leads(edge: Edge | None) -> str:
    return f"that one leads to '{edge.target}'" if edge is not None else "there is none"


def completion_departure(ir: Blueprint, stage: Stage, visits: Mapping[str, int], final_output: bool) -> str | None:
    """Why the runner would not complete a run in `stage` here, or None when it may (with a
    final output submitted, or not)."""
    table = _table(ir, stage)
    choosable = _choosable(table, visits)
    if stage.allow_complete and choosable:
        return None  # a routing call may answer DONE
    terminal = ir.next_stage(stage) is None if stage.transitions is None else not table.has_normal
    name = stage.name
    if terminal:
        owed = tables(ir).owed
        if owed and not final_output:
            owing = ", ".join(f"'{s}'" for s in owed)
            return (
                f"the run completed in '{name}' with no final output, which {owing} "
                f"require{'s' if len(owed) == 1 else ''}: the runner ends such a run with an error"
            )
        return None
    if stage.transitions is None:
        return f"'{name}' falls through to '{ir.next_stage(stage).name}': the runner does not end a run there"  # type: ignore[union-attr]
    if choosable:
        still = ", ".join(f"'{e.target}'" for e in choosable)
        return f"'{name}' has normal edges within budget ({still}) and no allow_complete: the runner does not end a run there"
    escape = _escape(table, visits, "dead_end", "error")
    if escape is not None:
        return f"every normal edge of '{name}' is out of budget, so the runner takes its {escape.condition} edge to '{escape.target}'"
    return f"every normal edge of '{name}' is out of budget: the runner ends the run with an error (dead-ended)"


def offered_tools(stage: Stage) -> frozenset[str]:
    """The tools a stage offers by name (aliases resolved), as the runner reads them."""
    return frozenset(canonical_tool(t) for t in (*stage.available_tools, *stage.required_tools))


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


__all__ = ["completion_departure", "explain_move", "merge_stage", "move_options", "move_reasons", "offered_tools"]
