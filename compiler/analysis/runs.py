"""Every run of a blueprint: stage visits chained into one graph of run states.

A run state here is a stage about to be entered's first READY — the stage, the visit count of
every stage a revisit budget can refuse, (when some stage owes an output) the stage whose
output was accepted, and the counters a fan-out hand-off carries into its merge stage
(`visit.carried`). That is everything that decides the rest of a run: inside a visit, the
runner reads the visit counts only to ask whether an edge's target is still within budget, so
two states whose budgets answer alike behave alike. Counts of stages no budget ever checks
are dropped, a spent budget stays spent, and a count no transition can check any more is set
to zero (`budgets.Budgets.normalize`), so the graph is finite and no larger than it must be.

Each visit is explored once per (stage, which of its targets are within budget, output
accepted so far) by `visit.explore_visit`; its exits become this graph's edges. The budget
answer is the runner's own (`within_budget`), asked once per stage and count.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..ir.model import DEFAULT_MAX_ITERATIONS
from ..runtime.machine import start, step
from ..runtime.policy import output_owed_anywhere, within_budget
from ..runtime.run import evolve
from .budgets import Budgets
from .visit import Exit, VisitResult, carried, ending, explore_visit

if TYPE_CHECKING:
    from ..ir.model import Blueprint
    from ..runtime.state import RunState

#: Run states beyond this many are not explored (the analysis says it is incomplete).
STATE_LIMIT = 200_000


@dataclass(frozen=True)
class Terminal:
    """How a run ends: `complete` (via `terminal` or `done`) or `fail` (dead_end, no_output,
    error, unanswered, cancelled), in `stage`."""

    stage: str
    kind: str
    how: str


@dataclass
class RunGraph:
    ir: "Blueprint"
    budgets: Budgets
    start_state: "RunState"
    #: Some stage owes an output, so which stage submitted one is part of a run state.
    keeps_output: bool = False
    #: The most run states the exploration may add.
    limit: int = STATE_LIMIT
    #: Run states: (stage, visit-count code, final output, carried counters or None) …
    nodes: list[tuple[str, int, str | None, tuple | None]] = field(default_factory=list)
    #: … how each was first reached: (parent node, visit key, exit number), None for the start …
    parents: list[tuple[int, tuple, int] | None] = field(default_factory=list)
    #: … the visit key it explores with, and its edges out: (exit number, node or terminal).
    visit_keys: list[tuple] = field(default_factory=list)
    out: list[list[tuple[int, "int | Terminal"]]] = field(default_factory=list)
    #: … and the run states it leads to (ends of runs left out).
    successors: list[list[int]] = field(default_factory=list)
    visits: dict[tuple, VisitResult] = field(default_factory=dict)
    #: The most visits any run state records for each budgeted stage, counted when entered
    #: (before a count that stops mattering is dropped).
    most_visits: dict[str, int] = field(default_factory=dict)
    #: Per run state, which budgets are spent, and which counts are not zero (as bits).
    masks: list[int] = field(default_factory=list)
    held: list[int] = field(default_factory=list)
    truncated: bool = False

    @property
    def tracked(self) -> tuple[str, ...]:
        return self.budgets.names

    def counts(self, code: int) -> dict[str, int]:
        """The visit counts a run state keeps (zero for a count that no longer matters)."""
        return self.budgets.counts(code)

    def held_counts(self, node: int) -> dict[str, int]:
        """The counts run state `node` keeps that are not zero: the budgets of the stages a run
        has entered whose count still matters. A few, where `counts` has one per budget."""
        return self.budgets.counts(self.nodes[node][1], self.held[node])

    def with_counts(self, state: "RunState", node: int) -> "RunState":
        """`state` (found from another run state) with the budgeted visit counts of `node`."""
        budgeted = self.budgets.position
        visits = {name: n for name, n in state.visits.items() if name not in budgeted}
        return evolve(state, {"visits": visits | self.held_counts(node)})

    def key_of(self, state: "RunState") -> tuple[str, int, str | None, tuple | None]:
        """The run-graph node key of a concrete runner state at a stage's entry."""
        code = self.budgets.key_counts(state.stage, state.visits)
        return (state.stage, code, state.final_output if self.keeps_output else None, carried(state))


