"""Edge gates: may the stage leave by this edge yet?

Checks run in a fixed order and the first failing one decides: `require_region_updated`,
`require_no_open_items`, `require_regions`, then `require_modifications` with its escape hatches.
A failing check blocks, with its nudge, while the visit's shared `gate_reentries` is below
the gate's `max_attempts`; after that the gate gives way and the passage is recorded as
forced. A region the context window does not hold never blocks.
"""

from __future__ import annotations

from typing import TypeGuard

from compiler.records import record

from ..ir.model import DEFAULT_GATE_ATTEMPTS, Blueprint, Gate, Stage
from . import texts
from .policy import advertises_modifying, holds, modifying_tools
from .state import RunState

PASS = "pass"
BLOCK = "block"
FORCED = "forced"


@record
class GateDecision:
    verdict: str
    #: The gate key whose check failed (None on a clean pass).
    check: str | None = None
    #: The nudge to inject on a block.
    message: str | None = None


def decide(ir: Blueprint, stage: Stage, state: RunState, gate: Gate) -> GateDecision:
    failure = first_failure(ir, stage, state, gate)
    if failure is None:
        return GateDecision(PASS)
    check, message = failure
    cap = gate.max_attempts if isinstance(gate.max_attempts, int) and gate.max_attempts >= 0 else DEFAULT_GATE_ATTEMPTS
    if state.visit.gate_reentries >= cap:
        return GateDecision(FORCED, check)
    return GateDecision(BLOCK, check, gate.message or message)


def first_failure(ir: Blueprint, stage: Stage, state: RunState, gate: Gate) -> tuple[str, str] | None:
    """(check, generated nudge) of the first unmet requirement, or None when all hold."""

    def held(region: str | None) -> TypeGuard[str]:
        return region is not None and holds(ir, stage, state, region)

    region = gate.require_region_updated
    baseline = state.visit.entry_digests.get(region) if region is not None else None
    if baseline is not None and held(region) and state.region(region).digest == baseline:
        return "require_region_updated", texts.gate_region_unchanged(region, stage.name)

    region = gate.require_no_open_items
    if held(region) and state.region(region).open_items:
        return "require_no_open_items", texts.gate_open_items(region, state.region(region).open_items)

    empty = [r for r in gate.require_regions if held(r) and state.region(r).empty]
    if empty:
        return "require_regions", texts.gate_regions_empty(empty)

    if not gate.require_modifications or modifications_evident(ir, stage, state, gate):
        return None
    return "require_modifications", texts.gate_no_modifications(stage.name)


def modifications_evident(ir: Blueprint, stage: Stage, state: RunState, gate: Gate) -> bool:
    """`require_modifications` is met, or cannot be met and so does not hold the stage."""
    if not advertises_modifying(stage, modifying_tools(stage)):
        return True
    visit = state.visit
    if visit.modifications > 0 or visit.blocked_modifications > 0:
        return True
    return gate.region is not None and holds(ir, stage, state, gate.region) and not state.region(gate.region).empty
