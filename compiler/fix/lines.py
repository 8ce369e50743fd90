"""Line fixes (`LineFix`): edits at a finding's span, for what TOML keeps nowhere (comments).

A span is only right in the text it was reported for, so the fixes of one pass are applied
last position first: a cut never moves what an earlier finding points at. A removed line is
marked, not deleted, until the end, so line numbers hold too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rulebook.fixers import LineFix, Unfixable
from .toml_edits import LEFT_ALONE

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic


def apply_line_fixes(text: str, fixes: list[tuple["Diagnostic", LineFix]]) -> tuple[str, list["Diagnostic"]]:
    """`text` with `fixes` (each finding with its rule's fixer) applied, and the findings fixed."""
    lines = TextLines(text)
    fixed = []
    located = [(d.span, d, f) for d, f in fixes if d.span is not None]
    for _, finding, fixer in sorted(located, key=lambda item: (item[0].line, item[0].column), reverse=True):
        try:
            fixer.edit(lines, finding)
        except LEFT_ALONE:
            continue
        fixed.append(finding)
    return lines.text(), fixed[::-1]


class TextLines:
    """The `LineEdits` a line fixer works through."""

    def __init__(self, text: str) -> None:
        self._lines: list[str | None] = list(text.split("\n"))

    def line(self, number: int) -> str:
        if not 1 <= number <= len(self._lines):
            raise Unfixable(f"line {number} is outside the text")
        return self._lines[number - 1] or ""

    def replace_line(self, number: int, text: str | None) -> None:
        if not 1 <= number <= len(self._lines):
            raise Unfixable(f"line {number} is outside the text")
        self._lines[number - 1] = text

    def text(self) -> str:
        return "\n".join(line for line in self._lines if line is not None)
