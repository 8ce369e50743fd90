"""Drawings of a blueprint's stage graph: Mermaid, Graphviz DOT and a text outline.

Data in, text out. `drawing(graph)` turns a `StageGraph` into one format-neutral `Drawing`
(nodes, arrows, label lines, styles), and each format only spells that drawing, so Mermaid,
DOT and the built-in SVG never disagree about what an edge means:

- transitions are solid when a normal end takes them (`always`, `llm_choice`), dashed and
  coloured when a condition does (`[error]`, `[dead_end]`, `[stuck]`, `[max_iterations]`);
  labels carry the hint, a non-direct transform, the gate and the stuck thresholds;
- a stage without a transitions table falls through to the next one: a dotted `next` arrow;
- a fan-out stage starts its workers (`workers`) and hands over to its merge stage
  (`merge`, bold); workers that are other blueprints are `ext:<name>` nodes;
- the entry stage gets a start marker, terminal stages a double border, `max_revisits`
  shows on the node; an edge to a stage that does not exist goes to a red `missing` node,
  because a drawing is often what a user looks at to find exactly that.

Node ids are generated (`s0`, `x0`, `m0`), never taken from the blueprint, and every user
string is escaped for the format it lands in, so no stage name can break a drawing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from compiler.records import record

from ..display import visible

if TYPE_CHECKING:
    from ..graph import GraphEdge, StageGraph
    from ..ir.model import Edge, Gate, Stage, StuckThresholds

#: Conditions that are not a normal end: their arrows are dashed and labelled `[condition]`.
CONDITIONED = ("error", "dead_end", "stuck", "max_iterations")
#: Arrow colours per condition (DOT and SVG; Mermaid through linkStyle).
CONDITION_COLORS = {
    "error": "#c0392b",
    "dead_end": "#7f8c8d",
    "stuck": "#d35400",
    "max_iterations": "#8e44ad",
}
#: Hints longer than this are shortened in drawings (the text outline and docs show them whole).
HINT_WIDTH = 48

Style = Literal["solid", "dashed", "dotted", "bold"]
NodeKind = Literal["stage", "external", "missing"]


@record
class Node:
    id: str
    #: The user's name (a stage, an external worker, a missing target).
    name: str
    kind: NodeKind
    #: Label lines after the name: mode, max_revisits.
    details: tuple[str, ...] = ()
    entry: bool = False
    terminal: bool = False
    #: No run can reach the stage from the entry (drawn greyed out).
    unreachable: bool = False


@record
class Arrow:
    source: str
    target: str
    #: `transition`, `fall_through`, `merge` or `worker` (an external worker's too).
    kind: str
    condition: str | None = None
    label: tuple[str, ...] = ()

    @property
    def style(self) -> Style:
        if self.kind == "fall_through":
            return "dotted"
        if self.kind == "merge":
            return "bold"
        if self.kind == "worker" or self.condition in CONDITIONED:
            return "dashed"
        return "solid"

    @property
    def color(self) -> str:
        return CONDITION_COLORS.get(self.condition or "", "#34495e")


@record
class Drawing:
    title: str
    nodes: tuple[Node, ...]
    arrows: tuple[Arrow, ...]
    #: The node id of the entry stage, or None for a graph without stages.
    entry: str | None


# --- the format-neutral drawing -----------------------------------------------------------


def drawing(graph: "StageGraph", title: str = "", hint_width: int = HINT_WIDTH) -> Drawing:
    """Every stage, edge, external worker and dangling reference of `graph`, in declaration order."""
    ids = {node.name: f"s{node.index}" for node in graph.nodes}
    reached = set(graph.reachable())
    nodes = [
        Node(
            ids[n.name],
            n.name,
            "stage",
            stage_details(n.stage),
            entry=n.entry,
            # A fan-out stage with a merge stage hands over once its workers are done.
            terminal=n.terminal and not graph.out_edges(n.name, lambda e: e.kind == "merge"),
            unreachable=n.name not in reached,
        )
        for n in graph.nodes
    ]
    extra: dict[tuple[str, str], Node] = {}
    arrows: list[Arrow] = []

    def other(kind: NodeKind, name: str) -> str:
        key = (kind, name)
        if key not in extra:
            prefix = "x" if kind == "external" else "m"
            count = sum(1 for k in extra if k[0] == kind)
            extra[key] = Node(f"{prefix}{count}", name, kind)
        return extra[key].id

    for node in graph.nodes:
        source = ids[node.name]
        # Transitions from the IR, so that an edge to a stage that does not exist is drawn too.
        for edge in node.stage.transitions or ():
            target = ids[edge.target] if edge.target in ids else other("missing", edge.target)
            arrows.append(Arrow(source, target, "transition", edge.condition, edge_label(edge, hint_width)))
        for graph_edge in graph.out_edges(node.name):
            if graph_edge.kind != "transition":
                arrows.append(Arrow(source, ids[graph_edge.target], graph_edge.kind, None, implicit_label(graph_edge)))
        fan_out = node.stage.fan_out if node.stage.mode == "fan_out" else None
        if fan_out is not None:
            for kind, name in (("merge", fan_out.merge_stage), ("worker", fan_out.worker_stage)):
                if name is not None and name not in ids:
                    arrows.append(
                        Arrow(source, other("missing", name), kind, None, (kind if kind == "merge" else "workers",))
                    )
    for worker in graph.external_workers:
        name = worker.name if worker.kind == "agent" else f"query: {worker.name}"
        arrows.append(Arrow(ids[worker.stage], other("external", name), "worker", None, ("workers",)))
    entry = ids.get(graph.entry) if graph.entry is not None else None
    return Drawing(title, tuple(nodes) + tuple(extra.values()), tuple(arrows), entry)


def stage_details(stage: "Stage") -> tuple[str, ...]:
    details: list[str] = [stage.mode]
    if stage.max_revisits is not None:
        details.append(f"max_revisits {stage.max_revisits}")
    return (" · ".join(details),)


def edge_label(edge: "Edge", hint_width: int = HINT_WIDTH) -> tuple[str, ...]:
    """The label lines of a transition: condition, hint, transform, gate, stuck thresholds."""
    lines: list[str] = []
    if edge.condition in CONDITIONED:
        lines.append(f"[{edge.condition}]")
    elif edge.condition == "llm_choice":
        lines.append("llm_choice")
    if edge.hint:
        lines.append(f'"{shorten(edge.hint, hint_width)}"')
    if edge.transform != "direct":
        lines.append(f"transform: {edge.transform}")
    if edge.gate is not None:
        lines.append(f"gate: {gate_summary(edge.gate)}")
    if edge.stuck is not None and edge.stuck.armed:
        lines.append(f"stuck: {stuck_summary(edge.stuck)}")
    return tuple(lines)


def implicit_label(edge: "GraphEdge") -> tuple[str, ...]:
    return {"fall_through": ("next",), "merge": ("merge",), "worker": ("workers",)}.get(edge.kind, ())


def gate_summary(gate: "Gate") -> str:
    """`require_modifications, require_no_open_items todo (max 5 attempts)`."""
    checks: list[str] = []
    if gate.require_modifications:
        checks.append("require_modifications")
    if gate.require_region_updated is not None:
        checks.append(f"require_region_updated {gate.require_region_updated}")
    if gate.require_no_open_items is not None:
        checks.append(f"require_no_open_items {gate.require_no_open_items}")
    if gate.require_regions:
        checks.append("require_regions " + ", ".join(gate.require_regions))
    text = ", ".join(checks) or "no check"
    if gate.max_attempts != 3:
        text += f" (max {gate.max_attempts} attempt{'' if gate.max_attempts == 1 else 's'})"
    return text


def stuck_summary(stuck: "StuckThresholds") -> str:
    """`30 iterations / 20 min / 8 same-file edits / 120 tool calls`: the armed thresholds."""
    parts = []
    if stuck.iterations is not None:
        parts.append(f"{stuck.iterations} iterations")
    if stuck.minutes is not None:
        parts.append(f"{stuck.minutes} min")
    if stuck.same_file_edits is not None:
        parts.append(f"{stuck.same_file_edits} same-file edits")
    if stuck.tool_calls is not None:
        parts.append(f"{stuck.tool_calls} tool calls")
    return " / ".join(parts)


def shorten(text: str, width: int) -> str:
    """One line of at most `width` characters (whitespace runs collapsed, '…' when cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(1, width - 1)].rstrip() + "…"


