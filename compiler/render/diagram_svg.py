"""A stage graph as a self-contained SVG, drawn without Graphviz.

The docs page must show its diagram without fetching anything (no mermaid.js from a CDN)
and on machines without Graphviz, so this module lays the drawing out itself. The layout is
deliberately simple and stays readable at any size: stages stacked top to bottom in
declaration order (the order a reader of the file knows); an arrow to the next stage drawn
straight down with its label beside it; every other arrow in a lane of its own, forward
arrows on the right and backward arrows and loops on the left, shorter arrows nearer the
stages, each with its label written along its lane and its full label as a tooltip. Nothing
overlaps a label, however many edges there are. Deterministic: the same drawing gives the
same bytes.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING

from ..display import visible
from .diagram import Arrow, Drawing, Node, node_lines, shorten
from .run_facts import UNBOUNDED_HEAT

if TYPE_CHECKING:
    from .run_facts import RunFacts

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
NODE_FONT_SIZE = 12
LABEL_FONT_SIZE = 10
LINE_HEIGHT = 15
LABEL_LINE_HEIGHT = 13
PAD = 10
MARGIN = 24
LANE_GAP = 16
MIN_GAP = 36
#: Straight-arrow labels stay within this width, so they never reach the lanes.
STRAIGHT_LABEL_WIDTH = 300
_DASHES = {"solid": None, "dashed": "6 4", "dotted": "2 4", "bold": None}


def text_width(text: str, size: int) -> float:
    """An estimate of the rendered width (wide East Asian characters count twice)."""
    units = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return units * size * 0.62


def _fit(text: str, width: float, size: int) -> str:
    """`text` shortened (with '…') to about `width` pixels."""
    return shorten(text, max(1, int(width / (size * 0.62))))


@dataclass
class _Box:
    node: Node
    lines: list[str]
    x: float = 0.0
    y: float = 0.0
    width: float = 0.0
    height: float = 0.0
    #: Arrow ends on each side, in the order their ports are handed out.
    ports: dict[str, list[int]] = field(default_factory=lambda: {"left": [], "right": []})

    @property
    def bottom(self) -> float:
        return self.y + self.height

    def port(self, side: str, key: int) -> float:
        """The y of the arrow end `key` on `side`, spread evenly along the box's edge."""
        keys = self.ports[side]
        return self.y + self.height * (keys.index(key) + 1) / (len(keys) + 1)


@dataclass
class _Lane:
    arrow: Arrow
    side: str
    source: int
    target: int
    x: float = 0.0


@dataclass(slots=True)
class _Layout:
    """Where everything goes."""

    #: The stages, top to bottom, all `width` wide with their left edge at `x0`.
    boxes: list[_Box]
    x0: float
    width: float
    #: Arrows drawn straight down to the next box, by the number of the box they leave …
    straight: dict[int, Arrow]
    #: … and every other arrow in a lane, nearest the boxes first. Right lanes start at
    #: `right_base`, left lanes (`left_lanes` of them) end at `x0`.
    lanes: list[_Lane]
    right_base: float
    left_lanes: int
    #: The entry stage's box, and whether the start marker sits above it (else to its left).
    entry: int | None
    start_above: bool


def to_svg(d: Drawing, facts: "RunFacts | None" = None) -> str:
    """`d` as a self-contained SVG document (the layout is described above). With `facts`
    (what `check` found), each stage shows its worst case and is filled by the heat scale,
    drawn as a legend below. Arrows carry the class `a<index in d.arrows>` and stage boxes
    `n-<node id>`, so a page can highlight a run's path over them."""
    layout = _layout(d, facts)
    colors = sorted({arrow.color for arrow in d.arrows} | {"#2c3e50"})
    markers = {color: f"bp-arrow{i}" for i, color in enumerate(colors)}
    index = {id(arrow): i for i, arrow in enumerate(d.arrows)}
    body = _lane_arrows(layout, markers, index) + _straight_arrows(layout, markers, index)
    for box in layout.boxes:
        body.extend(_box(box, facts.heat_of(box.node.name) if facts and box.node.kind == "stage" else ""))
    if layout.entry is not None:
        body.extend(_start_marker(layout, markers["#2c3e50"]))
    legend_top = (layout.boxes[-1].bottom if layout.boxes else MARGIN) + MARGIN
    legend = _heat_legend(facts, legend_top) if facts is not None and facts.scale else []
    return "\n".join(_head(d, layout, markers, LEGEND_HEIGHT if legend else 0) + body + legend + ["</svg>"]) + "\n"


