"""The stage graph of a blueprint: stages and every way a run moves between them.

`StageGraph.from_blueprint(bp)` (standard library only; what the lint rules use) holds
transitions, linear fall-through and fan-out hand-offs as typed edges, with reachability,
strongly connected components, cycle witnesses and dominators. `to_networkx(bp)` gives the
same graph as a networkx `MultiDiGraph`. See docs/graph.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .model import (
    EDGE_KINDS,
    RUN_KINDS,
    Dominators,
    EdgeFilter,
    ExternalWorker,
    GraphEdge,
    StageGraph,
    StageNode,
    by_condition,
    by_kind,
    run_edge,
)

if TYPE_CHECKING:
    import networkx

    from ..ir.model import Blueprint


def to_networkx(source: "Blueprint | StageGraph") -> "networkx.MultiDiGraph":
    """The stage graph as a networkx `MultiDiGraph` (networkx is imported on this call)."""
    from .nx import to_networkx as convert

    return convert(source)


__all__ = [
    "EDGE_KINDS",
    "RUN_KINDS",
    "Dominators",
    "EdgeFilter",
    "ExternalWorker",
    "GraphEdge",
    "StageGraph",
    "StageNode",
    "by_condition",
    "by_kind",
    "run_edge",
    "to_networkx",
]
