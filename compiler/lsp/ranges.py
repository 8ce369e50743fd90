"""Spans ↔ LSP ranges and positions for one analysed version (see `text.py` for the systems)."""

from __future__ import annotations

from lsprotocol import types

from ..diagnostics import Span
from .text import TextLines


def to_range(lines: TextLines, span: Span | None) -> types.Range:
    start, end = lines.span_range(span)
    return types.Range(
        start=types.Position(line=start.line, character=start.character),
        end=types.Position(line=end.line, character=end.character),
    )


def offsets_range(lines: TextLines, start: int, end: int) -> types.Range:
    a, b = lines.position(start), lines.position(end)
    return types.Range(
        start=types.Position(line=a.line, character=a.character),
        end=types.Position(line=b.line, character=b.character),
    )


def offset_of(lines: TextLines, position: types.Position) -> int:
    return lines.offset(position.line, position.character)


def span_point(lines: TextLines, position: types.Position) -> tuple[int, int]:
    """The 1-based (line, column) a span would give the character at an LSP position."""
    return lines.span_at(offset_of(lines, position))