def explore_runs(
    ir: "Blueprint",
    *,
    limit: int = STATE_LIMIT,
    reduce: bool = True,
    default_max_iterations: int = DEFAULT_MAX_ITERATIONS,
) -> RunGraph:
    """The graph of every run of `ir` (see the module docstring), started with the runner's
    `default_max_iterations`. `reduce=False` explores every visit afresh and without
    shortcuts (slower; the tests check it finds the same graph)."""
    state, _ = start(ir, 0, default_max_iterations=default_max_iterations)
    budgets = Budgets(ir)
    keeps_output = bool(output_owed_anywhere(ir))
    graph = RunGraph(ir, budgets, state, keeps_output, limit)
    if state.terminal:
        return graph
    budget = _BudgetTable(ir, graph)
    nodes, parents, visit_keys, out, successors = graph.nodes, graph.parents, graph.visit_keys, graph.out, graph.successors
    # A run state's number in `index` packs (visit-count code, final output, stage) into one int.
    stage_number = {stage.name: i for i, stage in enumerate(ir.stages)}
    outputs: dict[str | None, int] = {None: 0}
    stages, width = len(ir.stages), len(ir.stages) + 1

    def packed(stage: str, code: int, final_output: str | None) -> int:
        return (code * width + output_number(final_output)) * stages + stage_number[stage]

    def output_number(final_output: str | None) -> int:
        return outputs.setdefault(final_output, len(outputs)) if keeps_output else 0

    #: Per visit key, each exit as (number, target, budget digit weight, spent count, output, terminal).
    plans: dict[tuple, list[tuple]] = {}
    #: The visit explored for each shape (stage, budgets of the targets that shape a visit, output).
    bases: dict[tuple, tuple] = {}
    first = graph.key_of(state)
    #: Run state → node. The key is the packed int, paired with the carried counters when
    #: there are any (a merge stage entered by a fan-out hand-off).
    index: dict[object, int] = {packed(*first[:3]) if first[3] is None else (packed(*first[:3]), first[3]): 0}
    spent_masks, held = graph.masks, graph.held
    spent_masks.append(budgets.spent_mask(first[1]))
    held.append(sum(1 << i for i, count in enumerate(budgets.counts(first[1]).values()) if count))
    most = graph.most_visits
    for name in budgets.names:
        most[name] = min(state.visits.get(name, 0), budgets.spent[budgets.position[name]])
    nodes.append(first)
    parents.append(None)
    visit_keys.append(())
    out.append([])
    successors.append([])
    entry_states = {0: state}
    #: Per (spent budgets, stage entered): the counts that still matter there (as bits).
    relevance: dict[int, int] = {}
    #: Per stage: the budget positions (as bits) of its targets. A target is within budget
    #: while its count is below the spent count, i.e. while its bit in the run state's spent
    #: mask is clear, so the mask restricted to these bits decides the budget answers.
    targets_of = {name: sum(1 << position for _, position in targets if position is not None)
                  for name, targets in budget.targets.items()}
    #: The visit key and plan of each (budget answers, output, stage), packed into an int
    #: (paired with the carried counters, when there are any).
    known: dict[object, tuple[tuple, list[tuple]]] = {}
    node = 0
    while node < len(nodes):  # breadth first: nodes are appended in discovery order
        if len(nodes) > limit:
            graph.truncated = True  # the states found but not explored keep empty visit keys
            break
        stage, code, final_output, carry = nodes[node]
        mask = spent_masks[node]
        number_of_stage = stage_number[stage]
        packed_key: object = ((mask & targets_of[stage]) * width + outputs[final_output]) * stages + number_of_stage
        if carry is not None:
            packed_key = (packed_key, carry)
        plan: list[tuple] | None
        cached = known.get(packed_key)
        if cached is not None:
            key, plan = cached
            visit_keys[node] = key
        else:
            key = (stage, budget.pattern(stage, code), final_output, carry)
            visit_keys[node] = key
            plan = plans.get(key)
        if plan is None:
            shape = (stage, budget.shape(stage, key[1]), final_output, carry)
            base = bases.get(shape) if reduce else None
            result = _rerouted(graph, graph.visits[base], node) if base is not None else None
            if result is None:
                entry = entry_states.pop(node, None) or _entry_state(graph, node)
                if entry is None:  # cannot happen if the runner is deterministic; never guess
                    graph.truncated = True
                    visit_keys[node] = ()
                    node += 1
                    continue
                result = explore_visit(ir, _slim(entry, graph.held_counts(node)), reduce=reduce)
                bases.setdefault(shape, key)
            graph.visits[key] = result
            graph.truncated |= result.truncated
            plan = plans[key] = [
                (
                    *_plan(graph, number, exit, keeps_output),
                    stage_number.get(exit.target or "", 0),
                    output_number(exit.final_output),
                    1 << budgets.position[exit.target] if exit.target in budgets.position else 0,
                )
                for number, exit in enumerate(result.exits)
            ]
        if cached is None:
            known[packed_key] = (key, plan)
        edges, following = out[node], successors[node]
        nonzero = held[node]
        for number, target, weight, spent, after_output, after_carry, terminal, target_number, output, bit in plan:
            if target is None:
                edges.append((number, terminal))
                continue
            successor, successor_mask = code, mask
            if weight and not mask & bit:  # a spent count stays spent: no arithmetic for it
                count = (code // weight) % (spent + 1) + 1
                successor += weight
                if count == spent:
                    successor_mask |= bit
                if count > most[target]:
                    most[target] = count
            relevance_key = successor_mask * stages + target_number
            relevant = relevance.get(relevance_key)
            if relevant is None:
                relevant = relevance[relevance_key] = budgets.relevant(target, successor_mask)
            dropped = (nonzero | bit) & ~relevant
            if dropped:
                successor = budgets.drop(successor, dropped)
            successor_mask &= relevant
            number_key: object = (successor * width + output) * stages + target_number
            if after_carry is not None:
                number_key = (number_key, after_carry)
            found = index.get(number_key)
            if found is None:
                found = index[number_key] = len(nodes)
                nodes.append((target, successor, after_output, after_carry))
                spent_masks.append(successor_mask)
                held.append((nonzero | bit) & relevant)
                parents.append((node, key, number))
                visit_keys.append(())
                out.append([])
                successors.append([])
            edges.append((number, found))
            following.append(found)
        node += 1
    return graph


def _plan(graph: RunGraph, number: int, exit, keeps_output: bool) -> tuple:
    """An exit as the exploration loop uses it: (number, target, budget digit weight and the
    count at which it is spent, final output kept, counters carried, terminal)."""
    final_output = exit.final_output if keeps_output else None
    if exit.kind != "edge":
        return number, None, 0, 0, final_output, None, Terminal(exit.pre.stage, exit.kind, exit.key[1])
    position = graph.budgets.position.get(exit.target)
    if position is None:
        return number, exit.target, 0, 0, final_output, exit.carry, None
    weight, spent = graph.budgets.weights[position], graph.budgets.spent[position]
    return number, exit.target, weight, spent, final_output, exit.carry, None


def budgeted_counts(ir: "Blueprint", stage: str, visits: dict[str, int]) -> int:
    """The visit-count code a run state at `stage`'s entry keeps, for a runner's visit map."""
    return Budgets(ir).key_counts(stage, visits)


#: Conditions whose edges are read only when a visit ends by them: an error or a dead end
#: takes its edge (or fails the run) at once, so their targets' budgets change which exit
#: the visit takes, never how the visit goes before it.
ENDING_ONLY = frozenset({"error", "dead_end"})


class _BudgetTable:
    """Which of a stage's edge targets are within budget, for a visit-count code."""

    def __init__(self, ir: "Blueprint", graph: RunGraph) -> None:
        self.graph = graph
        self.targets: dict[str, tuple[tuple[str, int | None], ...]] = {}
        #: Per stage, which targets shape the visit (not only the edge it ends by).
        self.shaping: dict[str, tuple[bool, ...]] = {}
        position = graph.budgets.position
        for stage in ir.stages:
            targets = [t for t in dict.fromkeys(edge.target for edge in stage.edges()) if ir.stage(t) is not None]
            self.targets[stage.name] = tuple((t, position.get(t)) for t in targets)
            conditions = {t: {e.condition for e in stage.edges() if e.target == t} for t in targets}
            self.shaping[stage.name] = tuple(not conditions[t] <= ENDING_ONLY for t in targets)
        self.open = {t: within_budget(ir, {}, t) for s in ir.stages for t, _ in self.targets[s.name]}
        #: Per stage and target: (open when untracked, digit weight or 0, radix, spent count).
        budgets = graph.budgets
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
            opened if weight == 0 else (code // weight) % radix < spent for opened, weight, radix, spent in self.digits[stage]
        )


def _rerouted(graph: RunGraph, base: VisitResult, node: int) -> VisitResult | None:
    """A visit that differs from `base` only in the budgets of its error and dead-end targets.

    Everything up to the visit's end goes alike, so the explored states are shared; each exit
    an error or a dead end decided is decided again by the runner, from the state it was
    found in with the visit counts of run state `node` put in.
    """
    ir = graph.ir
    exits: list[Exit] = []
    numbers: dict[tuple, int] = {}
    for exit in base.exits:
        if exit.cause == "failure" or exit.condition in ENDING_ONLY or exit.key[:2] in (("fail", "error"), ("fail", "dead_end")):
            pre = graph.with_counts(exit.pre, node)
            after, actions = step(ir, pre, exit.event)
            stage = ir.stage(pre.stage)
            ended = ending(ir, stage, actions) if stage is not None else None
            if ended is None:
                return None  # not what the shapes promise: explore this visit afresh
            carry = carried(after) if ended[0] == "edge" else None
            key = (*ended, after.final_output, carry)
            exit = replace(exit, key=key, final_output=after.final_output, pre=pre, after=after, actions=actions)
        number = numbers.get((exit.key, exit.cause))
        if number is None:
            number = numbers[(exit.key, exit.cause)] = len(exits)
            exits.append(exit)
        elif exit.max_calls > exits[number].max_calls:
            exits[number] = replace(exits[number], max_calls=exit.max_calls)
    return VisitResult(
        base.stage,
        base.nodes,
        exits,
        base.max_calls,
        base.endless,
        base.truncated,
    )


def _slim(state: "RunState", held: dict[str, int]) -> "RunState":
    """`state` with only the visit counts that can still matter (`held`) and the current
    stage's.

    A run's own state counts every stage it has entered, so along a chain of n stages the
    states explored would hold O(n) counts each, O(n²) in all. The runner reads a count only
    to ask whether a target with `max_revisits` is within budget and to number the current
    visit; a count no transition can check any more changes no decision.
    """
    visits = state.visits
    if len(visits) <= len(held) + 1 and all(name in held or name == state.stage for name in visits):
        return state
    return evolve(state, {"visits": {name: n for name, n in visits.items() if name in held or name == state.stage}})


def _entry_state(graph: RunGraph, node: int) -> "RunState | None":
    """A concrete runner state entering `node`'s stage with `node`'s visit counts.

    The exit that first led here was found in a visit explored from another state with the
    same budget answers; its last event is fed again to that visit's state with the parent's
    visit counts put in, so the runner itself enters the stage with the counts of this run.
    None if the runner does not take the same exit again (the exploration then stops short).
    """
    parent = graph.parents[node]
    assert parent is not None
    source, key, number = parent
    exit = graph.visits[key].exits[number]
    pre = graph.with_counts(exit.pre, source)
    after, actions = step(graph.ir, pre, exit.event)
    stage = graph.ir.stage(exit.pre.stage)
    if stage is None or ending(graph.ir, stage, actions) != exit.key[:3] or after.stage != graph.nodes[node][0]:
        return None
    return after