LEGEND_HEIGHT = 46


def _heat_legend(facts: "RunFacts", top: float) -> list[str]:
    """The heat scale: a swatch per bin with the worst-case inferences it stands for."""
    out = [
        f'<g class="heat-legend"><text x="{MARGIN}" y="{top + 4:.1f}" font-size="{LABEL_FONT_SIZE}" '
        'fill="#2c3e50">worst-case inferences per stage (one run)</text>'
    ]
    x = float(MARGIN)
    bins = [(colour, f"{low}–{high}" if low != high else f"{low}") for colour, low, high in facts.scale]
    if any(s.inferences is None and s.heat for s in facts.stages):
        bins.append((UNBOUNDED_HEAT, "no limit"))
    for colour, text in bins:
        out.append(
            f'<rect x="{x:.1f}" y="{top + 12:.1f}" width="14" height="14" fill="{colour}" stroke="#7f8c8d" stroke-width="0.6"/>'
            f'<text x="{x + 18:.1f}" y="{top + 23:.1f}" font-size="{LABEL_FONT_SIZE}" fill="#2c3e50">{_text(text)}</text>'
        )
        x += 18 + text_width(text, LABEL_FONT_SIZE) + 14
    out.append("</g>")
    return out


def _worst_case(facts: "RunFacts | None", node: Node) -> list[str]:
    """The extra line of a stage's box: its worst case in one run."""
    stage = facts.stage_facts(node.name) if facts is not None and node.kind == "stage" else None
    if stage is None:
        return []
    if stage.visits == 0:
        return ["never entered"]
    visits = "unbounded visits" if stage.visits is None else f"≤ {stage.visits} visit{'' if stage.visits == 1 else 's'}"
    inferences = "unbounded" if stage.inferences is None else f"≤ {stage.inferences}"
    return [f"{visits} · {inferences} inferences"]


def _layout(d: Drawing, facts: "RunFacts | None" = None) -> _Layout:
    boxes = [_Box(node, node_lines(node) + _worst_case(facts, node)) for node in d.nodes]
    position = {box.node.id: i for i, box in enumerate(boxes)}
    width = max(max((_box_text_width(box.lines) + 2 * PAD for box in boxes), default=80), 140)
    straight, lanes = _route(d.arrows, position)
    entry = position.get(d.entry or "")
    start_above = entry == 0
    left_lanes = sum(1 for lane in lanes if lane.side == "left")
    x0 = MARGIN + left_lanes * LANE_GAP + (40 if entry is not None and not start_above else 0)
    top = MARGIN + (LINE_HEIGHT + 6 if d.title else 0) + (34 if start_above else 0)
    _stack(boxes, straight, x0, top, width)
    # Right lanes start past the labels of the straight arrows (which sit between the boxes).
    straight_extent = min(max((_label_width(a) for a in straight.values()), default=0), STRAIGHT_LABEL_WIDTH)
    right_base = max(x0 + width, x0 + width / 2 + 8 + straight_extent)
    _place_lanes(lanes, boxes, x0, right_base)
    return _Layout(boxes, x0, width, straight, lanes, right_base, left_lanes, entry, start_above)


def _route(arrows: tuple[Arrow, ...], position: dict[str, int]) -> tuple[dict[int, Arrow], list[_Lane]]:
    """The first arrow from each box to the next goes straight down; every other arrow gets a
    lane, forward ones on the right, shorter ones nearer the boxes (so lanes cross as
    little as possible)."""
    straight: dict[int, Arrow] = {}
    lanes: list[_Lane] = []
    for arrow in arrows:
        source, target = position[arrow.source], position[arrow.target]
        if target == source + 1 and source not in straight:
            straight[source] = arrow
        else:
            lanes.append(_Lane(arrow, "right" if target > source else "left", source, target))
    lanes.sort(key=lambda lane: (abs(lane.target - lane.source), lane.source, lane.target))
    return straight, lanes


