"""One documentation page per blueprint, in Markdown and in self-contained HTML, and an index
of the pages.

`page_data(blueprint)` gathers what a reader needs (summary, stages, edges with their
conditions, gates and stuck thresholds, the resolved nudges, budgets, regions, the diagram)
as plain values, with what `check` found about the runs (`run_facts`); the jinja2
templates `blueprint.md.j2` and `blueprint.html.j2` only lay them out. Every user string is
escaped where it lands: HTML is autoescaped, Markdown goes through the `md` filter, the
diagrams escape their own labels. The HTML page fetches nothing: its diagram is an inline
SVG (our own layout, or Graphviz's when asked for) and its style is inline. Zoom levels and
the choice of a traced run to draw are written in CSS alone: the page runs no script.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

from compiler.records import record

from ..display import visible, visible_lines
from ..ir.model import DEFAULT_NUDGE_TEXT
from .diagram import CONDITIONED, drawing, gate_summary, stuck_summary, to_mermaid
from .page_diagram import ENGINES, Engine, diagram_svg, explore_runs, graphviz_svg, page_svg, run_facts_of
from .templating import template_environment

if TYPE_CHECKING:
    from ..analysis.core import Analysis
    from ..graph import StageGraph
    from ..ir.model import Blueprint, Edge, Stage
    from .diagram import Node
    from .findings_page import FindingsPage
    from .run_facts import RunFacts


@record
class EdgeRow:
    target: str
    kind: str
    condition: str | None = None
    hint: str | None = None
    transform: str | None = None
    gate: str | None = None
    gate_message: str | None = None
    stuck: str | None = None
    missing: bool = False


@record
class StageRow:
    name: str
    mode: str
    description: str | None
    models: str
    tools: tuple[str, ...]
    max_iterations: str
    max_revisits: str
    allow_complete: bool
    entry: bool
    terminal: bool
    #: The `worker_stage` of a fan-out: a normal end here ends a worker run, not the run.
    worker: bool
    edges: tuple[EdgeRow, ...]
    nudge: str
    nudge_text: str | None
    regions: str
    own_layout: bool


@record
class RegionRow:
    name: str
    kind: str
    budget: str
    required: bool
    description: str | None
    scope: str


@record
class Page:
    name: str
    version: str
    description: str
    source: str | None
    entry: str
    mode: str
    stages: tuple[StageRow, ...]
    regions: tuple[RegionRow, ...]
    mermaid: str
    svg: str
    svg_engine: str
    #: Edges of the stage graph (transitions, fall-throughs, fan-out), for the index.
    edge_count: int = 0
    #: Never, for a page of stages (a blueprint with errors gets a `FindingsPage`).
    has_errors: bool = False
    #: What `check` found about its runs (None when the runs were not explored), and the
    #: chart of its ceilings (an inline SVG, "" without ceilings).
    runs: "RunFacts | None" = None
    chart: str = ""
    #: The diagram's natural width in CSS pixels (the page's zoom levels scale it).
    svg_width: float = 0.0


@record
class IndexEntry:
    """One row of the index: a page and the file name (without suffix) it was written to."""

    page: "Page | FindingsPage"
    stem: str


# --- gathering ----------------------------------------------------------------------------


def page_data(
    blueprint: "Blueprint",
    source: str | None = None,
    engine: Engine = "builtin",
    analysis: "Analysis | None" = None,
    *,
    explore: bool = True,
) -> Page:
    """Everything the page shows. `analysis` is what `check` found (`CheckResult.analysis`);
    without it the runs are explored here, unless `explore` is False."""
    from ..graph import StageGraph
    from .ceilings_chart import ceilings_chart

    graph = StageGraph.from_blueprint(blueprint)
    picture = drawing(graph, blueprint.name)
    if analysis is None and explore:
        analysis = explore_runs(blueprint)
    svg, used = page_svg(blueprint, engine, analysis)
    runs = run_facts_of(analysis, picture)
    flags = {node.name: node for node in picture.nodes if node.kind == "stage"}
    return Page(
        name=blueprint.name,
        version=blueprint.version,
        description=blueprint.description,
        source=source,
        entry=blueprint.entry,
        mode="graph" if blueprint.graph_mode else "linear",
        stages=tuple(_stage_row(blueprint, graph, stage, flags[stage.name]) for stage in blueprint.stages),
        regions=_regions(blueprint),
        mermaid=to_mermaid(picture),
        svg=svg,
        svg_engine=used,
        edge_count=len(list(graph.edges)),
        runs=runs,
        chart=ceilings_chart(runs) if runs is not None else "",
        svg_width=natural_width(svg),
    )


def natural_width(svg: str) -> float:
    """The `width` of an SVG's root element in CSS pixels (Graphviz writes points)."""
    found = re.search(r'<svg[^>]*?\swidth="([\d.]+)(pt|px)?"', svg)
    if found is None:
        return 0.0
    return float(found.group(1)) * (4 / 3 if found.group(2) == "pt" else 1)


