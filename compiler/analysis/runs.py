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
from typing import TYPE_CHECKING, NamedTuple

from compiler.records import record

from ..ir.model import DEFAULT_MAX_ITERATIONS
from ..runtime.machine import replay_step as step
from ..runtime.machine import start
from ..runtime.policy import output_owed_anywhere
from ..runtime.run import evolve
from .budgets import ENDING_ONLY, Budgets, TargetBudgets
from .visit import carried, ending, explore_visit
from .visit_graph import Exit, VisitResult

if TYPE_CHECKING:
    from ..ir.model import Blueprint
    from ..runtime.state import RunState

#: Run states beyond this many are not explored (the analysis says it is incomplete).
STATE_LIMIT = 200_000


@record
class Terminal:
    """How a run ends: `complete` (via `terminal` or `done`) or `fail` (dead_end, no_output,
    error, unby_answers, cancelled), in `stage`."""

    stage: str
    kind: str
    how: str


#: A run state (see the module docstring): (stage, visit-count code, final output, carried).
#: The code packs the visit counts of the budgeted stages into one int (`Budgets`); the final
#: output is the stage whose output was accepted (None when no stage owes one); carried is
#: what a fan-out hand-off brings into its merge stage (None for a visit entered afresh).
#: Plain tuples, not a NamedTuple: one is made per run state found, and a NamedTuple's
#: constructor would make the whole exploration about 5 % slower.
RunKey = tuple[str, int, "str | None", "tuple | None"]
#: How a run state was first reached: (run state it was reached from, the key of the visit
#: that state makes, the number of the visit's exit taken).
FirstReached = tuple[int, tuple, int]


class ExitStep(NamedTuple):
    """One exit of a visit, as the exploration follows it from every run state that makes the
    visit."""

    #: The exit's number in `VisitResult.exits`.
    number: int
    #: The stage the exit enters (None when the run ends, see `terminal`) …
    target: str | None
    #: … and its revisit budget: its digit's weight in the visit-count code, the count at which
    #: it is spent, and its bit in the spent and held masks (all 0 when it has none).
    weight: int
    spent: int
    bit: int
    #: What the next run state keeps: the final output (None when no stage owes one), the
    #: counters carried into a merge stage.
    final_output: str | None
    carried: tuple | None
    terminal: Terminal | None
    #: The run states the exit enters so far, by visit-count code (shared by every exit into
    #: the same stage with the same output and carried counters) …
    entered: dict[int, int]
    #: … and, by spent mask on entering, the counts that still matter in the target (as
    #: bits; shared by every exit into the target).
    relevance: dict[int, int]


@dataclass
class RunGraph:
    ir: "Blueprint"
    budgets: Budgets
    start_state: "RunState"
    #: Some stage owes an output, so which stage submitted one is part of a run state.
    keeps_output: bool = False
    #: The most run states the exploration may add.
    limit: int = STATE_LIMIT
    #: Run states, numbered in the order found (0 is the start) …
    nodes: list[RunKey] = field(default_factory=list)
    #: … how each was first reached (None for the start) …
    parents: list[FirstReached | None] = field(default_factory=list)
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

    def key_of(self, state: "RunState") -> RunKey:
        """The run state of a concrete runner state at a stage's entry."""
        code = self.budgets.key_counts(state.stage, state.visits)
        return (state.stage, code, state.final_output if self.keeps_output else None, carried(state))

    def add(self, key: RunKey, spent_mask: int, held: int, parent: FirstReached | None) -> int:
        """Number a newly found run state (its visit and edges are filled in when explored)."""
        self.nodes.append(key)
        self.masks.append(spent_mask)
        self.held.append(held)
        self.parents.append(parent)
        self.visit_keys.append(())
        self.out.append([])
        self.successors.append([])
        return len(self.nodes) - 1


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
    graph = RunGraph(ir, Budgets(ir), state, bool(output_owed_anywhere(ir)), limit)
    if not state.terminal:
        _Exploration(graph, reduce).run()
    return graph