def _stack(boxes: list[_Box], straight: dict[int, Arrow], x0: float, top: float, width: float) -> None:
    """Boxes top to bottom from `top`, with room between them for a straight arrow's label."""
    y = top
    for i, box in enumerate(boxes):
        box.x, box.y, box.width = x0, y, width
        box.height = len(box.lines) * LINE_HEIGHT + 2 * PAD
        gap = MIN_GAP
        if i in straight:
            gap = max(gap, len(straight[i].label) * LABEL_LINE_HEIGHT + 16)
        y = box.bottom + gap


def _place_lanes(lanes: list[_Lane], boxes: list[_Box], x0: float, right_base: float) -> None:
    """Each lane's x, one LANE_GAP further out than the last on its side, and its ends'
    ports on the boxes it joins."""
    counts = {"left": 0, "right": 0}
    for key, lane in enumerate(lanes):
        counts[lane.side] += 1
        offset = counts[lane.side] * LANE_GAP
        lane.x = right_base + offset if lane.side == "right" else x0 - offset
        boxes[lane.source].ports[lane.side].append(key)
        boxes[lane.target].ports[lane.side].append(key)


def _lane_arrows(layout: _Layout, markers: dict[str, str], index: dict[int, int]) -> list[str]:
    """Each lane's arrow: out of its source box's side, along the lane, into its target's."""
    out: list[str] = []
    boxes = layout.boxes
    for key, lane in enumerate(layout.lanes):
        a, b = boxes[lane.source], boxes[lane.target]
        edge_x = layout.x0 + layout.width if lane.side == "right" else layout.x0
        ya, yb = a.port(lane.side, key), b.port(lane.side, key)
        if a is b:  # a loop: leave from the upper port, come back to the lower one
            ya, yb = a.y + a.height * 0.3, a.y + a.height * 0.7
        path = f"M {edge_x:.1f} {ya:.1f} H {lane.x:.1f} V {yb:.1f} H {edge_x:.1f}"
        out.append(_path(path, lane.arrow, markers, index[id(lane.arrow)]))
        out.append(_lane_label(lane, ya, yb))
    return out


def _straight_arrows(layout: _Layout, markers: dict[str, str], index: dict[int, int]) -> list[str]:
    """Each straight arrow down the middle, its label beside it."""
    out: list[str] = []
    cx = layout.x0 + layout.width / 2
    for i, arrow in layout.straight.items():
        a, b = layout.boxes[i], layout.boxes[i + 1]
        out.append(_path(f"M {cx:.1f} {a.bottom:.1f} V {b.y:.1f}", arrow, markers, index[id(arrow)]))
        lines = tuple(_fit(line, STRAIGHT_LABEL_WIDTH, LABEL_FONT_SIZE) for line in arrow.label)
        out.extend(_label(lines, cx + 8, a.bottom + 14, "start", arrow.color))
    return out


def _head(d: Drawing, layout: _Layout, markers: dict[str, str], extra_height: float = 0) -> list[str]:
    """The opening tag sized to the drawing, the arrow-head markers, the title."""
    right_extent = max((lane.x for lane in layout.lanes if lane.side == "right"), default=layout.right_base)
    title_extent = MARGIN + text_width(visible(d.title), 14) * 1.1
    total_width = max(right_extent, title_extent) + MARGIN
    total_height = (layout.boxes[-1].bottom if layout.boxes else MARGIN) + MARGIN + extra_height
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="stage-graph" width="{total_width:.0f}" '
        f'height="{total_height:.0f}" viewBox="0 0 {total_width:.0f} {total_height:.0f}" role="img" '
        f'aria-label="{_text(d.title or "stage graph")}" font-family="{FONT}">',
        "<defs>",
    ]
    for color, marker in markers.items():
        head.append(
            f'<marker id="{marker}" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" '
            f'markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="{color}"/></marker>'
        )
    head.append("</defs>")
    if d.title:
        head.append(
            f'<text x="{MARGIN}" y="{MARGIN + 4}" font-size="14" font-weight="bold" fill="#2c3e50">{_text(d.title)}</text>'
        )
    return head


def _text(text: str) -> str:
    return escape(visible(text), quote=True)


def _box_text_width(lines: list[str]) -> float:
    """The widest line of a node; the first (the name) is bold, so wider."""
    return max(text_width(line, NODE_FONT_SIZE) * (1.12 if i == 0 else 1.0) for i, line in enumerate(lines))


