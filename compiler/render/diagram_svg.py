"""A stage graph as a self-contained SVG, drawn without Graphviz.

The docs page must show its diagram without fetching anything (no mermaid.js from a CDN)
and on machines without Graphviz, so this module lays the drawing out itself, so that it
reads at a page's width:

- each stage is a card, stacked top to bottom in declaration order (the order a reader of
  the file knows): its box (name, mode, caps, and the worst case `check` found) and beside
  it, one row per way out, written horizontally in full (`→ review [error]`, the hint, the
  transform, the gate, the stuck thresholds), wrapped rather than cut;
- the first arrow to the next stage goes straight down between the boxes; every other
  arrow leaves its row, runs in a lane to the right of the cards and comes back into its
  target's card below that card's rows. Lanes are shared by arrows whose spans do not meet,
  shorter arrows nearer the cards, so there are few of them;
- a gated arrow has a bar across it where it leaves, and its gate written in its row.

Nothing overlaps a label: labels sit only in their own card's rows. Deterministic: the same
drawing gives the same bytes.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING

from ..display import visible
from .diagram import Arrow, Drawing, Node, node_lines
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
#: Characters of a row line before it wraps (a word never breaks unless longer).
ROW_WIDTH = 46
EXIT_GAP = 16
ROW_GAP = 5
PORT_GAP = 11
CARD_GAP = 24
LANE_GAP = 10
LEGEND_HEIGHT = 46
_DASHES = {"solid": None, "dashed": "6 4", "dotted": "2 4", "bold": None}
GATE_COLOR = "#7d3c98"


def text_width(text: str, size: int) -> float:
    """An estimate of the rendered width (wide East Asian characters count twice)."""
    units = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return units * size * 0.62


@dataclass
class _Exit:
    arrow: Arrow
    number: int
    lines: list[str]
    straight: bool
    baseline: float = 0.0

    @property
    def y(self) -> float:
        """Where the arrow leaves: level with the row's first line."""
        return self.baseline - 3.5


@dataclass
class _Card:
    node: Node
    lines: list[str]
    exits: list[_Exit] = field(default_factory=list)
    #: Arrow numbers that come into the card from a lane, in the order of their ports.
    ports: list[int] = field(default_factory=list)
    port_y: dict[int, float] = field(default_factory=dict)
    y: float = 0.0
    height: float = 0.0
    box_height: float = 0.0


@dataclass
class _Lane:
    exit: _Exit
    target: int
    x: float = 0.0

    def span(self, cards: list[_Card]) -> tuple[float, float]:
        end = cards[self.target].port_y[self.exit.number]
        return min(self.exit.y, end), max(self.exit.y, end)


@dataclass(slots=True)
class _Layout:
    cards: list[_Card]
    x0: float
    box_width: float
    exits_x: float
    right: float
    lanes: list[_Lane]
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
    body: list[str] = []
    for card in layout.cards:
        body.extend(_card(layout, card, facts))
    body.extend(_arrows(layout, markers))
    if layout.entry is not None:
        body.extend(_start_marker(layout, markers["#2c3e50"]))
    bottom = max((c.y + c.height for c in layout.cards), default=MARGIN) + MARGIN
    legend = _heat_legend(facts, bottom) if facts is not None and facts.scale else []
    return (
        "\n".join(_head(d, layout, markers, bottom + (LEGEND_HEIGHT if legend else 0)) + body + legend + ["</svg>"])
        + "\n"
    )


# --- layout ---------------------------------------------------------------------------------------


def _layout(d: Drawing, facts: "RunFacts | None") -> _Layout:
    cards = [_Card(node, node_lines(node) + _worst_case(facts, node)) for node in d.nodes]
    position = {card.node.id: i for i, card in enumerate(cards)}
    names = {
        card.node.id: card.node.name if card.node.kind != "external" else f"ext:{card.node.name}" for card in cards
    }
    lanes: list[_Lane] = []
    straight_from: set[int] = set()
    for number, arrow in enumerate(d.arrows):
        source, target = position[arrow.source], position[arrow.target]
        straight = target == source + 1 and source not in straight_from
        if straight:
            straight_from.add(source)
        exit = _Exit(
            arrow,
            number,
            _row_lines(("↓ " if straight else "→ ") + visible(names[arrow.target]), arrow.label),
            straight,
        )
        cards[source].exits.append(exit)
        if not straight:
            cards[target].ports.append(number)
            lanes.append(_Lane(exit, target))
    box_width = max(max((_box_text_width(c.lines) + 2 * PAD for c in cards), default=80), 150)
    entry = position.get(d.entry or "")
    start_above = entry == 0
    x0 = MARGIN + (44 if entry is not None and not start_above else 0)
    exits_x = x0 + box_width + EXIT_GAP
    widest = max((text_width(line, LABEL_FONT_SIZE) for c in cards for e in c.exits for line in e.lines), default=0)
    right = exits_x + max(widest, 60) + 12
    top = MARGIN + (LINE_HEIGHT + 6 if d.title else 0) + (34 if start_above else 0)
    _stack(cards, top)
    _place_lanes(lanes, cards, right)
    return _Layout(cards, x0, box_width, exits_x, right, lanes, entry, start_above)


