"""One stage: model, mode and its sugar, tools, routing, per-stage blocks (format.md §2)."""

from __future__ import annotations

from typing import Any

from .build_edges import build_transitions
from .build_regions import build_layout
from .build_sections import (
    build_hooks,
    build_nudge,
    build_output,
    build_sandbox,
    build_security,
    build_tool_permissions,
    resolve_nudge,
)
from .build_values import (
    Table,
    get_bool,
    get_int,
    get_nonneg_int,
    get_str,
    get_str_list,
    get_trimmed,
    is_int,
    is_table,
    one_of,
    table,
    to_json,
)
from .model import (
    DEFAULT_MAX_WORKERS,
    DEFAULT_MODEL,
    DEFAULT_PROVIDER,
    FAN_OUT_TOOL,
    MODES,
    SUBMIT_OUTPUT_TOOL,
    FanOut,
    InteractionPoint,
    Mode,
    ModelConfig,
    ModelEntry,
    NudgeConfig,
    RoutingOverride,
    Stage,
    ToolRouting,
)

#: Stage keys read only by `mode = "fan_out"`.
FAN_OUT_KEYS = (
    "worker_agent",
    "worker_stage",
    "worker_query",
    "merge_stage",
    "split_prompt",
    "results_region",
    "on_worker_failure",
    "max_workers",
    "max_items",
    "max_attempts",
)
WORKER_KEYS = ("worker_agent", "worker_stage", "worker_query")


def stage_mode(raw_stage: Any) -> Mode | None:
    """The mode a stage runs in: `autonomous` when absent or not a string, None for an unknown
    string (the schema layer reports it; the builder then uses `autonomous`)."""
    mode = table(raw_stage).get("mode")
    if not isinstance(mode, str):
        return "autonomous"
    return one_of(mode, MODES)


def build_stage(name: str, raw: Any, agent_nudge: NudgeConfig | None) -> Stage:
    t = table(raw)
    mode = stage_mode(t) or "autonomous"

    tools = list(get_str_list(t, "available_tools"))
    allow_complete = get_bool(t, "allow_complete", False)
    require_output = get_bool(t, "require_output", False)
    if mode == "output":
        require_output = True
        if SUBMIT_OUTPUT_TOOL not in tools:
            tools.append(SUBMIT_OUTPUT_TOOL)
        if "allow_complete" not in t:
            allow_complete = True
    elif mode == "fan_out" and FAN_OUT_TOOL not in tools:
        tools.append(FAN_OUT_TOOL)

    points = build_interaction_points(t.get("interaction_points")) if mode == "interactive_points" else ()
    nudge = build_nudge(t.get("nudge"))
    context = table(t.get("context"))
    return Stage(
        name=name,
        mode=mode,
        model=build_model(t.get("model")),
        description=get_trimmed(t, "description"),
        system_prompt=get_trimmed(t, "system_prompt"),
        available_tools=tuple(tools),
        available_connectors=get_str_list(t, "available_connectors"),
        required_tools=get_str_list(t, "required_tools"),
        max_iterations=get_int(t, "max_iterations"),
        max_revisits=get_int(t, "max_revisits"),
        transition_prompt=get_trimmed(t, "transition_prompt"),
        allow_complete=allow_complete,
        requires_children=get_bool(t, "requires_children", False),
        allow_as_worker=get_bool(t, "allow_as_worker", False),
        accepts_messages=get_bool(t, "accepts_messages", True),
        allow_blocking_tools=get_bool(t, "allow_blocking_tools", False),
        require_output=require_output,
        batch_tool_hint=get_bool(t, "batch_tool_hint"),
        shell_hint=get_bool(t, "shell_hint"),
        security=build_security(t.get("security")),
        sandbox=build_sandbox(t.get("sandbox")),
        nudge=nudge,
        effective_nudge=resolve_nudge(nudge, agent_nudge, reviewed=mode == "interactive_points" and bool(points)),
        output=build_output(t.get("output")),
        hooks=build_hooks(t.get("hooks")),
        tool_permissions=build_tool_permissions(t.get("tool_permissions")),
        tool_routing=build_tool_routing(t.get("tool_routing")),
        layout=build_layout(context["regions"]) if is_table(context.get("regions")) else None,
        transitions=build_transitions(t.get("transitions")),
        interaction_points=points,
        fan_out=build_fan_out(t) if mode == "fan_out" else None,
    )


# --- model --------------------------------------------------------------------------------


