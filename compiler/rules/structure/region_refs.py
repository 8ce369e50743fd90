"""References to regions: gates, transforms, fan-out results, documents, tool routing.

Three notions, as the reference defines them (format.md §3.4, §4.2):
- *known*: declared by the global layout or any stage layout, or one of the four
  always-visible names. Gates may name a region only another stage declares.
- *visible* to a stage: its own layout if it has one, else the global layout, plus the
  always-visible names. Tool results can only be routed into a visible region.
- V9 `[[transforms]]` targets must be regions of the global layout itself.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import Diagnostic, KeyPath
from ...ir.model import Blueprint, Layout, Stage
from ...rulebook.registry import STRUCTURE
from ...rulebook.snippets import blueprint
from ...rulebook.snippets import stage as declared
from ..context import RuleContext
from .common import did_you_mean, edge_path, edges, header, layouts, quoted, stage_path, string_entries

UNKNOWN_REGION = STRUCTURE.define(
    "unknown-region",
    severity="error",
    summary="A gate, transform, fan-out, interaction point or tracking setting names a region no layout declares.",
    rationale=(
        "Regions are referred to by name. A name no layout declares is a typo or a region that "
        "was renamed: a gate on it can never be satisfied as intended, a transform silently does "
        "nothing to it, results routed to it go nowhere. The reference runtime refuses unknown "
        "gate regions and `[[transforms]]` targets, and silently accepts the rest "
        "(`require_regions`, `transform_config` lists, `results_region`, `document_region`, "
        "`[context.file_tracking] region`, `source_region`); this rule checks them all."
    ),
    example=blueprint(
        '[context.regions]\nplan = { kind = "pinned" }',
        declared("work"),
        '[stages.work.transitions.review]\ngate = { require_region_updated = "plans" }',
        declared("review"),
    ),
    example_fixed=blueprint(
        '[context.regions]\nplan = { kind = "pinned" }',
        declared("work"),
        '[stages.work.transitions.review]\ngate = { require_region_updated = "plan" }',
        declared("review"),
    ),
    fix="name a declared region, or declare it under [context.regions]",
    leviath="V9, V22",
    differs=(
        "Leviath does not check gate require_regions, transform_config carry/compact/clear, "
        "fan-out results_region, interaction-point document_region, [context.file_tracking] "
        "region or compact_history source_region."
    ),
)

REGION_NOT_VISIBLE = STRUCTURE.define(
    "region-not-visible",
    severity="error",
    summary="A stage routes tool results into a region its context does not include.",
    rationale=(
        "Tool results land in the region `tool_routing` names (by default `tool_results`). A "
        "stage sees only its own layout, or the global one when it has none, plus the four "
        "always-visible regions; results routed anywhere else would be invisible to the model "
        "that asked for them. The reference runtime refuses the blueprint."
    ),
    example=blueprint(
        declared("scan"),
        "[stages.scan.context.regions]\nnotes = {}",
        '[stages.scan.tool_routing]\ndefault_region = "findings"',
    ),
    example_fixed=blueprint(
        declared("scan"),
        "[stages.scan.context.regions]\nnotes = {}\nfindings = {}",
        '[stages.scan.tool_routing]\ndefault_region = "findings"',
    ),
    fix="add the region to the stage's layout, or route the results elsewhere",
    leviath="V20, V21",
)

GATE_REGION_NOT_CHECKLIST = STRUCTURE.define(
    "gate-region-not-checklist",
    severity="error",
    summary="A gate's `require_no_open_items` names a region that is not a checklist.",
    rationale=(
        "Only a checklist region has items that can be open or done, so the gate could never "
        "tell whether work remains. The reference runtime refuses the blueprint unless some "
        'layout declares the region with `kind = "checklist"`.'
    ),
    example=blueprint(
        '[context.regions]\ntodo = { kind = "pinned" }',
        declared("work"),
        '[stages.work.transitions.done]\ngate = { require_no_open_items = "todo" }',
        declared("done"),
    ),
    example_fixed=blueprint(
        '[context.regions]\ntodo = { kind = "checklist" }',
        declared("work"),
        '[stages.work.transitions.done]\ngate = { require_no_open_items = "todo" }',
        declared("done"),
    ),
    fix='set kind = "checklist" on the region, or gate on a checklist region',
    leviath="V23",
)


def _unknown(ctx: RuleContext, name: str, message: str, path: KeyPath, candidates=None) -> Diagnostic:
    known = sorted(ctx.blueprint.known_regions if candidates is None else candidates)
    return ctx.report(
        UNKNOWN_REGION,
        message,
        path,
        anchor="value",
        fix=did_you_mean(name, known, "name a declared region, or declare it under [context.regions]"),
    )


@STRUCTURE.check(UNKNOWN_REGION)
def check_gate_regions(ctx: RuleContext) -> Iterator[Diagnostic]:
    known = ctx.blueprint.known_regions
    for stage, edge in edges(ctx):
        if edge.gate is None:
            continue
        where = f"transition from '{stage.name}' to '{edge.target}'"
        gate_path = edge_path(stage.name, edge.target) + ("gate",)
        gate = edge.gate
        singles = [
            ("region", gate.region, gate_path + ("region",)),
            ("require_region_updated", gate.require_region_updated, gate_path + ("require_region_updated",)),
            ("require_no_open_items", gate.require_no_open_items, gate_path + ("require_no_open_items",)),
        ]
        for key, name, path in singles:
            if name is not None and name not in known:
                yield _unknown(ctx, name, f"{where}: gate.{key} names region '{name}', which no layout declares", path)
        for index, name in string_entries(ctx.raw(gate_path + ("require_regions",), None)):
            if name not in known:
                yield _unknown(
                    ctx,
                    name,
                    f"{where}: gate.require_regions names region '{name}', which no layout declares",
                    gate_path + ("require_regions", index),
                )


@STRUCTURE.check(UNKNOWN_REGION)
def check_transform_regions(ctx: RuleContext) -> Iterator[Diagnostic]:
    known = ctx.blueprint.known_regions
    for stage, edge in edges(ctx):
        if edge.custom is None:
            continue
        config_path = edge_path(stage.name, edge.target) + ("transform_config",)
        for key in ("carry", "compact", "clear"):
            for index, name in string_entries(ctx.raw(config_path + (key,), None)):
                if name not in known:
                    yield _unknown(
                        ctx,
                        name,
                        f"transition from '{stage.name}' to '{edge.target}': transform_config.{key} "
                        f"names region '{name}', which no layout declares",
                        config_path + (key, index),
                    )


@STRUCTURE.check(UNKNOWN_REGION)
def check_stage_regions(ctx: RuleContext) -> Iterator[Diagnostic]:
    known = ctx.blueprint.known_regions
    for stage in ctx.blueprint.stages:
        results = stage.fan_out.results_region if stage.fan_out else None
        if results is not None and results not in known:
            yield _unknown(
                ctx,
                results,
                f"fan-out stage '{stage.name}': results_region '{results}' is declared by no layout",
                stage_path(stage.name) + ("results_region",),
            )
        for index, point in enumerate(stage.interaction_points):
            document = point.document_region
            if document is not None and document not in known:
                label = f"interaction point '{point.name}'" if point.name else f"interaction point {index + 1}"
                yield _unknown(
                    ctx,
                    document,
                    f"stage '{stage.name}', {label}: document_region '{document}' is declared by no layout",
                    stage_path(stage.name) + ("interaction_points", index, "document_region"),
                )


@STRUCTURE.check(UNKNOWN_REGION)
def check_layout_regions(ctx: RuleContext) -> Iterator[Diagnostic]:
    blueprint = ctx.blueprint
    known = blueprint.known_regions
    tracked = ctx.raw(("context", "file_tracking", "region"), None)
    if isinstance(tracked, str) and tracked not in known:
        yield _unknown(
            ctx,
            tracked,
            f"[context.file_tracking] region '{tracked}' is declared by no layout",
            ("context", "file_tracking", "region"),
        )
    for prefix, layout, _ in layouts(ctx):
        for region in layout.regions:
            source = region.source_region
            written = isinstance(ctx.raw(prefix + (region.name, "source_region"), None), str)
            if region.kind == "compact_history" and written and source is not None and source not in known:
                yield _unknown(
                    ctx,
                    source,
                    f"compact_history region '{region.name}': source_region '{source}' is declared by no layout",
                    prefix + (region.name, "source_region"),
                    candidates=known - {region.name},
                )
    global_names = blueprint.layout.names
    for i, transform in enumerate(blueprint.transforms):
        for j, mapping in enumerate(transform.mappings):
            target = mapping.to_region
            if target in global_names:
                continue
            path: KeyPath = ("transforms", i, "mappings", j)
            if isinstance(ctx.raw(path + ("to_region",), None), str):
                message = f"[[transforms]] mapping to_region '{target}' is not a region of the global layout"
                path += ("to_region",)
            else:
                message = "[[transforms]] mapping has no to_region, so it targets no region of the global layout"
            yield _unknown(ctx, target, message, path, candidates=global_names)


@STRUCTURE.check(REGION_NOT_VISIBLE)
def check_routing_visibility(ctx: RuleContext) -> Iterator[Diagnostic]:
    blueprint = ctx.blueprint
    for stage in blueprint.stages:
        routing = stage.tool_routing
        if routing is None:
            continue
        visible = blueprint.visible_regions(stage)
        routing_path = stage_path(stage.name) + ("tool_routing",)
        targets: list[tuple[str, str, KeyPath]] = [
            ("tool results", routing.default_region, routing_path + ("default_region",))
        ]
        for override in routing.overrides:
            if override.region is None:
                continue
            path = routing_path + ("overrides", override.tool)
            if isinstance(ctx.raw(path, None), dict):
                path += ("region",)
            targets.append((f"'{override.tool}' results", override.region, path))
        for what, region, path in targets:
            if region in visible:
                continue
            yield ctx.report(
                REGION_NOT_VISIBLE,
                f"stage '{stage.name}' routes {what} to region '{region}', which its context does not "
                f"include ({_declared_where(blueprint, stage, region)})",
                path,
                anchor="value",
                fix=did_you_mean(region, sorted(visible), _visibility_fix(stage, region)),
            )


def _all_layouts(blueprint: Blueprint) -> list[Layout]:
    """The global layout (the fallback pair included) and every stage layout."""
    return [blueprint.layout] + [s.layout for s in blueprint.stages if s.layout is not None]


def _declared_where(blueprint: Blueprint, stage: Stage, region: str) -> str:
    if stage.layout is not None and region in blueprint.layout.names:
        return "[context.regions] declares it, but the stage's own layout replaces that one"
    owners = [s.name for s in blueprint.stages if s.layout is not None and region in s.layout.names]
    if owners:
        return (
            f"only stage {quoted(owners)} declares it"
            if len(owners) == 1
            else f"only stages {quoted(owners)} declare it"
        )
    return "no layout declares it"


def _visibility_fix(stage: Stage, region: str) -> str:
    where = header(stage_path(stage.name) + ("context", "regions")) if stage.layout is not None else "[context.regions]"
    return f"declare '{region}' in {where}, or route to a region the stage sees"


@STRUCTURE.check(GATE_REGION_NOT_CHECKLIST)
def check_checklist_gates(ctx: RuleContext) -> Iterator[Diagnostic]:
    blueprint = ctx.blueprint
    regions = [r for layout in _all_layouts(blueprint) for r in layout.regions]
    checklists = {r.name for r in regions if r.kind == "checklist"}
    for stage, edge in edges(ctx):
        name = edge.gate.require_no_open_items if edge.gate else None
        if name is None or name in checklists or name not in blueprint.known_regions:
            continue  # an unknown name is `unknown-region`'s finding
        kinds = sorted({r.kind for r in regions if r.name == name})
        what = f"its kind is {quoted(kinds)}" if kinds else "it is an always-visible region, never a checklist"
        yield ctx.report(
            GATE_REGION_NOT_CHECKLIST,
            f"transition from '{stage.name}' to '{edge.target}': gate.require_no_open_items names region "
            f"'{name}', which is not a checklist region ({what})",
            edge_path(stage.name, edge.target) + ("gate", "require_no_open_items"),
            anchor="value",
            fix=(
                f"set kind = \"checklist\" on region '{name}', or gate on a checklist region"
                if kinds
                else 'gate on a region declared with kind = "checklist"'
            ),
        )
