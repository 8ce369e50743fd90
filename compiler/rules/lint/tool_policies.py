"""How a stage's tools behave at run time: permissions that grant nothing, tools that wait
for a person, a shell left to ask, routed results the model cannot read back."""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...ir.model import Stage
from ...rulebook.registry import LINT
from ...rulebook.snippets import stage as stage_example
from ..common import raw_table, stage_path, string_entries
from ..context import RuleContext
from .tool_catalog import BLOCKING_INTERACTION_TOOLS, SHELL_TOOL, canonical, spellings

ORPHAN_STAGE_PERMISSION = LINT.define(
    "orphan-stage-permission",
    severity="error",
    summary="A stage's `tool_permissions` sets a policy for a tool the stage does not grant.",
    rationale=(
        "A permission only decides how a granted tool's calls are approved; it grants nothing. "
        '`[stages.build.tool_permissions] write_file = "allow"` on a stage without `write_file` '
        "reads as a grant and is not one, so the stage runs without the tool its author "
        "believes it has."
    ),
    example=stage_example(
        "build", 'available_tools = ["read_file"]\n\n[stages.build.tool_permissions]\nwrite_file = "allow"'
    ),
    example_fixed=stage_example(
        "build",
        'available_tools = ["read_file", "write_file"]\n\n[stages.build.tool_permissions]\nwrite_file = "allow"',
    ),
    fix="add the tool to available_tools, or drop the permission",
    leviath="orphan-stage-permission",
    differs=(
        'Leviath compares names literally, so `available_tools = ["bash"]` with a `shell` '
        "permission is reported although policy resolution accepts either spelling; we compare "
        "canonical names."
    ),
)

BLOCKING_TOOL_IN_AUTONOMOUS_STAGE = LINT.define(
    "blocking-tool-in-autonomous-stage",
    severity="warning",
    summary="An autonomous stage grants a tool that waits for a person (`ask_user_*`, reviews).",
    rationale=(
        "An autonomous stage runs with nobody attached. A call to `ask_user_text`, "
        "`ask_user_choice`, `ask_user_confirm`, `edit_document` or `present_for_review` "
        "suspends the run until a person answers, so an unattended run stops halfway. Keeping "
        "the tool in `required_tools`, or setting `allow_blocking_tools = true`, says it is meant."
    ),
    example=stage_example("plan", 'available_tools = ["read_file", "ask_user_text"]'),
    example_fixed=stage_example(
        "plan", 'available_tools = ["read_file", "ask_user_text"]\nallow_blocking_tools = true'
    ),
    fix=("drop the tool, use an interactive mode, list it in required_tools, or set allow_blocking_tools = true"),
    leviath="blocking-tool-in-autonomous-stage",
)

IMPLICIT_SHELL_POLICY = LINT.define(
    "implicit-shell-policy",
    severity="warning",
    summary="A stage grants `shell`/`bash` and no permission says whether its calls are allowed.",
    rationale=(
        "The shell's default policy is `ask`. An `ask` with nobody to answer waits rather than "
        "failing, so an unattended run hangs on its first command instead of being told no. "
        "Stating `allow` or `deny` (at agent or stage level, under either spelling) makes the "
        "behaviour a decision."
    ),
    example=stage_example("build", 'available_tools = ["read_file", "bash"]'),
    example_fixed=stage_example(
        "build", 'available_tools = ["read_file", "bash"]\n\n[stages.build.tool_permissions]\nshell = "deny"'
    ),
    fix='set shell (or bash) = "allow" or "deny" in [tool_permissions] or the stage\'s tool_permissions',
    leviath="implicit-shell-policy",
)

ROUTING_WITHOUT_REGION_READ = LINT.define(
    "routing-without-region-read",
    severity="warning",
    summary="A stage routes tool results into a region and can read files but not context regions.",
    rationale=(
        "With `[tool_routing]` sending results somewhere other than the conversation, the model "
        "is told to look in a region. A stage that grants `read_file`/`read_files` but not "
        "`context_read` has only one way to act on that: aim `read_file` at the region's name, "
        "which fails. The reference measured this as the most common failed `read_file` call."
    ),
    example=stage_example(
        "scan", 'available_tools = ["read_file"]\n\n[stages.scan.tool_routing]\ndefault_region = "tool_results"'
    ),
    example_fixed=stage_example(
        "scan",
        'available_tools = ["read_file", "context_read"]\n\n[stages.scan.tool_routing]\ndefault_region = "tool_results"',
    ),
    fix="add 'context_read' to available_tools",
    leviath="routing-without-region-read",
)


