"""A recorded run as a scenario: runner events back into script steps, and the scenario's TOML.

`blueprint run --save-scenario` and `blueprint check --emit-scenarios` both come here. The
events are replayed on the runner, grouped by the stage visit they happened in, and each is
written in the script vocabulary when that says exactly the same thing (`call write_file
a.py`, `route review`, `fill plan`), else as a native event table. Events the runner ignored
are left out; they changed nothing. Replaying the script gives the same run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from compiler import records

from ..diagnostics import format_key
from ..display import visible
from ..ir.model import DEFAULT_MAX_ITERATIONS
from ..runtime.events import (
    OUTCOMES,
    Cancel,
    ChildFinished,
    ChildStarted,
    Event,
    InferenceFailed,
    InferenceFinished,
    InteractionAnswered,
    Paused,
    RegionChanged,
    Resumed,
    RoutingAnswer,
    Tick,
    WorkersFinished,
    WorkspaceLost,
    event_to_dict,
)
from ..runtime.policy import SEARCH_TOOL, canonical_tool
from ..runtime.replies import outcome_of
from ..runtime.routing import match_reply
from ..runtime.state import RunState
from .model import Scenario, Where
from .player import Fed, Played, play
from .vocabulary import STEP_PATTERN

if TYPE_CHECKING:
    from ..ir.model import Blueprint

_NAMED = {Paused: "pause", Resumed: "resume", Cancel: "cancel", WorkspaceLost: "workspace_lost"}
_DEFAULT_FAILURE = "the provider failed"
LINE_WIDTH = 100


@records.record
class Recording:
    """A run turned into a script: (stage, steps) per visit, and the run it gives."""

    visits: tuple[tuple[str, tuple[Any, ...]], ...]
    played: Played
    #: Events the runner ignored (left out of the script).
    dropped: int


def record(
    ir: "Blueprint", events: Sequence[Event], *, unattended: bool = False, default_max_iterations: int | None = None
) -> Recording:
    """Play `events` and turn the run into stage visits (the script of a scenario)."""
    scenario = Scenario(
        "recorded", Where(), visits=None, unattended=unattended, default_max_iterations=default_max_iterations
    )
    played = play(ir, scenario, list(events))
    origin = played.visits[0].entry.clock
    reused = _reused_hashes(events)
    clock = origin
    visits: list[tuple[str, tuple[Any, ...]]] = []
    dropped = 0
    for visit in played.visits:
        steps: list[Any] = []
        for fed in visit.fed:
            if _ignored(fed):
                dropped += 1
                continue
            now = fed.event.now if fed.event.now is not None else clock
            step = _step(ir, fed, now - clock, now - origin, reused)
            clock = max(clock, now)
            steps.append(step)
        visits.append((visit.stage, tuple(_fold(steps))))
    return Recording(tuple(visits), played, dropped)


def _ignored(fed: Fed) -> bool:
    return (
        not fed.actions and replace(fed.after, clock=fed.before.clock) == fed.before and not isinstance(fed.event, Tick)
    )


def _reused_hashes(events: Iterable[Event]) -> set[tuple[str, str]]:
    """(region, hash) pairs reported more than once: such content must be written as it is."""
    seen: set[tuple[str, str]] = set()
    again: set[tuple[str, str]] = set()
    for event in events:
        if isinstance(event, RegionChanged):
            key = (event.region, event.hash)
            (again if key in seen else seen).add(key)
    return again


def duration(seconds: float) -> str:
    """`90` → "90s", `1200` → "20m", `7200` → "2h" (for `+` and `wait`)."""
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    text = f"{seconds:.3f}".rstrip("0").rstrip(".")
    return f"{text}s"


def _token(text: str | None) -> bool:
    """Writable as one word of a step."""
    if not text:
        return False
    return not any(c.isspace() or c in ",:×\"'" for c in text) and text.upper() != "DONE"


def _step(ir: "Blueprint", fed: Fed, delta: float, since_start: float, reused: set) -> Any:
    event, before = fed.event, fed.before
    if isinstance(event, Tick):
        return f"wait {duration(delta)}" if delta > 0 else "tick"
    text = _compact(ir, event, before, reused)
    step = STEP_PATTERN.match(text) if text is not None else None  # the pattern matches any text
    if text is not None and step is not None and not step.group("times"):
        return (f"+{duration(delta)} " if delta > 0 else "") + text
    table = event_to_dict(event)
    if event.now is not None:
        table["now"] = round(since_start, 3)
    return table


def _compact(ir: "Blueprint", event: Event, before: RunState, reused: set) -> str | None:
    if isinstance(event, (InferenceFinished, RoutingAnswer)) and before.phase == "route":
        reply = event.text if isinstance(event, InferenceFinished) else event.reply
        stage = ir.stage(before.stage)
        target = match_reply(reply, before.offer, bool(stage and stage.allow_complete))
        return "done" if target is None else (f"route {target}" if _token(target) else None)
    if isinstance(event, InferenceFinished):
        if not event.tool_calls:
            return "text"
        specs = []
        for call in event.tool_calls:
            if call.result is not None and canonical_tool(call.name) == SEARCH_TOOL:
                return None  # a search's result decides whether it counts as empty
            # Otherwise a result matters only through a `[marker]` that sets the outcome.
            outcome = outcome_of(call, (call.name,))
            words = (
                [call.name] + ([call.path] if call.path is not None else []) + ([outcome] if outcome != "ok" else [])
            )
            if not all(_token(w) for w in words) or call.path in OUTCOMES:
                return None
            specs.append(" ".join(words))
        return "call " + ", ".join(specs)
    if isinstance(event, InferenceFailed):
        if "\n" in event.message:
            return None
        kind = "" if event.kind == "error" else f" {event.kind}"
        message = "" if event.message == _DEFAULT_FAILURE else f": {event.message}"
        return f"fail{kind}{message}"
    if isinstance(event, RegionChanged):
        # A region the blueprint does not declare stays a table: the script's steps name only
        # regions the blueprint has (a renamed region is then a clear mismatch).
        return _region(ir, event, before, reused) if event.region in ir.known_regions else None
    if isinstance(event, WorkersFinished):
        return f"workers {event.completed}" + (f" failed {event.failed}" if event.failed else "")
    if isinstance(event, InteractionAnswered):
        return _answer(ir, event, before)
    if isinstance(event, (ChildStarted, ChildFinished)):
        verb = "child_started" if isinstance(event, ChildStarted) else "child_finished"
        return f"{verb} {event.child}" if _token(event.child) else None
    return _NAMED.get(type(event))


def _region(ir: "Blueprint", event: RegionChanged, before: RunState, reused: set) -> str | None:
    if not _token(event.region):
        return None
    if event.entries == 0 and not event.open_items:
        return f"empty {event.region}"
    fresh = (event.region, event.hash) not in reused and event.hash != before.region(event.region).hash and event.hash
    if not fresh:
        return None
    count = "" if event.entries == 1 else f" {event.entries}"
    stage = ir.stage(before.stage)
    declared = ir.layout_for(stage).get(event.region) if stage is not None else None
    if declared is not None and declared.kind == "checklist":
        return _close(event, before)
    if not event.open_items:
        return f"fill {event.region}{count}"
    numbered = tuple((str(i), f"item {i}") for i in range(1, event.entries + 1))
    return f"open {event.region}{count}" if event.open_items == numbered else None


def _close(event: RegionChanged, before: RunState) -> str | None:
    """A checklist whose open items only lost some, as `close`; anything else as a native event
    (or as `open`, when the items are the ones `open` writes)."""
    was = before.region(event.region)
    numbered = tuple((str(i), f"item {i}") for i in range(1, event.entries + 1))
    if event.open_items and event.open_items == numbered:
        return f"open {event.region}" + ("" if event.entries == 1 else f" {event.entries}")
    if event.entries != was.entries or not set(event.open_items) < set(was.open_items):
        return None
    closed = [item for item, text in was.open_items if (item, text) not in event.open_items]
    if not all(item.isdigit() and int(item) >= 1 for item in closed):
        return None  # `close` names items by number
    return f"close {event.region} all" if not event.open_items else f"close {event.region} {' '.join(closed)}"


def _answer(ir: "Blueprint", event: InteractionAnswered, before: RunState) -> str | None:
    answer = event.answer
    stage = ir.stage(before.stage)
    points = stage.interaction_points if stage is not None else ()
    cursor = before.visit.point_cursor
    if event.choice is not None and 0 <= cursor < len(points) and 0 <= event.choice < len(points[cursor].options):
        answer = points[cursor].options[event.choice]
    elif event.choice is not None:
        return None
    if answer is not None and (":" in answer or "\n" in answer or answer != answer.strip() or not answer):
        return None
    if event.edited is not None and "\n" in event.edited:
        return None
    return "answer" + (f" {answer}" if answer else "") + (f": {event.edited}" if event.edited is not None else "")


def _fold(steps: list[Any]) -> list[Any]:
    """Consecutive equal string steps as one with `×N`."""
    out: list[Any] = []
    for step in steps:
        if out and isinstance(step, str) and isinstance(out[-1], tuple) and out[-1][0] == step:
            out[-1] = (step, out[-1][1] + 1)
        elif isinstance(step, str):
            out.append((step, 1))
        else:
            out.append(step)
    return [
        f"{s[0]} ×{s[1]}" if isinstance(s, tuple) and s[1] > 1 else s[0] if isinstance(s, tuple) else s for s in out
    ]


# --- writing TOML ------------------------------------------------------------------------------------


def toml_value(value: Any) -> str:
    """A value as inline TOML (strings quoted as JSON quotes them, which TOML reads alike)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):  # JSON escapes every control TOML forbids raw but DEL
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{format_key(str(k))} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def _array(values: Sequence[Any], indent: str = "") -> str:
    one_line = toml_value(list(values))
    if len(indent) + len(one_line) + 5 <= LINE_WIDTH:
        return one_line
    return "[\n" + "".join(f"  {toml_value(v)},\n" for v in values) + "]"


