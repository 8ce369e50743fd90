"""Keys the reference reads only under a condition that does not hold (`ignored-key`).

Each is a valid key in its table, so the schema layer accepts it, but what the author
wrote is silently dropped: a fan-out setting on an autonomous stage, a `transform_config`
on a `compact` edge, `max_items` on a pinned region. Where the condition itself is
unreadable (an unknown mode, kind, transform or strategy) nothing is reported here: the
schema layer reports that value, and which keys it would have made meaningful is unknown.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...diagnostics import Diagnostic, KeyPath
from ...ir.build_edges import edge_transform
from ...ir.build_regions import STRATEGIES, region_kind
from ...ir.build_stages import FAN_OUT_KEYS, stage_mode
from ...rulebook.registry import STRUCTURE
from ...rulebook.snippets import blueprint
from ...rulebook.snippets import stage as declared
from ..context import RuleContext
from .common import edge_path, raw_region_tables, raw_table, stage_path

IGNORED_KEY = STRUCTURE.define(
    "ignored-key",
    severity="warning",
    summary="A key is read only under a condition that does not hold, so its value is ignored.",
    rationale=(
        "Some keys mean something only in a certain context: fan-out settings on a fan-out "
        "stage, `transform_config` on a custom transform, `max_items` on a sliding window, "
        "`min_tokens` beside a percentage `budget`, `allow_complete` on a stage that asks the "
        "model where to go next (one with `always`/`llm_choice` edges; elsewhere no routing "
        "question is asked, so DONE is never offered and a stage without transitions goes on "
        "to the next declared stage). Elsewhere the reference runtime accepts "
        "them and silently drops them, so the author believes a setting is in force when it "
        "is not. Usually the mode, kind or transform is not the one intended."
    ),
    example=blueprint(declared("scan", 'worker_stage = "scan_one"'), declared("scan_one", "allow_as_worker = true")),
    example_fixed=blueprint(
        declared("scan", 'worker_stage = "scan_one"', mode="fan_out"), declared("scan_one", "allow_as_worker = true")
    ),
    fix="remove the key, or change the setting that makes it meaningful",
    differs="Leviath ignores these keys without a word.",
)

#: Region keys, the kind that reads each, and the fix hint.
_REGION_KEY_KINDS = {
    "max_items": "sliding_window",
    "strategy": "sliding_window",
    "overflow": "sliding_window",
    "compact_count": "sliding_window",
    "script": "custom",
    "persistent": "custom",
    "source_region": "compact_history",
    "max_entries": "hashmap",
    "compact_at": "compacting",
    "threshold_tokens": "compacting",
}
#: Sliding-window keys read only with one strategy.
_STRATEGY_KEYS = {"overflow": "bulk", "compact_count": "compact"}
_LEGACY_MODEL_KEYS = ("provider", "model", "fallbacks")


def _ignored(ctx: RuleContext, message: str, path: KeyPath, fix: str) -> Diagnostic:
    return ctx.report(IGNORED_KEY, message, path, fix=fix)


@STRUCTURE.check(IGNORED_KEY)
def check_mode_keys(ctx: RuleContext) -> Iterator[Diagnostic]:
    for name, raw in raw_table(ctx, ("stages",)).items():
        mode = stage_mode(raw) if isinstance(raw, dict) else None
        if mode is None:
            continue
        if mode != "fan_out":
            for key in raw:
                if key in FAN_OUT_KEYS:
                    yield _ignored(
                        ctx,
                        f"stage '{name}': '{key}' is read only when mode = \"fan_out\" (this stage is "
                        f"'{mode}'), so it is ignored",
                        stage_path(name) + (key,),
                        'set mode = "fan_out", or remove the key',
                    )
        if mode != "interactive_points" and "interaction_points" in raw:
            yield _ignored(
                ctx,
                f"stage '{name}': interaction_points are read only when mode = \"interactive_points\" "
                f"(this stage is '{mode}'), so they are ignored",
                stage_path(name) + ("interaction_points",),
                'set mode = "interactive_points", or remove the interaction points',
            )
        elif mode == "interactive_points":
            yield from _shadowed_aliases(ctx, name, raw.get("interaction_points"))


def _shadowed_aliases(ctx: RuleContext, stage: str, points: Any) -> Iterator[Diagnostic]:
    for index, point in enumerate(points if isinstance(points, list) else ()):
        if not isinstance(point, dict):
            continue
        for key, alias in (("options", "choices"), ("directives", "followups")):
            if key in point and alias in point:
                yield _ignored(
                    ctx,
                    f"stage '{stage}', interaction point {index + 1}: '{alias}' is ignored because "
                    f"'{key}' is also set (it is an older name for the same thing)",
                    stage_path(stage) + ("interaction_points", index, alias),
                    f"merge '{alias}' into '{key}' and remove it",
                )


@STRUCTURE.check(IGNORED_KEY)
def check_model_keys(ctx: RuleContext) -> Iterator[Diagnostic]:
    for name, raw in raw_table(ctx, ("stages",)).items():
        model = raw.get("model") if isinstance(raw, dict) else None
        if not isinstance(model, dict):
            continue
        path = stage_path(name) + ("model",)
        models = model.get("models")
        if isinstance(models, list) and any(isinstance(m, dict) for m in models):
            for key in _LEGACY_MODEL_KEYS:
                if key in model:
                    yield _ignored(
                        ctx,
                        f"stage '{name}': model.{key} is ignored because model.models lists the models",
                        path + (key,),
                        f"move it into model.models, or remove model.{key}",
                    )
        elif "model" in model and "provider" not in model:
            yield _ignored(
                ctx,
                f"stage '{name}': model.model without model.provider is ignored, so the stage runs the "
                "default anthropic / claude-sonnet-4-6",
                path + ("model",),
                'add provider = "…" beside it, or write models = [{ provider = "…", model = "…" }]',
            )


@STRUCTURE.check(IGNORED_KEY)
def check_transform_config(ctx: RuleContext) -> Iterator[Diagnostic]:
    for name, raw in raw_table(ctx, ("stages",)).items():
        transitions = raw.get("transitions") if isinstance(raw, dict) else None
        for target, edge in (transitions if isinstance(transitions, dict) else {}).items():
            if not isinstance(edge, dict) or "transform_config" not in edge:
                continue
            transform = edge_transform(edge.get("transform"))
            if transform is None or transform == "custom":
                continue
            extra = (
                " (a compact transform takes no compact_prompt from the blueprint)" if transform == "compact" else ""
            )
            yield _ignored(
                ctx,
                f"transition from '{name}' to '{target}': transform_config is read only with "
                f"transform = \"custom\" (this edge uses '{transform}'), so it is ignored{extra}",
                edge_path(name, target) + ("transform_config",),
                'set transform = "custom", or remove transform_config',
            )


@STRUCTURE.check(IGNORED_KEY)
def check_region_keys(ctx: RuleContext) -> Iterator[Diagnostic]:
    for prefix, regions in raw_region_tables(ctx):
        for name, raw in regions.items():
            if not isinstance(raw, dict):
                continue
            kind = region_kind(raw.get("kind"))
            if kind is None:
                continue
            path = prefix + (name,)
            for key in raw:
                reason = _region_key_reason(raw, key, kind)
                if reason is not None:
                    yield _ignored(ctx, f"region '{name}': {reason}, so it is ignored", path + (key,), _region_fix(key))


def _region_key_reason(raw: dict[str, Any], key: str, kind: str) -> str | None:
    if key == "min_tokens":
        return None if "budget" in raw else "min_tokens is read only beside a percentage budget"
    wanted = _REGION_KEY_KINDS.get(key)
    if wanted is None:
        return None
    if kind != wanted:
        return f"{key} applies only to {wanted} regions (this one is {kind})"
    if key in _STRATEGY_KEYS:
        strategy = raw.get("strategy", "per_item")
        if not isinstance(strategy, str) or strategy not in STRATEGIES:
            return None  # unreadable strategy: the schema layer's finding
        if strategy != _STRATEGY_KEYS[key]:
            return f'{key} applies only with strategy = "{_STRATEGY_KEYS[key]}" (this region uses {strategy})'
    return None


def _region_fix(key: str) -> str:
    if key == "min_tokens":
        return 'add budget = "N%" to the region, or remove min_tokens'
    if key in _STRATEGY_KEYS:
        return f'set strategy = "{_STRATEGY_KEYS[key]}" on a sliding_window region, or remove {key}'
    return f'set kind = "{_REGION_KEY_KINDS[key]}", or remove {key}'


@STRUCTURE.check(IGNORED_KEY)
def check_allow_complete(ctx: RuleContext) -> Iterator[Diagnostic]:
    """`allow_complete = true` where Leviath never asks the model to route, so never offers DONE."""
    written = raw_table(ctx, ("stages",))
    stages = ctx.blueprint.stages
    for index, stage in enumerate(stages):
        raw = written.get(stage.name)
        if not isinstance(raw, dict) or raw.get("allow_complete") is not True or stage.normal_edges:
            continue
        following = stages[index + 1].name if index + 1 < len(stages) else None
        if stage.transitions is None and following is not None:
            why = (
                f"it has no transitions table, so a normal end goes on to '{following}' (the next declared "
                "stage) without asking the model, and DONE is never offered: the run does not end here"
            )
            fix = (
                f"to let the model end the run here, add [stages.{stage.name}.transitions.{following}] (DONE is "
                "then offered beside it); to always end here, write an empty transitions table"
            )
        else:
            how = "it is the last declared stage" if stage.transitions is None else "it has no always/llm_choice edge"
            why = f"{how}, so a normal end finishes the run without asking the model anyway"
            fix = "remove allow_complete"
        yield _ignored(
            ctx,
            f"stage '{stage.name}': allow_complete is read only when the stage asks the model where to go next; {why}",
            stage_path(stage.name) + ("allow_complete",),
            fix,
        )
