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

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..graph import StageGraph, run_edge
from ..graph.algorithms import condensation
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
                (edge.target, self.position.get(edge.target), edge.budget_checked)
                for edge in graph.out_edges(node.name, run_edge)
            )
            for node in graph.nodes
        }
        self.everything = (1 << len(names)) - 1
        stages = [node.name for node in graph.nodes]
        self._index = {name: i for i, name in enumerate(stages)}
        #: Per stage number, its run edges: (target number or None, budget position or None, checked).
        self._out = [
            [(self._index.get(target), position, checked) for target, position, checked in self.moves[name]]
            for name in stages
        ]
        #: Per stage number, the budgets its own transitions check.
        self._checked = [
            sum(1 << position for _, position, checked in edges if checked and position is not None)
            for edges in self._out
        ]
        #: Per stage number, the budgets any transition reachable from it checks, spent or not:
        #: the only spent bits its answer can depend on.
        self._reach = _closure(self._checked, [[t for t, _, _ in edges if t is not None] for edges in self._out])
        #: (stage number, spent mask restricted to its reach) → the budgets still checkable.
        self._relevant: dict[tuple[int, int], int] = {}

    def digit(self, code: int, position: int) -> int:
        return (code // self.weights[position]) % (self.spent[position] + 1)

    def counts(self, code: int, positions: int | None = None) -> dict[str, int]:
        """Every count of `code`, or those at `positions` (bits)."""
        if positions is None:
            return {name: self.digit(code, i) for i, name in enumerate(self.names)}
        out = {}
        while positions:
            low = positions & -positions
            position = low.bit_length() - 1
            out[self.names[position]] = self.digit(code, position)
            positions ^= low
        return out

    def code_of(self, visits: Mapping[str, int]) -> int:
        return sum(
            min(visits.get(name, 0), limit) * weight
            for name, limit, weight in zip(self.names, self.spent, self.weights)
        )

    def spent_mask(self, code: int) -> int:
        return sum(1 << i for i in range(len(self.names)) if self.digit(code, i) == self.spent[i])

    def normalize(self, stage: str, code: int, spent_mask: int) -> tuple[int, int]:
        """(code, spent mask) with the counts that can no longer be read set to zero."""
        relevant = self.relevant(stage, spent_mask)
        return self.drop(code, self.everything & ~relevant), spent_mask & relevant

    def drop(self, code: int, positions: int) -> int:
        """`code` with the counts at `positions` (bits) set to zero."""
        while positions:
            low = positions & -positions
            position = low.bit_length() - 1
            code -= self.digit(code, position) * self.weights[position]
            positions ^= low
        return code

    def relevant(self, stage: str, spent_mask: int) -> int:
        """The budgets (as bits) a transition can still check from `stage`: those of the edges
        a run can still take, over the stage graph without the transitions into spent stages."""
        number = self._index[stage]
        key = (number, spent_mask & self._reach[number])
        found = self._relevant.get(key)
        if found is None:
            self._learn(number, spent_mask)
            found = self._relevant[key]
        return found

    def _learn(self, start: int, spent_mask: int) -> None:
        """`relevant` for `start` and every stage it reaches whose answer is not known yet,
        in one pass (strongly connected components). Stages reached whose answer is known are
        not entered again, so each stage is computed about once per spent mask of its own
        reach, and a chain of thousands of stages costs one pass over the chain."""

        def open_edge(position: int | None, checked: bool) -> bool:
            return not (checked and position is not None and spent_mask >> position & 1)

        local, members, known, stack = {start: 0}, [start], {}, [start]
        while stack:
            for target, position, checked in self._out[stack.pop()]:
                if target is None or not open_edge(position, checked) or target in local or target in known:
                    continue
                cached = self._relevant.get((target, spent_mask & self._reach[target]))
                if cached is not None:
                    known[target] = cached
                    continue
                local[target] = len(members)
                members.append(target)
                stack.append(target)
        own, adjacency = [], []
        for member in members:
            bits, following = self._checked[member], []
            for target, position, checked in self._out[member]:
                if target is not None and open_edge(position, checked):
                    if target in local:
                        following.append(local[target])
                    else:
                        bits |= known[target]
            own.append(bits)
            adjacency.append(following)
        for member, value in zip(members, _closure(own, adjacency)):
            self._relevant[(member, spent_mask & self._reach[member])] = value

    def key_counts(self, stage: str, visits: Mapping[str, int]) -> int:
        """The code a run state at `stage`'s entry keeps, for a runner's visit map."""
        code = self.code_of(visits)
        return self.normalize(stage, code, self.spent_mask(code))[0]


#: Conditions whose edges are read only when a visit ends by them: an error or a dead end
#: takes its edge (or fails the run) at once, so their targets' budgets change which exit
#: the visit takes, never how the visit goes before it.
ENDING_ONLY = frozenset({"error", "dead_end"})


class TargetBudgets:
    """Which of a stage's edge targets are within budget, for a visit-count code."""

    def __init__(self, ir: "Blueprint", budgets: Budgets) -> None:
        self.targets: dict[str, tuple[tuple[str, int | None], ...]] = {}
        #: Per stage, which targets shape the visit (not only the edge it ends by).
        self.shaping: dict[str, tuple[bool, ...]] = {}
        position = budgets.position
        for stage in ir.stages:
            targets = [t for t in dict.fromkeys(edge.target for edge in stage.edges()) if ir.stage(t) is not None]
            self.targets[stage.name] = tuple((t, position.get(t)) for t in targets)
            conditions = {t: {e.condition for e in stage.edges() if e.target == t} for t in targets}
            self.shaping[stage.name] = tuple(not conditions[t] <= ENDING_ONLY for t in targets)
        self.open = {t: within_budget(ir, {}, t) for s in ir.stages for t, _ in self.targets[s.name]}
        #: Per stage and target: (open when untracked, digit weight or 0, radix, spent count).
        self.digits = {
            name: tuple(
                (self.open[t], 0, 1, 0)
                if position is None
                else (False, budgets.weights[position], budgets.spent[position] + 1, budgets.spent[position])
                for t, position in targets
            )
            for name, targets in self.targets.items()
        }

    def shape(self, stage: str, pattern: tuple[bool, ...]) -> tuple[bool, ...]:
        return tuple(p for p, shaping in zip(pattern, self.shaping[stage]) if shaping)

    def pattern(self, stage: str, code: int) -> tuple[bool, ...]:
        """For each target, whether it is within budget (its digit below the spent count)."""
        return tuple(
            opened if weight == 0 else (code // weight) % radix < spent
            for opened, weight, radix, spent in self.digits[stage]
        )


def _closure(own: list[int], adjacency: list[list[int]]) -> list[int]:
    """Per node, the OR of `own` over every node it reaches (itself included): strongly
    connected components in reverse topological order, each edge looked at once."""
    components, component_of, order = condensation(adjacency)
    bits = [0] * len(components)
    for number in reversed(order):
        value = 0
        for node in components[number]:
            value |= own[node]
            for target in adjacency[node]:
                value |= bits[component_of[target]]
        bits[number] = value
    return [bits[component_of[node]] for node in range(len(adjacency))]


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
