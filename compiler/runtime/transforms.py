"""Edge transforms: which regions an edge empties now, and which it summarizes next.

Applied after the gate passed and before the target stage's layout takes over, over the
regions of the stage being left. "Stage-specific" regions are every kind but `pinned`,
`compact_history`, `hashmap` and a persistent `custom`; `clear`/`compact` touch only those,
while a custom transform names its regions and may touch any kind (as the reference does).
A region is summarized only if it is `summarizable` and not known to be empty (the runner
knows a region's content only from the host's reports, so an unreported one is listed and
the host skips it if it is empty).
"""

from __future__ import annotations

from ..ir.model import Blueprint, Edge, Region, Stage
from .policy import holds
from .state import RunState


def _region(ir: Blueprint, stage: Stage, name: str) -> Region | None:
    found = ir.layout_for(stage).get(name) or ir.layout.get(name)
    if found is None:
        for other in ir.stages:
            if other.layout is not None and other.layout.get(name) is not None:
                return other.layout.get(name)
    return found


def _worth_summarizing(ir: Blueprint, stage: Stage, state: RunState, name: str) -> bool:
    region = _region(ir, stage, name)
    if region is not None and not region.summarizable:
        return False
    known = state.regions.get(name)
    return known is None or not known.empty


def transform_effect(
    ir: Blueprint, stage: Stage, state: RunState, edge: Edge
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(regions to empty now, regions to summarize before the next inference)."""
    kind = edge.transform  # the IR has already read the alias `summarize` as `compact`
    if kind == "custom":
        custom = edge.custom
        if custom is None:
            return (), ()
        carry = set(custom.carry)
        clear = tuple(r for r in dict.fromkeys(custom.clear) if r not in carry and holds(ir, stage, state, r))
        summarize = tuple(
            r
            for r in dict.fromkeys(custom.compact)
            if r not in carry and holds(ir, stage, state, r) and _worth_summarizing(ir, stage, state, r)
        )
        return clear, summarize
    if kind not in ("clear", "compact"):
        return (), ()
    specific = tuple(r.name for r in ir.layout_for(stage).regions if not r.is_fixed)
    if kind == "clear":
        return specific, ()
    if kind == "compact":
        return (), tuple(r for r in specific if _worth_summarizing(ir, stage, state, r))
    return (), ()
