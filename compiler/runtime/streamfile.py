"""A recorded event stream read from a file or a pipe, within bounds.

`read_event_file` (an agent stream or native events) and `read_log_file` (a log of Leviath's
world events) are what `blueprint run --events` uses; `sniff_format` tells the two apart.
Whatever the input, memory stays bounded: a path must name a regular file (a FIFO or
`/dev/zero` is an `OSError`), a line longer than `MAX_LINE_BYTES` is skipped and counted
without being kept, and a stream longer than `MAX_STREAM_BYTES` is an `OSError` (`EFBIG`).
Lines end at `\\n` only: U+2028 and U+0085 are legal inside JSON strings and never split a
line.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from itertools import chain
from typing import IO

from ..reading import open_regular
from . import sse
from .events import Event
from .leviath_log import RunLog, is_world_event, read_log
from .ndjson import StreamReader

#: One line of a stream (a message with a large tool result is a few megabytes at most).
MAX_LINE_BYTES = 16 * 1024 * 1024
#: A whole stream: a long agent session records tens of megabytes.
MAX_STREAM_BYTES = 256 * 1024 * 1024
_CHUNK = 1024 * 1024


#: The two kinds of recorded stream `sniff_format` tells apart.
AGENT_STREAM = "agent"
LEVIATH_LOG = "leviath"


@contextmanager
def open_lines(
    source: "str | os.PathLike[str] | IO[bytes]", *, max_line: int = MAX_LINE_BYTES, max_total: int = MAX_STREAM_BYTES
) -> Iterator[Iterator[bytes | None]]:
    """The bounded lines of `source` (a path, opened and closed here, or an open binary
    stream such as `sys.stdin.buffer`): see `bounded_lines`."""
    if isinstance(source, (str, os.PathLike)):
        with open_regular(source) as handle:
            yield bounded_lines(handle, max_line, max_total)
    else:
        yield bounded_lines(source, max_line, max_total)


def read_event_file(
    source: "str | os.PathLike[str] | IO[bytes]",
    tool_names: Mapping[str, str] | None = None,
    *,
    max_line: int = MAX_LINE_BYTES,
    max_total: int = MAX_STREAM_BYTES,
    skipped_lines: list[int] | None = None,
) -> tuple[list[Event], int]:
    """Every event of the stream at `source` (a path, or an open binary stream such as
    `sys.stdin.buffer`), and how many lines were skipped (unreadable, of no known shape, or
    too long). Undecodable bytes make a line unreadable, not the stream. The numbers of the
    skipped lines (1-based) are added to `skipped_lines` when it is given."""
    with open_lines(source, max_line=max_line, max_total=max_total) as lines:
        return read_event_lines(lines, tool_names, skipped_lines=skipped_lines)


def read_event_lines(
    lines: Iterable[bytes | None],
    tool_names: Mapping[str, str] | None = None,
    *,
    skipped_lines: list[int] | None = None,
) -> tuple[list[Event], int]:
    """`read_event_file` over lines already bounded (None: a line too long to keep)."""
    stream = EventStream(lines, tool_names)
    events = list(stream)
    if skipped_lines is not None:
        skipped_lines.extend(stream.skipped_lines)
    return events, stream.skipped


class EventStream:
    """The events of bounded lines, read as they are iterated: a stream of any length is
    replayed without holding it. Once iterated, `skipped` and `skipped_lines` say which lines
    could not be read."""

    def __init__(self, lines: Iterable[bytes | None], tool_names: Mapping[str, str] | None = None) -> None:
        self._lines = lines
        self._reader = StreamReader(tool_names)

    def __iter__(self) -> Iterator[Event]:
        reader = self._reader
        for line in self._lines:
            if line is None:
                reader.skip_line()
            else:
                yield from reader.feed_line(line.decode("utf-8", errors="replace"))
        yield from reader.finish()

    @property
    def skipped(self) -> int:
        return self._reader.skipped

    @property
    def skipped_lines(self) -> tuple[int, ...]:
        return tuple(self._reader.skipped_lines)


def read_log_file(
    source: "str | os.PathLike[str] | IO[bytes]", *, max_line: int = MAX_LINE_BYTES, max_total: int = MAX_STREAM_BYTES
) -> RunLog:
    """The world events of a Leviath log at `source`, within the same bounds."""
    with open_lines(source, max_line=max_line, max_total=max_total) as lines:
        return read_log(decoded(lines))


def decoded(lines: Iterable[bytes | None]) -> Iterator[str | None]:
    """Bounded lines as text (undecodable bytes replaced; None stays None)."""
    return (None if line is None else line.decode("utf-8", errors="replace") for line in lines)


def sniff_format(lines: Iterator[bytes | None]) -> tuple[str, Iterator[bytes | None]]:
    """Which kind of stream `lines` is, and the same lines again (the ones looked at first).

    The first line that says is decisive: a world event (either wire form) makes it a
    Leviath log; any other JSON object with a string `event` or `type`, or an SSE `data:` or
    `event:` line, an agent stream. Lines that say nothing (blank, junk, other JSON) are kept
    and looked past; a stream of only those is an agent stream, where they are skipped.
    """
    seen: list[bytes | None] = []
    found = AGENT_STREAM
    for line in lines:
        seen.append(line)
        kind = None if line is None else _line_kind(line)
        if kind is not None:
            found = kind
            break
    return found, chain(seen, lines)


def _line_kind(line: bytes) -> str | None:
    framing = sse.field(line)
    if framing is not None:
        return AGENT_STREAM if framing[0] in ("data", "event") else None
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if is_world_event(data):
        return LEVIATH_LOG
    if isinstance(data, dict) and (isinstance(data.get("event"), str) or isinstance(data.get("type"), str)):
        return AGENT_STREAM
    return None


def bounded_lines(stream: IO[bytes], max_line: int, max_total: int) -> Iterator[bytes | None]:
    """The lines of `stream` split at `\\n`; None for each line longer than `max_line` bytes
    (its bytes are read and dropped). More than `max_total` bytes in all is an `OSError`."""
    total = 0
    while True:
        line = stream.readline(max_line + 1)
        if not line:
            return
        total += len(line)
        if len(line) <= max_line or line.endswith(b"\n"):
            yield line
        else:
            while not line.endswith(b"\n"):  # the rest of the long line, a chunk at a time
                line = stream.readline(_CHUNK)
                if not line:
                    break
                total += len(line)
                _check_total(total, max_total)
            yield None
        _check_total(total, max_total)


def _check_total(total: int, limit: int) -> None:
    if total > limit:
        raise OSError(errno.EFBIG, f"the event stream is larger than {limit:,} bytes")


__all__ = [
    "AGENT_STREAM",
    "LEVIATH_LOG",
    "MAX_LINE_BYTES",
    "MAX_STREAM_BYTES",
    "EventStream",
    "bounded_lines",
    "decoded",
    "open_lines",
    "read_event_file",
    "read_event_lines",
    "read_log_file",
    "sniff_format",
]
