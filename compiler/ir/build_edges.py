"""Transitions: edges in declaration order, conditions, transforms, gates, stuck thresholds
(format.md §3)."""

from __future__ import annotations

from typing import Any

from .build_values import (
    Table,
    get_bool,
    get_nonneg_int,
    get_positive_int,
    get_str,
    get_str_list,
    get_trimmed,
    is_table,
    one_of,
)
from .model import (
    CONDITIONS,
    DEFAULT_GATE_ATTEMPTS,
    CustomTransform,
    Edge,
    Gate,
    StuckThresholds,
    Transform,
)

#: The edge keys that arm stuck detection, and the `StuckThresholds` field each fills.
STUCK_KEYS = {
    "stuck_after_iterations": "iterations",
    "stuck_after_minutes": "minutes",
    "stuck_after_same_file_edits": "same_file_edits",
    "stuck_after_tool_calls": "tool_calls",
}
TRANSFORM_ALIASES = {"summarize": "compact"}
EDGE_TRANSFORMS: tuple[Transform, ...] = ("direct", "clear", "compact", "custom")


def edge_transform(raw: Any) -> Transform | None:
    """The transform a raw `transform` value names: `direct` when absent or not a string, None
    for an unknown string (the schema layer reports it)."""
    if not isinstance(raw, str):
        return "direct"
    return one_of(TRANSFORM_ALIASES.get(raw, raw), EDGE_TRANSFORMS)


def build_transitions(raw: Any) -> tuple[Edge, ...] | None:
    """None without a transitions table (the stage falls through); () for an empty one
    (the stage is terminal)."""
    if not is_table(raw):
        return None
    return tuple(build_edge(target, value) for target, value in raw.items())


def build_edge(target: str, raw: Any) -> Edge:
    """A non-table edge value is an `always` edge with every default."""
    if not is_table(raw):
        return Edge(target=target)
    hint = get_str(raw, "hint")
    condition = get_str(raw, "condition")
    if condition not in CONDITIONS:
        # Unwritten (or unreadable): an edge with a hint is one the model chooses.
        condition = "llm_choice" if hint is not None else "always"
    transform = edge_transform(raw.get("transform")) or "direct"
    return Edge(
        target=target,
        condition=condition,
        hint=hint,
        transform=transform,
        custom=build_custom_transform(raw.get("transform_config")) if transform == "custom" else None,
        gate=build_gate(raw["gate"]) if is_table(raw.get("gate")) else None,
        stuck=build_stuck(raw),
    )


def build_stuck(raw: Table) -> StuckThresholds | None:
    """Positive thresholds only (0, negatives and non-integers are unset); None if none is."""
    if raw.keys().isdisjoint(STUCK_KEYS):  # most edges: no threshold to read
        return None
    thresholds = StuckThresholds(**{field: get_positive_int(raw, key) for key, field in STUCK_KEYS.items()})
    return thresholds if thresholds.armed else None


def build_custom_transform(raw: Any) -> CustomTransform:
    t = raw if is_table(raw) else {}
    return CustomTransform(
        carry=get_str_list(t, "carry"),
        compact=get_str_list(t, "compact"),
        clear=get_str_list(t, "clear"),
        compact_prompt=get_str(t, "compact_prompt"),
    )


def build_gate(t: Table) -> Gate:
    return Gate(
        require_modifications=get_bool(t, "require_modifications", False),
        message=get_trimmed(t, "message"),
        region=get_str(t, "region"),
        tools=get_str_list(t, "tools"),
        max_attempts=get_nonneg_int(t, "max_attempts", DEFAULT_GATE_ATTEMPTS),
        require_region_updated=get_str(t, "require_region_updated"),
        require_regions=get_str_list(t, "require_regions"),
        require_no_open_items=get_str(t, "require_no_open_items"),
    )
