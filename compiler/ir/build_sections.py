"""Blocks that appear at agent and stage level alike, and the agent-wide sections
(format.md §1.3, §1.5–§1.11, §2.10–§2.13, §3.8)."""

from __future__ import annotations

from typing import Any

from .build_values import (
    ascii_lower,
    get_bool,
    get_float,
    get_int,
    get_nonneg_int,
    get_str,
    get_str_list,
    get_trimmed,
    is_table,
    one_of,
    table,
    to_json,
)
from .model import (
    DEFAULT_MAX_NUDGES,
    DEFAULT_NUDGE_TEXT,
    HOOK_EVENTS,
    BlueprintTransform,
    Compaction,
    FileTracking,
    Hook,
    NudgeConfig,
    OutputSpec,
    Policy,
    ReadPaths,
    RepetitionDetection,
    ResolvedNudge,
    SafeCommands,
    Sandbox,
    Security,
    ToolPermission,
    TransformMapping,
)

POLICIES: tuple[Policy, ...] = ("allow", "ask", "deny")


def build_security(raw: Any) -> Security | None:
    """Absent block → inherit; a present block turns taint tracking on unless it says false."""
    return Security(taint_tracking=get_bool(raw, "taint_tracking", True)) if is_table(raw) else None


def build_sandbox(raw: Any) -> Sandbox | None:
    if not is_table(raw):
        return None
    kind = get_str(raw, "kind")
    on_unavailable = get_str(raw, "on_unavailable")
    return Sandbox(
        kind=kind if kind in ("none", "namespace", "container") else "none",
        image=get_str(raw, "image"),
        engine=get_str(raw, "engine"),
        network=get_bool(raw, "network", True),
        persist=get_bool(raw, "persist", False),
        mount=get_str_list(raw, "mount"),
        on_unavailable=on_unavailable if on_unavailable in ("error", "warn") else "error",
    )


def build_nudge(raw: Any) -> NudgeConfig | None:
    if not is_table(raw):
        return None
    return NudgeConfig(
        enabled=get_bool(raw, "enabled"),
        max=get_nonneg_int(raw, "max"),
        text=get_trimmed(raw, "text"),
    )


def resolve_nudge(stage: NudgeConfig | None, agent: NudgeConfig | None, reviewed: bool) -> ResolvedNudge:
    """Stage → agent → built-in default, each field on its own. A stage whose output a person
    reviews is not nudged unless some level says so."""
    layers = [n for n in (stage, agent) if n is not None]

    def first(field: str, default: Any) -> Any:
        for layer in layers:
            value = getattr(layer, field)
            if value is not None:
                return value
        return default

    return ResolvedNudge(
        enabled=first("enabled", not reviewed),
        max=first("max", DEFAULT_MAX_NUDGES),
        text=first("text", DEFAULT_NUDGE_TEXT),
    )


def build_output(raw: Any) -> OutputSpec | None:
    if not is_table(raw):
        return None
    return OutputSpec(
        format=get_str(raw, "format"),
        instructions=get_trimmed(raw, "instructions"),
        example=get_trimmed(raw, "example"),
        schema=to_json(raw["schema"]) if "schema" in raw else None,
        validator=get_str(raw, "validator"),
    )


def build_tool_permissions(raw: Any) -> tuple[ToolPermission, ...]:
    """Readable policies only, lower-cased (the reference compares them case-insensitively)."""
    permissions = []
    for tool, value in table(raw).items():
        policy = one_of(ascii_lower(value), POLICIES) if isinstance(value, str) else None
        if policy is not None:
            permissions.append(ToolPermission(tool=tool, policy=policy))
    return tuple(permissions)


def build_hooks(raw: Any) -> tuple[Hook, ...]:
    return tuple(
        Hook(event=name, script=value)
        for name, value in table(raw).items()
        if name in HOOK_EVENTS and isinstance(value, str)
    )


def build_file_tracking(raw: Any) -> FileTracking | None:
    if not is_table(raw):
        return None
    return FileTracking(
        region=get_str(raw, "region", "files"),
        track_reads=get_bool(raw, "track_reads", True),
        track_writes=get_bool(raw, "track_writes", True),
        max_file_tokens=get_int(raw, "max_file_tokens"),
    )


def build_compaction(raw: Any) -> Compaction | None:
    if not is_table(raw):
        return None
    return Compaction(
        provider=get_str(raw, "provider", Compaction.provider),
        model=get_str(raw, "model", Compaction.model),
        system_prompt=get_str(raw, "system_prompt"),
        max_summary_tokens=get_int(raw, "max_summary_tokens", Compaction.max_summary_tokens),
        temperature=get_float(raw, "temperature", Compaction.temperature),
    )


def build_read_paths(raw: Any) -> ReadPaths | None:
    return ReadPaths(allow=get_str_list(raw, "allow")) if is_table(raw) else None


def build_safe_commands(raw: Any) -> SafeCommands | None:
    if not is_table(raw):
        return None
    return SafeCommands(tools=get_str_list(raw, "tools"), shell=get_str_list(raw, "shell"))


def build_repetition_detection(raw: Any) -> RepetitionDetection | None:
    if not is_table(raw):
        return None
    return RepetitionDetection(
        max_repeat_calls=get_int(raw, "max_repeat_calls"),
        max_readonly_streak=get_int(raw, "max_readonly_streak"),
        enabled=get_bool(raw, "enabled"),
    )


def build_transforms(raw: Any) -> tuple[BlueprintTransform, ...]:
    """`[[transforms]]`; a plain `[transforms]` table is not read."""
    if not isinstance(raw, list):
        return ()
    return tuple(
        BlueprintTransform(
            from_blueprint=get_str(table(entry), "from_blueprint", ""),
            to_blueprint=get_str(table(entry), "to_blueprint", ""),
            mappings=tuple(_mapping(m) for m in _list(table(entry).get("mappings"))),
        )
        for entry in raw
    )


def _mapping(raw: Any) -> TransformMapping:
    t = table(raw)
    transform = get_str(t, "transform")
    transform = transform if transform in ("direct", "summarize", "extract") else None
    return TransformMapping(
        from_region=get_str(t, "from_region", ""),
        to_region=get_str(t, "to_region", ""),
        transform=transform,
        fields=get_str_list(t, "fields") if transform == "extract" else (),
    )


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
