"""Required regions, the closest thing a blueprint has to a declared deliverable: one an edge
hands to the summarizer, and one no stage can ever fill."""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import Diagnostic, KeyPath
from ...ir.model import Region, Stage
from ...rulebook.registry import LINT
from ...rulebook.snippets import stage as stage_example
from ..common import edge_path, stage_path
from ..context import RuleContext

#: The tools that fill a region; the runtime checks for them literally.
CONTEXT_WRITERS = ("context_write", "context_append")

COMPACT_SUMMARIZES_DELIVERABLE = LINT.define(
    "compact-summarizes-deliverable",
    severity="warning",
    summary="A compacting transition summarizes a region the blueprint declares `required`.",
    rationale=(
        '`transform = "compact"` reads as "summarize the transcript on the way out" but '
        "summarizes every region that is not pinned and not `summarizable = false`, including "
        "the ones holding the run's results. `required` is how a blueprint says a region is a "
        "deliverable; figures and lists that go through a paraphrase reach the next stage as "
        "something else. A custom transform that names the region under `compact` does the same."
    ),
    example=(
        '[context.regions.findings]\nkind = "temporary"\nrequired = true\n\n'
        + stage_example("gather", 'available_tools = ["context_write"]')
        + '\n\n[stages.gather.transitions.report]\ntransform = "compact"\n\n'
        + stage_example("report", 'available_tools = ["context_read"]')
        + "\n\n[stages.report.transitions]"
    ),
    example_fixed=(
        '[context.regions.findings]\nkind = "temporary"\nrequired = true\nsummarizable = false\n\n'
        + stage_example("gather", 'available_tools = ["context_write"]')
        + '\n\n[stages.gather.transitions.report]\ntransform = "compact"\n\n'
        + stage_example("report", 'available_tools = ["context_read"]')
        + "\n\n[stages.report.transitions]"
    ),
    fix='set summarizable = false on the region, or use transform = "custom" and name the regions to summarize',
    leviath="compact-summarizes-deliverable",
    differs="Leviath looks at bare compact transitions only, not at custom transforms that compact the region.",
)

REQUIRED_REGION_UNENFORCEABLE = LINT.define(
    "required-region-unenforceable",
    severity="warning",
    summary="A region is `required`, but no stage that sees it can write it.",
    rationale=(
        "The runtime enforces `required = true` by sending a stage back to fill the region, and "
        "only a stage that grants `context_write` or `context_append` can. When no stage that "
        "sees the region grants either, the requirement is never checked and the region stays "
        "empty: the author believes a deliverable is guaranteed and it is not. A region filled "
        "by a seed (caller input, literal, files, a command …) needs no writer."
    ),
    example='[context.regions.findings]\nkind = "pinned"\nrequired = true\n\n'
    + stage_example("gather", 'available_tools = ["read_file"]'),
    example_fixed='[context.regions.findings]\nkind = "pinned"\nrequired = true\n\n'
    + stage_example("gather", 'available_tools = ["read_file", "context_write"]'),
    fix="grant context_write or context_append to the stage that owes the region, or drop required",
    leviath="required-region-unenforceable",
    differs="Leviath also reports required regions that a non-caller seed fills, which need no writer.",
)


def _region_path(stage: Stage, name: str) -> KeyPath:
    if stage.layout is not None:
        return stage_path(stage.name) + ("context", "regions", name)
    return ("context", "regions", name)


def _compacted(stage: Stage, layout_regions: dict[str, Region]) -> Iterator[tuple[Region, str, str, KeyPath]]:
    """(region, edge target, how, key under the edge) for every required region an edge of
    `stage` summarizes. A custom transform compacts what it names, whatever the kind."""
    for edge in stage.transitions or ():
        if edge.transform == "compact":
            for region in layout_regions.values():
                if region.required and region.summarizable and not region.is_fixed:
                    yield region, edge.target, 'transform = "compact"', ("transform",)
        elif edge.transform == "custom" and edge.custom is not None:
            for name in edge.custom.compact:
                named = layout_regions.get(name)
                if named is not None and named.required and named.summarizable and name not in edge.custom.carry:
                    yield named, edge.target, "its custom transform's compact list", ("transform_config", "compact")


@LINT.check(COMPACT_SUMMARIZES_DELIVERABLE)
def check_compacted_deliverables(ctx: RuleContext) -> Iterator[Diagnostic]:
    seen: set[str] = set()
    for stage in ctx.blueprint.stages:
        regions = {r.name: r for r in ctx.blueprint.layout_for(stage).regions}
        for region, target, how, key in _compacted(stage, regions):
            if region.name in seen:
                continue
            seen.add(region.name)
            yield ctx.report(
                COMPACT_SUMMARIZES_DELIVERABLE,
                f"region '{region.name}' is required (a stage must fill it), and the transition from "
                f"'{stage.name}' to '{target}' summarizes it through {how}, so what was written reaches "
                "later stages paraphrased",
                edge_path(stage.name, target) + key,
                anchor="value",
                related=[(f"region '{region.name}' is declared here", _region_path(stage, region.name))],
                fix=(
                    f"set summarizable = false on region '{region.name}', or summarize only named regions with "
                    'transform = "custom"'
                    if key == ("transform",)
                    else f"remove '{region.name}' from compact (or add it to carry), or set summarizable = false on it"
                ),
            )


@LINT.check(REQUIRED_REGION_UNENFORCEABLE)
def check_unenforceable_regions(ctx: RuleContext) -> Iterator[Diagnostic]:
    blueprint = ctx.blueprint
    owed: dict[str, tuple[Stage, Region]] = {}
    writers: set[str] = set()
    for stage in blueprint.stages:
        layout = blueprint.layout_for(stage)
        if any(tool in CONTEXT_WRITERS for tool in stage.available_tools):
            writers.update(layout.names)
        for region in layout.regions:
            if region.required and region.seed is None and region.name not in owed:
                owed[region.name] = (stage, region)
    for name, (stage, _region) in owed.items():
        if name in writers:
            continue
        yield ctx.report(
            REQUIRED_REGION_UNENFORCEABLE,
            f"region '{name}' is required, but no stage that sees it grants context_write or "
            "context_append, so nothing can fill it and the requirement is never enforced",
            _region_path(stage, name) + ("required",),
        )
