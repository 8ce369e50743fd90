"""The tools a blueprint may name, and how names relate (`bash` is `shell`).

The reference runtime resolves a tool name against its built-in tools (plus the `bash`
alias), its sub-agent tools, the agent's own `tools/*.rhai` scripts and MCP servers
(`server__tool`). Its lint also reads the machine's global tools directory and drops
built-ins the platform cannot run; we do neither, so a blueprint gets the same answer on
every machine. Names a team adds elsewhere go in `[tool.blueprint] known-tools`.

The built-in list is the union of the reference's tool inventory across the versions its
blueprints are written for, so an older or newer blueprint is not refused for naming a
tool its runtime has.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ...ir.model import FAN_OUT_TOOL, MODIFYING_TOOLS, SUBMIT_OUTPUT_TOOL

if TYPE_CHECKING:
    from ..context import RuleContext

#: Built-in tools, canonical names, grouped as the reference's inventory groups them.
FILE_TOOLS = ("read_file", "read_files", "write_file", "edit_file", "list_dir")
SHELL_TOOL = "shell"
#: Tools that suspend the run until a person answers.
BLOCKING_INTERACTION_TOOLS = (
    "present_for_review",
    "ask_user_text",
    "ask_user_choice",
    "ask_user_confirm",
    "edit_document",
)
CONTEXT_TOOLS = ("context_write", "context_append", "context_read", "context_delete", "context_list")
CHECKLIST_TOOLS = ("todo_add", "todo_done", "todo_note")
ENVIRONMENT_TOOLS = ("current_time", "system_info", "locale_info", "environment_info", "which_command", "runtime_info")
RUNTIME_TOOLS = ("install_tool", SUBMIT_OUTPUT_TOOL, FAN_OUT_TOOL)
SUBAGENT_TOOLS = ("spawn_agent", "check_agent", "wait_for_agent", "send_to_agent", "kill_agent")

BUILTIN_TOOLS: tuple[str, ...] = (
    *FILE_TOOLS,
    SHELL_TOOL,
    *BLOCKING_INTERACTION_TOOLS,
    *CONTEXT_TOOLS,
    *CHECKLIST_TOOLS,
    *ENVIRONMENT_TOOLS,
    *RUNTIME_TOOLS,
)
#: Alias → canonical name. The reference has exactly one.
TOOL_ALIASES: dict[str, str] = {"bash": SHELL_TOOL}

CATALOG: frozenset[str] = frozenset((*BUILTIN_TOOLS, *TOOL_ALIASES, *SUBAGENT_TOOLS))

#: Tools whose calls change files in the workspace (the reference's `MODIFYING_TOOLS`).
MODIFYING = frozenset(MODIFYING_TOOLS)


def canonical(name: str) -> str:
    """The name a tool is advertised under: `bash` → `shell`, anything else unchanged."""
    return TOOL_ALIASES.get(name, name)


@functools.lru_cache(maxsize=1024)  # a few names, asked about per stage, edge and rule
def spellings(name: str) -> frozenset[str]:
    """Every name that refers to the same tool as `name` (`shell` ↔ `bash`)."""
    target = canonical(name)
    return frozenset({name, target, *(alias for alias, to in TOOL_ALIASES.items() if to == target)})


def is_mcp_name(name: str) -> bool:
    """`server__tool`: resolved by an MCP server at spawn, never by the blueprint."""
    return "__" in name


def known_tools(ctx: "RuleContext") -> frozenset[str]:
    """Every plain name the blueprint may use: catalog, its own scripts (`Settings.local_tools`,
    read from disk by the driver, never here), configured names."""
    known = ctx.memo.get("known_tools")  # several rules ask
    if known is None:
        settings = ctx.settings
        known = ctx.memo["known_tools"] = (
            CATALOG | frozenset(settings.local_tools or ()) | frozenset(settings.known_tools)
        )
    return known


def is_known(name: str, known: frozenset[str]) -> bool:
    return is_mcp_name(name) or name in known