def build_model(raw: Any) -> ModelConfig:
    """§2.3: `models` first; only if it yields nothing, legacy `provider`/`model` then
    `fallbacks`; else the default entry. A non-table `model` is the default config."""
    if not is_table(raw):
        return ModelConfig()
    entries = model_entries(raw)
    return ModelConfig(
        entries=entries or (ModelEntry(),),
        allow_user_default=get_bool(raw, "allow_user_default", True),
        parameters=to_json(raw["parameters"]) if is_table(raw.get("parameters")) else {},
        request_timeout_secs=get_nonneg_int(raw, "request_timeout_secs"),
    )


def model_entries(raw: Table) -> tuple[ModelEntry, ...]:
    current = _entries(raw.get("models"))
    if current:
        return current
    legacy: list[ModelEntry] = []
    if isinstance(raw.get("provider"), str):
        legacy.append(ModelEntry(raw["provider"], get_str(raw, "model", DEFAULT_MODEL)))
    legacy.extend(_entries(raw.get("fallbacks")))
    return tuple(legacy)


def _entries(value: Any) -> tuple[ModelEntry, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(
        ModelEntry(get_str(e, "provider", DEFAULT_PROVIDER), get_str(e, "model", DEFAULT_MODEL))
        for e in value
        if is_table(e)
    )


# --- tool routing -------------------------------------------------------------------------


def build_tool_routing(raw: Any) -> ToolRouting | None:
    if not is_table(raw):
        return None
    overrides = []
    for tool, value in table(raw.get("overrides")).items():
        if isinstance(value, str):
            overrides.append(RoutingOverride(tool=tool, region=value))
        elif is_table(value):
            region = get_str(value, "region")
            cap = get_nonneg_int(value, "max_result_tokens")
            if region is not None or cap is not None:
                overrides.append(RoutingOverride(tool=tool, region=region, max_result_tokens=cap))
    per_tool = tuple(
        (tool, cap) for tool, cap in table(raw.get("max_result_tokens_per_tool")).items() if is_int(cap) and cap >= 0
    )
    return ToolRouting(
        default_region=get_str(raw, "default_region", "tool_results"),
        persist=get_bool(raw, "persist", True),
        max_result_tokens=get_int(raw, "max_result_tokens"),
        overrides=tuple(overrides),
        max_result_tokens_per_tool=per_tool,
    )


# --- modes --------------------------------------------------------------------------------


def build_interaction_points(raw: Any) -> tuple[InteractionPoint, ...]:
    """Every array element is a point; one that is not a table is a blank point (§2.5)."""
    if not isinstance(raw, list):
        return ()
    return tuple(_interaction_point(table(element)) for element in raw)


def _interaction_point(t: Table) -> InteractionPoint:
    unattended = get_str(t, "unattended")
    style = get_str(t, "style")
    # `options`/`directives` win over their aliases whenever the key exists, whatever its type.
    options = t["options"] if "options" in t else t.get("choices")
    directives = t["directives"] if "directives" in t else t.get("followups")
    return InteractionPoint(
        name=get_str(t, "name", ""),
        prompt=get_str(t, "prompt", ""),
        required=get_bool(t, "required", True),
        unattended=unattended if unattended in ("ask", "auto_approve") else "auto_approve",
        style=style if style in ("free_text", "multiple_choice", "confirm") else "free_text",
        options=tuple(o for o in options if isinstance(o, str)) if isinstance(options, list) else (),
        directives=tuple((k, v) for k, v in table(directives).items() if isinstance(v, str)),
        abort_options=get_str_list(t, "abort_options"),
        edit_options=get_str_list(t, "edit_options"),
        document_region=get_str(t, "document_region"),
    )


def build_fan_out(t: Table) -> FanOut:
    policy = get_str(t, "on_worker_failure")
    max_items = get_nonneg_int(t, "max_items")
    return FanOut(
        worker_agent=get_str(t, "worker_agent"),
        worker_stage=get_str(t, "worker_stage"),
        worker_query=get_str(t, "worker_query"),
        merge_stage=get_str(t, "merge_stage"),
        split_prompt=get_str(t, "split_prompt", ""),
        results_region=get_str(t, "results_region"),
        on_worker_failure=policy if policy in ("continue", "fail_all") else "continue",
        max_workers=get_nonneg_int(t, "max_workers", DEFAULT_MAX_WORKERS),
        max_items=max_items or None,
        max_attempts=get_nonneg_int(t, "max_attempts"),
    )
