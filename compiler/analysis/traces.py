"""Counterexample traces: a path of the run graph turned into runner events, and checked.

A path is a list of hops (run state, the visit explored for it, the exit taken). Each visit's
witness (its moves) was found from a representative state; here it is replayed from the
state the run has actually reached, move by move, through `step`. Padding is replayed as the
plain tool calls it stands for, until the runner interrupts the stage. If a witness does not
lead to the same exit from the actual state, the visit is explored again from that state and
a witness for the exit is taken from there. The events of every hop make the trace; feeding
them to a fresh run (`verify`) must reproduce the outcome the finding claims.

Identical events in a row are kept as one event and a count (`repeats.EventRuns`): padding to
an iteration cap of 2**31 is one event, not two billion, and it is fed to the runner the way
`repeats` advances a run (a few real steps, the counters in between added).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from compiler.records import record

from ..runtime.events import event_to_dict
from ..runtime.machine import start
from ..runtime.policy import output_owed_anywhere
from .facts import StageFacts
from .moves import Move, events
from .padding import pad
from .repeats import EventRuns, Run, merged, replay_run
from .visit import ending, explore_visit

if TYPE_CHECKING:
    from ..ir.model import Blueprint
    from ..runtime.state import RunState
    from .runs import RunGraph


@record
class TraceStep:
    """One stage visit of a trace: what the host did, and how the visit ended."""

    stage: str
    #: Which visit of `stage` this is in the run (1 for the first).
    visit: int
    moves: tuple[Move, ...]
    #: ("edge", target, condition), ("complete", via), ("fail", kind) — see `visit.Exit`.
    exit: tuple
    #: The events fed, as runs of identical ones: (event, times in a row).
    runs: tuple[Run, ...]

    @property
    def events(self) -> EventRuns:
        """The events fed, one by one (a sequence that does not expand the runs)."""
        return EventRuns(self.runs)

    @property
    def edge(self) -> tuple[str, str] | None:
        """(source, target) of the transition taken, if the visit left by a transition."""
        if self.exit[0] == "edge" and self.exit[2] not in ("fall_through", "merge"):
            return (self.stage, self.exit[1])
        return None

    def describe(self) -> str:
        """`'plan' (visit 2): replies with text only; routing answer 'review' → 'review' (llm_choice)`."""
        did = "; ".join(_grouped(self.moves)) or "nothing"
        return f"'{self.stage}' (visit {self.visit}): {did} → {describe_exit(self.exit)}"


@record
class Trace:
    steps: tuple[TraceStep, ...]
    #: What the trace ends in: "complete", "fail:<kind>", "loop" (back at an earlier state), or
    #: "enters" (the run goes on in the stage its last step enters).
    outcome: str
    #: Replaying `events` in a fresh run reproduced the outcome.
    verified: bool = False
    #: For a loop: the step at which the repeating part begins.
    loop_from: int | None = None

    @property
    def events(self) -> EventRuns:
        """Every event of the run in order: a sequence (length, indexing, iteration) that
        keeps a run of identical events as one event and a count (`EventRuns.runs`)."""
        return EventRuns(run for s in self.steps for run in s.runs)

    def event_dicts(self) -> list[dict]:
        """The events as native NDJSON objects (`blueprint run --events` reads them): a run
        of n identical events is one object with `"repeat": n`."""
        return [
            event_to_dict(event) | ({"repeat": times} if times > 1 else {})
            for s in self.steps
            for event, times in s.runs
        ]


def describe_exit(exit: tuple) -> str:
    kind, what = exit[0], exit[1]
    if kind == "edge":
        condition = exit[2]
        if condition == "fall_through":
            return f"falls through to '{what}'"
        if condition == "merge":
            return f"hands over to merge stage '{what}'"
        return f"'{what}' ({condition})"
    if kind == "complete":
        return "the run completes" + (" (DONE)" if what == "done" else "")
    return {
        "dead_end": "the run fails: the stage dead-ended",
        "no_output": "the run fails: no final output was submitted",
        "error": "the run fails with the error",
        "unanswered": "the run stops: the checkpoint went unanswered",
        "cancelled": "the run is cancelled",
    }.get(what, f"the run fails ({what})")


def _grouped(moves: Sequence[Move]) -> list[str]:
    """Move descriptions with repeats folded: `replies with text only ×3`."""
    out: list[str] = []
    previous, count = None, 0
    for move in moves:
        text = move.describe_once()
        if text == previous:
            count += move.times
            continue
        if previous is not None:
            out.append(previous + (f" ×{count:,}" if count > 1 else ""))
        previous, count = text, move.times
    if previous is not None:
        out.append(previous + (f" ×{count:,}" if count > 1 else ""))
    return out


# --- building a trace --------------------------------------------------------------------------------


Hop = tuple[int, tuple, int]  # (run-graph node, visit key, exit number)


def build(
    graph: "RunGraph", hops: Sequence[Hop], *, loop_from: int | None = None, reaching: bool = False
) -> Trace | None:
    """Replay `hops` from the start of a run; None if some visit cannot reach its exit.
    `reaching`: the run is shown up to the stage its last hop enters (outcome "enters")."""
    ir = graph.ir
    state = graph.start_state
    steps: list[TraceStep] = []
    for _, key, number in hops:
        result = graph.visits[key]
        exit = result.exits[number]
        stage, visit = state.stage, state.visits.get(state.stage, 0)
        replayed = _replay_visit(ir, state, exit.key, result.witness(exit), graph.keeps_output)
        if replayed is None:
            return None
        moves, produced, state = replayed
        steps.append(TraceStep(stage, visit, tuple(moves), exit.key[:3], merged(produced)))
    outcome = _outcome(steps[-1].exit) if steps and steps[-1].exit[0] != "edge" else "loop"
    if reaching:
        outcome = "enters"
    trace = Trace(tuple(steps), outcome, loop_from=loop_from)
    return Trace(trace.steps, outcome, verify(ir, trace, graph), loop_from)


def _outcome(exit: tuple) -> str:
    return "complete" if exit[0] == "complete" else f"fail:{exit[1]}"


def _replay_visit(
    ir: "Blueprint", entry: "RunState", wanted: tuple, witness: list[Move], keeps_output: bool
) -> tuple[list[Move], list[Run], "RunState"] | None:
    """Moves and event runs that take the visit beginning at `entry` out by exit `wanted`:
    the witness found for another state with the same budgets if it works from this one (the
    usual case), else one found by exploring this visit afresh."""

    def matches(exit: tuple | None, after: "RunState") -> bool:
        return exit == wanted[:3] and (not keeps_output or after.final_output == wanted[3])

    played = _play(ir, entry, witness)
    if played is not None and matches(played[2], played[1]):
        return witness, played[0], played[1]
    result = explore_visit(ir, entry)
    for exit in result.exits:
        if exit.key[:3] == wanted[:3] and (not keeps_output or exit.key[3] == wanted[3]):
            moves = result.witness(exit)
            played = _play(ir, entry, moves)
            if played is not None and matches(played[2], played[1]):
                return moves, played[0], played[1]
    return None


def _play(
    ir: "Blueprint", entry: "RunState", moves: Sequence[Move]
) -> tuple[list[Run], "RunState", tuple | None] | None:
    """Feed the moves' events from `entry`: (event runs, state after, the exit shown, if any).
    Padding and a repeated move are fed as one run, advanced as `repeats` does, never stepped
    event by event; a repeated lap of moves is fed lap by lap (LAP_REPLAY_LIMIT moves at most)."""
    stage = ir.stage(entry.stage)
    assert stage is not None
    facts = StageFacts.of(ir, stage, entry)
    state = entry
    produced: list[Run] = []
    ended = None
    for move in moves:
        if move.laps and move.times * len(move.laps) > LAP_REPLAY_LIMIT:
            return None
        for once in [lap for _ in range(move.times) for lap in move.laps] if move.laps else [move]:
            played = _play_move(ir, stage, facts, state, once)
            if played is None:
                return None
            batch, state, actions = played
            produced.extend(batch)
            ended = ending(ir, stage, actions)
            if ended is not None:
                return produced, state, ended
    return produced, state, ended


#: The most moves a repeated lap of moves is replayed with in a trace.
LAP_REPLAY_LIMIT = 10_000


def _play_move(
    ir: "Blueprint", stage, facts: StageFacts, state: "RunState", move: Move
) -> tuple[list[Run], "RunState", tuple] | None:
    """One move's event runs from `state`, the state after and the last actions."""
    if move.kind == "pad":
        padded = pad(ir, state, facts)
        if padded is None:
            return None
        turns, _, event, after, actions = padded
        return [(event, turns.count)], after, actions
    pending, actions = events(move, ir, stage, state, facts), ()
    if move.times > 1 and len(pending) != 1:
        return None
    batch = [(event, move.times) for event in pending]
    for event, times in batch:
        fed = replay_run(ir, state, event, times)
        if fed is None:
            return None
        state, fed_actions = fed
        actions += fed_actions
    return batch, state, actions


