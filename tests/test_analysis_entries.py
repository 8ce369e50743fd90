"""The most entries into each stage along any run, against every path of small random graphs.

`_longest_entries` works one strongly connected set of stages at a time; here it meets
random acyclic run graphs whose states share a few stage names (so the stage graph has
loops, fan-outs and dead ends, and some states are not reached from the start), and must
give what walking every path from the start gives."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.analysis.ceilings import _longest_entries, topological_order


@dataclass
class Graph:
    nodes: list[tuple[str, int]] = field(default_factory=list)


@st.composite
def run_graphs(draw: st.DrawFn) -> tuple[Graph, list[list[int]]]:
    count = draw(st.integers(1, 9))
    stages = draw(st.lists(st.sampled_from("abcde"), min_size=count, max_size=count))
    rank = [0, *draw(st.permutations(range(1, count)))]  # the start first, the rest in any numbering
    adjacency: list[list[int]] = [[] for _ in range(count)]
    for low in range(count):
        for high in range(low + 1, count):
            if draw(st.integers(0, 2)) == 0:  # edges only go forward in rank: a run graph has no cycle
                adjacency[rank[low]].append(rank[high])
    return Graph([(stage, number) for number, stage in enumerate(stages)]), adjacency


def every_path(graph: Graph, adjacency: list[list[int]]) -> dict[str, int]:
    most: dict[str, int] = {}
    paths = [[0]]
    while paths:
        path = paths.pop()
        for name in {graph.nodes[node][0] for node in path}:
            most[name] = max(most.get(name, 0), sum(graph.nodes[node][0] == name for node in path))
        paths.extend([*path, target] for target in adjacency[path[-1]])
    return most


@settings(max_examples=300, deadline=None)
@given(run_graphs(), st.data())
def test_longest_entries_match_every_path(case: tuple[Graph, list[list[int]]], data: st.DataObject) -> None:
    graph, adjacency = case
    order = topological_order(graph, adjacency)  # type: ignore[arg-type]
    assert order is not None
    names = data.draw(st.lists(st.sampled_from("abcdef"), unique=True))
    brute = every_path(graph, adjacency)
    assert _longest_entries(graph, order, names, adjacency) == {name: brute.get(name, 0) for name in names}  # type: ignore[arg-type]


def test_a_stage_reentered_through_a_loop_of_states_counts_each_entry() -> None:
    # a → b → a → b, with a shortcut a → b: b is entered twice at most, a twice.
    graph = Graph([("a", 0), ("b", 0), ("a", 1), ("b", 1)])
    adjacency = [[1, 3], [2], [3], []]
    order = topological_order(graph, adjacency)  # type: ignore[arg-type]
    assert order is not None
    assert _longest_entries(graph, order, ["a", "b"], adjacency) == {"a": 2, "b": 2}  # type: ignore[arg-type]
