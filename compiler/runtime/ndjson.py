"""Recorded runs as NDJSON: agent streams (Anthropic/Claude `stream-json`) and our native events.

One JSON object per line. A line with an `"event"` key is a native runner event
(`events.event_from_dict`). A line with a `"type"` key is read as a Claude/Anthropic stream:

* streaming API events — `message_start`, `content_block_start` (`text` / `tool_use`),
  `content_block_delta` (`text_delta` / `input_json_delta`), `content_block_stop`,
  `message_stop`, `error` — also when wrapped as `{"type": "stream_event", "event": …}`;
* whole messages — `{"type": "assistant", "message": {…}}` (several lines with one message id
  are one message) and `{"type": "user", "message": {…}}` carrying `tool_result` blocks;
  top-level `tool_use` / `tool_result` objects; `result` (the end of a session).

One assistant message is one inference. Its tool calls wait for their `tool_result`s (which
give each call's outcome) and the inference is emitted once they are all in, or when the next
message starts. Claude Code tool names are mapped to the reference's (`Write` → `write_file`,
`Bash` → `shell`, …). Lines that are not JSON, or are JSON of no known shape, are counted in
`skipped` and otherwise ignored: a stream never makes the reader fail (a line of any shape,
a `type` that is not a string included). `streamfile.read_event_file` reads a stream from a
file or a pipe within size bounds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .events import (
    ChildFinished,
    ChildStarted,
    Event,
    InferenceFailed,
    InferenceFinished,
    RegionChanged,
    Tick,
    ToolCall,
    event_from_dict,
    number,
)

#: Claude Code's tool names → the reference's.
CLAUDE_CODE_TOOLS: dict[str, str] = {
    "Write": "write_file",
    "Edit": "edit_file",
    "MultiEdit": "edit_file",
    "NotebookEdit": "edit_file",
    "Read": "read_file",
    "Bash": "shell",
    "Glob": "glob",
    "Grep": "grep",
    "LS": "list_dir",
    "WebSearch": "web_search",
    "WebFetch": "web_fetch",
}
#: API error types → failure kinds (anything else is an ordinary error).
ERROR_KINDS: dict[str, str] = {
    "authentication_error": "auth",
    "permission_error": "forbidden",
    "billing_error": "credits",
    "insufficient_quota": "credits",
}
#: The most copies a native line asks for with `"repeat": n` (a line asking more is skipped):
#: `blueprint check` writes a run of identical events that way.
REPEAT_LIMIT = 100_000
#: Native events that do not close a pending inference (they may arrive between a tool call
#: and its result).
_PASS_THROUGH = (RegionChanged, ChildStarted, ChildFinished, Tick)
_MARKER = re.compile(r"^\[(denied|error|unavailable|blocked)\]")
_STREAM_TYPES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    }
)


@dataclass
class _Call:
    id: str
    name: str
    input: Any = None
    partial: str = ""
    outcome: str | None = None
    result: str | None = None


@dataclass
class _Message:
    id: str | None
    text: list[str] = field(default_factory=list)
    calls: list[_Call] = field(default_factory=list)
    #: Content blocks by stream index (streamed messages only): a call, or the block's place in
    #: `text`. The index is whatever JSON value the stream gave.
    blocks: dict[Any, _Call | int] = field(default_factory=dict)
    #: When the message (or its last tool result) was last seen.
    now: float | None = None


class StreamReader:
    """Turns NDJSON lines into runner events, one line at a time (keeps state between lines)."""

    def __init__(self, tool_names: Mapping[str, str] | None = None) -> None:
        self.tool_names = dict(CLAUDE_CODE_TOOLS if tool_names is None else tool_names)
        self.skipped = 0
        #: The 1-based numbers of the lines `feed_line` skipped (blank lines count as lines).
        self.skipped_lines: list[int] = []
        self._line = 0
        self._open: _Message | None = None
        self._awaiting: _Message | None = None
        self._closed_ids: set[str] = set()
        self._now: float | None = None

    # --- input ------------------------------------------------------------------------------------

    def feed_line(self, line: str | bytes) -> list[Event]:
        """The events one line completes (often none: a tool call waits for its result)."""
        if not isinstance(line, (str, bytes, bytearray)):
            raise TypeError(f"feed_line takes one line as str or bytes, not {type(line).__name__}")
        self._line += 1
        if not line.strip():
            return []
        before = self.skipped
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
            self.skipped += 1
            data = None
        events = self.feed(data) if self.skipped == before else []
        if self.skipped > before:
            self.skipped_lines.append(self._line)
        return events

    def skip_line(self) -> None:
        """Count a line the caller could not even hand over (too long to keep) as skipped."""
        self._line += 1
        self.skipped += 1
        self.skipped_lines.append(self._line)

    def feed(self, data: Any) -> list[Event]:
        """Like `feed_line`, for a line already parsed."""
        if not isinstance(data, dict):
            self.skipped += 1
            return []
        self._now = _time_of(data)
        if "event" in data and isinstance(data["event"], str):
            return self._native(data)
        kind = data.get("type")
        if kind == "stream_event" and isinstance(data.get("event"), dict):
            data, kind = data["event"], data["event"].get("type")
        if not isinstance(kind, str):  # none, or a list or an object: no known shape
            self.skipped += 1
            return []
        handler: Callable[[dict[str, Any]], list[Event]] | None = getattr(self, f"_on_{kind}", None)
        if handler is None:
            if kind not in _STREAM_TYPES and kind != "system":
                self.skipped += 1
            return []
        try:
            return handler(data)
        except (AttributeError, TypeError, ValueError, KeyError, IndexError, RecursionError):
            self.skipped += 1
            return []
        finally:
            self._stamp()

    def finish(self) -> list[Event]:
        """The end of the stream: whatever is still pending becomes an inference."""
        return self._close_open() + self._flush_awaiting()

    # --- native lines -----------------------------------------------------------------------------

    def _native(self, data: dict[str, Any]) -> list[Event]:
        event = event_from_dict(data)
        times = data.get("repeat", 1)
        if event is None or type(times) is not int or not 1 <= times <= REPEAT_LIMIT:
            self.skipped += 1
            return []
        if isinstance(event, _PASS_THROUGH):
            return [event] * times
        return self.finish() + [event] * times

    # --- streamed messages ---------------------------------------------------------------------------

    def _on_message_start(self, data: dict[str, Any]) -> list[Event]:
        message = _dict_at(data, "message")
        out = self._close_open() + self._flush_awaiting()
        self._open = _Message(id=_str_at(message, "id"))
        self._absorb(self._open, message.get("content"))
        return out

    def _on_content_block_start(self, data: dict[str, Any]) -> list[Event]:
        block = data.get("content_block")
        if not isinstance(block, dict) or block.get("type") not in ("tool_use", "text"):
            raise ValueError("not a content block")
        call = self._call(block) if block.get("type") == "tool_use" else None
        message = self._ensure_open()
        index = data.get("index", len(message.blocks))
        if call is not None:
            message.calls.append(call)
            message.blocks[index] = call
        else:
            message.text.append(_str_at(block, "text") or "")
            message.blocks[index] = len(message.text) - 1
        return []

    def _on_content_block_delta(self, data: dict[str, Any]) -> list[Event]:
        message = self._streaming()
        delta = _dict_at(data, "delta")
        target = message.blocks.get(data.get("index"))
        if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
            if isinstance(target, int):
                message.text[target] += delta["text"]
            else:
                message.text.append(delta["text"])
        elif delta.get("type") == "input_json_delta" and isinstance(target, _Call):
            target.partial += delta.get("partial_json") or ""
        return []

    def _on_content_block_stop(self, data: dict[str, Any]) -> list[Event]:
        message = self._streaming()
        target = message.blocks.get(data.get("index"))
        if isinstance(target, _Call) and target.partial:
            try:
                target.input = json.loads(target.partial)
            except (ValueError, RecursionError):
                target.input = None
        return []

    def _on_message_stop(self, data: dict[str, Any]) -> list[Event]:
        return self._close_open()

    def _on_error(self, data: dict[str, Any]) -> list[Event]:
        error = _dict_at(data, "error")
        message = _str_at(error, "message")
        if message is None:
            message = "stream error"
        kind = ERROR_KINDS.get(_str_at(error, "type") or "", "error")
        self._open = None  # a failed request produced no reply
        return self._flush_awaiting() + [InferenceFailed(message=message, kind=kind, now=self._now)]

    # --- whole messages --------------------------------------------------------------------------------

    def _on_assistant(self, data: dict[str, Any]) -> list[Event]:
        message = data.get("message")
        if not isinstance(message, dict):
            raise ValueError("no message")
        message_id = _str_at(message, "id")
        if message_id is not None and message_id in self._closed_ids:
            return []  # already read from its stream events
        out: list[Event] = []
        if self._open is None or message_id is None or self._open.id != message_id:
            out = self._close_open() + self._flush_awaiting()
            self._open = _Message(id=message_id)
        self._absorb(self._open, message.get("content"))
        return out

    def _on_user(self, data: dict[str, Any]) -> list[Event]:
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        out = self._close_open()
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_result":
                self._result(block)
        return out + self._emit_if_answered()

    def _on_tool_use(self, data: dict[str, Any]) -> list[Event]:
        call = self._call(data)
        self._ensure_open().calls.append(call)
        return []

    def _on_tool_result(self, data: dict[str, Any]) -> list[Event]:
        out = self._close_open()
        self._result(data)
        return out + self._emit_if_answered()

    def _on_result(self, data: dict[str, Any]) -> list[Event]:
        out = self.finish()
        if data.get("is_error") is True:
            text = _str_at(data, "result")
            out.append(InferenceFailed(message=text or str(data.get("subtype") or "the session failed"), now=self._now))
        return out

    # --- assembling inferences ---------------------------------------------------------------------------

    def _stamp(self) -> None:
        if self._now is None:
            return
        for message in (self._open, self._awaiting):
            if message is not None:
                message.now = self._now

    def _streaming(self) -> _Message:
        if self._open is None:
            raise ValueError("a content block outside a message")
        return self._open

    def _ensure_open(self) -> _Message:
        if self._open is None:
            self._open = _Message(id=None)
        return self._open

    def _call(self, block: dict[str, Any]) -> _Call:
        name = block.get("name")
        if not isinstance(name, str):
            raise ValueError("a tool call without a name")
        call_id = _str_at(block, "id")
        if call_id is None:
            call_id = f"call-{id(block)}"
        return _Call(id=call_id, name=self.tool_names.get(name, name), input=block.get("input"))

    def _absorb(self, message: _Message, content: Any) -> None:
        if isinstance(content, str):
            message.text.append(content)
            return
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                message.text.append(block["text"])
            elif block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                message.calls.append(self._call(block))

    def _result(self, block: dict[str, Any]) -> None:
        call_id = block.get("tool_use_id")
        pending = self._awaiting.calls if self._awaiting is not None else []
        call = next((c for c in pending if c.id == call_id and c.outcome is None), None)
        if call is None:
            return
        if self._now is not None and self._awaiting is not None:
            self._awaiting.now = self._now
        text = _result_text(block.get("content"))
        marker = _MARKER.match(text.lstrip())
        call.outcome = marker.group(1) if marker else ("error" if block.get("is_error") is True else "ok")
        call.result = text

    def _close_open(self) -> list[Event]:
        message, self._open = self._open, None
        if message is None:
            return []
        if message.id is not None:
            self._closed_ids.add(message.id)
        if not message.calls:
            when = message.now if message.now is not None else self._now
            return self._flush_awaiting() + [InferenceFinished(text="".join(message.text), now=when)]
        out = self._flush_awaiting()
        self._awaiting = message
        return out

    def _emit_if_answered(self) -> list[Event]:
        if self._awaiting is not None and all(c.outcome is not None for c in self._awaiting.calls):
            return self._flush_awaiting()
        return []

    def _flush_awaiting(self) -> list[Event]:
        message, self._awaiting = self._awaiting, None
        if message is None:
            return []
        calls = tuple(
            ToolCall(
                name=c.name,
                path=_path(c.input),
                outcome=c.outcome or "error",
                result=c.result if c.outcome is not None else "[error] no result was recorded",
            )
            for c in message.calls
        )
        return [InferenceFinished(text="".join(message.text), tool_calls=calls, now=message.now)]


def _path(arguments: Any) -> str | None:
    if not isinstance(arguments, dict):
        return None
    for key in ("path", "file_path", "notebook_path"):
        path = _str_at(arguments, key)
        if path is not None:
            return path
    return None


def _dict_at(data: dict[str, Any], key: str) -> dict[str, Any]:
    """`data[key]` when it is an object, else an empty one (a stream line of another shape)."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _str_at(data: dict[str, Any], key: str) -> str | None:
    """`data[key]` when it is a string."""
    value = data.get(key)
    return value if isinstance(value, str) else None


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def _time_of(data: dict[str, Any]) -> float | None:
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


def read_events(
    lines: Iterable[str] | Iterable[bytes] | str | bytes, tool_names: Mapping[str, str] | None = None
) -> tuple[list[Event], int]:
    """Every event of a recorded stream, and how many lines were skipped.

    `lines` is an open file or any iterable of lines; a whole stream as one `str` or `bytes`
    is split into lines at `\n` (iterating it would feed it one character at a time; U+2028
    and U+0085 may occur inside a JSON string and end no line).
    """
    if isinstance(lines, str):
        lines = lines.split("\n")
    elif isinstance(lines, (bytes, bytearray)):
        lines = bytes(lines).split(b"\n")
    reader = StreamReader(tool_names)
    events: list[Event] = []
    for line in lines:
        events.extend(reader.feed_line(line))
    events.extend(reader.finish())
    return events, reader.skipped
