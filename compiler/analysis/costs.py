"""The most inferences a visit makes, on its explored graph of states.

Iterations are maximised over paths, over the graph's strongly connected components in
topological order (a costly move always changes the key for good, so only free moves can
close a cycle). Routing answers are bounded, not counted along paths: every answer either
leaves the visit or is held by a gate, and a visit's gates hold at most their largest
`max_attempts` times, so a visit that routes makes at most that many answers plus one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..graph.algorithms import condensation
from .visit_graph import INFINITE, Calls

if TYPE_CHECKING:
    from .moves import Move
    from .visit_graph import Node, VisitResult


def costs(
    result: VisitResult, edges: list[tuple[int, int, Move]], exit_edges: list[tuple[int, Move, int]], routing: int
) -> None:
    """Set each exit's `max_calls` and the visit's: the most iterations each state can be
    reached with, plus `routing` (the most routing answers the visit can make)."""
    nodes = result.nodes
    count = len(nodes)
    adjacency: list[list[int]] = [[] for _ in range(count)]
    incoming: list[list[tuple[int, Move]]] = [[] for _ in range(count)]
    for source, target, move in edges:
        adjacency[source].append(target)
        incoming[target].append((source, move))
    components, component_of, order = condensation(adjacency)
    most_iterations: list[Calls] = [0] * count
    for number in order:
        members = components[number]
        iterations: Calls = 0
        for node in members:
            for source, move in incoming[node]:
                if component_of[source] == number and move.iterations:
                    iterations = INFINITE  # a costly cycle: cannot happen, but never under-count
                    continue
                iterations = max(iterations, _iterations_after(nodes[source], move, most_iterations[source]))
        for node in members:
            most_iterations[node] = _most_iterations(nodes[node], iterations)
    for exit in result.exits:
        exit.max_calls = 0
    for source, move, number in exit_edges:
        exit = result.exits[number]
        calls = _iterations_after(nodes[source], move, most_iterations[source]) + routing
        exit.max_calls = max(exit.max_calls, calls)
    result.max_calls = max((e.max_calls for e in result.exits), default=0)
    if result.endless is not None:
        result.max_calls = INFINITE


def _iterations_after(source: Node, move: Move, before: Calls) -> Calls:
    """The most iterations a visit has after `move` from `source` (padding ends at its limit)."""
    if move.kind == "pad":
        return source.pad_limit if source.pad_limit is not None else INFINITE
    return before + move.iterations


def _most_iterations(node: Node, reached: Calls) -> Calls:
    """A state whose key holds the iteration count has exactly that many; a state padding can
    stretch has any count below its interrupt (at that count READY would have interrupted);
    any other (a routing or interaction wait) has what the moves into it bring."""
    if node.key[5] >= 0:
        return node.key[5]
    if node.paddable:
        return INFINITE if node.pad_limit is None else node.pad_limit - 1
    return reached