def run_options(unattended: bool, default_max_iterations: int) -> dict[str, Any]:
    """The scenario keys that make `blueprint test` start the run as it was started."""
    options: dict[str, Any] = {"unattended": True} if unattended else {}
    if default_max_iterations != DEFAULT_MAX_ITERATIONS:
        options["default_max_iterations"] = default_max_iterations
    return options


def scenario_toml(
    name: str,
    visits: Sequence[tuple[str, Sequence[Any]]],
    expect: dict[str, Any] | None = None,
    expect_not: dict[str, Any] | None = None,
    comments: Sequence[str] = (),
    extra: dict[str, Any] | None = None,
) -> str:
    """One `[[scenario]]` block: comments, the name, the script as stage visits, the expectations."""
    # A comment may hold no control character: each is shown as its picture (`compiler.display`).
    lines = [f"# {visible(line)}".rstrip() for text in comments for line in text.splitlines()]
    lines += ["[[scenario]]", f"name = {toml_value(name)}"]
    lines += [f"{format_key(k)} = {toml_value(v)}" for k, v in (extra or {}).items()]
    for stage, steps in visits:
        lines += ["", "[[scenario.script]]", f"stage = {toml_value(stage)}", f"do = {_array(steps)}"]
    for header, table in (("scenario.expect", expect), ("scenario.expect_not", expect_not)):
        if table:
            lines += ["", f"[{header}]"]
            lines += [
                f"{format_key(k)} = {_array(v) if isinstance(v, list) else toml_value(v)}" for k, v in table.items()
            ]
    return "\n".join(lines) + "\n"


def observed(played: Played) -> dict[str, Any]:
    """Expectations that say what the run did: its status, path, holds and output."""
    state = played.state
    expect: dict[str, Any] = {"status": played.status}
    if state.terminal and state.status != "complete":
        expect["reason"] = state.reason or ""
    expect["path"] = played.path
    fired = {name: n for name, n in played.holds().items() if n}
    if fired:
        expect["holds"] = fired
    if state.final_output is not None or any(s.require_output for s in played.ir.stages):
        expect["output"] = state.final_output is not None
    return expect


__all__ = ["Recording", "observed", "record", "scenario_toml", "toml_value"]
