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

from ..display import visible
from .diagram import Arrow, Drawing, Node, node_lines, shorten

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


def to_svg(d: Drawing) -> str:
    boxes = [_Box(node, node_lines(node)) for node in d.nodes]
    position = {box.node.id: i for i, box in enumerate(boxes)}
    width = max(max((_box_text_width(box.lines) + 2 * PAD for box in boxes), default=80), 140)
    straight: dict[int, Arrow] = {}
    lanes: list[_Lane] = []
    for arrow in d.arrows:
        source, target = position[arrow.source], position[arrow.target]
        if target == source + 1 and source not in straight:
            straight[source] = arrow
        else:
            lanes.append(_Lane(arrow, "right" if target > source else "left", source, target))
    # Shorter arrows nearer the stages, so lanes cross as little as possible.
    lanes.sort(key=lambda lane: (abs(lane.target - lane.source), lane.source, lane.target))

    entry_index = position.get(d.entry or "")
    start_above = entry_index == 0  # else the start marker sits left of the entry stage
    left_count = sum(1 for lane in lanes if lane.side == "left")
    x0 = MARGIN + left_count * LANE_GAP + (40 if entry_index is not None and not start_above else 0)
    y: float = MARGIN + (LINE_HEIGHT + 6 if d.title else 0) + (34 if start_above else 0)
    for i, box in enumerate(boxes):
        box.x, box.y, box.width = x0, y, width
        box.height = len(box.lines) * LINE_HEIGHT + 2 * PAD
        gap = MIN_GAP
        if i in straight:
            gap = max(gap, len(straight[i].label) * LABEL_LINE_HEIGHT + 16)
        y = box.bottom + gap

    # Right lanes start past the labels of the straight arrows (which sit between the boxes).
    straight_extent = min(max((_label_width(a) for a in straight.values()), default=0), STRAIGHT_LABEL_WIDTH)
    right_base = max(x0 + width, x0 + width / 2 + 8 + straight_extent)
    counts = {"left": 0, "right": 0}
    for key, lane in enumerate(lanes):
        counts[lane.side] += 1
        offset = counts[lane.side] * LANE_GAP
        lane.x = right_base + offset if lane.side == "right" else x0 - offset
        boxes[lane.source].ports[lane.side].append(key)
        boxes[lane.target].ports[lane.side].append(key)

    colors = sorted({arrow.color for arrow in d.arrows} | {"#2c3e50"})
    markers = {color: f"bp-arrow{i}" for i, color in enumerate(colors)}
    out: list[str] = []
    for key, lane in enumerate(lanes):
        a, b = boxes[lane.source], boxes[lane.target]
        edge_x = x0 + width if lane.side == "right" else x0
        ya, yb = a.port(lane.side, key), b.port(lane.side, key)
        if a is b:  # a loop: leave from the upper port, come back to the lower one
            ya, yb = a.y + a.height * 0.3, a.y + a.height * 0.7
        path = f"M {edge_x:.1f} {ya:.1f} H {lane.x:.1f} V {yb:.1f} H {edge_x:.1f}"
        out.append(_path(path, lane.arrow, markers))
        out.append(_lane_label(lane, ya, yb))
    for i, arrow in straight.items():
        a, b = boxes[i], boxes[i + 1]
        cx = x0 + width / 2
        out.append(_path(f"M {cx:.1f} {a.bottom:.1f} V {b.y:.1f}", arrow, markers))
        lines = tuple(_fit(line, STRAIGHT_LABEL_WIDTH, LABEL_FONT_SIZE) for line in arrow.label)
        out.extend(_label(lines, cx + 8, a.bottom + 14, "start", arrow.color))
    for box in boxes:
        out.extend(_box(box))
    if entry_index is not None:
        out.extend(_start_marker(boxes[entry_index], start_above, x0, width, left_count, markers["#2c3e50"]))

    right_extent = max((lane.x for lane in lanes if lane.side == "right"), default=right_base)
    title_extent = MARGIN + text_width(visible(d.title), 14) * 1.1
    total_width = max(right_extent, title_extent) + MARGIN
    total_height = (boxes[-1].bottom if boxes else MARGIN) + MARGIN
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
    return "\n".join(head + out + ["</svg>"]) + "\n"


def _text(text: str) -> str:
    return escape(visible(text), quote=True)


def _box_text_width(lines: list[str]) -> float:
    """The widest line of a node; the first (the name) is bold, so wider."""
    return max(text_width(line, NODE_FONT_SIZE) * (1.12 if i == 0 else 1.0) for i, line in enumerate(lines))


def _label_width(arrow: Arrow) -> float:
    return max((text_width(line, LABEL_FONT_SIZE) for line in arrow.label), default=0.0)


def _path(d: str, arrow: Arrow, markers: dict[str, str]) -> str:
    width = 2.5 if arrow.style == "bold" else 1.3
    dash = _DASHES[arrow.style]
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    title = f"<title>{_text(' · '.join(arrow.label))}</title>" if arrow.label else ""
    return (
        f'<path d="{d}" fill="none" stroke="{arrow.color}" stroke-width="{width}"{dash_attr} '
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


def _start_marker(box: _Box, above: bool, x0: float, width: float, left_lanes: int, marker: str) -> list[str]:
    if above:
        cx, cy = x0 + width / 2, box.y - 28
        line = f"M {cx:.1f} {cy + 6:.1f} V {box.y:.1f}"
    else:
        cx, cy = x0 - left_lanes * LANE_GAP - 26, box.y + 8
        line = f"M {cx + 6:.1f} {cy:.1f} H {x0:.1f}"
    return [
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="6" fill="#2c3e50"/>',
        f'<path d="{line}" stroke="#2c3e50" stroke-width="1.5" fill="none" marker-end="url(#{marker})"/>',
    ]


def _box(box: _Box) -> list[str]:
    node = box.node
    stroke, fill, dash = "#34495e", "#ffffff", ""
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
        f'<g class="node {node.kind}"><rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" '
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
        color = "#c0392b" if node.kind == "missing" else "#2c3e50"
        out.append(
            f'<text x="{cx:.1f}" y="{box.y + PAD + 11 + i * LINE_HEIGHT:.1f}" font-size="{NODE_FONT_SIZE}" '
            f'text-anchor="middle" fill="{color}"{weight}>{_text(line)}</text>'
        )
    out.append("</g>")
    return out


__all__ = ["text_width", "to_svg"]
