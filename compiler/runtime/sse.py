"""Server-sent events as the Anthropic API streams them: `event:` / `data:` lines and their framing.

An SSE stream is lines of `field: value`, events separated by a blank line. Only `data` carries
content (several `data:` lines of one event are joined with `\\n`, as the SSE specification
says); `event` names it, `id` and `retry` steer a reconnecting client, and a line starting with
`:` is a comment. `field` splits one line into its field and value, or says the line is no SSE
line at all (JSON, or junk), so that `ndjson.StreamReader` can read the two kinds of stream,
and a mix of them, with one reader.
"""

from __future__ import annotations

#: The fields SSE defines. A line naming another field is not taken for SSE (it is junk to us).
FIELDS = frozenset({"data", "event", "id", "retry"})
#: The most characters the `data` of one event may hold; a longer event is dropped and counted
#: as one skipped line, so that a stream of `data:` lines with no blank line cannot grow
#: without bound.
EVENT_LIMIT = 16 * 1024 * 1024
#: What a comment line's field is.
COMMENT = ""
_PREFIXES = (*(name.encode() for name in FIELDS), b":")


def field(line: str | bytes) -> tuple[str, str] | None:
    """`(field, value)` of an SSE line (`(COMMENT, text)` for a comment), else None.

    The line ending (`\\n`, `\\r\\n` or `\\r`) is not part of the value, and one space after
    the colon is dropped, as the specification says. A line of a field name alone (`data`) is
    that field with an empty value.
    """
    if isinstance(line, (bytes, bytearray)):
        if not bytes(line[:6]).startswith(_PREFIXES):
            return None
        line = bytes(line).decode("utf-8", errors="replace")
    line = line.rstrip("\n").rstrip("\r")
    if line.startswith(":"):
        return COMMENT, line[1:]
    name, _, value = line.partition(":")
    if name not in FIELDS:
        return None
    return name, value[1:] if value.startswith(" ") else value


class EventBuffer:
    """The event being read: its `data` lines, its name, and the number of its first line."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self.data: list[str] = []
        self.name: str | None = None
        self.line = 0
        self.size = 0
        #: The data grew past `EVENT_LIMIT` and was dropped.
        self.over = False

    def add(self, name: str, value: str, line: int) -> None:
        """One field line: `data` is kept; `event` names the event; the rest is framing."""
        if name == "data":
            if not self.data and not self.over:
                self.line = line
            self.size += len(value) + 1
            if self.size > EVENT_LIMIT:
                self.over, self.data = True, []
            else:
                self.data.append(value)
        elif name == "event":
            self.name = value

    def take(self) -> tuple[str | None, str | None, int] | None:
        """`(data, name, first line)` of the event read so far, and a fresh start; None when it
        has no data (SSE dispatches no such event). `data` is None when it was too long."""
        pending = (None if self.over else "\n".join(self.data), self.name, self.line)
        dispatch = bool(self.data) or self.over
        self._reset()
        return pending if dispatch else None


__all__ = ["COMMENT", "EVENT_LIMIT", "FIELDS", "EventBuffer", "field"]
