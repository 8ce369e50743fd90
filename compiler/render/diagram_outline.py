"""The stage graph as a text outline: one block per stage, its edges indented under it.

For reading in a terminal, not for drawing: names are quoted, control characters spelled out
(no escape sequence from a blueprint reaches the terminal), hints shown in full.

    stage 'draft' [entry]: autonomous, max_iterations 20, max_revisits 3
      → 'review'  llm_choice; "The draft is complete and ready for review"
      → 'publish'  [dead_end]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..display import visible
from .diagram import CONDITIONED, Arrow, Node, drawing

if TYPE_CHECKING:
    from ..graph import StageGraph


def quote(text: str) -> str:
    """`'name'`, with quotes and backslashes escaped and control characters spelled out."""
    return "'" + visible(text.replace("\\", "\\\\").replace("'", "\\'")) + "'"


def outline(graph: "StageGraph", title: str = "") -> str:
    """One block per stage (its flags, then its edges indented), full hints included."""
    lines: list[str] = []
    if title:
        lines += [f"blueprint {quote(title)}", ""]
    full = drawing(graph, title, hint_width=10**9)
    names = {node.id: node for node in full.nodes}
    by_source: dict[str, list[Arrow]] = {}
    for arrow in full.arrows:
        by_source.setdefault(arrow.source, []).append(arrow)
    workers = {arrow.target for arrow in full.arrows if arrow.kind == "worker"}
    for node in full.nodes:
        if node.kind != "stage":
            continue
        worker = node.id in workers
        flags = [
            f
            for f, on in (
                ("entry", node.entry),
                ("terminal", node.terminal and not worker),
                ("fan-out worker", worker),
                ("unreachable", node.unreachable),
            )
            if on
        ]
        head = f"stage {quote(node.name)}" + (f" [{', '.join(flags)}]" if flags else "")
        stage_node = graph.node(node.name)
        assert stage_node is not None, "a stage box draws a stage of the graph"
        stage = stage_node.stage
        facts: list[str] = [stage.mode]
        if stage.max_iterations:
            facts.append(f"max_iterations {stage.max_iterations}")
        if stage.max_revisits is not None:
            facts.append(f"max_revisits {stage.max_revisits}")
        if stage.allow_complete:
            facts.append("allow_complete")
        lines.append(f"{head}: {', '.join(facts)}")
        for arrow in by_source.get(node.id, []):
            lines.append("  " + _outline_arrow(arrow, names[arrow.target]))
        if node.terminal and not any(
            a.kind != "worker" and a.condition not in CONDITIONED for a in by_source.get(node.id, [])
        ):
            ends = "the worker run, and its fan-out stage gathers the result" if worker else "the run"
            lines.append(f"  (a normal end here ends {ends})")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _outline_arrow(arrow: Arrow, target: Node) -> str:
    if target.kind == "external":
        where = f"ext:{quote(target.name)}"
    elif target.kind == "missing":
        where = f"{quote(target.name)} (missing stage)"
    else:
        where = quote(target.name)
    kind = {"fall_through": "next", "merge": "merge", "worker": "workers"}.get(arrow.kind)
    if kind is not None:
        return f"{'⇢' if arrow.kind == 'fall_through' else '⇒'} {where} ({kind})"
    parts = [f"→ {where}"]
    for line in arrow.label:
        parts.append(visible(line))
    return parts[0] + ("  " + "; ".join(parts[1:]) if len(parts) > 1 else "")
