"""One stage visit, explored exhaustively by driving the stage-runner with every move.

The runner decides everything: each move becomes events fed to `step`, and whatever state
and actions come back are taken as they are. What this module adds is a *key* — the part of
the runner's state that decides the rest of the visit — so that states which behave alike are
explored once. The key keeps the phase and what the run waits on, the final output, every
per-visit budget (nudges, gate blocks, required-region and output re-runs, fan-out attempts,
interaction rounds), whether a modification was recorded and whether a stuck interrupt fired.
Region contents are not in it: every move after which the runner reads them sets them first
(see `moves`).

Iterations are kept exactly while the visit has made no tool call (nudges and holds are
counted in them). After the first tool call a further plain call changes nothing but the
count, so the count is dropped: each such state is explored from the fewest iterations it can
be reached with, and a `pad` move runs plain calls until the runner interrupts the stage (its
iteration cap or stuck threshold). Every iteration count in between behaves alike, so this
loses no route, and the largest count is known (one below the interrupt). Where a watched
tool-call threshold could trip before the cap, tool calls are counted exactly instead, while
either count is near its threshold (`StageFacts.counting`).

Such a state is also not explored when one with the same key but no more gate blocks and
required-region re-runs spent already was: a spent one of these budgets only lets the stage
leave sooner by an edge the other state can take too, by meeting the requirement instead.

A long run of steps that only add counts (nudged replies, gate blocks, re-runs, counted tool
calls, routing answers held by a gate) is not stepped through: `_Runs` skips to a few steps
before the runner does something else, found by bisection (`repeats`), so a budget of 2**63
costs a few dozen steps.
"""

from __future__ import annotations

import heapq
from dataclasses import replace
from typing import TYPE_CHECKING

from ..runtime import texts
from ..runtime.actions import Complete, Fail, TakeEdge
from ..runtime.machine import replay_step as step
from ..runtime.policy import MERGE_CARRIES
from ..runtime.tables import tables
from .costs import costs
from .facts import StageFacts
from .moves import Move, events, moves
from .padding import Applied, pad
from .repeats import ENDLESS, Block, Delta, advance, delta, longest_run, retreat
from .visit_graph import Exit, Node, VisitResult

if TYPE_CHECKING:
    from ..ir.model import Blueprint, Stage
    from ..runtime.actions import Action
    from ..runtime.events import Event
    from ..runtime.state import RunState

#: A visit larger than this is not explored to the end (the analysis says it is incomplete).
VISIT_LIMIT = 20_000


def explore_visit(ir: "Blueprint", entry: "RunState", *, limit: int = VISIT_LIMIT, reduce: bool = True) -> VisitResult:
    """Every way the visit that `entry` begins (a state right after entering its stage) can go.

    `reduce=False` turns off the two shortcuts that only save work (skipping states with
    more spent budgets, stepping a failure once per final output): the tests compare both.
    """
    return _VisitWalk(ir, entry, limit, reduce).run()


