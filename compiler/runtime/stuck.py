"""Stuck detection: is a stage that keeps working getting nowhere?

Only the first `stuck` edge still within its target's budget is consulted (so an exhausted
escape hatch means no interrupt: `max_iterations` stays the hard cap). Its thresholds are
checked in a fixed order, the first to trip giving the reason: same-file edits (the single
hottest path; ties go to the alphabetically smallest), inference turns, tool calls, then
wall-clock minutes since the stuck clock started (lazily, the first time the stage was
looked at). Non-positive thresholds are unset.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..ir.model import Blueprint, Edge, Stage, StuckThresholds
from . import texts
from .policy import first_edge
from .state import Visit


def stuck_edge(ir: Blueprint, stage: Stage, visits: Mapping[str, int]) -> Edge | None:
    edge = first_edge(ir, stage, visits, "stuck")
    if edge is None or edge.stuck is None or not edge.stuck.armed:
        return None
    return edge


def hottest_edit(edits: Mapping[str, int]) -> tuple[str, int] | None:
    if not edits:
        return None
    return min(edits.items(), key=lambda item: (-item[1], item[0]))


def _limit(value: int | None) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


#: The positive thresholds of a `StuckThresholds`, in the order they are checked: (same-file
#: edits, iterations, tool calls, minutes), each None when unset.
Limits = tuple["int | None", "int | None", "int | None", "int | None"]


def limits(thresholds: StuckThresholds) -> Limits:
    return (
        _limit(thresholds.same_file_edits),
        _limit(thresholds.iterations),
        _limit(thresholds.tool_calls),
        _limit(thresholds.minutes),
    )


def stuck_reason(thresholds: StuckThresholds, visit: Visit, now: float) -> str | None:
    return reason(limits(thresholds), visit, now)


def reason(limits: Limits, visit: Visit, now: float) -> str | None:
    """Why the visit counts as stuck under these limits (the first to trip), or None."""
    edits, iterations, tool_calls, minutes = limits
    if edits is not None:
        hottest = hottest_edit(visit.edits)
        if hottest is not None and hottest[1] >= edits:
            return texts.stuck_reason_churn(*hottest)
    if iterations is not None and visit.iterations >= iterations:
        return texts.stuck_reason_iterations(visit.iterations)
    if tool_calls is not None and visit.tool_calls >= tool_calls:
        return texts.stuck_reason_tool_calls(visit.tool_calls)
    if minutes is not None and visit.stuck_since is not None:
        elapsed = now - visit.stuck_since
        if elapsed >= minutes * 60:
            return texts.stuck_reason_minutes(int(elapsed // 60))
    return None