def _row_lines(head: str, label: tuple[str, ...]) -> list[str]:
    """A way out as lines of at most ROW_WIDTH characters: the target first, then each part
    of the label, a part on the line before when it fits; long parts wrap at spaces."""
    lines = [head]
    for part in (visible(p) for p in label):
        if len(lines[-1]) + 2 + len(part) <= ROW_WIDTH and not part.startswith(("gate:", "stuck:")):
            lines[-1] += "  " + part
            continue
        line = ""
        for word in part.split(" "):
            while len(word) > ROW_WIDTH:  # a word longer than a line: the only break inside a word
                if line:
                    lines.append(line)
                    line = ""
                lines.append(word[:ROW_WIDTH])
                word = word[ROW_WIDTH:]
            if line and len(line) + 1 + len(word) > ROW_WIDTH:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        if line:
            lines.append(line)
    return lines


def _stack(cards: list[_Card], top: float) -> None:
    """Cards top to bottom: each as tall as its box, or as its rows and ports below them."""
    y = top
    for card in cards:
        card.y = y
        card.box_height = len(card.lines) * LINE_HEIGHT + 2 * PAD
        row = y + PAD + 1
        for exit in card.exits:
            exit.baseline = row + 9
            row += len(exit.lines) * LABEL_LINE_HEIGHT + ROW_GAP
        row += 2 if card.exits and card.ports else 0
        for number in card.ports:
            card.port_y[number] = row + 4
            row += PORT_GAP
        card.height = max(card.box_height, row - y + PAD / 2)
        y += card.height + CARD_GAP


def _place_lanes(lanes: list[_Lane], cards: list[_Card], right: float) -> None:
    """Each lane arrow's x: the nearest lane whose arrows' spans it does not meet, shorter
    arrows first (so they stay near the cards)."""
    taken: list[list[tuple[float, float]]] = []
    for lane in sorted(lanes, key=lambda lane: (lane.span(cards)[1] - lane.span(cards)[0], lane.exit.number)):
        low, high = lane.span(cards)
        free = [i for i, spans in enumerate(taken) if all(high + 4 < a or low - 4 > b for a, b in spans)]
        number = free[0] if free else len(taken)
        if not free:
            taken.append([])
        taken[number].append((low, high))
        lane.x = right + 14 + number * LANE_GAP


# --- drawing --------------------------------------------------------------------------------------


def _card(layout: _Layout, card: _Card, facts: "RunFacts | None") -> list[str]:
    """The card's frame, its stage box and its rows."""
    out = [
        f'<rect class="card" x="{layout.x0 - 6:.1f}" y="{card.y - 6:.1f}" width="{layout.right - layout.x0 + 6:.1f}" '
        f'height="{card.height + 12:.1f}" rx="8" fill="#fbfcfc" stroke="#d5d8dc" stroke-width="1"/>'
    ]
    heat = facts.heat_of(card.node.name) if facts is not None and card.node.kind == "stage" else ""
    out.extend(_box(layout, card, heat))
    for exit in card.exits:
        for i, line in enumerate(exit.lines):
            y = exit.baseline + i * LABEL_LINE_HEIGHT
            color = GATE_COLOR if line.startswith("gate:") else exit.arrow.color
            if i == 0:
                head, _, rest = line.partition("  ")
                text = f'<tspan font-weight="bold">{_text(head)}</tspan>' + (f"  {_text(rest)}" if rest else "")
            else:
                text = _text(line)
            out.append(
                f'<text class="row" x="{layout.exits_x:.1f}" y="{y:.1f}" font-size="{LABEL_FONT_SIZE}" '
                f'fill="{color}" xml:space="preserve">{text}</text>'
            )
    return out


