"""Settings a stage leaves to a default: its mode, its model, its iteration cap; and a model
block written where nothing reads it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...diagnostics import Diagnostic
from ...ir.build_values import is_int
from ...rulebook.fixers import KeyEdits, KeyFix
from ...rulebook.registry import LINT
from ...rulebook.snippets import MODEL
from ...rulebook.snippets import stage as stage_example
from ..common import header, raw_table, stage_path
from ..context import RuleContext


def write_autonomous_mode(edits: KeyEdits, finding: Diagnostic) -> None:
    """The fixer: the mode the stage already runs in, as its first key."""
    edits.insert_first(finding.path, "mode", "autonomous")


STAGE_MISSING_MODE = LINT.define(
    "stage-missing-mode",
    severity="warning",
    summary="A stage does not say which mode it runs in.",
    rationale=(
        "Without `mode` a stage runs autonomously: no person is asked anything and interaction "
        "points are ignored. That is often right, but a reader cannot tell a decision from an "
        "omission, and a stage meant to be interactive silently is not."
    ),
    example=f"[stages.draft]\n{MODEL}\nmax_iterations = 20",
    example_fixed=stage_example("draft"),
    fix='write mode = "autonomous" if that is what you meant',
    leviath="stage-missing-mode",
    fixer=KeyFix(write_autonomous_mode),
)

STAGE_MISSING_MODEL = LINT.define(
    "stage-missing-model",
    severity="warning",
    summary="A stage names no model, so it runs on a default.",
    rationale=(
        "A stage without a model, or whose model table lists no provider or model of its own "
        "(`model = {}`, `models = []`, `models = [{}]`), runs on the default "
        "anthropic / claude-sonnet-4-6, or on whatever the user's configuration defaults to. The "
        "same blueprint then behaves differently from machine to machine, and the cost and "
        "quality of the stage are left to chance."
    ),
    example='[stages.draft]\nmode = "autonomous"\nmax_iterations = 20',
    example_fixed=stage_example("draft"),
    fix='add model = { models = [{ provider = "…", model = "…" }] }',
    leviath="stage-missing-model",
    differs=(
        "Leviath only asks whether the key is written, so `model = {}` and "
        "`model = { models = [] }` count as declared although they run on the default."
    ),
)

STAGE_MISSING_MAX_ITERATIONS = LINT.define(
    "stage-missing-max-iterations",
    severity="warning",
    summary="A stage sets no iteration cap of its own (`max_iterations` absent or 0).",
    rationale=(
        "Without `max_iterations` (or with 0, which Leviath's daemon reads as unset) a stage "
        "that never finishes keeps calling the model until the user's default cap stops it: "
        "`[limits] default_max_iterations` in the Leviath configuration, 50 unless changed, "
        "and none at all if set to 0 (our `default-max-iterations` setting models it). How "
        "long the stage may run is then the user's setting, not the blueprint's. A cap the "
        "stage should never reach turns a runaway loop into a bounded failure that a "
        "`max_iterations` edge can handle. Fan-out stages are exempt: no cap applies to them."
    ),
    example=f'[stages.draft]\nmode = "autonomous"\n{MODEL}',
    example_fixed=stage_example("draft"),
    fix="set a max_iterations the stage should never reach",
    leviath="stage-missing-max-iterations",
    differs=(
        "Leviath's lint asks only whether max_iterations is set, so max_iterations = 0 passes "
        "it, although its daemon replaces 0 with the default cap as it does an unset value. It "
        "also warns about the default stage it injects into a file that declares no stages; we "
        "do not, as for the mode and model of that stage."
    ),
)

AGENT_MODEL_BLOCK_IGNORED = LINT.define(
    "agent-model-block-ignored",
    severity="warning",
    summary="A top-level `[model]` table is read by nothing.",
    rationale=(
        "There is no blueprint-wide model: each stage names its own. A `[model]` block at the "
        "top of the file looks like a default for every stage, but the runtime ignores it and "
        "each stage without a model of its own runs on anthropic / claude-sonnet-4-6."
    ),
    example='[model]\nprovider = "openai"\nmodel = "gpt-5"\n\n' + stage_example("draft"),
    example_fixed=stage_example("draft"),
    fix="move the block into each [stages.<name>.model]",
    leviath="agent-model-block-ignored",
)


def _names_a_model(model: dict[str, Any]) -> bool:
    """Whether a model table yields an entry that states its provider or model."""

    def states(entry: Any) -> bool:
        return isinstance(entry, dict) and ("provider" in entry or "model" in entry)

    models = model.get("models")
    if isinstance(models, list) and any(isinstance(e, dict) for e in models):
        return any(states(e) for e in models)
    fallbacks = model.get("fallbacks")
    return isinstance(model.get("provider"), str) or (isinstance(fallbacks, list) and any(states(e) for e in fallbacks))


def _model_problem(model: Any) -> str | None:
    """Why a written `model` leaves the stage on the default, or None when it does not (or
    when another rule already explains it)."""
    if not isinstance(model, dict):
        return None  # a wrong type: the schema layer's finding
    models = model.get("models")
    if isinstance(models, list) and any(not isinstance(e, dict) for e in models):
        return None  # entries of the wrong type: the schema layer's finding
    if _names_a_model(model):
        return None
    if "model" in model and "provider" not in model:
        return None  # model.model without provider: ignored-key explains it
    return "its model table names no provider or model"


@LINT.check(STAGE_MISSING_MODE, STAGE_MISSING_MODEL, STAGE_MISSING_MAX_ITERATIONS)
def check_declarations(ctx: RuleContext) -> Iterator[Diagnostic]:
    # A file that declares no stages runs one injected default stage; like the reference we
    # treat settings absent from the text as declared, so a fragment stays quiet.
    written = raw_table(ctx, ("stages",))
    for stage in ctx.blueprint.stages:
        if stage.name not in written:
            continue
        raw = written[stage.name]
        if not isinstance(raw, dict):
            raw = {}  # read as a stage with every key at its default (non-canonical-value says so)
        path = stage_path(stage.name)
        if "mode" not in raw:
            yield ctx.report(
                STAGE_MISSING_MODE,
                f"stage '{stage.name}' sets no mode, so it runs autonomously",
                path,
            )
        if "model" not in raw:
            yield ctx.report(
                STAGE_MISSING_MODEL,
                f"stage '{stage.name}' names no model, so it runs on the default anthropic / "
                "claude-sonnet-4-6 or the user's configured default",
                path,
                fix=f"add {MODEL} to {header(path)}",
            )
        elif (problem := _model_problem(raw["model"])) is not None:
            yield ctx.report(
                STAGE_MISSING_MODEL,
                f"stage '{stage.name}': {problem}, so it runs on the default anthropic / claude-sonnet-4-6",
                path + ("model",),
                fix='list the model it should run on: models = [{ provider = "…", model = "…" }]',
            )
        if stage.mode == "fan_out":
            continue
        cap = raw.get("max_iterations")
        default = ctx.settings.default_max_iterations
        if default:
            bound = f"so it runs until the user's default cap stops it (default-max-iterations, {default} here)"
        else:
            bound = "and default-max-iterations is 0, so nothing bounds how often it calls the model"
        if "max_iterations" not in raw:
            yield ctx.report(
                STAGE_MISSING_MAX_ITERATIONS,
                f"stage '{stage.name}' has no max_iterations, {bound}",
                path,
            )
        elif is_int(cap) and cap == 0:
            yield ctx.report(
                STAGE_MISSING_MAX_ITERATIONS,
                f"stage '{stage.name}': max_iterations = 0 counts as unset, {bound}",
                path + ("max_iterations",),
                anchor="value",
            )


@LINT.check(AGENT_MODEL_BLOCK_IGNORED)
def check_top_level_model(ctx: RuleContext) -> Iterator[Diagnostic]:
    if isinstance(ctx.document.get("model"), dict):
        yield ctx.report(
            AGENT_MODEL_BLOCK_IGNORED,
            "the top-level [model] table is read by nothing: there is no blueprint-wide model, so "
            "stages without a model of their own run on anthropic / claude-sonnet-4-6",
            ("model",),
        )
