"""A stage's output declarations: a shape nobody must produce, and a reporting stage that can
still change the workspace."""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...rulebook.registry import LINT
from ...rulebook.snippets import stage as stage_example
from ..common import stage_path, string_entries
from ..context import RuleContext
from .tool_catalog import MODIFYING, canonical

_SHAPE = '\n\n[stages.summary.output]\nformat = "markdown"\ninstructions = "A short report."'

OUTPUT_SHAPE_NOT_REQUIRED = LINT.define(
    "output-shape-not-required",
    severity="warning",
    summary="A stage declares an `[output]` shape but is not required to submit an output.",
    rationale=(
        "A shape tells the model what `submit_output` should carry, but nothing obliges the "
        'stage to call it unless `require_output = true` (or `mode = "output"`). The run may '
        "finish with nothing, and the shape is a wish rather than a contract."
    ),
    example=stage_example("summary", 'available_tools = ["submit_output"]' + _SHAPE),
    example_fixed=stage_example("summary", 'available_tools = ["submit_output"]\nrequire_output = true' + _SHAPE),
    fix='set require_output = true (or mode = "output"), or move the shape to the stage that submits',
    leviath="output-shape-not-required",
)

OUTPUT_STAGE_CAN_MODIFY = LINT.define(
    "output-stage-can-modify",
    severity="warning",
    summary="An output stage grants `write_file` or `edit_file`.",
    rationale=(
        "An output stage reports what happened. One that can also change files invites the "
        "model to keep working where it was meant to report, and the changes land after "
        "whatever review was meant to check them."
    ),
    example=stage_example("report", 'available_tools = ["read_file", "write_file"]', mode="output"),
    example_fixed=stage_example("report", 'available_tools = ["read_file"]', mode="output"),
    fix="drop the tool, or do the writing in the stage before",
    leviath="output-stage-can-modify",
)


@LINT.check(OUTPUT_SHAPE_NOT_REQUIRED)
def check_unrequired_shape(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        if stage.output is not None and not stage.require_output:
            yield ctx.report(
                OUTPUT_SHAPE_NOT_REQUIRED,
                f"stage '{stage.name}' declares an output shape but is not required to submit an output, "
                "so the run may finish without one",
                stage_path(stage.name) + ("output",),
            )


@LINT.check(OUTPUT_STAGE_CAN_MODIFY)
def check_modifying_output_stage(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        if stage.mode != "output":
            continue
        for index, tool in string_entries(ctx.raw(stage_path(stage.name) + ("available_tools",), None)):
            if canonical(tool) in MODIFYING:
                yield ctx.report(
                    OUTPUT_STAGE_CAN_MODIFY,
                    f"stage '{stage.name}' is an output stage but grants '{tool}', which changes the workspace",
                    stage_path(stage.name) + ("available_tools", index),
                    anchor="value",
                )
