"""Questions the runner asks of the IR: budgets, "first" edges, nudges, tools, regions.

Pure functions of the blueprint and a few state fields. "First" always means declaration
order (the reference iterates a hash map); every lookup tolerates a target that names no
stage, which validation rejects but an unvalidated IR may still contain.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..ir.model import (
    DEFAULT_MAX_NUDGES,
    DEFAULT_NUDGE_TEXT,
    MODIFYING_TOOLS,
    Blueprint,
    Edge,
    Layout,
    NudgeConfig,
    ResolvedNudge,
    Stage,
)
from .state import RunState

#: Tools whose presence in `available_tools` lets a stage write context (required regions).
CONTEXT_WRITE_TOOLS: tuple[str, ...] = ("context_write", "context_append")
#: The only tool alias the reference canonicalises.
TOOL_ALIASES: dict[str, str] = {"bash": "shell"}
SEARCH_TOOL = "web_search"
#: Required-region re-runs allowed when the stage sets no `max_revisits`.
DEFAULT_REQUIRED_REENTRIES = 3
#: Missing-output re-runs: fixed, deliberately not `max_revisits`.
OUTPUT_REENTRY_CAP = 3
DEFAULT_FAN_OUT_ATTEMPTS = 3
#: Directive/edit rounds at one interaction point before the stage proceeds anyway.
MAX_REVISION_ROUNDS = 4
#: Per-visit counters the fan-out hand-off carries into the merge stage. Leviath's forced
#: move there resets the visit's progress (iterations, tool calls, gate attempts, nudges,
#: the stuck watch) but keeps these, so a merge stage that is itself a fan-out stage counts
#: as fanned out and is never asked to fan out.
MERGE_CARRIES: tuple[str, ...] = (
    "required_rounds",
    "output_rounds",
    "fan_out_rounds",
    "fanned_out",
    "point_cursor",
    "point_rounds",
)


def within_budget(ir: Blueprint, visits: Mapping[str, int], target: str) -> bool:
    """The target exists and may be entered again (entered at most `max_revisits + 1` times)."""
    stage = ir.stage(target)
    if stage is None:
        return False
    return stage.max_revisits is None or visits.get(target, 0) <= stage.max_revisits


def first_edge(ir: Blueprint, stage: Stage, visits: Mapping[str, int], condition: str) -> Edge | None:
    for edge in stage.edges(condition):
        if within_budget(ir, visits, edge.target):
            return edge
    return None


def resolved_nudge(ir: Blueprint, stage: Stage, global_nudge: NudgeConfig | None) -> ResolvedNudge:
    """Stage → agent → global → default, field by field; the IR already resolved all but global."""
    if global_nudge is None:
        return stage.effective_nudge
    layers = [layer for layer in (stage.nudge, ir.nudge, global_nudge) if layer is not None]

    def first(attr: str, default: Any) -> Any:
        for layer in layers:
            value = getattr(layer, attr)
            if value is not None:
                return value
        return default

    return ResolvedNudge(
        enabled=first("enabled", not stage.is_reviewed),
        max=first("max", DEFAULT_MAX_NUDGES),
        text=first("text", DEFAULT_NUDGE_TEXT),
    )


def required_regions(ir: Blueprint, stage: Stage, *, caller_inputs: bool = True) -> tuple[str, ...]:
    """Regions marked `required` in the stage's layout (its own, else the blueprint's)."""
    return tuple(
        r.name for r in ir.layout_for(stage).regions if r.required and (caller_inputs or r.caller_input is None)
    )


def can_write_context(stage: Stage) -> bool:
    return any(tool in stage.available_tools for tool in CONTEXT_WRITE_TOOLS)


def canonical_tool(name: str) -> str:
    return TOOL_ALIASES.get(name, name)


def modifying_tools(stage: Stage) -> frozenset[str]:
    """`write_file`, `edit_file`, and every tool any outgoing gate of the stage lists."""
    cached = _MODIFYING.get(id(stage))
    if cached is not None and cached[0] is stage:
        return cached[1]
    tools = set(MODIFYING_TOOLS)
    for edge in stage.edges():
        if edge.gate is not None:
            tools.update(canonical_tool(t) for t in edge.gate.tools)
    if len(_MODIFYING) >= _MODIFYING_CACHE_SIZE:
        _MODIFYING.clear()
    _MODIFYING[id(stage)] = (stage, frozenset(tools))
    return _MODIFYING[id(stage)][1]


#: `modifying_tools` per stage object, asked on every tool-calling reply. A stage never
#: changes, and the entry keeps it alive, so its id cannot be reused while the entry exists.
_MODIFYING: dict[int, tuple[Stage, frozenset[str]]] = {}
_MODIFYING_CACHE_SIZE = 1024


def advertises_modifying(stage: Stage, modifying: Iterable[str]) -> bool:
    modifying = frozenset(modifying)
    return any(canonical_tool(t) in modifying for t in stage.available_tools)


def no_output_tools(ir: Blueprint) -> bool:
    """No stage could ever modify a file (fixed at the start of a run)."""
    return not any(advertises_modifying(s, modifying_tools(s)) for s in ir.stages)


def holds(ir: Blueprint, stage: Stage, state: RunState, region: str) -> bool:
    """The context window holds the region: the stage sees it, or the host reported it."""
    return region in visible_regions(ir, stage) or region in state.regions


def visible_regions(ir: Blueprint, stage: Stage) -> frozenset[str]:
    """`Blueprint.visible_regions`, remembered per layout (asked on most events)."""
    layout = ir.layout_for(stage)
    cached = _VISIBLE.get(id(layout))
    if cached is not None and cached[0] is layout:
        return cached[1]
    if len(_VISIBLE) >= _MODIFYING_CACHE_SIZE:
        _VISIBLE.clear()
    visible = ir.visible_regions(stage)
    _VISIBLE[id(layout)] = (layout, visible)
    return visible


#: `visible_regions` per layout object (the entry keeps the layout alive, as `_MODIFYING` does).
_VISIBLE: dict[int, tuple[Layout, frozenset[str]]] = {}


def report_region(ir: Blueprint, stage: Stage, state: RunState, preferred: str) -> str:
    return preferred if holds(ir, stage, state, preferred) else "conversation"


def stage_model(stage: Stage, index: int) -> tuple[str, str]:
    entries = stage.model.entries
    if not entries:
        return ("", "")
    entry = entries[min(max(index, 0), len(entries) - 1)]
    return (entry.provider, entry.model)


def requires_output(stage: Stage) -> bool:
    return stage.require_output


def output_owed_anywhere(ir: Blueprint) -> tuple[str, ...]:
    return tuple(s.name for s in ir.stages if requires_output(s))
