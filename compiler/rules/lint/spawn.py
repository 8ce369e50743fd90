"""What happens with nobody watching: commands and tool calls a seed runs at spawn, before any
approval prompt exists, and checkpoints that still stop an unattended (`--yolo`) run."""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...rulebook.registry import LINT
from ...rulebook.snippets import stage as stage_example
from ..common import layouts, quoted, stage_path, string_entries
from ..context import RuleContext
from .shell_keys import default_safe_list_covers
from .tool_catalog import BLOCKING_INTERACTION_TOOLS, canonical, spellings


def _clock(policy: str) -> str:
    seed = '[context.regions.clock]\nseed = { tool = "current_time" }'
    return f'[tool_permissions]\ncurrent_time = "{policy}"\n\n{seed}\n\n' + stage_example("work")


COMMAND_SEED = LINT.define(
    "command-seed",
    severity="note",
    summary="A region is seeded by a shell command, which runs at spawn before any approval prompt.",
    rationale=(
        '`seed = { command = "…" }` runs the command when the agent is spawned, before the '
        "first inference and before any tool-approval prompt exists. Whoever installs a "
        "blueprint they did not write should see those commands first. A command the default "
        "safe list does not cover is refused on a stock install, and the region starts empty."
    ),
    example='[context.regions.files]\nkind = "pinned"\nseed = { command = "git ls-files" }\n\n' + stage_example("work"),
    example_fixed='[context.regions.files]\nkind = "pinned"\nseed = { files = ["README.md"] }\n\n'
    + stage_example("work"),
    fix=(
        "a refused command needs its programs in [safe_commands] shell (which the user must honour); "
        "seeds can be turned off with --no-seed-commands or [security] allow_seed_commands = false"
    ),
    leviath="command-seed",
    differs=(
        "Leviath emits one finding listing every command-seeded region of the top-level layout; "
        "we emit one per region, at its seed, and look at stage layouts too."
    ),
)

TOOL_SEED = LINT.define(
    "tool-seed",
    severity="note",
    summary="A region is seeded by tool calls, which run at spawn before any approval prompt.",
    rationale=(
        "`seed = { tool = … }` / `{ tools = [...] }` calls the tools when the agent is spawned, "
        "before the first inference and before any approval prompt. Each call answers to "
        "`tool_permissions` like any other, and one that would `ask` is refused because nobody "
        'is there to answer. With `refresh = "each_stage"` the calls repeat on every stage entry.'
    ),
    example='[context.regions.environment]\nkind = "pinned"\nseed = { tools = ["current_time"] }\n\n'
    + stage_example("work"),
    example_fixed='[context.regions.environment]\nkind = "pinned"\nseed = { literal = "UTC" }\n\n'
    + stage_example("work"),
    fix="make sure each seeded tool is allowed without asking; a tool set to ask is refused at spawn",
    leviath="tool-seed",
    differs="Leviath emits one finding for the whole blueprint; we emit one per region and look at stage layouts too.",
)

SEED_TOOL_REFUSED = LINT.define(
    "seed-tool-refused",
    severity="warning",
    summary="A seed calls a tool the blueprint's own `[tool_permissions]` sets to `ask` or `deny`.",
    rationale=(
        "Seed calls run at spawn, where nobody can answer a prompt: a tool whose policy is "
        "`ask` is refused there, and one set to `deny` is refused everywhere. The seed then "
        "fails and its region starts empty, although the blueprint reads as if it were filled. "
        "Only the blueprint's own policies are judged here: a user may still pre-approve an "
        "`ask` tool in their own configuration, but a stock install refuses the call."
    ),
    example=_clock("deny"),
    example_fixed=_clock("allow"),
    fix='set the tool to "allow" in [tool_permissions], or fill the region another way',
)

HOLDS_UNDER_YOLO = LINT.define(
    "holds-under-yolo",
    severity="note",
    summary="A checkpoint still stops an unattended run for a person.",
    rationale=(
        "An unattended (`--yolo`) run approves interaction points and drops blocking tools, "
        'except an interaction point that declares `unattended = "ask"` and a blocking tool the '
        "stage keeps in `required_tools`. Those still wait for a person, which looks like a hang "
        "to whoever started the run. Deliberate checkpoints are fine; this says where they are."
    ),
    example=stage_example(
        "plan",
        '\n[[stages.plan.interaction_points]]\nname = "approve"\nprompt = "Approve the plan?"\nunattended = "ask"',
        mode="interactive_points",
    ),
    example_fixed=stage_example(
        "plan",
        '\n[[stages.plan.interaction_points]]\nname = "approve"\nprompt = "Approve the plan?"',
        mode="interactive_points",
    ),
    fix=(
        "intended if a person must decide; [limits] interaction_timeout_secs in the user's configuration "
        "bounds the wait"
    ),
    leviath="holds-under-yolo",
)


