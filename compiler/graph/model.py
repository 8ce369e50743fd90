"""The stage graph: one node per stage, one typed edge per way a run can move between stages.

Built from the typed IR with the standard library only (it sits on the `validate` hot path).
The edge set is the one the runner follows, so every analysis agrees with what a run does:

- `transition`: a `[stages.<s>.transitions.<t>]` edge, with its condition, hint, transform,
  gate and stuck thresholds (the IR `Edge`);
- `fall_through`: a stage without a transitions table hands over to the next declared stage
  (linear and graph mode alike; the last such stage ends the run instead);
- `merge`: a fan-out stage hands over to its `merge_stage` once the workers are done;
- `worker`: a fan-out stage starts its `worker_stage` in worker runs of their own.

Workers named by `worker_agent`/`worker_query` are other blueprints, not stages: they are
listed in `external_workers`, never drawn as edges. Edges to stages that do not exist are
left out (the structure rule `unknown-stage` reports them). Nodes are in declaration order,
edges in source order then declaration order; every algorithm is iterative and visits
successors in that order, so results never depend on hashing and 10,000-stage graphs never
meet the recursion limit.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from types import MethodType
from typing import TYPE_CHECKING, Literal

from compiler.records import record

from .algorithms import DominatorTree, breadth_first, strongly_connected

if TYPE_CHECKING:
    from ..diagnostics import KeyPath
    from ..ir.model import Blueprint, Edge, Gate, Stage, StuckThresholds

EdgeKind = Literal["transition", "fall_through", "merge", "worker"]
EDGE_KINDS: tuple[str, ...] = ("transition", "fall_through", "merge", "worker")
#: Edges one run moves along. A worker edge starts other runs, with visit counts of their own.
RUN_KINDS: frozenset[str] = frozenset({"transition", "fall_through", "merge"})

#: Chooses the edges an algorithm may follow; None follows every edge.
EdgeFilter = Callable[["GraphEdge"], bool]
#: Adjacency lists kept per graph, by edge filter.
_ADJACENCY_CACHE_SIZE = 8


@record
class GraphEdge:
    source: str
    target: str
    kind: EdgeKind
    #: The IR edge, for `transition` edges only.
    edge: "Edge | None" = None

    @property
    def condition(self) -> str | None:
        return self.edge.condition if self.edge is not None else None

    @property
    def hint(self) -> str | None:
        return self.edge.hint if self.edge is not None else None

    @property
    def transform(self) -> str:
        return self.edge.transform if self.edge is not None else "direct"

    @property
    def gate(self) -> "Gate | None":
        return self.edge.gate if self.edge is not None else None

    @property
    def stuck(self) -> "StuckThresholds | None":
        return self.edge.stuck if self.edge is not None else None

    @property
    def is_normal(self) -> bool:
        """Taken when the source stage ends normally (a fall-through, or an always/llm_choice edge)."""
        return self.kind == "fall_through" or (self.edge is not None and self.edge.is_normal)

    @property
    def budget_checked(self) -> bool:
        """Refused once the target's `max_revisits` is spent. Fall-through and fan-out
        hand-offs enter their target unconditionally."""
        return self.kind == "transition"

    @property
    def path(self) -> "KeyPath":
        """Where the edge is written: the transition table, the stage that falls through, or
        the fan-out key."""
        if self.kind == "transition":
            return ("stages", self.source, "transitions", self.target)
        if self.kind == "merge":
            return ("stages", self.source, "merge_stage")
        if self.kind == "worker":
            return ("stages", self.source, "worker_stage")
        return ("stages", self.source)

    def describe(self) -> str:
        """How a message names the edge: "transition 'a' → 'b' (error)", "'a' falls through to 'b' …"."""
        if self.kind == "fall_through":
            return f"'{self.source}' falls through to '{self.target}' (it has no transitions table)"
        if self.kind == "merge":
            return f"fan-out stage '{self.source}' hands over to its merge stage '{self.target}'"
        if self.kind == "worker":
            return f"fan-out stage '{self.source}' runs '{self.target}' as its worker"
        condition = self.condition or "always"
        label = "" if condition == "always" else f" ({condition})"
        return f"transition '{self.source}' → '{self.target}'{label}"


@record
class StageNode:
    name: str
    #: Position in declaration order.
    index: int
    stage: "Stage"
    entry: bool = False
    #: A normal end here ends the run: an empty transitions table, transitions with no
    #: always/llm_choice edge, or the last stage without a transitions table. (A fan-out
    #: stage with a merge stage hands over instead once its workers ran.)
    terminal: bool = False

    @property
    def capped(self) -> bool:
        return self.stage.max_revisits is not None


@record
class ExternalWorker:
    """A fan-out worker that is another blueprint (`worker_agent`) or found by a query."""

    stage: str
    kind: Literal["agent", "query"]
    name: str

    @property
    def path(self) -> "KeyPath":
        return ("stages", self.stage, f"worker_{self.kind}")


def by_kind(*kinds: str) -> EdgeFilter:
    wanted = frozenset(kinds)
    return lambda edge: edge.kind in wanted


def by_condition(*conditions: str) -> EdgeFilter:
    """Transitions with one of `conditions`; other edge kinds are left out."""
    wanted = frozenset(conditions)
    return lambda edge: edge.edge is not None and edge.edge.condition in wanted


def run_edge(edge: GraphEdge) -> bool:
    """An edge one run moves along (not a worker start)."""
    return edge.kind in RUN_KINDS


class StageGraph:
    """Stages and the typed edges between them; see the module docstring for the edge model."""

    def __init__(
        self,
        nodes: Iterable[StageNode],
        edges: Iterable[GraphEdge],
        entry: str | None,
        external_workers: Iterable[ExternalWorker] = (),
    ) -> None:
        self.nodes: tuple[StageNode, ...] = tuple(nodes)
        self.edges: tuple[GraphEdge, ...] = tuple(edges)
        #: The stage every run starts in (the first declared stage, whatever `entry_stage` says).
        self.entry = entry
        self.external_workers: tuple[ExternalWorker, ...] = tuple(external_workers)
        self._by_name = {node.name: node for node in self.nodes}
        #: Stage → position in `nodes`, the node number the algorithms work with.
        self._position = {node.name: i for i, node in enumerate(self.nodes)}
        self._out: dict[str, list[GraphEdge]] = {node.name: [] for node in self.nodes}
        self._in: dict[str, list[GraphEdge]] = {node.name: [] for node in self.nodes}
        for edge in self.edges:
            if edge.source in self._out and edge.target in self._in:
                self._out[edge.source].append(edge)
                self._in[edge.target].append(edge)
        self._adjacency_cache: dict[tuple[object, bool], list[list[int]]] = {}

    @classmethod
    def from_blueprint(cls, blueprint: "Blueprint") -> "StageGraph":
        stages = blueprint.stages
        names = {stage.name for stage in stages}
        entry = blueprint.start_stage if stages else None  # where every run starts
        nodes = [
            StageNode(stage.name, i, stage, stage.name == entry, _ends_run(stage, i == len(stages) - 1))
            for i, stage in enumerate(stages)
        ]
        edges: list[GraphEdge] = []
        workers: list[ExternalWorker] = []
        for i, stage in enumerate(stages):
            for edge in stage.transitions or ():
                if edge.target in names:
                    edges.append(GraphEdge(stage.name, edge.target, "transition", edge))
            if stage.transitions is None and i + 1 < len(stages):
                edges.append(GraphEdge(stage.name, stages[i + 1].name, "fall_through"))
            fan_out = stage.fan_out if stage.mode == "fan_out" else None
            if fan_out is None:
                continue
            if fan_out.merge_stage is not None and fan_out.merge_stage in names:
                edges.append(GraphEdge(stage.name, fan_out.merge_stage, "merge"))
            if fan_out.worker_stage is not None and fan_out.worker_stage in names:
                edges.append(GraphEdge(stage.name, fan_out.worker_stage, "worker"))
            if fan_out.worker_agent is not None:
                workers.append(ExternalWorker(stage.name, "agent", fan_out.worker_agent))
            if fan_out.worker_query is not None:
                workers.append(ExternalWorker(stage.name, "query", fan_out.worker_query))
        return cls(nodes, edges, entry, workers)

    # --- lookups ------------------------------------------------------------------------------

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(node.name for node in self.nodes)

    def node(self, name: str) -> StageNode | None:
        return self._by_name.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __len__(self) -> int:
        return len(self.nodes)

    def out_edges(self, name: str, where: EdgeFilter | None = None) -> tuple[GraphEdge, ...]:
        return tuple(e for e in self._out.get(name, ()) if where is None or where(e))

    def in_edges(self, name: str, where: EdgeFilter | None = None) -> tuple[GraphEdge, ...]:
        return tuple(e for e in self._in.get(name, ()) if where is None or where(e))

    def successors(self, name: str, where: EdgeFilter | None = None) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.target for e in self.out_edges(name, where)))

    def predecessors(self, name: str, where: EdgeFilter | None = None) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.source for e in self.in_edges(name, where)))

    def is_capped(self, name: str) -> bool:
        node = self._by_name.get(name)
        return node is not None and node.capped

    def unbudgeted(self, edge: GraphEdge) -> bool:
        """A run edge no revisit budget can refuse: a fall-through, a merge hand-off, or a
        transition into a stage without `max_revisits`. A cycle made only of these can go
        round for ever. Usable as an edge filter (`where=graph.unbudgeted`)."""
        if edge.kind not in RUN_KINDS:
            return False
        return not (edge.budget_checked and self.is_capped(edge.target))

    # --- algorithms ---------------------------------------------------------------------------

    def _adjacency(self, where: EdgeFilter | None, reverse: bool = False) -> list[list[int]]:
        """Successor (or predecessor) indices per node, de-duplicated, in edge order."""
        # A filter that is one of this graph's own methods is keyed by its function: keyed by
        # the bound method, the cache would hold the graph, a cycle only the slow collector frees.
        key = (where.__func__ if isinstance(where, MethodType) and where.__self__ is self else where, reverse)
        cached = self._adjacency_cache.get(key)
        if cached is not None:
            return cached
        index = self._position
        lists: list[dict[int, None]] = [{} for _ in self.nodes]
        for edges in self._out.values():
            for edge in edges:
                if where is not None and not where(edge):
                    continue
                a, b = index[edge.source], index[edge.target]
                if reverse:
                    a, b = b, a
                lists[a][b] = None
        adjacency = [list(targets) for targets in lists]
        if reverse:  # predecessors listed in declaration order of the source stage
            adjacency = [sorted(targets) for targets in adjacency]
        if len(self._adjacency_cache) >= _ADJACENCY_CACHE_SIZE:  # callers may pass a new lambda each time
            self._adjacency_cache.pop(next(iter(self._adjacency_cache)))
        self._adjacency_cache[key] = adjacency
        return adjacency

    def reachable(
        self,
        starts: str | Iterable[str] | None = None,
        where: EdgeFilter | None = None,
        *,
        stop: Iterable[str] = (),
        reverse: bool = False,
    ) -> list[str]:
        """Stages reached from `starts` (default: the entry), breadth first, in discovery
        order, the starts included. Stages in `stop` are reached but not left. `reverse`
        walks edges backwards (who can reach the starts)."""
        if starts is None:
            starts = () if self.entry is None else (self.entry,)
        elif isinstance(starts, str):
            starts = (starts,)
        index = self._position
        found = breadth_first(
            self._adjacency(where, reverse),
            [index[name] for name in starts if name in index],
            {index[name] for name in stop if name in index},
        )
        return [self.nodes[i].name for i in found]

    def sccs(self, where: EdgeFilter | None = None) -> list[tuple[str, ...]]:
        """Strongly connected components (iterative Tarjan), each in declaration order, the
        list ordered by each component's first stage."""
        found = strongly_connected(self._adjacency(where))
        return [tuple(self.nodes[i].name for i in component) for component in found]

    def component_ids(self, where: EdgeFilter | None = None) -> dict[str, int]:
        """Stage → the number of its strongly connected component (same number, same cycle set)."""
        return {name: i for i, component in enumerate(self.sccs(where)) for name in component}

    def cycles(self, where: EdgeFilter | None = None) -> list[tuple[str, ...]]:
        """The components that hold a cycle: two or more stages, or one with an edge to itself."""
        out = []
        for component in self.sccs(where):
            if len(component) > 1 or any(e.target == component[0] for e in self.out_edges(component[0], where)):
                out.append(component)
        return out

    def cycle_witness(self, component: Iterable[str], where: EdgeFilter | None = None) -> tuple[GraphEdge, ...]:
        """A shortest cycle inside `component` that starts and ends at its smallest stage name
        (breadth first, edges in declaration order), or () when there is none."""
        members = set(component)
        if not members:
            return ()
        start = min(members)
        parent: dict[str, GraphEdge] = {}
        queue: deque[str] = deque([start])
        while queue:
            current = queue.popleft()
            for edge in self.out_edges(current, where):
                if edge.target not in members:
                    continue
                if edge.target == start:
                    path = [edge]
                    while path[0].source != start:
                        path.insert(0, parent[path[0].source])
                    return tuple(path)
                if edge.target not in parent:
                    parent[edge.target] = edge
                    queue.append(edge.target)
        return ()

    def dominators(self, where: EdgeFilter | None = None) -> "Dominators":
        """The dominator tree of the stages reachable from the entry (Cooper, Harvey and
        Kennedy's iterative algorithm): `a` dominates `b` when every path from the entry to
        `b` passes through `a`."""
        return Dominators(self, where)


class Dominators:
    """Answers "does every path from the entry to `b` pass through `a`?" in constant time."""

    def __init__(self, graph: StageGraph, where: EdgeFilter | None) -> None:
        self.graph = graph
        self._tree = DominatorTree(graph._adjacency(where), graph._position.get(graph.entry or ""))

    def immediate(self, name: str) -> str | None:
        """The nearest strict dominator of `name` (None for the entry or an unreached stage)."""
        position = self.graph._position.get(name)
        parent = None if position is None else self._tree.immediate(position)
        return None if parent is None else self.graph.nodes[parent].name

    def dominates(self, a: str, b: str) -> bool:
        """Every path from the entry to `b` passes through `a` (a stage dominates itself);
        False when either stage is not reached from the entry."""
        pa, pb = self.graph._position.get(a), self.graph._position.get(b)
        return pa is not None and pb is not None and self._tree.dominates(pa, pb)


def _ends_run(stage: "Stage", last: bool) -> bool:
    if stage.transitions is None:
        return last
    return not any(edge.is_normal for edge in stage.transitions)
