"""`pad`: plain tool calls until the runner interrupts a working stage.

After a visit's first tool call, another plain call changes nothing the runner decides on but
the iteration and tool-call counts; the stage goes on until READY interrupts it (the iteration
cap, a stuck threshold on iterations or tool calls). Every length of such work up to there
behaves alike, so the exploration takes it as one move, to the turn that interrupts. That turn
is found without stepping through every turn before it: turns that only add to the counters
are reached by adding to the counters, and the runner's own step is tried at the candidates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..runtime.actions import RunInference
from ..runtime.events import InferenceFinished
from ..runtime.machine import replay_step as step
from .facts import StageFacts
from .moves import Move, plain_call
from .repeats import advance, delta

if TYPE_CHECKING:
    from ..ir.model import Blueprint
    from ..runtime.actions import Action
    from ..runtime.events import Event
    from ..runtime.state import RunState

Applied = tuple[Move, "RunState", "Event", "RunState", tuple["Action", ...]]


def continues(state: "RunState", actions: tuple["Action", ...], stage: str) -> bool:
    """The runner asked for the next inference of the same visit: nothing interrupted it."""
    return len(actions) == 1 and isinstance(actions[0], RunInference) and state.stage == stage


def pad(ir: "Blueprint", state: "RunState", facts: StageFacts) -> Applied | None:
    """Plain tool calls until the runner interrupts the stage; None if it never would.

    The first turn is a real step. When it changed nothing but the counters of a turn (else
    a second real turn is taken and measured), later turns are reached by adding those
    counters — the runner would compute the same state — and the turn that interrupts is
    found by trying the first threshold (verified by its neighbour), else by bisection; the
    state before it and the runner's step from there are the result. The search stops at the
    stage's largest threshold: beyond it nothing can trip.
    """
    stage_ir = ir.stage(state.stage)
    assert stage_ir is not None, "a run is in a declared stage"
    event = InferenceFinished(tool_calls=(plain_call(stage_ir, facts),), now=state.clock)
    stage = state.stage
    first, actions = step(ir, state, event)
    if not continues(first, actions, stage):
        return Move("pad", count=1), state, event, first, actions
    origin, origin_turn, turn = state, 0, delta(state, first)
    if turn is None:  # the first turn also cleared what the visit carried in: measure the next
        second, actions = step(ir, first, event)
        if not continues(second, actions, stage):
            return Move("pad", count=2), first, event, second, actions
        origin, origin_turn, turn = first, 1, delta(first, second)
    thresholds = _thresholds_in_turns(ir, state, facts)
    if turn is None or not thresholds:
        return _pad_by_steps(ir, first, event, max(thresholds, default=None), start_turn=1)
    tried: dict[int, tuple["RunState", "RunState", tuple]] = {}

    def interrupts(at: int) -> bool:
        """Whether turn `at` (counted from the visit's state) interrupts the stage."""
        before = advance(origin, turn, at - 1 - origin_turn)
        after, produced = step(ir, before, event)
        tried[at] = (before, after, produced)
        return not continues(after, produced, stage)

    low = origin_turn + 1  # a turn known to continue
    guess = min(thresholds)  # the first threshold to be reached is usually the one that trips
    if guess > low + 1 and interrupts(guess) and not interrupts(guess - 1):
        high = guess
    else:
        high = max(low + 1, max(thresholds) + 1)
        if not interrupts(high):
            return None
        while high - low > 1:
            middle = (low + high) // 2
            if interrupts(middle):
                high = middle
            else:
                low = middle
    before, after, produced = tried[high]
    return Move("pad", count=high), before, event, after, produced


#: Padding taken one real step at a time gives up after this many turns (a runner whose turns
#: change more than their counters is not one the bisection can skip through).
STEPPED_PAD_LIMIT = 1_000


def _pad_by_steps(
    ir: "Blueprint", state: "RunState", event: "Event", bound: int | None, start_turn: int
) -> Applied | None:
    if bound is None:
        return None
    current, turn = state, start_turn
    while turn <= min(bound + 1, STEPPED_PAD_LIMIT):
        turn += 1
        previous = current
        current, actions = step(ir, previous, event)
        if not continues(current, actions, state.stage):
            return Move("pad", count=turn), previous, event, current, actions
    return None


def _thresholds_in_turns(ir: "Blueprint", state: "RunState", facts: StageFacts) -> list[int]:
    """For each count that can interrupt a working stage (the iteration cap, a stuck threshold
    on iterations or tool calls), how many more plain turns from `state` reach it.

    Only a search hint and bound: the runner's own READY decides where padding stops.
    """
    stage = ir.stage(state.stage)
    visit = state.visit
    turns = []
    cap = stage.iteration_cap(state.default_max_iterations) if stage is not None else 0
    if cap > 0:
        turns.append(cap - visit.iterations)
    stuck = facts.stuck if not visit.stuck_fired else None
    if stuck is not None:
        if stuck.iterations:
            turns.append(stuck.iterations - visit.iterations)
        if stuck.tool_calls:
            turns.append(stuck.tool_calls - visit.tool_calls)
    return [max(t, 1) for t in turns]
