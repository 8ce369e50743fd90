"""The script vocabulary: one short string per host step, read into an `Action`, played as runner events.

    "text"                       a reply with text only ("text: the plan is ready" keeps the words)
    "call read_file"             a reply with one tool call; "call write_file a.py", "call edit_file a.py denied"
    "call read_file, write_file a.py"    several calls in one reply
    "submit" / "fan_out"         a reply calling submit_output / fan_out
    "fail" / "fail credits: no credit left"   the provider fails (a failed routing call, when routing)
    "route review" / "done"      the answer to a routing call ("route: free text" is sent as it is)
    "answer Approve"             the answer at an interaction point ("answer" alone: nobody answers;
                                 "answer Edit: the new text" adopts an edit)
    "confirm yes" / "confirm no" a confirm-style yes or no at an interaction point
    "fill plan" / "fill plan 3" / "empty plan" / "open todo 2"   a region's content changed
    "close todo 1" / "close todo 1 3" / "close todo all"   checklist items marked done (todo_done)
    "wait 20m" / "tick"          time passes (a tick re-checks the stuck clock)
    "workers 3" / "workers 2 failed 1"   the fan-out workers are done
    "child_started c1", "child_finished c1", "pause", "resume", "cancel", "workspace_lost"

Any step may end in `×N` (or `xN`) to repeat it, and start with `+DURATION` (`+5m call
read_file`) for the time that passes before it. A step may also be a native NDJSON event
written as a table (`{ event = "inference", tool_calls = [...] }`).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import replace
from typing import Any

from ..runtime.events import (
    FAILURE_KINDS,
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
    ToolCall,
    WorkersFinished,
    WorkspaceLost,
    event_from_dict,
)
from ..runtime.records import RegionSnapshot
from .model import Action, Where

#: The phases of the run (`RunState.phase`) in which each verb fits; absent: any phase.
PHASES: dict[str, tuple[str, ...]] = {
    "text": ("infer",),
    "call": ("infer",),
    "fail": ("infer", "route"),
    "route": ("route",),
    "done": ("route",),
    "answer": ("interact",),
    "confirm": ("interact",),
    "workers": ("workers",),
}
#: Native event classes and the phases they fit.
EVENT_PHASES: dict[type, tuple[str, ...]] = {
    InferenceFinished: ("infer", "route"),
    InferenceFailed: ("infer", "route"),
    RoutingAnswer: ("route",),
    InteractionAnswered: ("interact",),
    WorkersFinished: ("workers",),
}
#: What the run waits for in each phase, and the steps that give it.
WAITING = {
    "ready": "nothing yet",
    "infer": "a reply",
    "route": "a routing answer",
    "interact": "an answer at an interaction point",
    "children": "its child runs",
    "workers": "the fan-out workers",
    "done": "nothing: it has ended",
}
STEPS_FOR = {
    "infer": "text, call, submit, fan_out or fail",
    "route": "route TARGET, done or fail",
    "interact": "answer or confirm",
    "children": "child_finished",
    "workers": "workers",
}
VERBS = (
    "text",
    "call",
    "submit",
    "fan_out",
    "fail",
    "route",
    "done",
    "answer",
    "confirm",
    "fill",
    "empty",
    "open",
    "close",
    "wait",
    "tick",
    "workers",
    "child_started",
    "child_finished",
    "pause",
    "resume",
    "cancel",
    "workspace_lost",
)
_SIMPLE: dict[str, type[Tick | Paused | Resumed | Cancel | WorkspaceLost]] = {
    "tick": Tick,
    "pause": Paused,
    "resume": Resumed,
    "cancel": Cancel,
    "workspace_lost": WorkspaceLost,
}
STEP_PATTERN = re.compile(
    r"^\s*(?:\+(?P<after>\d+(?:\.\d+)?[smh]?)\s+)?(?P<body>.*?)(?:\s+[x×](?P<times>\d+))?\s*$", re.S
)
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)([smh]?)$")
_UNIT = {"": 1, "s": 1, "m": 60, "h": 3600}
#: The most times one step may repeat: a script is written by hand.
MAX_REPEAT = 10_000


class VocabularyError(ValueError):
    """A step that cannot be read; the message says what was expected."""


def seconds(text: str) -> float | None:
    match = _DURATION.match(text.strip())
    if match is None:
        return None
    return float(match.group(1)) * _UNIT[match.group(2)]


def read_step(value: Any, where: Where) -> Action:
    """A script step: a string of the vocabulary, or a native event table."""
    if isinstance(value, dict):
        return _native(value, where)
    if not isinstance(value, str):
        raise VocabularyError(
            f'a step is a string such as "text" or "route review", or an event table, not {_kind(value)}'
        )
    match = STEP_PATTERN.match(value)
    assert match is not None  # the pattern matches any text
    body = match.group("body").strip()
    repeat = int(match.group("times")) if match.group("times") else 1
    if not 1 <= repeat <= MAX_REPEAT:
        raise VocabularyError(f"a step repeats 1 to {MAX_REPEAT:,} times, not {repeat}")
    after = seconds(match.group("after")) if match.group("after") else 0.0
    verb, _, rest = body.partition(" ")
    verb, colon, said = verb.partition(":")
    if colon:  # "text: words" with no space before the colon
        rest = ":" + said + (" " + rest if rest else "")
    rest = rest.strip()
    if verb not in VERBS:
        close = difflib.get_close_matches(verb, VERBS, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f"; expected one of: {', '.join(VERBS)}"
        raise VocabularyError(f"unknown step '{verb or body}'{hint}")
    data = _READERS[verb](rest) if verb in _READERS else _no_argument(verb, rest)
    if verb == "done":
        verb, data = "route", {"done": True}
    if verb in ("submit", "fan_out"):
        verb, data = "call", {"calls": (ToolCall("submit_output" if verb == "submit" else "fan_out"),)}
    return Action(verb, data, value, where, repeat, after or 0.0)


def _kind(value: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", list: "an array"}.get(
        type(value), type(value).__name__
    )


def _native(table: dict, where: Where) -> Action:
    event = event_from_dict(table)
    if event is None:
        name = table.get("event")
        raise VocabularyError(
            f"an event table needs `event` = one of the native event names, not {name!r}"
            if not isinstance(name, str) or name
            else "an event table needs an `event` name"
        )
    return Action("event", {"event": event}, _table_text(table), where)


def _table_text(table: dict) -> str:
    inner = ", ".join(f"{key} = {value!r}" for key, value in table.items())
    return "{ " + inner + " }"


def _no_argument(verb: str, rest: str) -> dict[str, Any]:
    if rest:
        raise VocabularyError(f"'{verb}' takes nothing after it, not '{rest}'")
    return {}


def _split_said(rest: str) -> tuple[str, str | None]:
    """`head: words` → ("head", "words"); no colon → (rest, None)."""
    head, colon, said = rest.partition(":")
    return head.strip(), (said.strip() if colon else None)


def _text(rest: str) -> dict[str, Any]:
    head, said = _split_said(rest)
    if head:
        raise VocabularyError(f"write the reply's words after a colon: 'text: {head}'")
    return {"text": said or ""}


def _call(rest: str) -> dict[str, Any]:
    if not rest:
        raise VocabularyError("'call' needs a tool name: 'call read_file', 'call write_file notes.md'")
    calls = []
    for spec in rest.split(","):
        words = spec.split()
        if not words:
            raise VocabularyError(f"an empty tool call in 'call {rest}'")
        if len(words) > 3:
            raise VocabularyError(
                f"a call is 'TOOL [PATH] [OUTCOME]', not '{spec.strip()}' (use an event table for a path with spaces)"
            )
        name, path, outcome = words[0], None, "ok"
        rest_words = words[1:]
        if rest_words and rest_words[-1] in OUTCOMES:
            outcome = rest_words.pop()
        if len(rest_words) > 1:
            raise VocabularyError(f"the outcome of '{spec.strip()}' must be one of: {', '.join(OUTCOMES)}")
        if rest_words:
            path = rest_words[0]
        calls.append(ToolCall(name, path, outcome))
    return {"calls": tuple(calls)}


def _fail(rest: str) -> dict[str, Any]:
    head, said = _split_said(rest)
    if head and head not in FAILURE_KINDS:
        raise VocabularyError(f"a failure kind is one of: {', '.join(FAILURE_KINDS)}, not '{head}'")
    return {"kind": head or "error", "message": said or "the provider failed"}


def _route(rest: str) -> dict[str, Any]:
    head, said = _split_said(rest)
    if said is not None and not head:
        return {"reply": said}
    if not head or said is not None or len(head.split()) != 1:
        raise VocabularyError("'route' names one stage ('route review'), or sends a reply as it is ('route: …')")
    if head.upper() == "DONE":  # DONE where allow_complete is set, else a stage so named
        return {"target": head, "done": True}
    return {"target": head}


def _answer(rest: str) -> dict[str, Any]:
    head, edited = _split_said(rest)
    return {"answer": head or None, "edited": edited}


def _confirm(rest: str) -> dict[str, Any]:
    if rest not in ("yes", "no"):
        raise VocabularyError(f"'confirm' is 'confirm yes' or 'confirm no', not 'confirm {rest}'")
    return {"approved": rest == "yes"}


def _region(rest: str, *, counted: bool) -> tuple[str, int]:
    words = rest.split()
    if not words or len(words) > (2 if counted else 1):
        shape = "REGION [ENTRIES]" if counted else "REGION"
        raise VocabularyError(f"expected {shape} after the verb, not '{rest}'")
    count = 1
    if len(words) == 2:
        if words[1] == "0":
            raise VocabularyError(
                f"'{words[0]} 0' holds nothing: write 'empty {words[0]}' for an empty region, or "
                f"'close {words[0]} 1' (or 'close {words[0]} all') to mark checklist items done"
            )
        if not words[1].isdigit():
            raise VocabularyError(f"the number of entries is a whole number from 1, not '{words[1]}'")
        count = int(words[1])
    return words[0], count


def _close(rest: str) -> dict[str, Any]:
    words = rest.split()
    if len(words) < 2 or not (words[1:] == ["all"] or all(w.isdigit() and int(w) >= 1 for w in words[1:])):
        raise VocabularyError(
            f"'close' names a checklist and the items marked done: 'close todo 1', 'close todo 1 3' "
            f"or 'close todo all', not 'close {rest}'"
        )
    return {"region": words[0], "items": None if words[1:] == ["all"] else tuple(words[1:])}


def _fill(rest: str) -> dict[str, Any]:
    region, count = _region(rest, counted=True)
    return {"region": region, "entries": count}


def _empty(rest: str) -> dict[str, Any]:
    region, _ = _region(rest, counted=False)
    return {"region": region}


def _wait(rest: str) -> dict[str, Any]:
    duration = seconds(rest)
    if duration is None:
        raise VocabularyError(f"'wait' takes a duration such as 30s, 20m or 1h, not '{rest}'")
    return {"seconds": duration}


def _workers(rest: str) -> dict[str, Any]:
    match = re.fullmatch(r"(\d+)(?:\s+failed\s+(\d+))?", rest)
    if match is None:
        raise VocabularyError(
            f"'workers' is 'workers COMPLETED' or 'workers COMPLETED failed FAILED', not 'workers {rest}'"
        )
    return {"completed": int(match.group(1)), "failed": int(match.group(2) or 0)}


def _child(rest: str) -> dict[str, Any]:
    if len(rest.split()) != 1:
        raise VocabularyError(f"expected one child run name, not '{rest}'")
    return {"child": rest}


_READERS = {
    "text": _text,
    "call": _call,
    "fail": _fail,
    "route": _route,
    "answer": _answer,
    "confirm": _confirm,
    "fill": _fill,
    "open": _fill,
    "close": _close,
    "empty": _empty,
    "wait": _wait,
    "workers": _workers,
    "child_started": _child,
    "child_finished": _child,
}


def phases(action: Action) -> tuple[str, ...] | None:
    """The phases the step fits in, or None when it fits any."""
    if action.verb == "event":
        return EVENT_PHASES.get(type(action.data["event"]))
    if action.verb == "route" and action.data.get("done"):
        return PHASES["done"]
    return PHASES.get(action.verb)


def to_event(action: Action, now: float, serial: int, region: "RegionSnapshot | None" = None) -> Event:
    """The runner event of one play of the step at time `now` (`serial` makes region content
    unique; `region`, what the step's region held before it, for `close`)."""
    verb, data = action.verb, action.data
    if verb == "event":
        event = data["event"]
        return event if event.now is not None else replace(event, now=now)
    if verb == "text":
        return InferenceFinished(text=data["text"], now=now)
    if verb == "call":
        return InferenceFinished(tool_calls=data["calls"], now=now)
    if verb == "fail":
        return InferenceFailed(message=data["message"], kind=data["kind"], now=now)
    if verb == "route":
        reply = data.get("target") or ("DONE" if data.get("done") else data.get("reply", ""))
        return RoutingAnswer(reply=reply, now=now)
    if verb == "answer":
        return InteractionAnswered(answer=data["answer"], edited=data["edited"], now=now)
    if verb == "confirm":
        return InteractionAnswered(approved=data["approved"], now=now)
    if verb == "fill":
        return RegionChanged(
            data["region"], hash=f"scenario:{data['region']}:{serial}", entries=data["entries"], now=now
        )
    if verb == "open":
        items = tuple((str(i), f"item {i}") for i in range(1, data["entries"] + 1))
        return RegionChanged(
            data["region"],
            hash=f"scenario:{data['region']}:{serial}",
            entries=data["entries"],
            open_items=items,
            now=now,
        )
    if verb == "close":
        closing, before = data["items"], region or RegionSnapshot()
        still = tuple(item for item in before.open_items if closing is not None and item[0] not in closing)
        return RegionChanged(
            data["region"],
            hash=f"scenario:{data['region']}:{serial}",
            entries=before.entries,
            open_items=still,
            now=now,
        )
    if verb == "empty":
        return RegionChanged(data["region"], now=now)
    if verb == "wait":
        return Tick(now=now)
    if verb == "workers":
        return WorkersFinished(completed=data["completed"], failed=data["failed"], now=now)
    if verb == "child_started":
        return ChildStarted(data["child"], now=now)
    if verb == "child_finished":
        return ChildFinished(data["child"], now=now)
    return _SIMPLE[verb](now=now)
