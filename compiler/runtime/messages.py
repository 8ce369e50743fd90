"""One assistant message of a recorded agent stream, as `ndjson.StreamReader` assembles it.

A message may arrive as streaming events, as whole `assistant` lines, or both (a stream
recorded with partial messages): `Message` keeps the text of each source apart and each tool
call once, so that the two versions of one message make one inference. The helpers read the
loosely typed JSON of stream lines without ever raising on a value of another shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .events import number


@dataclass
class Call:
    id: str
    name: str
    input: Any = None
    partial: str = ""
    outcome: str | None = None
    result: str | None = None


@dataclass
class Message:
    id: str | None
    #: Text blocks as streamed, and as whole `assistant` lines gave them (`text`).
    streamed_text: list[str] = field(default_factory=list)
    whole_text: list[str] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    #: Content blocks by stream index (streamed messages only): a call, or the block's place in
    #: `streamed_text`. The index is whatever JSON value the stream gave.
    blocks: dict[Any, Call | int] = field(default_factory=dict)
    #: When the message (or its last tool result) was last seen.
    now: float | None = None

    @property
    def text(self) -> str:
        """The message's text: block by block, the whole message's version where there is one
        (a recording cut short keeps the streamed rest)."""
        whole, streamed = self.whole_text, self.streamed_text
        return "".join(whole) + "".join(streamed[len(whole) :])

    def add_call(self, call: Call) -> None:
        """A call once per id: the streamed and the whole version of one call are one call,
        and the whole version's arguments are complete."""
        same = next((c for c in self.calls if c.id == call.id), None)
        if same is None:
            self.calls.append(call)
        elif call.input and not same.input:
            same.input = call.input


def path_of(arguments: Any) -> str | None:
    if not isinstance(arguments, dict):
        return None
    for key in ("path", "file_path", "notebook_path"):
        path = str_at(arguments, key)
        if path is not None:
            return path
    return None


def dict_at(data: dict[str, Any], key: str) -> dict[str, Any]:
    """`data[key]` when it is an object, else an empty one (a stream line of another shape)."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def str_at(data: dict[str, Any], key: str) -> str | None:
    """`data[key]` when it is a string."""
    value = data.get(key)
    return value if isinstance(value, str) else None


def result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def time_of(data: dict[str, Any]) -> float | None:
    """`now` (seconds) if the line has one, else an ISO-8601 `timestamp` as epoch seconds."""
    now = number(data.get("now"))
    if now is not None:
        return now
    stamp = data.get("timestamp")
    if isinstance(stamp, str):
        try:
            return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None