# --- Mermaid ------------------------------------------------------------------------------

#: Characters a Mermaid label may hold as they are; everything else becomes an entity code.
_MERMAID_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.,:;/'=+-*?!@$^~()[]")


def mermaid_text(text: str) -> str:
    """A string for a quoted Mermaid label: quotes, `#`, `<`, `{`, `|`, backticks … become
    `#<code>;` entities (which Mermaid decodes), non-printable characters `\\uXXXX`."""
    out = []
    for c in visible(text):
        if c in _MERMAID_SAFE or (ord(c) > 127 and c.isprintable() and not c.isspace()):
            out.append(c)
        else:
            out.append(f"#{ord(c)};")
    return "".join(out)


def _mermaid_label(lines: tuple[str, ...] | list[str]) -> str:
    return '"' + "<br/>".join(mermaid_text(line) for line in lines) + '"'


_MERMAID_SHAPES = {"stage": ("[", "]"), "terminal": ("[[", "]]"), "external": ("{{", "}}"), "missing": ("[/", "/]")}
_MERMAID_ARROWS = {"solid": "-->", "dashed": "-.->", "dotted": "-.->", "bold": "==>"}


def to_mermaid(d: Drawing) -> str:
    """A Mermaid `flowchart` (top-down)."""
    out = ["flowchart TD"]
    if d.entry is not None:
        out.append('  start(("start"))')
    for node in d.nodes:
        shape = "terminal" if node.terminal else node.kind
        opening, closing = _MERMAID_SHAPES[shape]
        out.append(f"  {node.id}{opening}{_mermaid_label(node_lines(node))}{closing}")
    styles: list[str] = []
    if d.entry is not None:
        out.append(f"  start --> {d.entry}")
        styles.append("stroke:#2c3e50,stroke-width:2px")
    for arrow in d.arrows:
        link = _MERMAID_ARROWS[arrow.style]
        label = f"|{_mermaid_label(arrow.label)}|" if arrow.label else ""
        out.append(f"  {arrow.source} {link}{label} {arrow.target}")
        styles.append(_mermaid_link_style(arrow))
    out.append("  classDef entry stroke:#1e8449,stroke-width:3px")
    out.append("  classDef terminal stroke:#2c3e50,stroke-width:3px")
    out.append("  classDef external fill:#eaf2f8,stroke:#2980b9,stroke-dasharray:4 3")
    out.append("  classDef missing fill:#fdedec,stroke:#c0392b,color:#c0392b,stroke-dasharray:4 3")
    out.append("  classDef marker fill:#2c3e50,stroke:#2c3e50,color:#ffffff")
    out.append("  classDef unreachable fill:#f2f3f4,color:#7f8c8d")
    if d.entry is not None:
        out.append("  class start marker")
    for node in d.nodes:
        flags = (("entry", node.entry), ("terminal", node.terminal), ("unreachable", node.unreachable))
        classes = [c for c, on in flags if on]
        if node.kind != "stage":
            classes.append(node.kind)
        for name in classes:
            out.append(f"  class {node.id} {name}")
    for number, style in enumerate(styles):
        out.append(f"  linkStyle {number} {style}")
    return "\n".join(out) + "\n"


