"""The docs page's diagram: laid out by Graphviz or by our own layout, with what `check`
found about the runs drawn on it. `blueprint graph --format svg` prints exactly this."""

from __future__ import annotations

import shutil
import subprocess
from typing import TYPE_CHECKING, Literal

from .diagram import Drawing, drawing, to_dot

if TYPE_CHECKING:
    from ..analysis.core import Analysis
    from ..ir.model import Blueprint
    from .run_facts import RunFacts

Engine = Literal["auto", "graphviz", "builtin"]
ENGINES: tuple[str, ...] = ("auto", "graphviz", "builtin")
#: Hints in the built-in diagram are cut after this many characters (its rows wrap them).
SVG_HINT_WIDTH = 160
#: Seconds Graphviz may take before the built-in layout is used instead.
GRAPHVIZ_TIMEOUT = 20


def explore_runs(blueprint: "Blueprint") -> "Analysis | None":
    """Every run of `blueprint` explored, as `check` does with the default settings (None
    when the exploration fails: the page is then drawn without it)."""
    from ..analysis.core import analyze

    try:
        return analyze(blueprint)
    except Exception:  # a bug in the exploration must not cost the page
        return None


def run_facts_of(analysis: "Analysis | None", picture: Drawing) -> "RunFacts | None":
    from .run_facts import run_facts

    return run_facts(analysis, picture) if analysis is not None else None


def page_svg(blueprint: "Blueprint", engine: Engine = "builtin", analysis: "Analysis | None" = None) -> tuple[str, str]:
    """(the page's diagram, the layout used): what `blueprint graph --format svg` prints too,
    so the two are the same bytes. `analysis` puts each stage's worst case on it (the
    built-in layout). Hints are shortened later than in Mermaid: the rows wrap them."""
    from ..graph import StageGraph

    picture = drawing(StageGraph.from_blueprint(blueprint), blueprint.name, SVG_HINT_WIDTH)
    return diagram_svg(picture, engine, run_facts_of(analysis, picture))


def diagram_svg(picture: Drawing, engine: Engine = "builtin", facts: "RunFacts | None" = None) -> tuple[str, str]:
    """(inline SVG, "graphviz" | "builtin"): ours by default; Graphviz's when asked for
    ("auto": when it is installed), else ours (with `facts`, the heat scale on its stages). Graphviz failing (or missing
    when asked for) falls back to ours."""
    if engine != "builtin" and shutil.which("dot"):
        svg = graphviz_svg(to_dot(picture))
        if svg is not None:
            return svg, "graphviz"
    from .diagram_svg import to_svg

    return to_svg(picture, facts), "builtin"


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


__all__ = [
    "ENGINES",
    "GRAPHVIZ_TIMEOUT",
    "Engine",
    "diagram_svg",
    "explore_runs",
    "graphviz_svg",
    "page_svg",
    "run_facts_of",
]