# --- checking a trace --------------------------------------------------------------------------------


def verify(ir: "Blueprint", trace: Trace, graph: "RunGraph | None" = None) -> bool:
    """Feed the trace's events to a fresh run and check it does what the trace says: it visits
    the same stages, leaves each by the same exit, and ends as claimed (for a loop: it comes
    back to a run state it was in before, so it can go round again)."""
    state, _ = start(ir, 0)
    seen: list[tuple] = []
    for trace_step in trace.steps:
        if state.stage != trace_step.stage or state.terminal:
            return False
        stage = ir.stage(state.stage)
        assert stage is not None
        seen.append(_run_state(ir, state, graph))
        shown = None
        for event, times in trace_step.runs:
            fed = replay_run(ir, state, event, times)
            if fed is None:
                return False
            state, actions = fed
            shown = shown or ending(ir, stage, actions)
        if shown != trace_step.exit:
            return False
    if trace.outcome == "enters":
        return not state.terminal and bool(trace.steps) and state.stage == trace.steps[-1].exit[1]
    if trace.outcome == "loop":
        return (
            trace.loop_from is not None and not state.terminal and _run_state(ir, state, graph) == seen[trace.loop_from]
        )
    if trace.outcome == "complete":
        return state.status == "complete"
    if trace.outcome.startswith("enter:"):
        return not state.terminal and state.stage == trace.outcome[len("enter:") :]
    return state.terminal and state.status in ("error", "cancelled")


def _run_state(ir: "Blueprint", state: "RunState", graph: "RunGraph | None") -> tuple:
    """What a run-graph node records of a state: the stage, the budgeted visit counts (a spent
    budget counts as spent however far past it), the output when some stage owes one, what a
    fan-out hand-off carried in."""
    if graph is not None:
        return graph.key_of(state)
    from .runs import budgeted_counts
    from .visit import carried

    owed = state.final_output if output_owed_anywhere(ir) else None
    return (state.stage, budgeted_counts(ir, state.stage, state.visits), owed, carried(state))
