"""Runs of identical steps, summarised by their count: a step repeated N times costs O(log N).

Many steps of a visit change nothing but counters: another nudged reply, another gate block,
another required-region or fan-out re-run, another plain tool call, another routing answer
held by a gate. The runner reads a counter only by comparing it with a threshold (the
iteration cap, a stuck threshold, a gate's `max_attempts`, a nudge budget …), so such a step
repeats alike until one comparison flips, and the state after k repeats is the first state
with every counter moved by k times the step's delta. That is how a blueprint whose numbers
go up to 2**63 is explored in bounded time: the state after k repeats is computed, not
stepped to, and where a run of repeats ends is found by bisection, asking the runner's own
`step` at each candidate (`longest_run`). The runner stays the judge of every state reported.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import fields
from itertools import accumulate, repeat
from typing import TYPE_CHECKING, Any, overload

from ..runtime.machine import replay_step as step
from ..runtime.run import evolve
from ..runtime.state import Flags, Visit

if TYPE_CHECKING:
    from ..ir.model import Blueprint
    from ..runtime.events import Event
    from ..runtime.state import RunState

#: What one step adds: ((record, field, amount), …), record 0 the state, 1 its visit, 2 its flags.
Delta = tuple[tuple[int, str, int], ...]
#: The events of one step repeated: one event, or the events of one lap of moves.
Block = tuple["Event", ...]


def _counters(record: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(record) if type(f.default) is int)


STATE_COUNTERS = ("iteration", "requests", "seq")
VISIT_COUNTERS = _counters(Visit)
FLAG_COUNTERS = _counters(Flags)
#: Runs shorter than this are stepped one event at a time.
SHORT_RUN = 64
#: Where the search for the end of a run gives up: a run this long never ends.
ENDLESS = 1 << 80


def delta(before: "RunState", after: "RunState") -> Delta | None:
    """The counters `after` adds to `before`, if that is all that differs and every one grew."""
    if (
        after.phase != before.phase
        or after.status != before.status
        or after.offer != before.offer
        or after.final_output != before.final_output
        or (after.regions is not before.regions and after.regions != before.regions)
    ):
        return None  # the usual differences, ruled out before the counters are compared
    out: list[tuple[int, str, int]] = []
    for record, old, new, names in (
        (0, before, after, STATE_COUNTERS),
        (1, before.visit, after.visit, VISIT_COUNTERS),
        (2, before.flags, after.flags, FLAG_COUNTERS),
    ):
        if old is new:
            continue
        for name in names:
            amount = getattr(new, name) - getattr(old, name)
            if amount < 0:
                return None
            if amount:
                out.append((record, name, amount))
    if not out:
        return None
    found = tuple(out)
    return found if advance(before, found, 1) == after else None


def advance(state: "RunState", step_delta: Delta, times: int) -> "RunState":
    """`state` with every counter of `step_delta` moved `times` times."""
    if times == 0 or not step_delta:
        return state
    #: The changed fields of the state (its visit and flags records too), of the visit, of the flags.
    changes: tuple[dict[str, Any], dict[str, int], dict[str, int]] = ({}, {}, {})
    records = (state, state.visit, state.flags)
    for record, name, amount in step_delta:
        changes[record][name] = getattr(records[record], name) + amount * times
    top = changes[0]
    if changes[1]:
        top["visit"] = evolve(state.visit, changes[1])
    if changes[2]:
        top["flags"] = evolve(state.flags, changes[2])
    return evolve(state, top)


def retreat(state: "RunState", step_delta: Delta) -> "RunState | None":
    """`state` one step back (None when a counter would go below zero)."""
    records = (state, state.visit, state.flags)
    if any(getattr(records[record], name) < amount for record, name, amount in step_delta):
        return None
    return advance(state, step_delta, -1)


def repeats(ir: "Blueprint", state: "RunState", block: "Block", step_delta: Delta, times: int) -> bool:
    """Whether the `times`-th repeat of `block` (one event, or the events of one lap) from
    `state` still only adds `step_delta` (the runner's steps from the state before it, computed)."""
    before = advance(state, step_delta, times - 1)
    for event in block:
        before, _ = step(ir, before, event)
    return before == advance(state, step_delta, times)


def longest_run(ir: "Blueprint", state: "RunState", block: "Block", step_delta: Delta) -> int:
    """How many repeats of `block` from `state` only add `step_delta` (the first one does):
    ENDLESS when the run never ends. A comparison with a threshold flips once as a counter
    grows, so the repeats that only add the delta are a prefix: a bisection finds its end."""
    low, high = 1, 2
    while repeats(ir, state, block, step_delta, high):
        low, high = high, high * 2
        if high > ENDLESS:
            return ENDLESS
    while high - low > 1:
        middle = (low + high) // 2
        if repeats(ir, state, block, step_delta, middle):
            low = middle
        else:
            high = middle
    return low


def replay_run(ir: "Blueprint", state: "RunState", event: "Event", times: int) -> tuple["RunState", tuple] | None:
    """`event` fed `times` times from `state`: the state and the last step's actions.

    A short run is stepped event by event. A long one is stepped twice, then (when the second
    step only added counters) advanced to its next-to-last event, checked there, and the last
    event is stepped for real (it may end the visit). None when the run does not repeat alike.
    """
    actions: tuple = ()
    if times <= SHORT_RUN:  # every step's actions, as a visit ending half-way must show
        for _ in range(times):
            state, produced = step(ir, state, event)
            actions += produced
        return state, actions
    first, _ = step(ir, state, event)
    second, _ = step(ir, first, event)
    step_delta = delta(first, second)
    if step_delta is None or not repeats(ir, first, (event,), step_delta, times - 2):
        return None
    return step(ir, advance(first, step_delta, times - 2), event)


#: A run of identical events: (the event, how many times in a row).
Run = tuple["Event", int]


def merged(runs: "list[Run]") -> tuple[Run, ...]:
    """`runs` with neighbours of the same event joined into one."""
    out: list[Run] = []
    for event, times in runs:
        if out and out[-1][0] == event:
            out[-1] = (event, out[-1][1] + times)
        elif times > 0:
            out.append((event, times))
    return tuple(out)


class EventRuns(Sequence["Event"]):
    """Events kept as runs of identical ones: a read-only sequence (length, indexing,
    iteration) that never holds a run's copies, so a trace with 2**40 plain tool calls is
    a few objects."""

    __slots__ = ("_ends", "runs")

    def __init__(self, runs: "Iterable[Run]") -> None:
        self.runs: tuple[Run, ...] = tuple(runs)
        self._ends = list(accumulate(times for _, times in self.runs))

    @property
    def total(self) -> int:
        """How many events (`len` too, while that fits an index: 2**63 - 1)."""
        return self._ends[-1] if self._ends else 0

    def __len__(self) -> int:
        return self.total

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Event, ...]: ...

    def __getitem__(self, index: int | slice) -> Event | tuple[Event, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("event index out of range")
        return self.runs[bisect_right(self._ends, index)][0]

    def __iter__(self) -> "Iterator[Event]":
        for event, times in self.runs:
            yield from repeat(event, times)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventRuns):
            return merged(list(self.runs)) == merged(list(other.runs))
        if isinstance(other, (tuple, list)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(merged(list(self.runs)))

    def __repr__(self) -> str:
        return f"EventRuns({len(self.runs)} runs, {len(self)} events)"
