"""Tool names that resolve to nothing: in `available_tools` (`unknown-tool`) and everywhere
else a blueprint names a tool (`unknown-tool-reference`)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from typing import NamedTuple

from ...diagnostics import Diagnostic, KeyPath
from ...rulebook.registry import LINT
from ...rulebook.snippets import stage as stage_example
from ..common import did_you_mean, edge_path, raw_seeds, raw_table, stage_path, string_entries
from ..context import Anchor, RuleContext
from .tool_catalog import is_known, known_tools, spellings

_UNKNOWN_FIX = "check the spelling, drop the entry, or add the name to known-tools in [tool.blueprint]"

UNKNOWN_TOOL = LINT.define(
    "unknown-tool",
    severity="error",
    summary="An `available_tools` entry names no tool the runtime knows.",
    rationale=(
        "A stage is offered exactly the tools it lists. A name that is no built-in tool, no "
        "sub-agent tool, no MCP tool (`server__tool`) and no `tools/*.rhai` script beside the "
        "blueprint resolves to nothing: the model is never offered the tool the author meant, "
        "usually because of a typo, and the stage quietly works without it."
    ),
    example=stage_example("research", 'available_tools = ["read_file", "web_serch"]'),
    example_fixed=stage_example("research", 'available_tools = ["read_file", "list_dir"]'),
    fix=_UNKNOWN_FIX,
    leviath="unknown-tool",
    differs=(
        "Leviath's answer depends on the machine: it also accepts scripts in the user's global "
        "tools directory and drops built-ins the platform cannot run (`shell` and `bash` where "
        "processes cannot be spawned). Ours is the same everywhere: the built-in catalog, the "
        "blueprint's own tools/*.rhai and the configured known-tools."
    ),
)

UNKNOWN_TOOL_REFERENCE = LINT.define(
    "unknown-tool-reference",
    severity="warning",
    summary=(
        "A tool named in a permission, a gate's `tools`, a routing override, a seed call or "
        "`[safe_commands] tools` is no tool the runtime knows."
    ),
    rationale=(
        "These places refer to a tool the blueprint uses elsewhere; none of them grants it. A "
        "name that matches no tool makes the entry inert: a permission that applies to nothing, "
        "a gate that never counts the calls it was meant to count, an override that routes "
        "nothing, a seed call that fails at spawn and leaves its region empty. The run goes on, "
        "so this is a warning rather than the error an unknown `available_tools` entry is. "
        "`required_tools` needs no check of its own: an entry missing from `available_tools` is "
        "`required-tool-not-available`, one present there is checked as `unknown-tool`; a stage "
        "permission for a tool the stage does not grant is `orphan-stage-permission`."
    ),
    example='[tool_permissions]\nbassh = "allow"\n\n' + stage_example("build", 'available_tools = ["bash"]'),
    example_fixed='[tool_permissions]\nbash = "allow"\n\n' + stage_example("build", 'available_tools = ["bash"]'),
    fix="check the spelling, or remove the entry",
    differs="Leviath checks tool names in available_tools only.",
)


@LINT.check(UNKNOWN_TOOL)
def check_available_tools(ctx: RuleContext) -> Iterator[Diagnostic]:
    known = known_tools(ctx)
    for stage, raw in raw_table(ctx, ("stages",)).items():
        tools = raw.get("available_tools") if isinstance(raw, dict) else None
        for index, name in string_entries(tools):
            if not is_known(name, known):
                yield ctx.report(
                    UNKNOWN_TOOL,
                    f"stage '{stage}' grants '{name}', which is not a built-in tool, a sub-agent tool, "
                    "an MCP tool (server__tool) or a tools/*.rhai script beside the blueprint",
                    stage_path(stage) + ("available_tools", index),
                    anchor="value",
                    fix=did_you_mean(name, sorted(known), _UNKNOWN_FIX),
                )


class _Mention(NamedTuple):
    """A tool named outside `available_tools`: where, what an unknown name there costs, and
    whether the name is a key (a permission) or a value (a list entry)."""

    name: str
    where: str
    effect: str
    path: KeyPath
    anchor: Anchor


def _permission_mentions(ctx: RuleContext) -> Iterator[_Mention]:
    effect = "the permission applies to nothing"
    for name in raw_table(ctx, ("tool_permissions",)):
        yield _Mention(name, "[tool_permissions]", effect, ("tool_permissions", name), "key")
    for stage in ctx.blueprint.stages:
        # Without connectors a permission the stage does not grant is already an orphan, and
        # one it grants is checked as unknown-tool on the grant.
        if not stage.available_connectors:
            continue
        granted = {alias for tool in stage.available_tools for alias in spellings(tool)}
        path = stage_path(stage.name) + ("tool_permissions",)
        for name in raw_table(ctx, path):
            if name not in granted:
                yield _Mention(name, f"stage '{stage.name}' tool_permissions", effect, path + (name,), "key")


def _gate_and_routing_mentions(ctx: RuleContext) -> Iterator[_Mention]:
    for stage in raw_table(ctx, ("stages",)):
        for target, edge in raw_table(ctx, stage_path(stage) + ("transitions",)).items():
            gate = edge.get("gate") if isinstance(edge, dict) else None
            for index, name in string_entries(gate.get("tools") if isinstance(gate, dict) else None):
                yield _Mention(
                    name,
                    f"the gate on the transition from '{stage}' to '{target}'",
                    "its calls never count as modifications",
                    edge_path(stage, target) + ("gate", "tools", index),
                    "value",
                )
        routing = stage_path(stage) + ("tool_routing",)
        for key, effect in (
            ("overrides", "the override routes nothing"),
            ("max_result_tokens_per_tool", "the cap limits nothing"),
        ):
            for name in raw_table(ctx, routing + (key,)):
                yield _Mention(name, f"stage '{stage}' tool_routing.{key}", effect, routing + (key, name), "key")


def _seed_mentions(ctx: RuleContext) -> Iterator[_Mention]:
    effect = "the seed call fails at spawn and the region starts empty"
    for path, region, seed in raw_seeds(ctx):
        where = f"the seed of region '{region}'"
        if isinstance(seed.get("tool"), str):
            yield _Mention(seed["tool"], where, effect, path + ("tool",), "value")
        calls = seed.get("tools")
        for index, call in enumerate(calls if isinstance(calls, list) else ()):
            if isinstance(call, str):
                yield _Mention(call, where, effect, path + ("tools", index), "value")
            elif isinstance(call, dict) and isinstance(call.get("name"), str):
                yield _Mention(call["name"], where, effect, path + ("tools", index, "name"), "value")


def _safe_command_mentions(ctx: RuleContext) -> Iterator[_Mention]:
    for index, name in string_entries(ctx.raw(("safe_commands", "tools"), None)):
        path = ("safe_commands", "tools", index)
        yield _Mention(name, "[safe_commands] tools", "the entry pre-approves nothing", path, "value")


@LINT.check(UNKNOWN_TOOL_REFERENCE)
def check_tool_mentions(ctx: RuleContext) -> Iterator[Diagnostic]:
    known = known_tools(ctx)
    mentions = chain(_permission_mentions(ctx), _gate_and_routing_mentions(ctx), _seed_mentions(ctx))
    for mention in chain(mentions, _safe_command_mentions(ctx)):
        if mention.path[0] == "safe_commands" and mention.name.startswith("shell:"):
            yield ctx.report(
                UNKNOWN_TOOL_REFERENCE,
                f"[safe_commands] tools entry '{mention.name}' is a shell command, not a tool; the runtime "
                "ignores tools entries spelled with the shell: prefix",
                mention.path,
                anchor="value",
                fix=f"move '{mention.name[len('shell:') :]}' to [safe_commands] shell",
            )
        elif not is_known(mention.name, known):
            yield ctx.report(
                UNKNOWN_TOOL_REFERENCE,
                f"{mention.where} names '{mention.name}', which is not a tool the runtime knows, so {mention.effect}",
                mention.path,
                anchor=mention.anchor,
                fix=did_you_mean(mention.name, sorted(known), "check the spelling, or remove the entry"),
            )