def _mermaid_link_style(arrow: Arrow) -> str:
    style = f"stroke:{arrow.color}"
    if arrow.style == "dotted":
        style += ",stroke-dasharray:2 4"
    elif arrow.style == "dashed":
        style += ",stroke-dasharray:6 4"
    elif arrow.style == "bold":
        style += ",stroke-width:3px"
    return style


def node_lines(node: Node) -> list[str]:
    if node.kind == "external":
        return [f"ext:{node.name}"]
    if node.kind == "missing":
        return [node.name, "missing stage"]
    return [node.name, *node.details]


# --- Graphviz DOT -------------------------------------------------------------------------


def dot_text(text: str) -> str:
    """A string for a quoted DOT attribute: backslashes and quotes escaped (so `\\N`, `\\l` …
    are never escape sequences), control characters spelled out."""
    return visible(text).replace("\\", "\\\\").replace('"', '\\"')


def _dot_label(lines: tuple[str, ...] | list[str]) -> str:
    return '"' + "\\n".join(dot_text(line) for line in lines) + '"'


_DOT_STYLES = {"solid": "solid", "dashed": "dashed", "dotted": "dotted", "bold": "bold"}


def to_dot(d: Drawing) -> str:
    """A Graphviz `digraph` (top-down), UTF-8."""
    out = [
        "digraph blueprint {",
        f'  graph [rankdir=TB, fontname="Helvetica", fontsize=12, labelloc=t, label={_dot_label([d.title] if d.title else [])}];',
        '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", color="#34495e", fontname="Helvetica", fontsize=11];',
        '  edge [color="#34495e", fontname="Helvetica", fontsize=9, fontcolor="#2c3e50"];',
    ]
    if d.entry is not None:
        out.append('  start [shape=circle, style=filled, fillcolor="#2c3e50", width=0.2, fixedsize=true, label=""];')
    for node in d.nodes:
        attrs = [f"label={_dot_label(node_lines(node))}"]
        if node.kind == "external":
            attrs.append('shape=hexagon, style="filled,dashed", fillcolor="#eaf2f8", color="#2980b9"')
        elif node.kind == "missing":
            attrs.append('shape=box, style="filled,dashed", fillcolor="#fdedec", color="#c0392b", fontcolor="#c0392b"')
        if node.entry:
            attrs.append('penwidth=2, color="#1e8449"')
        if node.unreachable:
            attrs.append('fillcolor="#f2f3f4", fontcolor="#7f8c8d"')
        if node.terminal:
            attrs.append("peripheries=2")
        out.append(f"  {node.id} [{', '.join(attrs)}];")
    if d.entry is not None:
        out.append(f"  start -> {d.entry};")
    for arrow in d.arrows:
        attrs = [f"style={_DOT_STYLES[arrow.style]}"]
        if arrow.label:
            attrs.insert(0, f"label={_dot_label(arrow.label)}")
        if arrow.color != "#34495e":
            attrs.append(f'color="{arrow.color}", fontcolor="{arrow.color}"')
        if arrow.kind == "worker":
            attrs.append("arrowhead=crow")
        out.append(f"  {arrow.source} -> {arrow.target} [{', '.join(attrs)}];")
    out.append("}")
    return "\n".join(out) + "\n"


__all__ = [
    "CONDITIONED",
    "Arrow",
    "Drawing",
    "Node",
    "drawing",
    "edge_label",
    "gate_summary",
    "stuck_summary",
    "to_dot",
    "to_mermaid",
]