def _stage_row(blueprint: "Blueprint", graph: "StageGraph", stage: "Stage", node: "Node") -> StageRow:
    nudge = stage.effective_nudge
    layout = blueprint.layout_for(stage)
    worker = any(edge.kind == "worker" and edge.target == stage.name for edge in graph.edges)
    return StageRow(
        name=stage.name,
        mode=stage.mode,
        description=stage.description,
        models=", ".join(f"{m.provider} / {m.model}" for m in stage.model.entries) or "default",
        tools=stage.available_tools,
        max_iterations=str(stage.max_iterations) if stage.max_iterations else "the default cap",
        max_revisits=str(stage.max_revisits) if stage.max_revisits is not None else "unlimited",
        allow_complete=stage.allow_complete,
        entry=node.entry,
        terminal=node.terminal and not worker,
        worker=worker,
        edges=_edges(graph, stage),
        nudge=(f"on, at most {nudge.max}" + (" (the built-in text)" if nudge.text == DEFAULT_NUDGE_TEXT else ""))
        if nudge.enabled
        else "off",
        nudge_text=nudge.text if nudge.enabled and nudge.text != DEFAULT_NUDGE_TEXT else None,
        regions=", ".join(layout.names) + (" (default layout)" if layout.fallback else ""),
        own_layout=stage.layout is not None,
    )


def _edges(graph: "StageGraph", stage: "Stage") -> tuple[EdgeRow, ...]:
    rows = [_transition(edge, edge.target not in graph) for edge in stage.transitions or ()]
    for edge in graph.out_edges(stage.name):
        if edge.kind != "transition":
            rows.append(EdgeRow(edge.target, edge.kind))
    fan_out = stage.fan_out if stage.mode == "fan_out" else None
    if fan_out is not None:
        for kind, name in (("merge", fan_out.merge_stage), ("worker", fan_out.worker_stage)):
            if name is not None and name not in graph:
                rows.append(EdgeRow(name, kind, missing=True))
    for worker in graph.external_workers:
        if worker.stage == stage.name:
            name = worker.name if worker.kind == "agent" else f"query: {worker.name}"
            rows.append(EdgeRow(f"ext:{name}", "worker"))
    return tuple(rows)


def _transition(edge: "Edge", missing: bool) -> EdgeRow:
    transform = None
    if edge.transform == "custom" and edge.custom is not None:
        parts = [
            f"{key} {', '.join(values)}"
            for key, values in (
                ("carry", edge.custom.carry),
                ("compact", edge.custom.compact),
                ("clear", edge.custom.clear),
            )
            if values
        ]
        transform = "custom" + (f" ({'; '.join(parts)})" if parts else "")
    elif edge.transform != "direct":
        transform = edge.transform
    gate = edge.gate
    return EdgeRow(
        target=edge.target,
        kind="transition",
        condition=edge.condition,
        hint=edge.hint,
        transform=transform,
        gate=gate_summary(gate) if gate is not None else None,
        gate_message=gate.message if gate is not None else None,
        stuck=stuck_summary(edge.stuck) if edge.stuck is not None and edge.stuck.armed else None,
        missing=missing,
    )


