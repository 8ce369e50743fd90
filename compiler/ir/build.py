"""Document → typed model, with the reference runtime's defaults, aliases and leniency.

`build_blueprint` accepts any document tomllib can produce and never raises: a value of
the wrong type is "absent" (format.md R3/R4/R6) and takes its default, exactly as the
reference runtime reads it. Reporting those values is the schema layer's job; the
structure rules then check what the model means. Document order is kept throughout
(dict order is TOML order), so stages, regions and edges stay in declaration order.

The work is split by subject: `build_values` (lenient readers), `build_regions`
(layouts and seeds), `build_stages` (a stage and its modes), `build_edges`
(transitions), `build_sections` (blocks shared by agent and stage, agent-wide sections).
"""

from __future__ import annotations

from typing import Any

from .build_regions import build_global_layout
from .build_sections import (
    build_compaction,
    build_file_tracking,
    build_nudge,
    build_output,
    build_read_paths,
    build_repetition_detection,
    build_safe_commands,
    build_sandbox,
    build_security,
    build_tool_permissions,
    build_transforms,
)
from .build_stages import build_stage
from .build_values import get_bool, get_int, get_str, table
from .model import Blueprint

#: The stage a blueprint without stages runs as.
DEFAULT_STAGE_NAME = "main"


def build_blueprint(document: dict[str, Any]) -> Blueprint:
    doc = table(document)
    agent = table(doc.get("agent"))
    context = table(doc.get("context"))
    agent_nudge = build_nudge(agent.get("nudge"))

    raw_stages = table(doc.get("stages"))
    if raw_stages:
        stages = tuple(build_stage(name, value, agent_nudge) for name, value in raw_stages.items())
    else:
        stages = (build_stage(DEFAULT_STAGE_NAME, {}, agent_nudge),)

    return Blueprint(
        name=get_str(agent, "name", "unnamed"),
        version=get_str(agent, "version", "0.1.0"),
        description=get_str(agent, "description", ""),
        entry_stage=get_str(agent, "entry_stage"),
        max_child_depth=get_int(agent, "max_child_depth"),
        dynamic_tools=get_bool(agent, "dynamic_tools", False),
        batch_tool_hint=get_bool(agent, "batch_tool_hint"),
        shell_hint=get_bool(agent, "shell_hint"),
        nudge=agent_nudge,
        output=build_output(agent.get("output")),
        stages=stages,
        layout=build_global_layout(context),
        file_tracking=build_file_tracking(context.get("file_tracking")),
        compaction=build_compaction(doc.get("compaction")),
        security=build_security(doc.get("security")),
        sandbox=build_sandbox(doc.get("sandbox")),
        read_paths=build_read_paths(doc.get("read_paths")),
        safe_commands=build_safe_commands(doc.get("safe_commands")),
        tool_permissions=build_tool_permissions(doc.get("tool_permissions")),
        repetition_detection=build_repetition_detection(doc.get("repetition_detection")),
        transforms=build_transforms(doc.get("transforms")),
        default_stage=not raw_stages,
    )