class _VisitWalk:
    """The walk of `explore_visit`: states are explored fewest iterations first; each new key
    becomes a node, and every move from it either ends the visit (an exit) or reaches a state
    to explore."""

    def __init__(self, ir: "Blueprint", entry: "RunState", limit: int, reduce: bool) -> None:
        stage = ir.stage(entry.stage)
        assert stage is not None
        self.ir, self.stage, self.limit, self.reduce = ir, stage, limit, reduce
        self.facts = StageFacts.of(ir, stage, entry)
        self.result = VisitResult(stage.name, [], [], 0)
        #: Visit key → node.
        self.index: dict[tuple, int] = {}
        #: (exit key, cause) → exit number.
        self.exit_numbers: dict[tuple, int] = {}
        #: What `costs` maximises over: moves between nodes (source, target, move) and moves
        #: out of the visit (source, move, exit number).
        self.edges: list[tuple[int, int, Move]] = []
        self.exit_edges: list[tuple[int, Move, int]] = []
        #: Per key without its last spent budgets: the spent budgets explored (`_dominated`).
        self.spent_seen: dict[tuple, list[tuple]] = {}
        # A fan-out hand-off carries the required-region re-runs into the merge stage, so there
        # they are no longer alike once spent.
        hands_over = stage.mode == "fan_out" and stage.fan_out is not None and stage.fan_out.merge_stage is not None
        self.spent = SPENT - 1 if hands_over else SPENT
        #: The exit a SETTLED move takes, per (move kind, final output, point cursor).
        self.settled: dict[tuple, int] = {}
        #: The first key inside each summarised run: another move that reaches it (the same reply
        #: with the regions the other way, say) is inside the run too, and not explored.
        self.skipped: set[tuple] = set()
        self.runs = _Runs(ir, stage, self.facts, self.index, self.result.nodes)
        #: Some state waits on a routing answer (the visit's cost then counts them).
        self.routes = False
        #: States to explore, fewest iterations first: (iterations, order pushed, state,
        #: the node it was reached from, the move that reached it).
        self.heap: list = [(entry.visit.iterations, 0, entry, None, None)]
        self.pushed = 0

    def run(self) -> VisitResult:
        result, ir, stage, facts = self.result, self.ir, self.stage, self.facts
        while self.heap:
            _, _, state, parent, via = heapq.heappop(self.heap)
            node = self.admit(state, parent, via)
            if node is None:
                if result.truncated:
                    break
                continue
            for move in moves(ir, stage, state, facts):
                self.make(node, state, move)
        costs(result, self.edges, self.exit_edges, facts.gate_budget + 1 if self.routes else 0)
        for explored in result.nodes:  # most of a visit's memory; nothing reads them any more
            explored.state = None
        return result

    def admit(self, state: "RunState", parent: int | None, via: Move | None) -> int | None:
        """`state`, reached from node `parent` by `via`, as a new node; None when it is not
        explored: its key was (then only the edge is recorded), it lies inside a summarised
        run of repeats, a state with no more spent budgets was explored, or the visit has
        reached its limit (then the result is truncated)."""
        key = visit_key(self.ir, self.stage, state, self.facts)
        found = self.index.get(key)
        if found is not None:
            if parent is not None and parent != found:
                assert via is not None, "a parent comes with its move"
                self.edges.append((parent, found, via))
            return None
        if key in self.skipped:  # inside a summarised run of repeats, by another move (see `_jump`)
            return None
        paddable = _paddable(state, self.facts)
        if self.reduce and paddable and _dominated(self.spent_seen, key, self.spent):
            return None
        nodes = self.result.nodes
        if len(nodes) >= self.limit:
            self.result.truncated = True
            return None
        node = self.index[key] = len(nodes)
        nodes.append(Node(key, state, parent, via, paddable=paddable))
        self.routes = self.routes or state.phase == "route"
        if parent is not None:
            assert via is not None, "a parent comes with its move"
            self.edges.append((parent, node, via))
        return node

    def make(self, node: int, state: "RunState", move: Move) -> None:
        """Make `move` from node `node` (`state`): record the exit it leaves the visit by, or
        queue the state it reaches (past a run of repeats, when it starts a long one)."""
        settled_key = (move.kind, state.final_output, state.visit.point_cursor)
        if self.reduce and move.kind in SETTLED and settled_key in self.settled:
            self.exit_edges.append((node, move, self.settled[settled_key]))
            return
        applied = apply(self.ir, self.stage, state, move, self.facts)
        if applied is None:
            if move.kind == "pad":
                self.endless(node)
            return
        move, pre, event, after, actions = applied
        if move.kind == "pad":
            self.result.nodes[node].pad_limit = pre.visit.iterations + 1
        ended = ending(self.ir, self.stage, actions)
        if ended is not None:
            number = self.leave(node, applied, ended)
            if move.kind in SETTLED:
                self.settled[settled_key] = number
            return
        jumped = self.runs.summarise(node, move, event, after) if pre is state else None
        if jumped is ENDLESS_RUN:
            self.endless(node)
            return
        if jumped is not None:
            self.skipped.add(visit_key(self.ir, self.stage, after, self.facts))
            move, after = jumped
        self.pushed += 1
        heapq.heappush(self.heap, (after.visit.iterations, self.pushed, after, node, move))

    def leave(self, node: int, applied: Applied, ended: tuple) -> int:
        """Record the exit `applied` (a move from `node`) leaves the visit by, as `ending`
        showed it; its number."""
        move, pre, event, after, actions = applied
        exit_key = (*ended, after.final_output, carried(after) if ended[0] == "edge" else None)
        cause = "failure" if move.kind in FAILURES else "end"
        number = self.exit_numbers.get((exit_key, cause))
        if number is None:
            number = self.exit_numbers[(exit_key, cause)] = len(self.result.exits)
            exit = Exit(exit_key, after.final_output, node, move, pre, event, after, actions, cause=cause)
            self.result.exits.append(exit)
        self.exit_edges.append((node, move, number))
        return number

    def endless(self, node: int) -> None:
        """Plain work from `node` (padding, or a run of repeats) never ends the visit."""
        if self.result.endless is None:
            self.result.endless = node


