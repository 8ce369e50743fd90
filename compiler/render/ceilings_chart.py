"""The chart of a blueprint's ceilings on its docs page: one bar per stage, as long as the
most inferences one run makes there, coloured as the stage is on the diagram, with its
worst-case visits beside it. An inline SVG (the page fetches nothing and runs no script);
deterministic, like the diagram."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from ..display import visible
from .diagram_svg import FONT, LABEL_FONT_SIZE, NODE_FONT_SIZE, text_width
from .run_facts import HEAT

if TYPE_CHECKING:
    from .run_facts import RunFacts

BAR_HEIGHT = 18
ROW = 26
BAR_SPACE = 420
GAP = 12


def ceilings_chart(facts: "RunFacts") -> str:
    """The chart as an SVG element, or "" when the exploration gave no ceilings."""
    if not facts.stages:
        return ""
    names = [visible(s.stage) for s in facts.stages]
    name_width = max(text_width(name, NODE_FONT_SIZE) for name in names) + GAP
    top = max((s.inferences for s in facts.stages if s.inferences is not None), default=0) or 1
    width = name_width + BAR_SPACE + 190
    height = ROW * len(facts.stages) + 34
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="ceilings-chart" width="{width:.0f}" height="{height}" '
        f'viewBox="0 0 {width:.0f} {height}" role="img" aria-label="worst-case inferences per stage" '
        f'font-family="{FONT}">'
    ]
    for row, (stage, name) in enumerate(zip(facts.stages, names, strict=True)):
        y = 8 + row * ROW
        unbounded = stage.inferences is None and stage.visits != 0
        length = BAR_SPACE if unbounded else BAR_SPACE * (stage.inferences or 0) / top
        colour = stage.heat or "#f2f3f4"
        stroke = "#a93226" if unbounded else "#b9770e" if colour in HEAT else "#bdc3c7"
        dash = ' stroke-dasharray="4 3"' if unbounded else ""
        if stage.visits == 0:
            note = "never entered"
        else:
            visits = "unbounded" if stage.visits is None else str(stage.visits)
            inferences = "unbounded" if stage.inferences is None else str(stage.inferences)
            note = f"{inferences} inferences · {visits} visit{'' if stage.visits == 1 else 's'}"
        out.append(
            f'<g class="bar"><text x="{name_width - GAP:.1f}" y="{y + 13}" font-size="{NODE_FONT_SIZE}" '
            f'text-anchor="end" fill="#2c3e50">{escape(name)}</text>'
            f'<rect x="{name_width:.1f}" y="{y}" width="{max(length, 1.5):.1f}" height="{BAR_HEIGHT}" '
            f'fill="{colour}" stroke="{stroke}" stroke-width="0.8"{dash}/>'
            f'<text x="{name_width + max(length, 1.5) + 6:.1f}" y="{y + 13}" font-size="{LABEL_FONT_SIZE}" '
            f'fill="{"#a93226" if unbounded else "#2c3e50"}">{escape(note)}</text></g>'
        )
    axis_y = 8 + ROW * len(facts.stages) + 4
    out.append(
        f'<text x="{name_width:.1f}" y="{axis_y + 10}" font-size="{LABEL_FONT_SIZE}" fill="#566573">'
        f"bar: the most inferences one run makes in the stage (longest: {top})</text>"
    )
    out.append("</svg>")
    return "".join(out) + "\n"


__all__ = ["ceilings_chart"]
