"""Data flow over context regions, along the explored runs: a stage that reads a region some run
brings it to before anything could have filled it.

What fills a region (as Leviath does it):

- a seed (`seed = …`; the `task` region, or without one the blueprint's first pinned region,
  gets the caller's task): filled before the first stage;
- `context_write`, `context_append` (and `todo_add` on a checklist): the model names the
  region, any region of the window, so a stage granting one may fill every region;
- a stage's tool results, in its `tool_routing` `default_region` and override regions;
- a fan-out's `results_region`, an interaction point's `document_region`;
- the runtime itself: `conversation`, `tool_results`, `final_output`, `stage_instructions`,
  `error_report`, `stuck_report` and the file-tracking region are never looked at here.

Regions whose content comes from elsewhere (a `custom` region's script, a `compact_history`
fed by its source, a `persistent` one, a target of a `[[transforms]]` hand-over) are left
out, and so is everything when a stage could reach the window some other way (hooks, child
agents, dynamic tools). A stage reads a region when its `system_prompt` names it in
backquotes, when a gate of one of its transitions lists it in `require_regions`, and an
output stage's output depends on it when its `output.instructions` or `example` names it or
its layout marks it `required`. A stage that can fill the region itself is never reported
(its prompt may be telling it to). Only the stages before the reader on one run count: the
finding is the shortest such run, replayed through the runner.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..ir.model import ALWAYS_VISIBLE_REGIONS, ToolRouting
from ..rules.common import edge_path, stage_path
from ..runtime.policy import CONTEXT_WRITE_TOOLS, canonical_tool
from .rules import OUTPUT_REGION_EMPTY, REGION_READ_BEFORE_WRITTEN

if TYPE_CHECKING:
    from ..diagnostics import KeyPath
    from ..ir.model import Blueprint, Stage
    from .findings import Finding, Hop
    from .runs import RunGraph

#: Regions the runtime fills on its own.
RUNTIME_REGIONS = frozenset({*ALWAYS_VISIBLE_REGIONS, "error_report", "stuck_report"})
#: Tools through which the model fills a region it names.
WRITING_TOOLS = frozenset({*CONTEXT_WRITE_TOOLS, "todo_add"})
#: Tools through which something outside the blueprint's stages may fill the window.
OPAQUE_TOOLS = frozenset({"spawn_agent", "send_to_agent", "wait_for_agent", "check_agent"})
#: Kinds whose content does not come from a stage's writes.
FED_KINDS = frozenset({"custom", "compact_history"})
#: Every region (a stage that may fill any of them).
EVERY = None


def find(graph: "RunGraph") -> Iterator["Finding"]:
    """The data-flow findings of the explored runs, at most one per stage and region."""
    ir = graph.ir
    if ir.dynamic_tools:
        return
    watched = _watched(ir)
    writes = {stage.name: _writes(ir, stage) for stage in ir.stages}
    reads = [(stage, region, how, path, rule) for stage in ir.stages for region, how, path, rule in _reads(ir, stage)]
    wanted = {region for stage, region, *_ in reads if region in watched and _cannot_write(writes[stage.name], region)}
    for region in sorted(wanted):
        parents = _empty_runs(graph, writes, region)
        first: dict[str, int] = {}  # per stage, the first run state entered empty (the shortest run)
        for entered in parents:
            first.setdefault(graph.nodes[entered][0], entered)
        for stage, named, how, path, rule in reads:
            if named != region or not _cannot_write(writes[stage.name], region):
                continue
            node = first.get(stage.name)
            if node is None:
                continue
            finding = _finding(graph, parents, node, stage, region, how, path, rule)
            if finding is not None:
                yield finding


def _watched(ir: "Blueprint") -> set[str]:
    """Regions that start empty and only stages fill."""
    layouts = [ir.layout, *(s.layout for s in ir.stages if s.layout is not None)]
    declared = {region.name: region for layout in layouts for region in layout.regions}
    out = set()
    for name in declared:
        regions = [r for layout in layouts if (r := layout.get(name)) is not None]
        if any(r.seed is not None or r.kind in FED_KINDS or r.source_region or r.persistent for r in regions):
            continue
        out.add(name)
    out -= RUNTIME_REGIONS
    if ir.file_tracking is not None:
        out.discard(ir.file_tracking.region)
    out.discard(_task_region(ir))
    for transform in ir.transforms:
        out.difference_update(mapping.to_region for mapping in transform.mappings)
    return out


def _task_region(ir: "Blueprint") -> str | None:
    """Where the caller's task goes: `task`, else the first pinned region of the blueprint's layout."""
    if ir.layout.get("task") is not None:
        return "task"
    return next((r.name for r in ir.layout.regions if r.kind == "pinned"), None)


def _writes(ir: "Blueprint", stage: "Stage") -> frozenset[str] | None:
    """The regions a visit of `stage` may fill (EVERY: any of them)."""
    tools = {canonical_tool(t) for t in stage.available_tools}
    if tools & (WRITING_TOOLS | OPAQUE_TOOLS) or stage.hooks or stage.requires_children:
        return EVERY
    out: set[str] = set()
    if tools or stage.available_connectors:
        routing = stage.tool_routing or ToolRouting()
        out.add(routing.default_region)
        out.update(o.region for o in routing.overrides if o.region)
    if stage.fan_out is not None and stage.fan_out.results_region:
        out.add(stage.fan_out.results_region)
    out.update(p.document_region for p in stage.interaction_points if p.document_region)
    return frozenset(out)


def _cannot_write(writes: frozenset[str] | None, region: str) -> bool:
    return writes is not EVERY and region not in writes


def _reads(ir: "Blueprint", stage: "Stage") -> Iterator[tuple[str, str, "KeyPath", object]]:
    """(region, how it is read, where that is written, rule) for each region `stage` reads."""
    output = stage.mode == "output"
    rule = OUTPUT_REGION_EMPTY if output else REGION_READ_BEFORE_WRITTEN
    seen: set[str] = set()
    for name in _named(stage.system_prompt):
        seen.add(name)
        yield name, "its system_prompt names it", stage_path(stage.name) + ("system_prompt",), rule
    for edge in stage.transitions or ():
        for name in edge.gate.require_regions if edge.gate is not None else ():
            if name not in seen:
                seen.add(name)
                how = f"the gate of its transition to '{edge.target}' requires it"
                yield name, how, edge_path(stage.name, edge.target) + ("gate", "require_regions"), rule
    if not output:
        return
    spec = stage.output or ir.output
    for key in ("instructions", "example"):
        for name in _named(getattr(spec, key, None) if spec is not None else None):
            if name not in seen:
                seen.add(name)
                yield name, f"its output {key} name it", stage_path(stage.name) + ("output", key), rule
    for region in ir.layout_for(stage).regions:
        if region.required and region.name not in seen:
            seen.add(region.name)
            yield region.name, "its layout marks the region required", stage_path(stage.name), rule


def _named(text: str | None) -> list[str]:
    """Region-like names a text writes in backquotes (`plan`), in order."""
    return list(dict.fromkeys(re.findall(r"`([A-Za-z0-9_-]+)`", text or "")))


def _empty_runs(graph: "RunGraph", writes: dict[str, frozenset[str] | None], region: str) -> dict[int, "Hop | None"]:
    """Run states some run enters with no stage before having been able to fill `region`, each
    with the hop of the shortest such run into it (None for the start)."""
    parents: dict[int, Hop | None] = {0: None} if graph.nodes else {}
    frontier = list(parents)
    while frontier:
        following = []
        for node in frontier:
            if not _cannot_write(writes[graph.nodes[node][0]], region):
                continue
            key = graph.visit_keys[node]
            if graph.visits.get(key) is None:
                continue
            for number, target in graph.out[node]:
                if type(target) is int and target not in parents:
                    parents[target] = (node, key, number)
                    following.append(target)
        frontier = sorted(following)
    return parents


def _finding(graph, parents, node, stage, region, how, path, rule) -> "Finding | None":
    from .findings import Finding, _path_to, _trace

    hops = _path_to(graph, node, parents)
    trace = _trace(graph, hops, reaching=True) if hops else None
    if hops and trace is None:
        return None  # reported only with a run that was replayed
    where = (
        f"{len(hops)} stage visit{'s' if len(hops) != 1 else ''} before it, traced below"
        if hops
        else "it is where runs start"
    )
    empty = f"no stage before it on that run can fill '{region}' and no seed does"
    if rule is OUTPUT_REGION_EMPTY:
        message = f"output stage '{stage.name}' can be entered with region '{region}' still empty, and its output depends on it ({how}): {empty} ({where})"
    else:
        message = f"stage '{stage.name}' reads region '{region}' ({how}), but a run can enter it with the region still empty: {empty} ({where})"
    declared = _declaration(graph.ir, region)
    related = ((f"region '{region}' is declared here", declared),) if declared else ()
    return Finding(rule, message, path, stage.name, trace=trace, related=related)


def _declaration(ir: "Blueprint", region: str) -> "KeyPath | None":
    if ir.layout.get(region) is not None and not ir.layout.fallback:
        return ("context", "regions", region)
    for stage in ir.stages:
        if stage.layout is not None and stage.layout.get(region) is not None:
            return stage_path(stage.name) + ("context", "regions", region)
    return None