class _Exploration:
    """The breadth-first walk of `explore_runs`: each run state found is numbered, then
    explored once by following the exits of the visit it makes into the run states they
    enter. Visits are explored once per visit key (`visit_of`)."""

    def __init__(self, graph: RunGraph, reduce: bool) -> None:
        self.graph = graph
        self.reduce = reduce
        self.table = TargetBudgets(graph.ir, graph.budgets)
        #: Per (stage, output, carried): the run states entering the stage with them, by
        #: visit-count code (`ExitStep.entered`).
        self.entering: dict[tuple, dict[int, int]] = {}
        #: Per stage: `ExitStep.relevance`.
        self.relevance: dict[str, dict[int, int]] = {}
        #: Per visit key, the visit's exits as steps.
        self.steps: dict[tuple, list[ExitStep]] = {}
        #: The visit key explored first for each shape (stage, budgets of the targets that
        #: shape a visit, output, carried): other keys of the shape are rerouted from it.
        self.bases: dict[tuple, tuple] = {}
        #: Per stage: its targets' budgets (as bits). A target is within budget while its count
        #: is below the spent count, i.e. while its bit in the run state's spent mask is clear,
        #: so the spent mask restricted to these bits decides the budget answers.
        self.target_bits = {
            name: sum(1 << position for _, position in targets if position is not None)
            for name, targets in self.table.targets.items()
        }
        #: The visit key and steps per (stage, spent target budgets, output, carried).
        self.by_answers: dict[tuple, tuple[tuple, list[ExitStep]]] = {}
        self.add_start(graph.start_state)

    def add_start(self, state: "RunState") -> None:
        graph, budgets = self.graph, self.graph.budgets
        first = graph.key_of(state)
        stage, code, final_output, carry = first
        held = sum(1 << i for i, count in enumerate(budgets.counts(code).values()) if count)
        self.entering[(stage, final_output, carry)] = {code: graph.add(first, budgets.spent_mask(code), held, None)}
        for name in budgets.names:
            graph.most_visits[name] = min(state.visits.get(name, 0), budgets.spent[budgets.position[name]])

    def run(self) -> None:
        """Explore run states in the order found until none is left (or the limit is hit).

        The loop over a visit's exits runs once per run-graph edge (tens of thousands in a
        large blueprint), so it works on local names and plain ints."""
        graph = self.graph
        nodes, spent_masks, held, most = graph.nodes, graph.masks, graph.held, graph.most_visits
        budgets, visit_keys, target_bits, by_answers = (
            graph.budgets,
            graph.visit_keys,
            self.target_bits,
            self.by_answers,
        )
        node = 0
        while node < len(nodes):  # breadth first: nodes are appended in the order found
            if len(nodes) > graph.limit:
                graph.truncated = True  # the states found but not explored keep empty visit keys
                break
            stage, code, final_output, carry = nodes[node]
            mask, nonzero = spent_masks[node], held[node]
            answers = (stage, mask & target_bits[stage], final_output, carry)
            visit = by_answers.get(answers) or self.visit_of(node, answers)
            if visit is None:
                node += 1
                continue
            key, steps = visit
            visit_keys[node] = key
            edges, following = graph.out[node], graph.successors[node]
            for number, target, weight, spent, bit, output, carried_on, terminal, entered, relevance in steps:
                if target is None:  # the run ends: `terminal` says how
                    assert terminal is not None
                    edges.append((number, terminal))
                    continue
                # Entering the target counts one more visit of it (a spent count stays spent).
                entered_code, entered_mask = code, mask
                if weight and not mask & bit:
                    count = (code // weight) % (spent + 1) + 1
                    entered_code += weight
                    if count == spent:
                        entered_mask |= bit
                    if count > most[target]:
                        most[target] = count
                # Counts no transition from the target can check any more become zero.
                relevant = relevance.get(entered_mask)
                if relevant is None:
                    relevant = relevance[entered_mask] = budgets.relevant(target, entered_mask)
                counted = nonzero | bit
                if counted & ~relevant:
                    entered_code = budgets.drop(entered_code, counted & ~relevant)
                found = entered.get(entered_code)
                if found is None:
                    run_state = (target, entered_code, output, carried_on)
                    found = entered[entered_code] = graph.add(
                        run_state, entered_mask & relevant, counted & relevant, (node, key, number)
                    )
                edges.append((number, found))
                following.append(found)
            node += 1

    def visit_of(self, node: int, answers: tuple) -> tuple[tuple, list[ExitStep]] | None:
        """The key of the visit run state `node` makes and that visit's exits as steps, for
        the first run state with these budget `answers` (stage, spent target budgets, output,
        carried); the visit is explored if no run state made it before. None when it cannot
        be explored (the graph is then truncated)."""
        stage, code, final_output, carry = self.graph.nodes[node]
        key = (stage, self.table.pattern(stage, code), final_output, carry)
        steps = self.steps.get(key)
        if steps is None:
            result = self.explore(node, key)
            if result is None:
                self.graph.truncated = True
                return None
            steps = self.steps[key] = [self.exit_step(number, exit) for number, exit in enumerate(result.exits)]
        known = self.by_answers[answers] = (key, steps)
        return known

    def explore(self, node: int, key: tuple) -> VisitResult | None:
        """The visit of `key`, entered by run state `node`: rerouted from the visit explored
        for its shape when that works, else explored afresh. None if the state entering it
        cannot be found (cannot happen if the runner is deterministic; never guess)."""
        graph = self.graph
        stage, pattern, final_output, carry = key
        shape = (stage, self.table.shape(stage, pattern), final_output, carry)
        base = self.bases.get(shape) if self.reduce else None
        result = _rerouted(graph, graph.visits[base], node) if base is not None else None
        if result is None:
            entry = graph.start_state if node == 0 else _entry_state(graph, node)
            if entry is None:
                return None
            result = explore_visit(graph.ir, _slim(entry, graph.held_counts(node)), reduce=self.reduce)
            self.bases.setdefault(shape, key)
        graph.visits[key] = result
        graph.truncated |= result.truncated
        return result

    def exit_step(self, number: int, exit: Exit) -> ExitStep:
        budgets = self.graph.budgets
        output = exit.final_output if self.graph.keeps_output else None
        target = exit.target
        if target is None:
            ending = Terminal(exit.pre.stage, exit.kind, exit.key[1])
            return ExitStep(number, None, 0, 0, 0, output, None, ending, {}, {})
        entered = self.entering.setdefault((target, output, exit.carry), {})
        relevance = self.relevance.setdefault(target, {})
        position = budgets.position.get(target)
        if position is None:
            return ExitStep(number, target, 0, 0, 0, output, exit.carry, None, entered, relevance)
        weight, spent = budgets.weights[position], budgets.spent[position]
        return ExitStep(number, target, weight, spent, 1 << position, output, exit.carry, None, entered, relevance)


def budgeted_counts(ir: "Blueprint", stage: str, visits: dict[str, int]) -> int:
    """The visit-count code a run state at `stage`'s entry keeps, for a runner's visit map."""
    return Budgets(ir).key_counts(stage, visits)


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
        if (
            exit.cause == "failure"
            or exit.condition in ENDING_ONLY
            or exit.key[:2] in (("fail", "error"), ("fail", "dead_end"))
        ):
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
