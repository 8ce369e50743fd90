"""Stage declarations the reference refuses: names, tools a stage needs, fan-out workers."""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...ir.build_stages import WORKER_KEYS
from ...ir.model import SUBMIT_OUTPUT_TOOL
from ...rulebook.registry import STRUCTURE
from ...rulebook.snippets import blueprint
from ...rulebook.snippets import stage as declared
from ..context import RuleContext
from .common import quoted, raw_table, stage_path

EMPTY_STAGE_NAME = STRUCTURE.define(
    "empty-stage-name",
    severity="error",
    summary='A stage is named with the empty string (`[stages.""]`).',
    rationale=(
        "A stage is referred to by its name from edges, `entry_stage` and fan-out settings, and "
        "an empty name cannot be referred to sensibly. The reference runtime refuses it."
    ),
    example=declared('""'),
    example_fixed=declared("work"),
    fix="give the stage a name",
    leviath="V5",
)

REQUIRED_TOOL_NOT_AVAILABLE = STRUCTURE.define(
    "required-tool-not-available",
    severity="error",
    summary="A `required_tools` entry is not in the stage's `available_tools`.",
    rationale=(
        "`required_tools` names the blocking tools (asking the user, reviews) that an "
        "unattended run must keep. A tool the stage does not offer cannot be kept, so the "
        "entry is a mistake; the reference runtime refuses the blueprint."
    ),
    example=declared("plan", 'available_tools = ["read_file"]\nrequired_tools = ["ask_user_text"]'),
    example_fixed=declared(
        "plan", 'available_tools = ["read_file", "ask_user_text"]\nrequired_tools = ["ask_user_text"]'
    ),
    fix="add the tool to available_tools, or remove it from required_tools",
    leviath="V6",
)

OUTPUT_MISSING_SUBMIT_TOOL = STRUCTURE.define(
    "output-missing-submit-tool",
    severity="error",
    summary="`require_output = true` but `submit_output` is not in `available_tools`.",
    rationale=(
        "A stage that must submit an output can only do so with the `submit_output` tool; "
        'without it the stage can never finish. `mode = "output"` grants the tool itself, a '
        "stage that only sets `require_output` must list it."
    ),
    example=declared("report", 'require_output = true\navailable_tools = ["read_file"]'),
    example_fixed=declared("report", 'require_output = true\navailable_tools = ["read_file", "submit_output"]'),
    fix='add "submit_output" to available_tools, or use mode = "output" (which grants it)',
    leviath="V7 (and the lint output-missing-submit-tool)",
)

FAN_OUT_NEEDS_ONE_WORKER = STRUCTURE.define(
    "fan-out-needs-one-worker",
    severity="error",
    summary="A fan-out stage sets none, or more than one, of `worker_agent`, `worker_stage`, `worker_query`.",
    rationale=(
        "A fan-out stage hands each item to one kind of worker: another installed agent, a "
        "stage of this blueprint, or an agent found by a query. With none it has nothing to "
        "run; with several it is ambiguous. The reference runtime refuses both (an empty "
        "string still counts as set)."
    ),
    example=blueprint(
        declared("split", 'worker_stage = "worker"\nworker_agent = "helper"', mode="fan_out"),
        declared("worker", "allow_as_worker = true"),
    ),
    example_fixed=blueprint(
        declared("split", 'worker_stage = "worker"', mode="fan_out"), declared("worker", "allow_as_worker = true")
    ),
    fix="set exactly one of worker_agent, worker_stage or worker_query",
    leviath="V11",
)


@STRUCTURE.check(EMPTY_STAGE_NAME)
def check_stage_names(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        if stage.name == "":
            yield ctx.report(EMPTY_STAGE_NAME, "a stage has an empty name", stage_path(""))


@STRUCTURE.check(REQUIRED_TOOL_NOT_AVAILABLE)
def check_required_tools(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        raw = ctx.raw(stage_path(stage.name) + ("required_tools",), None)
        if not isinstance(raw, list):
            continue
        for index, tool in enumerate(raw):
            if isinstance(tool, str) and tool not in stage.available_tools:
                yield ctx.report(
                    REQUIRED_TOOL_NOT_AVAILABLE,
                    f"stage '{stage.name}' requires tool '{tool}', which is not in its available_tools, "
                    "so an unattended run cannot keep it",
                    stage_path(stage.name) + ("required_tools", index),
                    anchor="value",
                    fix=f"add '{tool}' to available_tools, or remove it from required_tools",
                )


@STRUCTURE.check(OUTPUT_MISSING_SUBMIT_TOOL)
def check_require_output(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        if stage.require_output and SUBMIT_OUTPUT_TOOL not in stage.available_tools:
            yield ctx.report(
                OUTPUT_MISSING_SUBMIT_TOOL,
                f"stage '{stage.name}' sets require_output but '{SUBMIT_OUTPUT_TOOL}' is not in its "
                "available_tools, so it can never submit its output",
                stage_path(stage.name) + ("require_output",),
            )


@STRUCTURE.check(FAN_OUT_NEEDS_ONE_WORKER)
def check_fan_out_workers(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        if stage.fan_out is None:
            continue
        raw = raw_table(ctx, stage_path(stage.name))
        written = [key for key in raw if key in WORKER_KEYS and isinstance(raw[key], str)]
        if not written:
            yield ctx.report(
                FAN_OUT_NEEDS_ONE_WORKER,
                f"fan-out stage '{stage.name}' names no worker: it sets none of worker_agent, "
                "worker_stage or worker_query",
                stage_path(stage.name) + ("mode",),
                anchor="value",
            )
        elif len(written) > 1:
            yield ctx.report(
                FAN_OUT_NEEDS_ONE_WORKER,
                f"fan-out stage '{stage.name}' sets {quoted(written)}; exactly one kind of worker may be set",
                stage_path(stage.name) + (written[1],),
                fix=f"keep only one of {quoted(written)}",
                related=[
                    (f"'{key}' is also set here", stage_path(stage.name) + (key,))
                    for key in written
                    if key != written[1]
                ],
            )
