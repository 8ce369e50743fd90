"""What a host tells the runner: typed events, and their native NDJSON form.

Every event may carry `now` (seconds, any origin, as a number); it is the only way time
enters the runner. An event without one happens at the last time the runner saw. Events
that answer a request (`InferenceFinished`, `InferenceFailed`, `RoutingAnswer`,
`InteractionAnswered`) name the `request` number of the action they answer; one naming
another request, or none, is ignored, so a late answer is never applied to the request
that replaced it. A replay of a recording, which has no request numbers, addresses each
answer to the outstanding request first (`machine.answering`).

The native NDJSON form is one JSON object per line with an `"event"` key
(`{"event": "routing", "reply": "review", "now": 12.0}`); `event_from_dict` reads it and
returns None for anything it cannot read, never raising.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import fields
from typing import Any, cast

from compiler.records import record

#: Tool-call outcomes. Anything a tool did not do counts as not done: only `ok` can modify.
OUTCOMES: tuple[str, ...] = ("ok", "denied", "error", "unavailable", "blocked")
#: Inference-failure kinds. The first four mean "this provider cannot serve us".
FAILURE_KINDS: tuple[str, ...] = ("credits", "auth", "forbidden", "unreachable", "error")


@record
class ToolCall:
    """One requested tool call and how it went (`result` is the tool's text, when known).

    `count`: the same call made that many times in the reply. A reply of a million identical
    calls is one object, and the runner counts it in constant time.
    """

    name: str
    path: str | None = None
    outcome: str = "ok"
    result: str | None = None
    count: int = 1


@record
class InferenceFinished:
    """A reply landed: tool calls (each with its outcome), or text only."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    now: float | None = None
    request: int | None = None


@record
class InferenceFailed:
    message: str = "inference failed"
    kind: str = "error"
    now: float | None = None
    request: int | None = None


@record
class RoutingAnswer:
    """The model's raw reply to a routing request."""

    reply: str = ""
    now: float | None = None
    request: int | None = None


@record
class RegionChanged:
    """A region's content as the host now sees it (`open_items`: checklist `(id, text)`)."""

    region: str
    hash: str = ""
    entries: int = 0
    open_items: tuple[tuple[str, str], ...] = ()
    now: float | None = None


@record
class Tick:
    """Time passes; re-checks the stuck clock while an inference waits to be sent."""

    now: float | None = None


@record
class ChildStarted:
    child: str
    now: float | None = None


@record
class ChildFinished:
    child: str
    now: float | None = None


@record
class WorkersFinished:
    """Every fan-out worker is terminal: how many completed and how many failed."""

    completed: int = 0
    failed: int = 0
    now: float | None = None


@record
class InteractionAnswered:
    """A person's answer to an interaction point: an option index, or text; both None = no answer.

    `approved` is a confirm-style yes/no answer (`True` or `False`); it counts as an answer
    even with no text, and both values approve the point, as in Leviath.
    """

    answer: str | None = None
    choice: int | None = None
    edited: str | None = None
    now: float | None = None
    request: int | None = None
    approved: bool | None = None


@record
class Dispatched:
    """The host has sent request `request` (to the model, or to a person): a host that
    restarts finds `dispatched` set on it and waits for the answer instead of sending it again."""

    request: int | None = None
    now: float | None = None


@record
class Paused:
    now: float | None = None


@record
class Resumed:
    now: float | None = None


@record
class Cancel:
    now: float | None = None


@record
class WorkspaceLost:
    now: float | None = None


Event = (
    InferenceFinished
    | InferenceFailed
    | RoutingAnswer
    | RegionChanged
    | Tick
    | ChildStarted
    | ChildFinished
    | WorkersFinished
    | InteractionAnswered
    | Dispatched
    | Paused
    | Resumed
    | Cancel
    | WorkspaceLost
)

#: Native NDJSON name → event class.
EVENT_NAMES: dict[str, type[Event]] = {
    "inference": InferenceFinished,
    "inference_failed": InferenceFailed,
    "routing": RoutingAnswer,
    "region": RegionChanged,
    "tick": Tick,
    "child_started": ChildStarted,
    "child_finished": ChildFinished,
    "workers_finished": WorkersFinished,
    "interaction": InteractionAnswered,
    "dispatched": Dispatched,
    "pause": Paused,
    "resume": Resumed,
    "cancel": Cancel,
    "workspace_lost": WorkspaceLost,
}
_NAME_OF: dict[type[Event], str] = {cls: name for name, cls in EVENT_NAMES.items()}


def event_name(event: Event) -> str:
    """The native name of an event (`"inference"`, `"tick"` …); `TypeError` for anything else."""
    name = _NAME_OF.get(type(event))
    if name is None:
        raise TypeError(f"not a runner event: {type(event).__name__}")
    return name


# --- reading plain data -----------------------------------------------------------------------


def number(value: Any) -> float | None:
    """A finite JSON number (never a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return value if math.isfinite(value) else None
    except OverflowError:  # an integer beyond any float
        return None


def whole(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def tool_call_from_dict(data: Any) -> ToolCall | None:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None
    outcome = data.get("outcome", "ok")
    count = whole(data.get("count"))
    return ToolCall(
        name=data["name"],
        path=text(data.get("path")),
        outcome=outcome if outcome in OUTCOMES else "error",
        result=text(data.get("result")),
        count=count if count is not None and count >= 1 else 1,
    )


def _open_items(value: Any) -> tuple[tuple[str, str], ...]:
    items: list[tuple[str, str]] = []
    for item in value if isinstance(value, list) else ():
        if isinstance(item, dict):
            item_id, item_text = item.get("id"), item.get("text")
        elif isinstance(item, list) and len(item) == 2:
            item_id, item_text = item
        else:
            item_id, item_text = None, item
        if isinstance(item_id, (str, int)) and not isinstance(item_id, bool):
            item_id = str(item_id)
        else:
            item_id = str(len(items) + 1)
        items.append((item_id, item_text if isinstance(item_text, str) else ""))
    return tuple(items)


def event_from_dict(data: Any) -> Event | None:
    """Read one native event (`{"event": name, ...}`); None when it is not one."""
    if not isinstance(data, dict):
        return None
    name = data.get("event")
    cls = EVENT_NAMES.get(name) if isinstance(name, str) else None
    if cls is None:
        return None
    now = number(data.get("now"))
    request = whole(data.get("request"))
    if issubclass(cls, InferenceFinished):
        calls = data.get("tool_calls")
        parsed = tuple(filter(None, map(tool_call_from_dict, calls if isinstance(calls, list) else ())))
        return InferenceFinished(text=text(data.get("text")) or "", tool_calls=parsed, now=now, request=request)
    if issubclass(cls, InferenceFailed):
        kind = data.get("kind", "error")
        return InferenceFailed(
            message=text(data.get("message")) or "inference failed",
            kind=kind if kind in FAILURE_KINDS else "error",
            now=now,
            request=request,
        )
    if issubclass(cls, RoutingAnswer):
        return RoutingAnswer(reply=text(data.get("reply")) or "", now=now, request=request)
    if issubclass(cls, RegionChanged):
        region = text(data.get("region"))
        if not region:
            return None
        entries = whole(data.get("entries"))
        return RegionChanged(
            region=region,
            hash=text(data.get("hash")) or "",
            entries=max(entries, 0) if entries is not None else 0,
            open_items=_open_items(data.get("open_items")),
            now=now,
        )
    if issubclass(cls, (ChildStarted, ChildFinished)):
        child = data.get("child")
        if isinstance(child, int) and not isinstance(child, bool):
            child = str(child)
        return cls(child=child, now=now) if isinstance(child, str) else None
    if issubclass(cls, WorkersFinished):
        completed, failed = whole(data.get("completed")), whole(data.get("failed"))
        return WorkersFinished(completed=max(completed or 0, 0), failed=max(failed or 0, 0), now=now)
    if issubclass(cls, InteractionAnswered):
        approved = data.get("approved")
        return InteractionAnswered(
            answer=text(data.get("answer")),
            choice=whole(data.get("choice")),
            edited=text(data.get("edited")),
            now=now,
            request=request,
            approved=approved if type(approved) is bool else None,
        )
    if issubclass(cls, Dispatched):
        return Dispatched(request=request, now=now)
    return cls(now=now)


def event_to_dict(event: Event) -> dict[str, Any]:
    """The native NDJSON object of an event (fields at their defaults are left out)."""
    out: dict[str, Any] = {"event": event_name(event)}
    for f in fields(event):
        value = getattr(event, f.name)
        if value is None or value == f.default or (value == () and f.name in ("tool_calls", "open_items")):
            continue
        if f.name == "tool_calls":
            value = [_call_to_dict(c) for c in value if isinstance(c, ToolCall)]
        elif f.name == "open_items":
            value = [list(item) for item in value if isinstance(item, (tuple, list))]
        out[f.name] = value
    return out


def sanitize(event: Any) -> Event | None:
    """The event as its native form reads back: wrong-typed fields take their defaults."""
    check = _CHECKS.get(type(event))
    if check is None:
        return None
    if check(event):
        return cast(Event, event)  # its type is a key of `_CHECKS`
    try:
        return event_from_dict(event_to_dict(event))
    except (TypeError, ValueError):
        return None


def _opt_str(value: Any) -> bool:
    return value is None or type(value) is str


def _opt_whole(value: Any) -> bool:
    return value is None or type(value) is int


def _opt_number(value: Any) -> bool:
    return value is None or ((type(value) is int or type(value) is float) and number(value) is not None)


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _calls(value: Any) -> bool:
    if type(value) is not tuple:
        return False
    for c in value:  # a loop, not all(…): `step` checks every reply's calls
        if not (
            type(c) is ToolCall
            and type(c.name) is str
            and (c.path is None or type(c.path) is str)
            and c.outcome in OUTCOMES
            and (c.result is None or type(c.result) is str)
            and type(c.count) is int
            and c.count >= 1
        ):
            return False
    return True


def _items(value: Any) -> bool:
    return type(value) is tuple and all(
        type(i) is tuple and len(i) == 2 and type(i[0]) is str and type(i[1]) is str for i in value
    )


#: Per event class, a check of every field (`now` included); an event that passes is used as
#: it is. One function per class: `step` runs this on every event.
_CHECKS: dict[type[Event], Callable[[Any], bool]] = {
    InferenceFinished: lambda e: (
        type(e.text) is str and _calls(e.tool_calls) and _opt_whole(e.request) and _opt_number(e.now)
    ),
    InferenceFailed: lambda e: (
        type(e.message) is str and e.kind in FAILURE_KINDS and _opt_whole(e.request) and _opt_number(e.now)
    ),
    RoutingAnswer: lambda e: type(e.reply) is str and _opt_whole(e.request) and _opt_number(e.now),
    RegionChanged: lambda e: (
        type(e.region) is str
        and bool(e.region)
        and type(e.hash) is str
        and _count(e.entries)
        and _items(e.open_items)
        and _opt_number(e.now)
    ),
    ChildStarted: lambda e: type(e.child) is str and _opt_number(e.now),
    ChildFinished: lambda e: type(e.child) is str and _opt_number(e.now),
    WorkersFinished: lambda e: _count(e.completed) and _count(e.failed) and _opt_number(e.now),
    InteractionAnswered: lambda e: (
        _opt_str(e.answer)
        and _opt_whole(e.choice)
        and _opt_str(e.edited)
        and _opt_number(e.now)
        and _opt_whole(e.request)
        and (e.approved is None or type(e.approved) is bool)
    ),
    Dispatched: lambda e: _opt_whole(e.request) and _opt_number(e.now),
    **{cls: (lambda e: _opt_number(e.now)) for cls in (Tick, Paused, Resumed, Cancel, WorkspaceLost)},
}
assert _CHECKS.keys() == _NAME_OF.keys()


def _call_to_dict(call: ToolCall) -> dict[str, Any]:
    out: dict[str, Any] = {"name": call.name}
    if call.path is not None:
        out["path"] = call.path
    out["outcome"] = call.outcome
    if call.result is not None:
        out["result"] = call.result
    if call.count != 1:
        out["count"] = call.count
    return out