#: A step that adds the same counts as the RUN_JUMP explored states before it (one run of
#: repeats, by whichever moves) is not stepped through any further: the run is summarised.
RUN_JUMP = 16
#: The repeats explored one by one before a summarised run ends (the runner's decisions near
#: the end, where a threshold is about to trip, are seen step by step).
RUN_MARGIN = 8
#: `_jump`'s answer for a run of repeats that never ends.
ENDLESS_RUN = (Move("endless"), None)


class _Runs:
    """Runs of repeats in one visit's exploration, and where to skip past them.

    A run is a step, or a lap of two moves, that adds the same counts each time: the states
    it passes through differ only in counts. Once RUN_JUMP explored states lead up to a node
    along one such delta (found by their keys, so a run may alternate between moves that add
    the same counts: a plain call and an edit, a reply with the regions filled or not), the
    rest of the run is summarised (`_jump`)."""

    def __init__(
        self, ir: "Blueprint", stage: "Stage", facts: StageFacts, index: dict[tuple, int], nodes: list[Node]
    ) -> None:
        self.ir, self.stage, self.facts, self.index, self.nodes = ir, stage, facts, index, nodes
        self.known: dict[tuple[int, Delta], int] = {}

    def summarise(self, node: int, move: Move, event: "Event", after: "RunState") -> tuple | None:
        """`_jump`'s answer for `move` from `node` (a single event), when it continues a long run."""
        state = self.nodes[node].state
        assert state is not None
        step_delta = delta(state, after)
        if step_delta is not None:
            return (
                _jump(self.ir, state, move, (event,), step_delta) if self.length(node, step_delta) >= RUN_JUMP else None
            )
        # A lap of two moves: the move that led here, then this one, back where the lap began
        # (a reply held by a gate, then the routing answer it held).
        parent, via = self.nodes[node].parent, self.nodes[node].move
        if parent is None or via is None or via.kind == "pad" or via.times != 1 or move.kind == "pad":
            return None
        before = self.nodes[parent].state
        assert before is not None
        lap_delta = delta(before, after) if after.phase == before.phase else None
        if lap_delta is None or self.length(parent, lap_delta) < RUN_JUMP:
            return None
        back = events(via, self.ir, self.stage, after, self.facts)
        if len(back) != 1:
            return None
        again, _ = step(self.ir, after, back[0])
        if delta(state, again) != lap_delta:
            return None
        return _jump(self.ir, state, Move("lap", laps=(move, via)), (event, back[0]), lap_delta)

    def length(self, node: int, step_delta: Delta) -> int:
        """How many explored states lead up to `node` along `step_delta`: the node, the state
        one step back (by its key), two steps back, … (memoised; counted up to RUN_JUMP)."""
        chain: list[int] = []
        current: int | None = node
        length = 0
        while current is not None and length < RUN_JUMP:
            known = self.known.get((current, step_delta))
            if known is not None:
                length += known
                break
            chain.append(current)
            length += 1
            state = self.nodes[current].state
            assert state is not None, "a state is dropped only once its visit is explored"
            before = retreat(state, step_delta)
            current = self.index.get(visit_key(self.ir, self.stage, before, self.facts)) if before is not None else None
        for i, member in enumerate(chain):
            self.known[(member, step_delta)] = length - i
        return length


def _jump(ir: "Blueprint", state: "RunState", move: Move, block: Block, step_delta: Delta) -> tuple | None:
    """(the move repeated, the state it reaches) for a long run of one step (or lap) that adds
    the same counts each time, skipping to RUN_MARGIN repeats before the runner does anything
    else; None when the run is short; ENDLESS_RUN when the run never ends. Every state
    skipped makes the same decisions as the first: only counts differ, and no threshold is
    reached before the run's end (see `repeats`)."""
    length = longest_run(ir, state, block, step_delta)
    if length >= ENDLESS:
        return ENDLESS_RUN
    times = length - RUN_MARGIN
    if times <= 1:
        return None
    return replace(move, times=times), advance(state, step_delta, times)


#: Moves that end the visit the same way from every state with the same final output and
#: interaction-point cursor: on an inference or routing error the runner runs no hold that
#: could keep the stage and reads no other per-visit counter before it takes the error edge
#: (or, with interaction points still to ask, ends the run); an abort option cancels the run
#: outright. Each is stepped once per final output and cursor; from other states the exit is
#: recorded as found.
SETTLED = frozenset({"fail", "route_fail", "abort"})

#: Moves after which the runner resolves an error.
FAILURES = frozenset({"fail", "route_fail", "workers_fail"})

