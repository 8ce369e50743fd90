"""Recorded runs as NDJSON: agent streams (Anthropic/Claude `stream-json`) and our native events.

One JSON object per line. A line with an `"event"` key is a native runner event
(`events.event_from_dict`). A line with a `"type"` key is read as a Claude/Anthropic stream:

* streaming API events — `message_start`, `content_block_start` (`text` / `tool_use`),
  `content_block_delta` (`text_delta` / `input_json_delta`), `content_block_stop`,
  `message_stop`, `error` — also when wrapped as `{"type": "stream_event", "event": …}`, and
  also as raw server-sent events (`event:` / `data:` lines, see `sse`);
* whole messages — `{"type": "assistant", "message": {…}}` (several lines with one message id
  are one message) and `{"type": "user", "message": {…}}` carrying `tool_result` blocks;
  top-level `tool_use` / `tool_result` objects; `result` (the end of a session).

One assistant message is one inference, however many times it is recorded: a stream recorded
with partial messages carries each message as streaming events and again as whole `assistant`
lines with the same message id, and the two are merged (a tool call by its id, the n-th text
block with the n-th; the whole message's version wins). Its tool calls wait for their
`tool_result`s (which give each call's outcome) and the inference is emitted once they are all
in, or when the next message starts. Claude Code tool names are mapped to the reference's
(`Write` → `write_file`, `Bash` → `shell`, …). Lines that are not JSON, or are JSON of no
known shape, are counted in `skipped` and otherwise ignored (SSE framing — `event:`, `id:`,
`retry:`, comments, blank lines — is not junk and is not counted): a stream never makes the
reader fail (a line of any shape, a `type` that is not a string included).
`streamfile.read_event_file` reads a stream from a file or a pipe within size bounds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from . import sse
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
)
from .messages import Call, Message, dict_at, path_of, result_text, str_at, time_of

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


class StreamReader:
    """Turns NDJSON lines into runner events, one line at a time (keeps state between lines)."""

    def __init__(self, tool_names: Mapping[str, str] | None = None) -> None:
        self.tool_names = dict(CLAUDE_CODE_TOOLS if tool_names is None else tool_names)
        self.skipped = 0
        #: The 1-based numbers of the lines `feed_line` skipped (blank lines count as lines).
        self.skipped_lines: list[int] = []
        self._line = 0
        self._open: Message | None = None
        self._awaiting: Message | None = None
        self._closed_ids: set[str] = set()
        self._now: float | None = None
        #: The server-sent event being read.
        self._sse = sse.EventBuffer()

    # --- input ------------------------------------------------------------------------------------

    def feed_line(self, line: str | bytes) -> list[Event]:
        """The events one line completes (often none: a tool call waits for its result)."""
        if not isinstance(line, (str, bytes, bytearray)):
            raise TypeError(f"feed_line takes one line as str or bytes, not {type(line).__name__}")
        self._line += 1
        framing = sse.field(line)
        if framing is not None:
            self._sse.add(*framing, self._line)
            return []
        events = self._dispatch_sse()  # an event whose blank line never came ends here
        if not line.strip():
            return events
        before = self.skipped
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
            self.skipped += 1
            data = None
        if self.skipped == before:
            events += self.feed(data)
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
        self._now = time_of(data)
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
        return self._dispatch_sse() + self._close_open() + self._flush_awaiting()

    # --- server-sent events ---------------------------------------------------------------------

    def _dispatch_sse(self) -> list[Event]:
        """The server-sent event read so far, at its blank line or when a line of another
        kind comes: its data is read as one stream line."""
        pending = self._sse.take()
        if pending is None:
            return []
        text, name, line = pending
        before = self.skipped
        events: list[Event] = []
        try:
            if text is None:
                raise ValueError("too long")
            payload = json.loads(text)
        except (ValueError, RecursionError):
            self.skipped += 1
        else:
            if isinstance(payload, dict) and "type" not in payload and "event" not in payload and name:
                payload = {**payload, "type": name}  # the event's name says what the data is
            events = self.feed(payload)
        if self.skipped > before:
            self.skipped_lines.append(line)
        return events

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
        message = dict_at(data, "message")
        message_id = str_at(message, "id")
        out: list[Event] = []
        if self._open is None or message_id is None or self._open.id != message_id:
            out = self._close_open() + self._flush_awaiting()
            self._open = Message(id=message_id)
        self._absorb(self._open, message.get("content"), whole=False)
        return out

    def _on_content_block_start(self, data: dict[str, Any]) -> list[Event]:
        block = data.get("content_block")
        if not isinstance(block, dict) or block.get("type") not in ("tool_use", "text"):
            raise ValueError("not a content block")
        call = self._call(block) if block.get("type") == "tool_use" else None
        message = self._ensure_open()
        index = data.get("index", len(message.blocks))
        if call is not None:
            message.add_call(call)
            message.blocks[index] = next(c for c in message.calls if c.id == call.id)
        else:
            message.streamed_text.append(str_at(block, "text") or "")
            message.blocks[index] = len(message.streamed_text) - 1
        return []

    def _on_content_block_delta(self, data: dict[str, Any]) -> list[Event]:
        message = self._streaming()
        delta = dict_at(data, "delta")
        target = message.blocks.get(data.get("index"))
        if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
            if isinstance(target, int):
                message.streamed_text[target] += delta["text"]
            else:
                message.streamed_text.append(delta["text"])
        elif delta.get("type") == "input_json_delta" and isinstance(target, Call):
            target.partial += delta.get("partial_json") or ""
        return []

    def _on_content_block_stop(self, data: dict[str, Any]) -> list[Event]:
        message = self._streaming()
        target = message.blocks.get(data.get("index"))
        if isinstance(target, Call) and target.partial:
            try:
                parsed = json.loads(target.partial)
            except (ValueError, RecursionError):
                parsed = None
            if parsed or not target.input:  # never over the whole message's arguments
                target.input = parsed
        return []

    def _on_message_stop(self, data: dict[str, Any]) -> list[Event]:
        return self._close_open()

    def _on_error(self, data: dict[str, Any]) -> list[Event]:
        error = dict_at(data, "error")
        message = str_at(error, "message")
        if message is None:
            message = "stream error"
        kind = ERROR_KINDS.get(str_at(error, "type") or "", "error")
        self._open = None  # a failed request produced no reply
        return self._flush_awaiting() + [InferenceFailed(message=message, kind=kind, now=self._now)]

    # --- whole messages --------------------------------------------------------------------------------

    def _on_assistant(self, data: dict[str, Any]) -> list[Event]:
        message = data.get("message")
        if not isinstance(message, dict):
            raise ValueError("no message")
        message_id = str_at(message, "id")
        target: Message | None = None
        if message_id is not None:
            for pending in (self._open, self._awaiting):  # streamed, or an earlier line of it
                if pending is not None and pending.id == message_id:
                    target = pending
            if target is None and message_id in self._closed_ids:
                return []  # already read (from its stream events) and emitted
        out: list[Event] = []
        if target is None:
            out = self._close_open() + self._flush_awaiting()
            self._open = target = Message(id=message_id)
        self._absorb(target, message.get("content"), whole=True)
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
        call = self._call(data)  # before a message is opened for it: a bad call opens none
        self._ensure_open().add_call(call)
        return []

    def _on_tool_result(self, data: dict[str, Any]) -> list[Event]:
        out = self._close_open()
        self._result(data)
        return out + self._emit_if_answered()

    def _on_result(self, data: dict[str, Any]) -> list[Event]:
        out = self.finish()
        if data.get("is_error") is True:
            text = str_at(data, "result")
            out.append(InferenceFailed(message=text or str(data.get("subtype") or "the session failed"), now=self._now))
        return out

    # --- assembling inferences ---------------------------------------------------------------------------

    def _stamp(self) -> None:
        if self._now is None:
            return
        for message in (self._open, self._awaiting):
            if message is not None:
                message.now = self._now

    def _streaming(self) -> Message:
        if self._open is None:
            raise ValueError("a content block outside a message")
        return self._open

    def _ensure_open(self) -> Message:
        if self._open is None:
            self._open = Message(id=None)
        return self._open

    def _call(self, block: dict[str, Any]) -> Call:
        name = block.get("name")
        if not isinstance(name, str):
            raise ValueError("a tool call without a name")
        call_id = str_at(block, "id")
        if call_id is None:
            call_id = f"call-{id(block)}"
        return Call(id=call_id, name=self.tool_names.get(name, name), input=block.get("input"))

    def _absorb(self, message: Message, content: Any, *, whole: bool) -> None:
        """The content of a message line: text blocks (as whole or as streamed text) and calls."""
        text = message.whole_text if whole else message.streamed_text
        if isinstance(content, str):
            text.append(content)
            return
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                text.append(block["text"])
            elif block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                message.add_call(self._call(block))

    def _result(self, block: dict[str, Any]) -> None:
        call_id = block.get("tool_use_id")
        pending = self._awaiting.calls if self._awaiting is not None else []
        call = next((c for c in pending if c.id == call_id and c.outcome is None), None)
        if call is None:
            return
        if self._now is not None and self._awaiting is not None:
            self._awaiting.now = self._now
        text = result_text(block.get("content"))
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
            return self._flush_awaiting() + [InferenceFinished(text=message.text, now=when)]
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
                path=path_of(c.input),
                outcome=c.outcome or "error",
                result=c.result if c.outcome is not None else "[error] no result was recorded",
            )
            for c in message.calls
        )
        return [InferenceFinished(text=message.text, tool_calls=calls, now=message.now)]


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
