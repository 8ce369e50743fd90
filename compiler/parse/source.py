"""From bytes to text: the first layer, which never fails.

Invalid UTF-8 becomes a positioned diagnostic and the rest of the file is still read (with
U+FFFD in place of the bad bytes), so a stray byte in a comment does not hide every other
finding. A BOM is dropped; CRLF line ends are kept (TOML allows them) and every position
counts lines by `\\n`.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from dataclasses import field
from itertools import accumulate, repeat
from operator import add

from compiler.records import record

from ..diagnostics import Diagnostic, Span
from ..reading import read_limited
from ..rulebook.registry import SYNTAX

#: Blueprints are a few dozen kilobytes; anything this large is not one.
MAX_FILE_BYTES = 8 * 1024 * 1024

INVALID_ENCODING = SYNTAX.define(
    "invalid-encoding",
    severity="error",
    summary="The file is not valid UTF-8.",
    rationale=(
        "TOML files are UTF-8 text, and the reference runtime refuses to load anything else. "
        "The rest of the file is still checked, with the bad bytes replaced, so other findings "
        "are not hidden."
    ),
    example='[agent]\nname = "caf\\xe9"   # saved as Latin-1: the byte 0xE9 is not UTF-8',
    fix="re-save the file as UTF-8",
    illustrative_example="it stands for a byte that is not UTF-8, which no text can hold",
)

FILE_TOO_LARGE = SYNTAX.define(
    "file-too-large",
    severity="error",
    summary="The file is larger than any blueprint could reasonably be (8 MiB).",
    rationale=(
        "Real blueprints are tens of kilobytes. A file this large is almost certainly not the "
        "blueprint you meant, and reading it would only waste time and memory."
    ),
    example="# an 80 MB log file passed by mistake",
    fix="split the blueprint, or check that this is the file you meant",
    illustrative_example="it stands for a file of more than 8 MiB",
)

_BOM = b"\xef\xbb\xbf"


@record
class SourceFile:
    """A blueprint's text with the display path used in every diagnostic."""

    path: str
    text: str
    lines: "LineIndex" = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lines", LineIndex(self.text))

    def line_text(self, line: int) -> str:
        """Line `line` (1-based) without its line ending."""
        return self.lines.line_text(line)


#: Positions a `LineIndex` finds by counting newlines before it builds its table of line starts.
_DIRECT_POSITIONS = 16


class LineIndex:
    """Offset ↔ (line, column) conversion, both 1-based, columns in code points.

    The table of line starts is built on demand: most files have a finding or two, and
    counting newlines for those costs less than indexing every line of the file.
    """

    __slots__ = ("_direct", "_table", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._table: list[int] | None = None
        self._direct = 0

    @property
    def _starts(self) -> list[int]:
        if self._table is None:
            text = self._text
            # Line starts, summed from line lengths (+1 for each "\n") without a Python-level loop.
            starts = list(accumulate(map(add, map(len, text.split("\n")), repeat(1)), initial=0))
            starts.pop()  # where a line after the last one would start
            self._table = starts
        return self._table

    @property
    def count(self) -> int:
        return len(self._starts)

    def position(self, offset: int) -> tuple[int, int]:
        if self._table is None and offset >= 0 and self._direct < _DIRECT_POSITIONS:
            self._direct += 1  # the same answer as the table's, for a few lookups
            text = self._text
            return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)
        starts = self._starts
        line = bisect_right(starts, offset) - 1
        return line + 1, offset - starts[line] + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.position(start)
        end_line, end_column = self.position(max(end, start))
        if end <= start:
            end_column = column + 1
        return Span(line, column, end_line, end_column)

    def line_text(self, line: int) -> str:
        if not 1 <= line <= len(self._starts):
            return ""
        start = self._starts[line - 1]
        end = self._starts[line] - 1 if line < len(self._starts) else len(self._text)
        return self._text[start:end].rstrip("\r")

    def end_span(self) -> Span:
        """A one-character span just after the last character of the text."""
        line = len(self._starts)
        column = len(self._text) - self._starts[-1] + 1
        return Span.point(line, column)


def read_blueprint(path: "str | os.PathLike[str]") -> bytes:
    """The bytes of a blueprint file, read safely (`compiler.reading`): only a regular file,
    and never more than one byte past `MAX_FILE_BYTES` (enough for `decode` to report
    `file-too-large`). A FIFO, a device or a directory is an `OSError`, like a missing file."""
    return read_limited(path, MAX_FILE_BYTES)


def decode(path: str, data: bytes) -> tuple[SourceFile, list[Diagnostic]]:
    """Decode `data` as UTF-8, reporting (not raising on) anything that is not."""
    diagnostics: list[Diagnostic] = []
    if len(data) > MAX_FILE_BYTES:
        diagnostics.append(
            FILE_TOO_LARGE.diagnostic(
                f"file is {len(data):,} bytes; blueprints larger than {MAX_FILE_BYTES:,} bytes are not read",
                file=path,
                span=Span(1, 1, 1, 2),
            )
        )
        return SourceFile(path, ""), diagnostics
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        diagnostics.append(_encoding_diagnostic(path, data, exc))
    return SourceFile(path, text), diagnostics


def _encoding_diagnostic(path: str, data: bytes, exc: UnicodeDecodeError) -> Diagnostic:
    bad = exc.start
    line_start = data.rfind(b"\n", 0, bad) + 1
    line = data.count(b"\n", 0, bad) + 1
    column = len(data[line_start:bad].decode("utf-8", errors="replace")) + 1
    more = _count_bad_sequences(data[exc.end :])
    tail = f" (and {more} more invalid sequence{'s' if more != 1 else ''} later in the file)" if more else ""
    return INVALID_ENCODING.diagnostic(
        f"byte 0x{data[bad]:02x} is not valid UTF-8{tail}; a blueprint must be UTF-8 text",
        file=path,
        span=Span.point(line, column),
    )


def _count_bad_sequences(data: bytes) -> int:
    count = 0
    while data:
        try:
            data.decode("utf-8")
            return count
        except UnicodeDecodeError as exc:
            count += 1
            data = data[exc.end :]
    return count