def _label_width(arrow: Arrow) -> float:
    return max((text_width(line, LABEL_FONT_SIZE) for line in arrow.label), default=0.0)


def _path(d: str, arrow: Arrow, markers: dict[str, str], number: int) -> str:
    width = 2.5 if arrow.style == "bold" else 1.3
    dash = _DASHES[arrow.style]
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    title = f"<title>{_text(' · '.join(arrow.label))}</title>" if arrow.label else ""
    return (
        f'<path class="edge a{number}" d="{d}" fill="none" stroke="{arrow.color}" stroke-width="{width}"{dash_attr} '
        f'marker-end="url(#{markers[arrow.color]})">{title}</path>'
    )


def _lane_label(lane: _Lane, ya: float, yb: float) -> str:
    """The label written upwards along the lane's vertical segment, cut to its length."""
    if not lane.arrow.label:
        return ""
    top, bottom = min(ya, yb), max(ya, yb)
    text = _fit(" · ".join(lane.arrow.label), max(bottom - top - 8, 24), LABEL_FONT_SIZE)
    x, y = lane.x - 3, (top + bottom) / 2
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{LABEL_FONT_SIZE}" text-anchor="middle" '
        f'fill="{lane.arrow.color}" transform="rotate(-90 {x:.1f} {y:.1f})">{_text(text)}</text>'
    )


def _label(lines: tuple[str, ...], x: float, y: float, anchor: str, color: str) -> list[str]:
    return [
        f'<text x="{x:.1f}" y="{y + i * LABEL_LINE_HEIGHT:.1f}" font-size="{LABEL_FONT_SIZE}" '
        f'text-anchor="{anchor}" fill="{color}">{_text(line)}</text>'
        for i, line in enumerate(lines)
    ]


def _start_marker(layout: _Layout, marker: str) -> list[str]:
    """A dot with an arrow into the entry stage, from above it or from its left."""
    assert layout.entry is not None
    box = layout.boxes[layout.entry]
    if layout.start_above:
        cx, cy = layout.x0 + layout.width / 2, box.y - 28
        line = f"M {cx:.1f} {cy + 6:.1f} V {box.y:.1f}"
    else:
        cx, cy = layout.x0 - layout.left_lanes * LANE_GAP - 26, box.y + 8
        line = f"M {cx + 6:.1f} {cy:.1f} H {layout.x0:.1f}"
    return [
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="6" fill="#2c3e50"/>',
        f'<path d="{line}" stroke="#2c3e50" stroke-width="1.5" fill="none" marker-end="url(#{marker})"/>',
    ]


def _box(box: _Box, heat: str = "") -> list[str]:
    node = box.node
    stroke, fill, dash = "#34495e", heat or "#ffffff", ""
    if node.kind == "external":
        stroke, fill, dash = "#2980b9", "#eaf2f8", ' stroke-dasharray="4 3"'
    elif node.kind == "missing":
        stroke, fill, dash = "#c0392b", "#fdedec", ' stroke-dasharray="4 3"'
    elif node.entry:
        stroke = "#1e8449"
    if node.unreachable:
        fill = "#f2f3f4"
    width = 2.5 if node.entry else 1.3
    out = [
        f'<g class="node {node.kind} n-{node.id}"><rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" '
        f'height="{box.height:.1f}" rx="6" fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dash}/>'
    ]
    if node.terminal:
        out.append(
            f'<rect x="{box.x + 3:.1f}" y="{box.y + 3:.1f}" width="{box.width - 6:.1f}" height="{box.height - 6:.1f}" '
            f'rx="4" fill="none" stroke="{stroke}" stroke-width="1"/>'
        )
    cx = box.x + box.width / 2
    for i, line in enumerate(box.lines):
        weight = ' font-weight="bold"' if i == 0 else ""
        color = "#c0392b" if node.kind == "missing" else "#ffffff" if heat == UNBOUNDED_HEAT else "#2c3e50"
        out.append(
            f'<text x="{cx:.1f}" y="{box.y + PAD + 11 + i * LINE_HEIGHT:.1f}" font-size="{NODE_FONT_SIZE}" '
            f'text-anchor="middle" fill="{color}"{weight}>{_text(line)}</text>'
        )
    out.append("</g>")
    return out


__all__ = ["text_width", "to_svg"]
