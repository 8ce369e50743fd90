"""A recorded event stream read from a file or a pipe, within bounds.

`read_event_file` is what `blueprint run --events` uses. Whatever the input, memory stays
bounded: a path must name a regular file (a FIFO or `/dev/zero` is an `OSError`), a line
longer than `MAX_LINE_BYTES` is skipped and counted without being kept, and a stream longer
than `MAX_STREAM_BYTES` is an `OSError` (`EFBIG`). Lines end at `\\n` only: U+2028 and
U+0085 are legal inside JSON strings and never split a line.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator, Mapping
from typing import IO

from ..reading import open_regular
from .events import Event
from .ndjson import StreamReader

#: One line of a stream (a message with a large tool result is a few megabytes at most).
MAX_LINE_BYTES = 16 * 1024 * 1024
#: A whole stream: a long agent session records tens of megabytes.
MAX_STREAM_BYTES = 256 * 1024 * 1024
_CHUNK = 1024 * 1024


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
    if isinstance(source, (str, os.PathLike)):
        with open_regular(source) as handle:
            return read_event_file(
                handle, tool_names, max_line=max_line, max_total=max_total, skipped_lines=skipped_lines
            )
    reader = StreamReader(tool_names)
    events: list[Event] = []
    for line in bounded_lines(source, max_line, max_total):
        if line is None:
            reader.skip_line()
        else:
            events.extend(reader.feed_line(line.decode("utf-8", errors="replace")))
    events.extend(reader.finish())
    if skipped_lines is not None:
        skipped_lines.extend(reader.skipped_lines)
    return events, reader.skipped


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


__all__ = ["MAX_LINE_BYTES", "MAX_STREAM_BYTES", "bounded_lines", "read_event_file"]
