"""Replay recorded events through the runner and describe what happened, for people or JSON.

`replay` is the simplest possible host: it starts a run at the time of the first event and
feeds every event in order, each answer addressed to the request outstanding when it comes
(a recording names none), keeping each step. `render_text` turns that trace into a readable
timeline (stage visits, inferences, nudges, gates held or forced, stuck interrupts, routing,
edges with their transforms, the outcome and flags); `render_json` gives the same as data.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Any

from compiler.records import record

from ..display import json_visible, visible_lines
from ..ir.model import Blueprint
from .actions import (
    Action,
    AskInteraction,
    AskRoute,
    AwaitChildren,
    AwaitWorkers,
    CancelRequest,
    Complete,
    Fail,
    RunInference,
    StageSpec,
    TakeEdge,
    action_to_dict,
)
from .events import (
    ChildFinished,
    ChildStarted,
    Event,
    InferenceFailed,
    InferenceFinished,
    InteractionAnswered,
    RegionChanged,
    RoutingAnswer,
    WorkersFinished,
    event_name,
    event_to_dict,
)
from .machine import next_actions, replay_step, start
from .state import Injection, RunState, flags_report

#: Injection kinds as the timeline names them.
KIND_LABELS = {
    "nudge": "nudge",
    "gate": "gate held",
    "required_region": "required region",
    "required_output": "output owed",
    "fan_out": "fan-out owed",
    "stuck": "stuck",
    "error": "error note",
    "cap": "iteration cap",
    "split": "split degraded",
    "interaction": "answer",
}
TEXT_WIDTH = 100


@record
class Entry:
    """One event (None for the start) and what it did."""

    event: Event | None
    actions: tuple[Action, ...]
    before: RunState | None
    after: RunState


@dataclass
class Trace:
    blueprint: str
    entries: list[Entry] = field(default_factory=list)
    skipped: int = 0
    #: The numbers of the lines skipped, when the reader knew them.
    skipped_lines: tuple[int, ...] = ()
    #: Events that arrived after the run had ended.
    unused: int = 0

    @property
    def state(self) -> RunState:
        return self.entries[-1].after

    @property
    def finished(self) -> bool:
        return self.state.terminal


@dataclass
class Ending:
    """How a replay ended, as its summary reports it (a `Trace` has the same attributes)."""

    state: RunState | None = None
    skipped: int = 0
    skipped_lines: tuple[int, ...] = ()
    unused: int = 0


def replay(
    ir: Blueprint, events: Iterable[Event], *, skipped: int = 0, skipped_lines: Iterable[int] = (), **options: Any
) -> Trace:
    """The whole replay, every step kept (`replay_entries` keeps none)."""
    ending = Ending()
    entries = list(replay_entries(ir, events, ending, **options))
    return Trace(ir.name, entries, skipped=skipped, skipped_lines=tuple(skipped_lines), unused=ending.unused)


def replay_entries(ir: Blueprint, events: Iterable[Event], ending: Ending, **options: Any) -> Iterator[Entry]:
    """Each step of the replay as it happens, none of them kept: `ending` holds the last state
    and the count of unused events. The run starts at the time of the first event that has one."""
    events = iter(events)
    before_clock: list[Event] = []
    first = 0.0
    for event in events:
        before_clock.append(event)
        if (now := getattr(event, "now", None)) is not None:
            first = now
            break
    state, actions = start(ir, first, **options)
    ending.state = state
    yield Entry(None, actions, None, state)
    for event in chain(before_clock, events):
        if state.terminal:
            ending.unused += 1
            continue
        before = state
        state, actions = replay_step(ir, state, event)  # a recording names no requests
        ending.state = state
        yield Entry(event, actions, before, state)


# --- text -----------------------------------------------------------------------------------------------


def render_text(ir: Blueprint, trace: Trace) -> str:
    return "".join(text_chunks(ir, trace.entries, lambda: trace, name=trace.blueprint))


def text_chunks(
    ir: Blueprint, entries: Iterable[Entry], ending: "Callable[[], Ending | Trace]", *, name: str | None = None
) -> Iterator[str]:
    """The timeline a step at a time, then the summary (`ending` is asked once the steps are
    done): what `render_text` writes, in pieces."""
    origin: float | None = None
    for entry in entries:
        lines = []
        if origin is None:
            origin = entry.after.clock
            lines.append(f"run of '{name or ir.name}' from stage '{entry.after.stage}'")
        stamp = f"{entry.after.clock - origin:8.1f}s  "
        pad = " " * len(stamp)
        if entry.event is None:
            lines.append(f"{stamp}start in '{entry.after.stage}' (visit 1)")
        else:
            lines.append(stamp + describe_event(entry.event) + _ignored(entry))
        for action in entry.actions:
            lines.extend(pad + line for line in describe_action(action))
        # Names, paths and texts come from the blueprint and the event stream: each line is made
        # visible on its own, so none of them can start a line or send a control sequence.
        yield visible_lines(lines) + "\n"
    yield visible_lines(["", *_summary(ir, ending())]) + "\n"


def _ignored(entry: Entry) -> str:
    quiet = isinstance(entry.event, (RegionChanged, ChildStarted)) or entry.after.status == "paused"
    unchanged = entry.before is not None and replace(entry.after, clock=entry.before.clock) == entry.before
    return "  (ignored)" if unchanged and not entry.actions and not quiet else ""


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def describe_event(event: Event) -> str:
    if isinstance(event, InferenceFinished):
        if not event.tool_calls:
            return f'reply: text "{_short(event.text)}"'
        calls = ", ".join(
            f"{c.name}{' ' + c.path if c.path else ''} {c.outcome}{f' ×{c.count:,}' if c.count != 1 else ''}"
            for c in event.tool_calls
        )
        made = sum(c.count for c in event.tool_calls)
        return f"reply: {made:,} tool call{'s' if made != 1 else ''}: {calls}"
    if isinstance(event, InferenceFailed):
        return f"inference failed ({event.kind}): {_short(event.message)}"
    if isinstance(event, RoutingAnswer):
        return f'routing answer: "{_short(event.reply)}"'
    if isinstance(event, RegionChanged):
        open_items = f", {len(event.open_items)} open" if event.open_items else ""
        return f"region '{event.region}': {event.entries} entr{'y' if event.entries == 1 else 'ies'}{open_items}"
    if isinstance(event, (ChildStarted, ChildFinished)):
        return f"child '{event.child}' {'started' if isinstance(event, ChildStarted) else 'finished'}"
    if isinstance(event, WorkersFinished):
        return f"fan-out workers finished: {event.completed} completed, {event.failed} failed"
    if isinstance(event, InteractionAnswered):
        answer = event.answer if event.choice is None else f"option {event.choice}"
        return f'interaction answered: "{_short(answer or "")}"'
    return event_name(event).replace("_", " ")


def _injection(item: Injection) -> str:
    label = KIND_LABELS.get(item.kind, item.kind)
    return f"  + {label} → {item.region}: {_short(item.text, TEXT_WIDTH - 30)}"


def describe_action(action: Action) -> list[str]:
    if isinstance(action, RunInference):
        head = f"→ infer '{action.stage}' turn {action.turn} (visit {action.visit}, request {action.request})"
        extra = [f"  summarize first: {', '.join(action.summarize)}"] if action.summarize else []
        return [head, *extra, *map(_injection, action.inject)]
    if isinstance(action, AskRoute):
        options = ", ".join(o.target for o in action.options)
        done = ", or DONE" if action.allow_done else ""
        return [f"→ route from '{action.stage}': {options}{done}", *map(_injection, action.inject)]
    if isinstance(action, AskInteraction):
        return [
            f"→ ask '{action.point}' (round {action.round}): {_short(action.prompt)}",
            *map(_injection, action.inject),
        ]
    if isinstance(action, AwaitChildren):
        return [f"→ wait for children: {', '.join(action.children)}"]
    if isinstance(action, AwaitWorkers):
        return [f"→ wait for the fan-out workers of '{action.stage}'"]
    if isinstance(action, CancelRequest):
        what = f"request {action.request}" if action.request is not None else "the wait"
        return [f"✗ withdraw {what} ({action.reason.replace('_', ' ')})"]
    if isinstance(action, TakeEdge):
        return _edge_lines(action)
    if isinstance(action, Complete):
        forced = f", forced: {_forced(action.forced)}" if action.forced else ""
        return [*map(_injection, action.notes), f"✓ complete in '{action.stage}' ({action.via}{forced})"]
    if isinstance(action, Fail):
        return [*map(_injection, action.notes), f"✗ {action.status} in '{action.stage}': {action.reason}"]
    return [repr(action)]


def _edge_lines(edge: TakeEdge) -> list[str]:
    parts = [edge.condition.replace("_", "-")]
    if edge.transform != "direct":
        parts.append(f"transform {edge.transform}")
    if edge.gate:
        parts.append(f"gate {edge.gate}")
    if edge.forced:
        parts.append(f"forced: {_forced(edge.forced)}")
    lines = [*map(_injection, edge.notes), f"edge {edge.source} → {edge.target} ({', '.join(parts)})"]
    if edge.clear:
        lines.append(f"  cleared: {', '.join(edge.clear)}")
    if edge.summarize:
        lines.append(f"  to summarize: {', '.join(edge.summarize)}")
    lines.append(f"enter '{edge.target}' (visit {edge.visit})")
    return lines


def _forced(reasons: tuple[str, ...]) -> str:
    return ", ".join(reason.replace("_", " ") for reason in reasons)


def _summary(ir: Blueprint, trace: "Ending | Trace") -> list[str]:
    state = trace.state
    assert state is not None  # a replay has at least its start
    if state.status == "complete":
        head = f"result: complete ({state.done_via}) in stage '{state.stage}'"
    elif state.terminal:
        head = f"result: {state.status} in stage '{state.stage}': {state.reason}"
    else:
        waiting = next_actions(ir, state)
        what = describe_action(waiting[0])[0].lstrip("→ ") if waiting else f"a resume ({state.status})"
        head = f"result: unfinished: the events ran out while the run waited ({what})"
    visits = ", ".join(f"{name}={n}" for name, n in state.visits.items())
    lines = [head, f"  inferences: {state.iteration} · visits: {visits}"]
    shown = {k: v for k, v in flags_report(state).items() if v not in (0, False, [], ())}
    if shown:
        lines.append("  flags: " + ", ".join(f"{k}={_flag(v)}" for k, v in shown.items()))
    if trace.skipped:
        plural = "s" if trace.skipped != 1 else ""
        lines.append(f"  skipped {trace.skipped} unreadable line{plural}{_numbers(trace.skipped_lines)}")
    if trace.unused:
        lines.append(f"  {trace.unused} event{'s' if trace.unused != 1 else ''} after the end went unused")
    return lines


#: How many skipped line numbers the text names before it says how many more there are.
SHOWN_LINE_NUMBERS = 10


def _numbers(lines: tuple[int, ...]) -> str:
    """`: 3, 7` (line numbers, the first few of them), or nothing when none are known."""
    if not lines:
        return ""
    shown = ", ".join(map(str, lines[:SHOWN_LINE_NUMBERS]))
    more = f" and {len(lines) - SHOWN_LINE_NUMBERS} more" if len(lines) > SHOWN_LINE_NUMBERS else ""
    return f" (line{'s' if len(lines) != 1 else ''} {shown}{more})"


def _flag(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


# --- JSON -----------------------------------------------------------------------------------------------------


def render_json(ir: Blueprint, trace: Trace) -> str:
    return "".join(json_chunks(ir, trace.entries, lambda: trace, name=trace.blueprint))


#: What splits the document around its steps (a key at the top level, so never inside a string).
_STEPS = '\n  "steps": [],\n'


def json_chunks(
    ir: Blueprint, entries: Iterable[Entry], ending: "Callable[[], Ending | Trace]", *, name: str | None = None
) -> Iterator[str]:
    """What `render_json` writes, in pieces, holding no step: the steps are written to a
    temporary file as they come (the counts that precede them are known only at the end)."""
    specs: dict[str, Any] = {}
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
        separator = ""
        for entry in entries:
            for action in entry.actions:
                spec = getattr(action, "spec", None)
                if isinstance(spec, StageSpec) and spec.stage not in specs:
                    specs[spec.stage] = action_to_dict(action)["spec"]
            step = json.dumps(_step(entry), indent=2, ensure_ascii=False).replace("\n", "\n    ")
            spool.write(f"{separator}    {step}")
            separator = ",\n"
        document = _document(ir, ending(), specs, name or ir.name)
        head, tail = json.dumps(document, indent=2, ensure_ascii=False).split(_STEPS)
        yield json_visible(head) + '\n  "steps": [\n'
        spool.seek(0)
        while chunk := spool.read(1 << 20):
            yield json_visible(chunk)
        yield "\n  ],\n" + json_visible(tail) + "\n"


def _step(entry: Entry) -> dict[str, Any]:
    return {
        "event": event_to_dict(entry.event) if entry.event is not None else None,
        "clock": entry.after.clock,
        "stage": entry.after.stage,
        "status": entry.after.status,
        "actions": [action_to_dict(a, spec=False) for a in entry.actions],
    }


def _document(ir: Blueprint, ending: "Ending | Trace", specs: dict[str, Any], name: str) -> dict[str, Any]:
    """The JSON timeline without its steps (an empty list marks their place)."""
    state = ending.state
    assert state is not None  # a replay has at least its start
    finished = state.terminal
    result: dict[str, Any] = {
        "status": state.status,
        "finished": finished,
        "stage": state.stage,
        "via": state.done_via,
        "reason": state.reason,
        "inferences": state.iteration,
        "visits": state.visits,
        "flags": flags_report(state),
        "waiting": [action_to_dict(a, spec=False) for a in next_actions(ir, state)] if not finished else [],
    }
    return {
        "blueprint": name,
        "skipped_lines": ending.skipped,
        "skipped_line_numbers": list(ending.skipped_lines),
        "unused_events": ending.unused,
        "steps": [],
        "stages": specs,
        "result": result,
    }