def _granted_spellings(stage: Stage) -> set[str]:
    return {alias for tool in stage.available_tools for alias in spellings(tool)}


@LINT.check(ORPHAN_STAGE_PERMISSION)
def check_orphan_permissions(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        # A connector grants whatever its server advertises at spawn: nothing to compare with.
        if stage.available_connectors:
            continue
        granted = _granted_spellings(stage)
        path = stage_path(stage.name) + ("tool_permissions",)
        for tool in raw_table(ctx, path):
            if tool not in granted:
                yield ctx.report(
                    ORPHAN_STAGE_PERMISSION,
                    f"stage '{stage.name}' sets a permission for '{tool}', which it does not grant in "
                    "available_tools: it reads as a grant and is not one",
                    path + (tool,),
                    fix=f"add '{tool}' to available_tools, or drop the permission",
                )


@LINT.check(BLOCKING_TOOL_IN_AUTONOMOUS_STAGE)
def check_blocking_tools(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        if stage.mode != "autonomous" or stage.allow_blocking_tools:
            continue
        kept = None  # the required tools, read only for a stage that grants a blocking tool
        for index, tool in string_entries(ctx.raw(stage_path(stage.name) + ("available_tools",), None)):
            name = canonical(tool)
            if name not in BLOCKING_INTERACTION_TOOLS:
                continue
            if kept is None:
                kept = {canonical(required) for required in stage.required_tools}
            if name not in kept:
                yield ctx.report(
                    BLOCKING_TOOL_IN_AUTONOMOUS_STAGE,
                    f"stage '{stage.name}' is autonomous but grants '{tool}', which suspends the run until "
                    "a person answers",
                    stage_path(stage.name) + ("available_tools", index),
                    anchor="value",
                )


@LINT.check(IMPLICIT_SHELL_POLICY)
def check_shell_policy(ctx: RuleContext) -> Iterator[Diagnostic]:
    shell = spellings(SHELL_TOOL)
    # Any written policy counts, even a misspelt one (the schema layer reports its value).
    agent_level = set(raw_table(ctx, ("tool_permissions",)))
    for stage in ctx.blueprint.stages:
        granted = [
            (index, tool)
            for index, tool in string_entries(ctx.raw(stage_path(stage.name) + ("available_tools",), None))
            if canonical(tool) == SHELL_TOOL
        ]
        if not granted:  # most stages: no permission table to read
            continue
        if shell & (agent_level | set(raw_table(ctx, stage_path(stage.name) + ("tool_permissions",)))):
            continue
        for index, tool in granted:
            yield ctx.report(
                IMPLICIT_SHELL_POLICY,
                f"stage '{stage.name}' grants '{tool}' with no permission set for it, so its commands "
                "default to ask, and an unattended run waits on that prompt instead of being refused",
                stage_path(stage.name) + ("available_tools", index),
                anchor="value",
            )


@LINT.check(ROUTING_WITHOUT_REGION_READ)
def check_routing_reads(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        routing = stage.tool_routing
        if routing is None:
            continue
        regions = [routing.default_region] + [o.region for o in routing.overrides if o.region is not None]
        routed = sorted({r for r in regions if r != "conversation"}, key=regions.index)
        tools = set(stage.available_tools)
        readers = sorted(tools & {"read_file", "read_files"})
        if not routed or not readers or "context_read" in tools:
            continue
        yield ctx.report(
            ROUTING_WITHOUT_REGION_READ,
            f"stage '{stage.name}' routes tool results into region '{routed[0]}' and grants "
            f"'{readers[0]}' but not 'context_read', so the model's only way to follow the results "
            "is to aim read_file at a region name, which fails",
            stage_path(stage.name) + ("tool_routing",),
        )