def _regions(blueprint: "Blueprint") -> tuple[RegionRow, ...]:
    rows = [
        _region_row(region, "global" if not blueprint.layout.fallback else "default")
        for region in blueprint.layout.regions
    ]
    for stage in blueprint.stages:
        if stage.layout is not None:
            rows.extend(_region_row(region, f"stage {stage.name}") for region in stage.layout.regions)
    return tuple(rows)


def _region_row(region: Any, scope: str) -> RegionRow:
    if region.budget_percent is not None:
        budget = f"{region.budget_percent:g}% of the model window"
        if region.max_tokens is not None:
            budget += f", at most {region.max_tokens} tokens"
    elif region.max_tokens is not None:
        budget = f"{region.max_tokens} tokens"
    else:
        budget = "—"
    return RegionRow(region.name, region.kind, budget, region.required, region.description, scope)


# --- rendering ----------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|&~!{}#])")
#: What makes a line start a heading, list, quote or setext underline: `#`, `-`, `+`, `>`, `=`, `1.`.
_MD_BLOCK_START = re.compile(r"^(\d{1,9})([.)])|^([+\-=])")


def md(value: Any) -> str:
    """A user string as inline Markdown text: one line, every markup character escaped."""
    text = visible(" ".join(str(value).split())) if value is not None else ""
    return _MD_SPECIAL.sub(r"\\\1", text)


def md_block(value: Any) -> str:
    """`md`, for a paragraph of its own: a leading `#`, `-`, `+`, `=`, `>` or `1.` is escaped
    too, so the text cannot turn into a heading, a list or a quote."""
    return _MD_BLOCK_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", md(value), count=1)


def prose(value: Any) -> str:
    """A user string for HTML text (autoescaped later): line breaks kept, every other control
    character (bidi overrides, NUL, U+2028) made visible so it cannot reorder the page."""
    return visible_lines(str(value).split("\n"))


def md_code(value: Any) -> str:
    """A user string in inline code, with a fence longer than any backtick run inside it."""
    text = visible(" ".join(str(value).split()))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


@functools.lru_cache(maxsize=2)
def _environment(html: bool):
    env = template_environment(autoescape=html)
    env.filters["md"] = md
    env.filters["md_block"] = md_block
    env.filters["md_code"] = md_code
    env.filters["prose"] = prose
    env.globals["CONDITIONED"] = CONDITIONED
    return env


def render_markdown(page: "Page | FindingsPage", *, index: bool = False) -> str:
    """The Markdown page (of findings, for a blueprint with errors); with `index`, it links
    back to `index.md` beside it."""
    name = "findings.md.j2" if page.has_errors else "blueprint.md.j2"
    return _environment(False).get_template(name).render(page=page, index=index)


def render_html(page: "Page | FindingsPage", *, index: bool = False) -> str:
    """The HTML page (of findings, for a blueprint with errors); with `index`, it links back
    to `index.html` beside it."""
    from markupsafe import Markup

    template = _environment(True).get_template("findings.html.j2" if page.has_errors else "blueprint.html.j2")
    return template.render(
        page=page, svg=Markup(getattr(page, "svg", "")), chart=Markup(getattr(page, "chart", "")), index=index
    )


def render_index_markdown(entries: list[IndexEntry]) -> str:
    """`index.md`: every page, linked, with its description and counts."""
    return _environment(False).get_template("index.md.j2").render(entries=entries)


def render_index_html(entries: list[IndexEntry]) -> str:
    """`index.html`: every page, linked, with its description and counts."""
    return _environment(True).get_template("index.html.j2").render(entries=entries)


__all__ = [
    "ENGINES",
    "EdgeRow",
    "Engine",
    "IndexEntry",
    "Page",
    "RegionRow",
    "StageRow",
    "diagram_svg",
    "graphviz_svg",
    "md",
    "md_block",
    "md_code",
    "page_data",
    "page_svg",
    "prose",
    "render_html",
    "render_index_html",
    "render_index_markdown",
    "render_markdown",
]
