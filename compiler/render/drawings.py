"""A stage graph drawn in one of the formats of `blueprint graph`: Mermaid, Graphviz DOT or a
text outline (the drawings themselves are `diagram` and `diagram_outline`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .diagram import drawing, to_dot, to_mermaid
from .diagram_outline import outline

if TYPE_CHECKING:
    from ..graph import StageGraph

FORMATS: dict[str, Callable[["StageGraph", str], str]] = {
    "mermaid": lambda graph, title: to_mermaid(drawing(graph, title)),
    "dot": lambda graph, title: to_dot(drawing(graph, title)),
    "text": outline,
}


def render(graph: "StageGraph", format: str, title: str = "") -> str:
    """`graph` drawn in `format` (`mermaid`, `dot` or `text`)."""
    return FORMATS[format](graph, title)
