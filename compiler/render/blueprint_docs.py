"""One documentation page per blueprint, in Markdown and in self-contained HTML, and an index
of the pages.

`page_data(blueprint)` gathers what a reader needs (summary, stages, edges with their
conditions, gates and stuck thresholds, the resolved nudges, budgets, regions, the diagram)
as plain values; the jinja2 templates `blueprint.md.j2` and `blueprint.html.j2` only lay
them out. Every user string is escaped where it lands: HTML is autoescaped, Markdown goes
through the `md` filter, the diagrams escape their own labels. The HTML page fetches
nothing: its diagram is an inline SVG (Graphviz's when `dot` is installed, else our own
layout) and its style is inline. The diagram fits the page's width; a control written in
CSS alone (the page runs no script) shows it at full size, to scroll around in.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import unicodedata
from typing import TYPE_CHECKING, Any, Literal

from compiler.records import record

from ..display import visible, visible_lines
from ..ir.model import DEFAULT_NUDGE_TEXT
from .diagram import CONDITIONED, Drawing, drawing, gate_summary, stuck_summary, to_dot, to_mermaid
from .templating import template_environment

if TYPE_CHECKING:
    from ..graph import StageGraph
    from ..ir.model import Blueprint, Edge, Stage
    from .diagram import Node

Engine = Literal["auto", "graphviz", "builtin"]
ENGINES: tuple[str, ...] = ("auto", "graphviz", "builtin")
#: Seconds Graphviz may take before the built-in layout is used instead.
GRAPHVIZ_TIMEOUT = 20


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


@record
class IndexEntry:
    """One row of the index: a page and the file name (without suffix) it was written to."""

    page: Page
    stem: str


# --- gathering ----------------------------------------------------------------------------


def page_data(blueprint: "Blueprint", source: str | None = None, engine: Engine = "auto") -> Page:
    from ..graph import StageGraph

    graph = StageGraph.from_blueprint(blueprint)
    picture = drawing(graph, blueprint.name)
    svg, used = diagram_svg(picture, engine)
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
    )


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


# --- the diagram --------------------------------------------------------------------------


def diagram_svg(picture: Drawing, engine: Engine = "auto") -> tuple[str, str]:
    """(inline SVG, "graphviz" | "builtin"): Graphviz's layout when asked for or available,
    else ours. Graphviz failing (or missing when asked for) falls back to ours."""
    if engine != "builtin" and shutil.which("dot"):
        svg = graphviz_svg(to_dot(picture))
        if svg is not None:
            return svg, "graphviz"
    from .diagram_svg import to_svg

    return to_svg(picture), "builtin"


def graphviz_svg(dot_source: str) -> str | None:
    """`dot -Tsvg`, stripped of its XML prolog and doctype so it can sit inside HTML."""
    try:
        done = subprocess.run(
            ["dot", "-Tsvg"],
            input=dot_source.encode("utf-8"),
            capture_output=True,
            timeout=GRAPHVIZ_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    svg = done.stdout.decode("utf-8", errors="replace")
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else None


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


def render_markdown(page: Page, *, index: bool = False) -> str:
    """The Markdown page; with `index`, it links back to `index.md` beside it."""
    return _environment(False).get_template("blueprint.md.j2").render(page=page, index=index)


def render_html(page: Page, *, index: bool = False) -> str:
    """The HTML page; with `index`, it links back to `index.html` beside it."""
    from markupsafe import Markup

    return _environment(True).get_template("blueprint.html.j2").render(page=page, svg=Markup(page.svg), index=index)


def render_index_markdown(entries: list[IndexEntry]) -> str:
    """`index.md`: every page, linked, with its description and counts."""
    return _environment(False).get_template("index.md.j2").render(entries=entries)


def render_index_html(entries: list[IndexEntry]) -> str:
    """`index.html`: every page, linked, with its description and counts."""
    return _environment(True).get_template("index.html.j2").render(entries=entries)


# --- file names ---------------------------------------------------------------------------

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
_WINDOWS_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"com{i}" for i in range(1, 10)] + [f"lpt{i}" for i in range(1, 10)]
)


def file_stem(name: str) -> str:
    """A file name for a blueprint name: letters, digits, `.`, `_`, `-` only, never hidden,
    never a path, never a reserved device name."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")  # ü → u
    stem = _UNSAFE_NAME.sub("-", ascii_name).strip("-.")[:80].strip("-.")
    if not stem or stem.lower() in _WINDOWS_RESERVED:
        stem = f"blueprint-{stem}" if stem else "blueprint"
    return stem


#: File names the site keeps for itself.
INDEX_STEM = "index"


def unique_stems(names: list[str], reserved: tuple[str, ...] = ()) -> list[str]:
    """`file_stem` of each name, numbered (`-2`, `-3` …) where two would collide, or would take
    a `reserved` stem, case-insensitively (macOS and Windows file systems do not tell `A.md`
    from `a.md`)."""
    taken: set[str] = {stem.lower() for stem in reserved}
    out = []
    for name in names:
        base = file_stem(name)
        stem, number = base, 1
        while stem.lower() in taken:
            number += 1
            stem = f"{base}-{number}"
        taken.add(stem.lower())
        out.append(stem)
    return out


__all__ = [
    "ENGINES",
    "INDEX_STEM",
    "EdgeRow",
    "IndexEntry",
    "Page",
    "RegionRow",
    "StageRow",
    "diagram_svg",
    "file_stem",
    "graphviz_svg",
    "md",
    "md_block",
    "md_code",
    "page_data",
    "prose",
    "render_html",
    "render_index_html",
    "render_index_markdown",
    "render_markdown",
    "unique_stems",
]