@LINT.check(SEED_TOOL_REFUSED)
def check_refused_seed_tools(ctx: RuleContext) -> Iterator[Diagnostic]:
    policies = {p.tool: p.policy for p in ctx.blueprint.tool_permissions}
    for prefix, layout, _ in layouts(ctx):
        for region in layout.regions:
            if region.seed is None or region.seed.kind != "tools":
                continue
            for call in region.seed.tools:
                policy = next((policies[n] for n in sorted(spellings(call.name)) if n in policies), None)
                if policy in ("ask", "deny"):
                    why = (
                        "; nobody can answer a prompt at spawn, so the call is refused (unless the user's "
                        "configuration pre-approves it)"
                        if policy == "ask"
                        else ", so the call is refused"
                    )
                    yield ctx.report(
                        SEED_TOOL_REFUSED,
                        f"region '{region.name}' is seeded by '{call.name}', which [tool_permissions] sets to "
                        f"'{policy}'{why}: the seed fails and the region starts empty",
                        prefix + (region.name, "seed"),
                    )


@LINT.check(COMMAND_SEED, TOOL_SEED)
def check_spawn_seeds(ctx: RuleContext) -> Iterator[Diagnostic]:
    seen: set[tuple[str, object]] = set()
    for prefix, layout, _ in layouts(ctx):
        for region in layout.regions:
            seed = region.seed
            if seed is None or seed.kind not in ("command", "tools"):
                continue
            what = seed.command if seed.kind == "command" else tuple(call.name for call in seed.tools)
            if (region.name, what) in seen:
                continue  # the same seed declared again in another layout
            seen.add((region.name, what))
            path = prefix + (region.name, "seed")
            if seed.kind == "command":
                yield _command_seed(ctx, region.name, seed.command or "", path)
                continue
            again = " (and again on every stage entry)" if seed.refresh == "each_stage" else ""
            yield ctx.report(
                TOOL_SEED,
                f"region '{region.name}' calls {quoted(call.name for call in seed.tools)} at spawn{again}, before "
                "the first inference and before any tool-approval prompt",
                path,
            )


def _command_seed(ctx: RuleContext, region: str, command: str, path: tuple) -> Diagnostic:
    if default_safe_list_covers(command):
        verdict = "the default safe list pre-approves it"
        fix = (
            "to keep it from running, start the agent with --no-seed-commands or set [security] "
            "allow_seed_commands = false"
        )
    else:
        verdict = "the default safe list does not cover it, so a stock install refuses it and the region starts empty"
        fix = "add its programs to [safe_commands] shell (which the user must honour), or seed the region another way"
    return ctx.report(
        COMMAND_SEED,
        f"region '{region}' runs the shell command '{command}' at spawn, before the first inference and "
        f"before any tool-approval prompt; {verdict}",
        path,
        fix=fix,
    )


@LINT.check(HOLDS_UNDER_YOLO)
def check_held_checkpoints(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        path = stage_path(stage.name)
        if stage.mode == "interactive_points":
            for index, point in enumerate(stage.interaction_points):
                if point.unattended == "ask":
                    name = f"'{point.name}'" if point.name else f"{index + 1}"
                    yield ctx.report(
                        HOLDS_UNDER_YOLO,
                        f"stage '{stage.name}': interaction point {name} declares unattended = \"ask\", so "
                        "it still stops an unattended run for a person",
                        path + ("interaction_points", index, "unattended"),
                        anchor="value",
                    )
        granted = {canonical(tool) for tool in stage.available_tools}
        for index, tool in string_entries(ctx.raw(path + ("required_tools",), None)):
            # A required tool the stage does not grant holds nothing: required-tool-not-available.
            if canonical(tool) in BLOCKING_INTERACTION_TOOLS and canonical(tool) in granted:
                yield ctx.report(
                    HOLDS_UNDER_YOLO,
                    f"stage '{stage.name}' keeps '{tool}' in required_tools, so an unattended run still "
                    "stops for a person whenever the model calls it",
                    path + ("required_tools", index),
                    anchor="value",
                )