#: How many budgets end a visit key: required-region re-runs and gate blocks (gate blocks
#: last). Spending them leaves by the same edges as satisfying the gate or the region does
#: (forced and passed gates take the same edge; an abandoned region only adds a flag), so a
#: state with more of them spent finds nothing new — except that a fan-out stage's hand-off
#: carries its required-region re-runs into the merge stage, where only gate blocks count.
#: The output and fan-out re-runs are not among them: a stage forced past its missing output
#: or its missing split ends differently from one that submitted or fanned out.
SPENT = 2


def _dominated(seen: dict[tuple, list[tuple]], key: tuple, spent_budgets: int = SPENT) -> bool:
    """A state whose key matches an explored one but for more of its last `spent_budgets`
    re-run budgets spent."""
    core, spent = key[:-spent_budgets], key[-spent_budgets:]
    explored = seen.setdefault(core, [])
    if any(all(a <= b for a, b in zip(other, spent)) for other in explored):
        return True
    explored.append(spent)
    return False


def carried(state: "RunState") -> tuple | None:
    """What a visit entered by a fan-out hand-off carries from the fan-out stage's visit (its
    re-run counters and fan-out mark, `MERGE_CARRIES`), or None for a visit entered afresh.

    Only a hand-off carries anything, and it always carries the fan-out mark, so the mark
    tells the two apart."""
    visit = state.visit
    return tuple(getattr(visit, name) for name in MERGE_CARRIES) if visit.fanned_out else None


def visit_key(ir: "Blueprint", stage: "Stage", state: "RunState", facts: StageFacts) -> tuple:
    """What decides the rest of the visit (see the module docstring)."""
    visit = state.visit
    counted = facts.counting(visit)
    exact = visit.tool_calls == 0 or counted
    limit = facts.stuck.tool_calls if counted and facts.stuck is not None else None
    if counted or not facts.counts_tool_calls or visit.stuck_fired:
        tools: object = min(visit.tool_calls, limit) if limit else visit.tool_calls > 0
    else:  # far from the thresholds: which one plain work reaches first, and where
        tools = ("ahead", facts.iterations_ahead(visit))
    return (
        state.phase,
        state.status,
        state.outcome.kind if state.outcome is not None else None,
        state.offer,
        state.final_output,
        visit.iterations if exact else -1,
        tools,
        visit.nudges if visit.tool_calls == 0 else 0,
        facts.tracks_modifications and (visit.modifications > 0 or visit.blocked_modifications > 0),
        visit.fanned_out,
        visit.point_cursor,
        visit.point_rounds,
        visit.stuck_fired,
        visit.stuck_since is None,
        state.children,
        visit.output_rounds,
        visit.fan_out_rounds,
        # the budgets `_dominated` compares last (SPENT of them, gate blocks last)
        visit.required_rounds,
        min(visit.gate_reentries, facts.gate_budget),
    )


def _paddable(state: "RunState", facts: StageFacts) -> bool:
    visit = state.visit
    return state.phase == "infer" and state.status == "active" and visit.tool_calls > 0 and not facts.counting(visit)


# --- applying a move ------------------------------------------------------------------------------


def apply(ir: "Blueprint", stage: "Stage", state: "RunState", move: Move, facts: StageFacts) -> Applied | None:
    """Feed the move's events to the runner: (move, state before the last event, that event,
    the state after, every action). None when nothing happened (or padding never ends)."""
    if move.kind == "pad":
        return pad(ir, state, facts)
    pending = events(move, ir, stage, state, facts)
    if not pending:
        return None
    actions: tuple[Action, ...] = ()
    before = after = state
    for event in pending:
        before = after
        after, produced = step(ir, before, event)
        actions += produced
    if after == state:
        return None
    return move, before, pending[-1], after, actions


# --- how a visit ends -------------------------------------------------------------------------------


def ending(ir: "Blueprint", stage: "Stage", actions: tuple["Action", ...]) -> tuple | None:
    """The exit an action list shows, if the visit ended: an edge taken, or the run's end."""
    for action in actions:
        if isinstance(action, TakeEdge):
            return ("edge", action.target, action.condition)
        if isinstance(action, Complete):
            return ("complete", action.via, None)
        if isinstance(action, Fail):
            return ("fail", failure_kind(ir, stage, action), None)
    return None


def failure_kind(ir: "Blueprint", stage: "Stage", action: Fail) -> str:
    """dead_end, no_output, unanswered, cancelled, or error (an inference or worker failure)."""
    if action.status == "cancelled":
        return "cancelled"
    if action.reason == texts.dead_end(stage.name):
        return "dead_end"
    if action.reason == tables(ir).missing_output:
        return "no_output"
    if any(action.reason == texts.unanswered(p.name) for p in stage.interaction_points):
        return "unanswered"
    return "error"
