"""The stage graph as a networkx `MultiDiGraph`, for library users and drawings.

networkx is imported here and nowhere else: the lint rules work on `StageGraph`, so
`blueprint validate` never pays for the import. A multigraph, because one pair of stages can
be joined twice (a transition and a merge hand-off, a fall-through and a worker start);
each edge's key is its kind, which is unique per pair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .model import StageGraph

if TYPE_CHECKING:
    import networkx

    from ..ir.model import Blueprint


def to_networkx(source: "Blueprint | StageGraph") -> "networkx.MultiDiGraph[str]":
    """Nodes are stage names (declaration order), edges `(source, target, kind)`.

    Node attributes: `index`, `mode`, `entry`, `terminal`, `max_revisits`,
    `max_iterations`, `allow_complete`, `output` (mode is "output"), `external_workers`
    (names of `worker_agent`/`worker_query` blueprints, as `"agent:<name>"` /
    `"query:<text>"`), `stage` (the IR stage). Edge attributes: `kind`, `condition`,
    `hint`, `transform`, `gate`, `stuck` (IR values, None where an edge kind has none),
    `budget_checked`, `edge` (the IR edge of a transition). Graph attributes: `name`,
    `entry`, `graph_mode`.
    """
    import networkx

    graph = source if isinstance(source, StageGraph) else StageGraph.from_blueprint(source)
    out: networkx.MultiDiGraph[str] = networkx.MultiDiGraph(entry=graph.entry)
    if not isinstance(source, StageGraph):
        out.graph.update(name=source.name, graph_mode=source.graph_mode)
    externals: dict[str, list[str]] = {}
    for worker in graph.external_workers:
        externals.setdefault(worker.stage, []).append(f"{worker.kind}:{worker.name}")
    for node in graph.nodes:
        stage = node.stage
        out.add_node(node.name, **_node_attributes(node, stage, externals.get(node.name, [])))
    for edge in graph.edges:
        out.add_edge(
            edge.source,
            edge.target,
            key=edge.kind,
            kind=edge.kind,
            condition=edge.condition,
            hint=edge.hint,
            transform=edge.transform,
            gate=edge.gate,
            stuck=edge.stuck,
            budget_checked=edge.budget_checked,
            edge=edge.edge,
        )
    return out


def _node_attributes(node, stage, externals: list[str]) -> dict[str, Any]:
    return {
        "index": node.index,
        "mode": stage.mode,
        "entry": node.entry,
        "terminal": node.terminal,
        "max_revisits": stage.max_revisits,
        "max_iterations": stage.max_iterations,
        "allow_complete": stage.allow_complete,
        "output": stage.mode == "output",
        "external_workers": tuple(externals),
        "stage": stage,
    }
