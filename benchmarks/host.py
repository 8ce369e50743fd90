"""A simulated host for the runner benchmark: a long, seeded event stream for one blueprint.

The host answers every action the way an agent host would: an inference comes back with one
to three tool calls (file edits among them) or as text only, routing requests get one of the
offered targets, interaction points are approved, fan-out workers finish, and between
replies the host reports region changes and lets time pass. When a run ends, the next one
starts. The stream is recorded once (`record`) and then replayed for timing, so the timed
loop does nothing but `step`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from compiler.ir.model import Blueprint
from compiler.runtime import (
    AskInteraction,
    AskRoute,
    AwaitChildren,
    AwaitWorkers,
    ChildFinished,
    Complete,
    Fail,
    InferenceFinished,
    InteractionAnswered,
    RegionChanged,
    RoutingAnswer,
    RunInference,
    Tick,
    ToolCall,
    WorkersFinished,
    start,
    step,
)

FILES = ("src/app.py", "src/util.py", "tests/test_app.py", "README.md", "docs/notes.md")


@dataclass(frozen=True)
class Recording:
    """Events grouped by run; each run starts afresh with `start(ir, now=run_start)`."""

    runs: tuple[tuple[float, tuple], ...]

    @property
    def events(self) -> int:
        return sum(len(events) for _, events in self.runs)


def record(ir: Blueprint, events: int, seed: int = 11) -> Recording:
    """At least `events` events, over as many runs as it takes."""
    rng = random.Random(seed)
    runs: list[tuple[float, tuple]] = []
    total, now = 0, 0.0
    while total < events:
        run_start = now
        state, actions = start(ir, now)
        log: list = []
        while not state.terminal and len(log) < 5000:
            for event in _answer(rng, ir, actions, now):
                now = max(now, event.now or now)
                state, actions = step(ir, state, event)
                log.append(event)
            if not actions and not state.terminal:  # waiting on something we did not answer
                break
        runs.append((run_start, tuple(log)))
        total += len(log)
        now += 60.0
    return Recording(tuple(runs))


def replay(ir: Blueprint, recording: Recording) -> int:
    """Feed the whole recording again; returns the number of steps taken."""
    steps = 0
    for run_start, events in recording.runs:
        state, _ = start(ir, run_start)
        feed(ir, state, events)
        steps += len(events)
    return steps


def feed(ir: Blueprint, state, events: tuple) -> None:
    """`step` through `events` from `state` (the timed loop: nothing else happens in it)."""
    for event in events:
        state, _ = step(ir, state, event)


def _answer(rng: random.Random, ir: Blueprint, actions: tuple, now: float) -> list:
    out: list = []
    for action in actions:
        now += rng.uniform(1.0, 20.0)
        if isinstance(action, RunInference):
            if rng.random() < 0.3:
                out.append(
                    RegionChanged(
                        region="todo",
                        hash=f"h{rng.randrange(8)}",
                        entries=rng.randint(0, 3),
                        open_items=(("1", "step one"),) if rng.random() < 0.5 else (),
                        now=now,
                    )
                )
            if rng.random() < 0.2:
                out.append(Tick(now=now))
            out.append(_reply(rng, action, now))
        elif isinstance(action, AskRoute):
            options = [o.target for o in action.options]
            reply = rng.choice(options) if options else "DONE"
            out.append(RoutingAnswer(reply=reply, now=now, request=action.request))
        elif isinstance(action, AskInteraction):
            out.append(InteractionAnswered(choice=0, now=now, request=action.request))
        elif isinstance(action, AwaitWorkers):
            out.append(WorkersFinished(completed=rng.randint(1, 4), now=now))
        elif isinstance(action, AwaitChildren):
            out.extend(ChildFinished(child=c, now=now) for c in action.children)
        elif isinstance(action, (Complete, Fail)):
            return out
    return out


def _reply(rng: random.Random, action: RunInference, now: float) -> InferenceFinished:
    if not action.tools or rng.random() < 0.25:
        return InferenceFinished(text="finished this step", now=now, request=action.request)
    calls = []
    for _ in range(rng.randint(1, 3)):
        tool = rng.choice(action.tools)
        path = rng.choice(FILES) if tool in ("read_file", "write_file", "edit_file") else None
        calls.append(ToolCall(name=tool, path=path, outcome="ok" if rng.random() < 0.9 else "error"))
    return InferenceFinished(text="", tool_calls=tuple(calls), now=now, request=action.request)