def _arrows(layout: _Layout, markers: dict[str, str]) -> list[str]:
    out: list[str] = []
    cards = layout.cards
    cx = layout.x0 + layout.box_width / 2
    for i, card in enumerate(cards):
        for exit in card.exits:
            if exit.straight:
                below = cards[i + 1]
                out.append(_path(f"M {cx:.1f} {card.y + card.box_height:.1f} V {below.y:.1f}", exit, markers))
    for lane in layout.lanes:
        exit = lane.exit
        start = layout.exits_x + text_width(exit.lines[0], LABEL_FONT_SIZE) * 1.08 + 6
        end = cards[lane.target].port_y[exit.number]
        out.append(_path(f"M {start:.1f} {exit.y:.1f} H {lane.x:.1f} V {end:.1f} H {layout.right:.1f}", exit, markers))
        if exit.arrow.kind == "transition" and any(line.startswith("gate:") for line in exit.lines):
            gx = start + 8
            out.append(
                f'<path class="gate" d="M {gx:.1f} {exit.y - 5:.1f} V {exit.y + 5:.1f}" stroke="{GATE_COLOR}" stroke-width="3"/>'
            )
    return out


def _path(d: str, exit: _Exit, markers: dict[str, str]) -> str:
    arrow = exit.arrow
    width = 2.5 if arrow.style == "bold" else 1.3
    dash = _DASHES[arrow.style]
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    title = f"<title>{_text(' · '.join(exit.lines))}</title>"
    return (
        f'<path class="edge a{exit.number}" d="{d}" fill="none" stroke="{arrow.color}" stroke-width="{width}"{dash_attr} '
        f'marker-end="url(#{markers[arrow.color]})">{title}</path>'
    )


def _head(d: Drawing, layout: _Layout, markers: dict[str, str], height: float) -> list[str]:
    """The opening tag sized to the drawing, the arrow-head markers, the title."""
    right_extent = max((lane.x for lane in layout.lanes), default=layout.right)
    title_extent = MARGIN + text_width(visible(d.title), 14) * 1.1
    total_width = max(right_extent, title_extent) + MARGIN
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="stage-graph" width="{total_width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {total_width:.0f} {height:.0f}" role="img" '
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


def _text(text: str) -> str:
    return escape(visible(text), quote=True)


def _box_text_width(lines: list[str]) -> float:
    """The widest line of a node; the first (the name) is bold, so wider."""
    return max(text_width(line, NODE_FONT_SIZE) * (1.12 if i == 0 else 1.0) for i, line in enumerate(lines))


def _start_marker(layout: _Layout, marker: str) -> list[str]:
    """A dot with an arrow into the entry stage, from above it or from its left."""
    assert layout.entry is not None
    card = layout.cards[layout.entry]
    if layout.start_above:
        cx, cy = layout.x0 + layout.box_width / 2, card.y - 28
        line = f"M {cx:.1f} {cy + 6:.1f} V {card.y:.1f}"
    else:
        cx, cy = layout.x0 - 36, card.y + 10
        line = f"M {cx + 6:.1f} {cy:.1f} H {layout.x0:.1f}"
    return [
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="6" fill="#2c3e50"/>',
        f'<path d="{line}" stroke="#2c3e50" stroke-width="1.5" fill="none" marker-end="url(#{marker})"/>',
    ]


def _box(layout: _Layout, card: _Card, heat: str = "") -> list[str]:
    node = card.node
    stroke, fill, dash = "#34495e", heat or "#ffffff", ""
    if node.kind == "external":
        stroke, fill, dash = "#2980b9", "#eaf2f8", ' stroke-dasharray="4 3"'
    elif node.kind == "missing":
        stroke, fill, dash = "#c0392b", "#fdedec", ' stroke-dasharray="4 3"'
    elif node.entry:
        stroke = "#1e8449"
    if node.unreachable:
        fill = "#f2f3f4"
    x, y, w, h = layout.x0, card.y, layout.box_width, card.box_height
    width = 2.5 if node.entry else 1.3
    out = [
        f'<g class="node {node.kind} n-{node.id}"><rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" '
        f'height="{h:.1f}" rx="6" fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dash}/>'
    ]
    if node.terminal:
        out.append(
            f'<rect x="{x + 3:.1f}" y="{y + 3:.1f}" width="{w - 6:.1f}" height="{h - 6:.1f}" '
            f'rx="4" fill="none" stroke="{stroke}" stroke-width="1"/>'
        )
    cx = x + w / 2
    for i, line in enumerate(card.lines):
        weight = ' font-weight="bold"' if i == 0 else ""
        color = "#c0392b" if node.kind == "missing" else "#ffffff" if heat == UNBOUNDED_HEAT else "#2c3e50"
        out.append(
            f'<text x="{cx:.1f}" y="{y + PAD + 11 + i * LINE_HEIGHT:.1f}" font-size="{NODE_FONT_SIZE}" '
            f'text-anchor="middle" fill="{color}"{weight}>{_text(line)}</text>'
        )
    out.append("</g>")
    return out


__all__ = ["FONT", "LABEL_FONT_SIZE", "NODE_FONT_SIZE", "text_width", "to_svg"]
