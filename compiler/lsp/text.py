"""Positions in three systems, and the conversions between them.

- offsets: code points into a document's text (what Python slices);
- spans: 1-based lines and code-point columns, lines counted by `\\n`, `end_column` exclusive —
  every `Diagnostic` and `PositionIndex` span;
- LSP positions: 0-based lines broken at `\\n`, `\\r\\n` or `\\r`, characters in code units of
  the negotiated encoding (UTF-16 unless the client offers another). An astral character such
  as 🦀 is one code point but two UTF-16 units.

A client may send positions past the end of a line or of the text; they are clamped, as the
protocol asks, never an error.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from compiler.records import record

from ..diagnostics import Span

_LSP_BREAK = re.compile(r"\r\n|\r|\n")
_BOM = "\ufeff"


def _units(text: str, encoding: str) -> int:
    """The length of `text` in code units of `encoding`."""
    if encoding == "utf-32" or text.isascii():
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def _chars_for_units(text: str, units: int, encoding: str) -> int:
    """How many code points of `text` fit in `units` code units (a split character counts whole)."""
    if encoding == "utf-32" or text.isascii():
        return min(units, len(text))
    count = 0
    for index, c in enumerate(text):
        if count >= units:
            return index
        code = ord(c)
        if encoding == "utf-8":
            count += 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
        else:
            count += 2 if code > 0xFFFF else 1
    return len(text)


@record
class Position:
    """An LSP position: 0-based line, character in code units."""

    line: int
    character: int


class TextLines:
    """One text's LSP lines, for offset ↔ position conversion in `encoding`."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.text = text
        self.encoding = encoding
        self.starts = [0] + [m.end() for m in _LSP_BREAK.finditer(text)]
        # Spans count lines by "\n" only; they agree with LSP lines unless a lone "\r" occurs.
        self._newline_starts = self.starts if "\r" not in text else [0] + [m.end() for m in re.finditer("\n", text)]
        #: A BOM the pipeline dropped before it counted columns on the first line.
        self._bom = 1 if text.startswith(_BOM) else 0

    def _line_end(self, line: int) -> int:
        """The offset where line `line` (0-based) ends, before its line break."""
        if line + 1 < len(self.starts):
            end = self.starts[line + 1]
            return end - (2 if self.text.startswith("\r\n", end - 2) else 1)
        return len(self.text)

    def position(self, offset: int) -> Position:
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self.starts, offset) - 1
        return Position(line, _units(self.text[self.starts[line] : offset], self.encoding))

    def offset(self, line: int, character: int) -> int:
        """The offset of an LSP position, clamped to the text and to its line."""
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.text)
        start, end = self.starts[line], self._line_end(line)
        return start + _chars_for_units(self.text[start:end], max(0, character), self.encoding)

    def span_offsets(self, span: Span, *, exact: bool = False) -> tuple[int, int]:
        """The offsets a span covers (a span's columns count from after a dropped BOM)."""
        return self.span_offset(span.line, span.column, exact=exact), self.span_offset(
            span.end_line, span.end_column, exact=exact
        )

    def span_offset(self, line: int, column: int, *, exact: bool = False) -> int:
        """The offset of a span position. A finding's column past the end of its line (one that
        covers the line break) is kept on its line; with `exact`, as an edit needs, it may
        reach the start of the next line."""
        starts = self._newline_starts
        if line < 1:
            return 0
        if line > len(starts):
            return len(self.text)
        start = starts[line - 1] + (self._bom if line == 1 else 0)
        limit = starts[line] - (0 if exact else 1) if line < len(starts) else len(self.text)
        return min(start + max(column, 1) - 1, max(limit, start))

    def span_range(self, span: Span | None) -> tuple[Position, Position]:
        if span is None:
            return Position(0, 0), Position(0, 0)
        start, end = self.span_offsets(span)
        return self.position(start), self.position(max(start, end))

    def span_at(self, offset: int) -> tuple[int, int]:
        """The 1-based (line, column) of an offset, as spans count them."""
        starts = self._newline_starts
        line = bisect_right(starts, offset) - 1
        return line + 1, offset - starts[line] + 1 - (self._bom if line == 0 else 0)
