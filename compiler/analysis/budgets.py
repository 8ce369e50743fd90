"""Revisit budgets in a run state: which stages' visit counts it keeps, and when a count stops mattering.

A stage's count matters while a transition can still check its `max_revisits`: while some
stage a run can still enter has a transition to it. Once none has (the stages that lead to
it are themselves spent, say), the count can never be read again, so it is set to zero in the
run state, and states that differ only in it are one. Whether a stage can still be entered is
decided on the stage graph (`compiler.graph`): from the current stage, along every edge one run
moves by, except transitions into a spent stage. The budget rule itself is the runner's
(`within_budget`), asked once per stage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from ..graph import StageGraph, run_edge
from ..graph.algorithms import strongly_connected
from ..runtime.policy import within_budget

if TYPE_CHECKING:
    from ..ir.model import Blueprint


class Budgets:
    """The budgeted stages of a blueprint and their visit counts packed into one int ("code")."""

    def __init__(self, ir: "Blueprint") -> None:
        targeted = {edge.target for stage in ir.stages for edge in stage.edges()}
        names, spent = [], []
        for stage in ir.stages:
            if stage.name in targeted and stage.max_revisits is not None:
                names.append(stage.name)
                spent.append(first_refusal(ir, stage.name))
        #: Budgeted stages, and the count at which each is spent (no entry by transition).
        self.names: tuple[str, ...] = tuple(names)
        self.spent: tuple[int, ...] = tuple(spent)
        weights, weight = [], 1
        for limit in spent:
            weights.append(weight)
            weight *= limit + 1
        self.weights: tuple[int, ...] = tuple(weights)
        self.position = {name: i for i, name in enumerate(names)}
        graph = StageGraph.from_blueprint(ir)
        #: Per stage, the edges a run moves by: (target, budget position or None, checked).
        self.moves = {
            node.name: tuple(
                (edge.target, self.position.get(edge.target), edge.budget_checked) for edge in graph.out_edges(node.name, run_edge)
            )
            for node in graph.nodes
        }
        self.everything = (1 << len(names)) - 1
        self._stages = [node.name for node in graph.nodes]
        self._relevant: dict[tuple[str, int], tuple[int, tuple[int, ...]]] = {}

    def digit(self, code: int, position: int) -> int:
        return (code // self.weights[position]) % (self.spent[position] + 1)

    def counts(self, code: int) -> dict[str, int]:
        return {name: self.digit(code, i) for i, name in enumerate(self.names)}

    def code_of(self, visits: Mapping[str, int]) -> int:
        return sum(min(visits.get(name, 0), limit) * weight for name, limit, weight in zip(self.names, self.spent, self.weights))

    def spent_mask(self, code: int) -> int:
        return sum(1 << i for i in range(len(self.names)) if self.digit(code, i) == self.spent[i])

    def normalize(self, stage: str, code: int, spent_mask: int) -> tuple[int, int]:
        """(code, spent mask) with the counts that can no longer be read set to zero."""
        relevant, dropped = self.relevant(stage, spent_mask)
        if relevant == self.everything:
            return code, spent_mask
        for position in dropped:
            code -= self.digit(code, position) * self.weights[position]
        return code, spent_mask & relevant

    def relevant(self, stage: str, spent_mask: int) -> tuple[int, tuple[int, ...]]:
        """Positions (as bits) whose budget a transition can still check, and the others."""
        found = self._relevant.get((stage, spent_mask))
        if found is not None:
            return found
        if not self.names:
            return (0, ())
        for name, relevant in zip(self._stages, self._relevance(spent_mask)):
            dropped = tuple(i for i in range(len(self.names)) if not relevant >> i & 1)
            self._relevant[(name, spent_mask)] = (relevant, dropped)
        return self._relevant.get((stage, spent_mask), (0, tuple(range(len(self.names)))))

    def _relevance(self, spent_mask: int) -> list[int]:
        """For every stage at once, the budgets a transition can still check from there: the
        budgeted targets of the edges a run can still take, over the stage graph without the
        transitions into spent stages (strongly connected components, in topological order,
        so each stage and edge is looked at once per spent mask)."""
        index = {name: i for i, name in enumerate(self._stages)}
        checked_bits = [0] * len(self._stages)
        adjacency: list[list[int]] = [[] for _ in self._stages]
        for i, name in enumerate(self._stages):
            for target, position, checked in self.moves.get(name, ()):
                if checked and position is not None:
                    checked_bits[i] |= 1 << position
                    if spent_mask >> position & 1:
                        continue  # spent: no transition enters it any more
                if target in index:
                    adjacency[i].append(index[target])
        components = strongly_connected(adjacency)
        component_of = [0] * len(adjacency)
        for number, members in enumerate(components):
            for node in members:
                component_of[node] = number
        bits = [0] * len(components)
        for number in _reverse_topological(components, adjacency, component_of):
            value = 0
            for node in components[number]:
                value |= checked_bits[node]
                for target in adjacency[node]:
                    value |= bits[component_of[target]]
            bits[number] = value
        return [bits[component_of[i]] for i in range(len(adjacency))]

    def dropped(self, stage: str, spent_mask: int) -> tuple[int, tuple[tuple[int, int], ...]] | tuple[()]:
        """For the exploration loop: () when every count still matters at `stage`, else the
        relevant positions as bits and (weight, radix) of each count to drop."""
        relevant, dropped = self.relevant(stage, spent_mask)
        if relevant == self.everything:
            return ()
        return relevant, tuple((self.weights[i], self.spent[i] + 1) for i in dropped)

    def key_counts(self, stage: str, visits: Mapping[str, int]) -> int:
        """The code a run state keeps for a runner's visit map at `stage`'s entry."""
        code = self.code_of(visits)
        return self.normalize(stage, code, self.spent_mask(code))[0]


def _reverse_topological(components: list[list[int]], adjacency: list[list[int]], component_of: list[int]) -> list[int]:
    """Component numbers, each after every component it has an edge to."""
    successors: list[set[int]] = [set() for _ in components]
    waiting = [0] * len(components)
    for number, members in enumerate(components):
        for node in members:
            for target in adjacency[node]:
                other = component_of[target]
                if other != number and other not in successors[number]:
                    successors[number].add(other)
                    waiting[number] += 1
    predecessors: list[list[int]] = [[] for _ in components]
    for number, following in enumerate(successors):
        for other in following:
            predecessors[other].append(number)
    ready = [number for number, count in enumerate(waiting) if count == 0]
    order: list[int] = []
    while ready:
        number = ready.pop()
        order.append(number)
        for other in predecessors[number]:
            waiting[other] -= 1
            if waiting[other] == 0:
                ready.append(other)
    return order


def first_refusal(ir: "Blueprint", name: str) -> int:
    """The smallest visit count at which the runner refuses another entry (monotone: bisect)."""
    high = 1
    while within_budget(ir, {name: high}, name):
        high *= 2
    low = -1  # within budget at every count below `high` that was probed
    while high - low > 1:
        middle = (low + high) // 2
        if middle >= 0 and within_budget(ir, {name: middle}, name):
            low = middle
        else:
            high = middle
    return high
