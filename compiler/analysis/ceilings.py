"""The cost ceiling: the most stage visits and inferences any run can make, or why there is none.

Over the run graph: the longest path, counting one visit per edge into a stage, and for
inferences each visit's most (`Exit.max_calls`: its iteration limit plus the routing answers
its gates allow). A cycle means visits are unbounded; a visit without an iteration limit (a
fan-out stage, which no cap binds, or a stage without `max_iterations` when the runs' default
cap is 0) means inferences are.
Per stage: the most visits (exact), the most inferences in one visit, and their product.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from compiler.records import record

from ..graph.algorithms import breadth_first, strongly_connected
from .visit_graph import INFINITE, Calls

if TYPE_CHECKING:
    from .runs import RunGraph


@record
class StageCeiling:
    stage: str
    #: The most times one run enters the stage (None: no limit).
    visits: int | None
    #: The most inferences (replies and routing answers) one visit makes (None: no limit).
    per_visit: int | None
    #: At most visits × per_visit (None when either has no limit).
    inferences: int | None


@record
class Ceilings:
    #: The most stage visits one run makes (None: a run can loop for ever).
    visits: int | None
    #: The most inferences one run makes (None: unbounded).
    inferences: int | None
    stages: tuple[StageCeiling, ...]
    #: Stages a visit of which can go on for ever (no iteration limit), in declaration order.
    endless: tuple[str, ...] = ()

    @property
    def bounded(self) -> bool:
        return self.visits is not None and self.inferences is not None

    def to_dict(self) -> dict:
        return {
            "bounded": self.bounded,
            "visits": self.visits,
            "inferences": self.inferences,
            "endless_stages": list(self.endless),
            "stages": [
                {"stage": s.stage, "visits": s.visits, "inferences_per_visit": s.per_visit, "inferences": s.inferences}
                for s in self.stages
            ],
        }


def topological_order(graph: "RunGraph", adjacency: list[list[int]]) -> list[int] | None:
    """Run states in an order where every edge goes forward; None if the graph has a cycle."""
    count = len(adjacency)
    indegree = [0] * count
    for targets in adjacency:
        for target in targets:
            indegree[target] += 1
    ready = [n for n in range(count) if indegree[n] == 0]
    order: list[int] = []
    while ready:
        node = ready.pop()
        order.append(node)
        for target in adjacency[node]:
            indegree[target] -= 1
            if indegree[target] == 0:
                ready.append(target)
    return order if len(order) == count else None


def cycles(graph: "RunGraph", adjacency: list[list[int]]) -> list[list[int]]:
    """The strongly connected sets of run states that hold a cycle."""
    found = []
    for component in strongly_connected(adjacency):
        if len(component) > 1 or component[0] in adjacency[component[0]]:
            found.append(component)
    return found


def compute(graph: "RunGraph", order: list[int] | None, adjacency: list[list[int]]) -> Ceilings:
    ir = graph.ir
    names = [stage.name for stage in ir.stages]
    per_visit: dict[str, Calls] = {}
    for key, result in graph.visits.items():
        per_visit[key[0]] = max(per_visit.get(key[0], 0), result.max_calls)
    endless = tuple(name for name in names if per_visit.get(name, 0) == INFINITE)
    if order is None:
        visits_in_loops = _visits_with_loops(graph, adjacency, names)
        stages = tuple(
            StageCeiling(
                name,
                visits_in_loops[name],
                _finite(per_visit.get(name, 0)),
                _product(visits_in_loops[name], per_visit.get(name, 0)),
            )
            for name in names
        )
        return Ceilings(None, None, stages, endless)
    visits = _stage_visits(graph, order, names, adjacency)
    total_visits, total_calls = _longest_run(graph, order)
    stages = tuple(
        StageCeiling(
            name,
            visits[name],
            _finite(per_visit.get(name, 0)),
            _product(visits[name], per_visit.get(name, 0)),
        )
        for name in names
    )
    return Ceilings(total_visits, _finite(total_calls), stages, endless)


def _visits_with_loops(graph: "RunGraph", adjacency: list[list[int]], names: list[str]) -> dict[str, int | None]:
    """Most visits per stage when runs can loop: unbounded for a stage some loop passes
    through, else the most entries along any path of the graph with each loop contracted."""
    components = strongly_connected(adjacency)
    component_of = [0] * len(adjacency)
    for number, members in enumerate(components):
        for node in members:
            component_of[node] = number
    looping: set[str] = set()
    for members in components:
        if len(members) > 1 or members[0] in adjacency[members[0]]:
            looping.update(graph.nodes[node][0] for node in members)
    entered = {node[0] for node in graph.nodes}
    counted = [name for name in names if name in entered and name not in looping]
    position = {name: i for i, name in enumerate(counted)}
    contracted: list[set[int]] = [set() for _ in components]
    indegree = [0] * len(components)
    for node, targets in enumerate(adjacency):
        for target in targets:
            a, b = component_of[node], component_of[target]
            if a != b and b not in contracted[a]:
                contracted[a].add(b)
                indegree[b] += 1
    ready = [n for n in range(len(components)) if indegree[n] == 0]
    order = []
    while ready:
        number = ready.pop()
        order.append(number)
        for other in contracted[number]:
            indegree[other] -= 1
            if indegree[other] == 0:
                ready.append(other)
    best = [[0] * len(counted) for _ in components]
    for number in reversed(order):  # a contracted loop holds no counted stage: entries only on the way out
        row = best[number]
        for other in contracted[number]:
            gain = [0] * len(counted)
            for node in components[other]:
                i = position.get(graph.nodes[node][0])
                if i is not None:
                    gain[i] = 1
            for i, value in enumerate(best[other]):
                row[i] = max(row[i], value + gain[i])
    start = component_of[0] if graph.nodes else None
    out: dict[str, int | None] = {name: 0 for name in names}
    out.update((name, None) for name in looping)
    for name, i in position.items():
        out[name] = (best[start][i] if start is not None else 0) + (
            1 if graph.nodes and graph.nodes[0][0] == name else 0
        )
    return out


def _finite(value: Calls) -> int | None:
    return None if value == INFINITE else int(value)


def _product(visits: int | None, per_visit: Calls) -> int | None:
    if visits == 0:
        return 0
    if visits is None or per_visit == INFINITE:
        return None
    return int(visits * per_visit)


def _longest_run(graph: "RunGraph", order: list[int]) -> tuple[int, Calls]:
    """The most visits and the most inferences along any run (both from the start)."""
    count = len(graph.nodes)
    visits: list[int] = [0] * count
    calls: list[Calls] = [0] * count
    out, keys = graph.out, graph.visit_keys
    # Each visit's exits as their inference counts, read once per visit rather than per edge.
    exit_calls = {key: [exit.max_calls for exit in result.exits] for key, result in graph.visits.items()}
    for node in reversed(order):
        most = exit_calls[keys[node]]
        most_visits = 0
        most_calls: Calls = 0
        for number, target in out[node]:
            if type(target) is int:
                if visits[target] >= most_visits:
                    most_visits = visits[target] + 1
                candidate = most[number] + calls[target]
            else:
                candidate = most[number]
            if candidate > most_calls:
                most_calls = candidate
        visits[node], calls[node] = most_visits, most_calls
    return (1 + visits[0], calls[0]) if count else (0, 0)


def _stage_visits(graph: "RunGraph", order: list[int], names: list[str], adjacency: list[list[int]]) -> dict[str, int]:
    """The most visits of each stage. The most visit count recorded on entry where every entry
    to the stage is budget-checked (the count is then exact up to the budget); one visit
    for a stage no edge of any run enters but the start, or that every run ends in; a longest
    path counting entries to it otherwise."""
    entered = {node[0] for node in graph.nodes}
    unchecked = _entered_unchecked(graph)
    targets: set[str] = set()
    leaves: set[str] = set()
    for key, result in graph.visits.items():
        targets.update(e.target for e in result.exits if e.target is not None)  # the edge exits
        if any(e.kind == "edge" for e in result.exits):
            leaves.add(key[0])
    most: dict[str, int] = {name: 0 for name in names}
    counted = {name for name in graph.tracked if name not in unchecked}
    most.update((name, graph.most_visits.get(name, 0)) for name in counted)
    # On a graph without cycles a run passes each run state once, so a stage entered in one
    # run state only (every stage of a chain) is visited at most once.
    states_of = Counter(node[0] for node in graph.nodes)
    once = {name for name in entered if name not in targets or name not in leaves or states_of[name] == 1}
    most.update((name, 1) for name in once if name not in counted)
    others = [name for name in names if name in entered and name not in counted and name not in once]
    if others:
        most.update(_longest_entries(graph, order, others, adjacency))
    return most


def _longest_entries(
    graph: "RunGraph", order: list[int], names: list[str], adjacency: list[list[int]]
) -> dict[str, int]:
    """For each of `names`, the most entries into it along any run (the start counts).

    A run walks the stage graph (each run edge goes from one stage to the next), and a walk
    that leaves a strongly connected set of stages never comes back: every entry into a
    stage happens while the run is among its component's run states. So each stage needs a
    longest path over its own component's states only, never a states × stages table."""
    nodes = graph.nodes
    if not nodes:
        return {}
    stage_number: dict[str, int] = {}
    stage_of = [stage_number.setdefault(key[0], len(stage_number)) for key in nodes]
    stage_edges: list[set[int]] = [set() for _ in stage_number]
    for node, targets in enumerate(adjacency):
        source = stage_of[node]
        for target in targets:
            if stage_of[target] != source:
                stage_edges[source].add(stage_of[target])
    component_of_stage = [0] * len(stage_number)
    for number, members in enumerate(strongly_connected([sorted(edges) for edges in stage_edges])):
        for stage in members:
            component_of_stage[stage] = number
    wanted: dict[int, list[str]] = {}
    for name in names:
        if name in stage_number:
            wanted.setdefault(component_of_stage[stage_number[name]], []).append(name)
    component_of = [component_of_stage[stage] for stage in stage_of]
    members_of: dict[int, list[int]] = {number: [] for number in wanted}
    for node in reversed(order):  # each component's states, last first
        bucket = members_of.get(component_of[node])
        if bucket is not None:
            bucket.append(node)
    reached = [False] * len(nodes)
    for node in breadth_first(adjacency, [0]):
        reached[node] = True
    most = dict.fromkeys(names, 0)
    best = [0] * len(nodes)  # per stage in turn: the most entries from a state, within its component
    for number, component_names in wanted.items():
        members = members_of[number]
        for name in component_names:
            stage = stage_number[name]
            longest = 0
            for node in members:
                value = 0
                for target in adjacency[node]:
                    if component_of[target] == number and best[target] > value:
                        value = best[target]
                if stage_of[node] == stage:
                    value += 1
                best[node] = value
                if value > longest and reached[node]:
                    longest = value
            most[name] = longest
    return most


def _entered_unchecked(graph: "RunGraph") -> set[str]:
    """Stages a fall-through or a merge hand-off enters (no budget check)."""
    found: set[str] = set()
    for result in graph.visits.values():
        for exit in result.exits:
            if exit.target is not None and exit.condition in ("fall_through", "merge"):
                found.add(exit.target)
    return found
