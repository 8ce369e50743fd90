"""References to stages: the entry stage, edge targets, fan-out worker and merge stages."""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...rulebook.registry import STRUCTURE
from ...rulebook.snippets import blueprint
from ...rulebook.snippets import stage as declared
from ..context import RuleContext
from .common import did_you_mean, edge_path, edges, header, quoted, stage_path

UNKNOWN_ENTRY_STAGE = STRUCTURE.define(
    "unknown-entry-stage",
    severity="error",
    summary="`[agent] entry_stage` names no stage.",
    rationale=(
        "A run starts in the entry stage. A name that matches no stage is almost always a typo "
        "or a stage that was renamed; the reference runtime refuses the blueprint."
    ),
    example='[agent]\nname = "a"\nentry_stage = "plann"\n\n' + declared("plan"),
    example_fixed='[agent]\nname = "a"\nentry_stage = "plan"\n\n' + declared("plan"),
    fix="name an existing stage, or remove entry_stage to start at the first stage",
    leviath="V10",
)

UNKNOWN_STAGE = STRUCTURE.define(
    "unknown-stage",
    severity="error",
    summary="A transition target, fan-out `worker_stage` or `merge_stage` names no stage.",
    rationale=(
        "Edges and fan-out settings refer to stages by name. A name that matches no stage would "
        "strand the run the moment it is followed; the reference runtime refuses the blueprint."
    ),
    example=blueprint(declared("plan"), "[stages.plan.transitions.reveiw]", declared("review")),
    example_fixed=blueprint(declared("plan"), "[stages.plan.transitions.review]", declared("review")),
    fix="name an existing stage, or declare the stage",
    leviath="V12, V14, V15",
)

WORKER_STAGE_NOT_ALLOWED = STRUCTURE.define(
    "worker-stage-not-allowed",
    severity="error",
    summary="A fan-out `worker_stage` names a stage that does not set `allow_as_worker = true`.",
    rationale=(
        "Running a stage as a fan-out worker gives it a fresh context per item. A stage must "
        "opt in to that with `allow_as_worker = true`, so that a stage of the main flow is not "
        "used as a worker by mistake; the reference runtime refuses the blueprint otherwise."
    ),
    example=blueprint(declared("split", 'worker_stage = "scan"', mode="fan_out"), declared("scan")),
    example_fixed=blueprint(
        declared("split", 'worker_stage = "scan"', mode="fan_out"), declared("scan", "allow_as_worker = true")
    ),
    fix="set allow_as_worker = true on the worker stage",
    leviath="V13",
)


def _missing_stage_fix(ctx: RuleContext, name: str) -> str:
    names = ctx.blueprint.stage_names
    return did_you_mean(name, names, f"declare {header(stage_path(name))} or name one of {quoted(names)}")


@STRUCTURE.check(UNKNOWN_ENTRY_STAGE)
def check_entry_stage(ctx: RuleContext) -> Iterator[Diagnostic]:
    entry = ctx.blueprint.entry_stage
    if entry is not None and ctx.blueprint.stage(entry) is None:
        yield ctx.report(
            UNKNOWN_ENTRY_STAGE,
            f"entry_stage '{entry}' does not match any stage",
            ("agent", "entry_stage"),
            anchor="value",
            fix=did_you_mean(entry, ctx.blueprint.stage_names, "name an existing stage, or remove entry_stage"),
        )


@STRUCTURE.check(UNKNOWN_STAGE)
def check_edge_targets(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage, edge in edges(ctx):
        if ctx.blueprint.stage(edge.target) is None:
            yield ctx.report(
                UNKNOWN_STAGE,
                f"transition from '{stage.name}' to '{edge.target}': stage '{edge.target}' does not exist",
                edge_path(stage.name, edge.target),
                fix=_missing_stage_fix(ctx, edge.target),
            )


@STRUCTURE.check(UNKNOWN_STAGE)
def check_fan_out_stages(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        fan_out = stage.fan_out
        if fan_out is None:
            continue
        for key, name in (("worker_stage", fan_out.worker_stage), ("merge_stage", fan_out.merge_stage)):
            if name is not None and ctx.blueprint.stage(name) is None:
                yield ctx.report(
                    UNKNOWN_STAGE,
                    f"fan-out stage '{stage.name}': {key} '{name}' does not exist",
                    stage_path(stage.name) + (key,),
                    anchor="value",
                    fix=_missing_stage_fix(ctx, name),
                )


@STRUCTURE.check(WORKER_STAGE_NOT_ALLOWED)
def check_worker_opt_in(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage in ctx.blueprint.stages:
        name = stage.fan_out.worker_stage if stage.fan_out else None
        worker = ctx.blueprint.stage(name) if name is not None else None
        if worker is not None and not worker.allow_as_worker:
            yield ctx.report(
                WORKER_STAGE_NOT_ALLOWED,
                f"fan-out stage '{stage.name}' uses stage '{name}' as its worker, but '{name}' does not "
                "set allow_as_worker = true",
                stage_path(stage.name) + ("worker_stage",),
                anchor="value",
                fix=f"set allow_as_worker = true in {header(stage_path(worker.name))}",
                related=[(f"stage '{name}' is declared here", stage_path(worker.name))],
            )
