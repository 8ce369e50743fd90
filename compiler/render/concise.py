"""One line per finding (`--format concise`), for editors' problem matchers and `grep`:

    agents/a.leviath:12:26: error: edge target 'reviw' names no stage [unknown-stage]

A finding about the whole file is placed at 1:1, as SARIF places it. The message is kept on
its one line: control characters, newlines and tabs included, are shown as pictures (see
`text.visible`). Never coloured: a matcher reads it. The closing lines are the text format's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..diagnostics import Counts, Diagnostic
from ..display import visible
from .text import render_closing, render_statistics

if TYPE_CHECKING:
    from ..pipeline import FileResult
    from . import ReportOptions


def line(d: Diagnostic) -> str:
    """`path:line:col: severity: message [code]`."""
    line_number, column = (d.span.line, d.span.column) if d.span else (1, 1)
    return f"{_one_line(d.file)}:{line_number}:{column}: {d.severity}: {_one_line(d.message)} [{d.code}]"


def _one_line(text: str) -> str:
    return visible(text.replace("\n", "\u2424").replace("\t", "\u2409"))


def report(results: Sequence["FileResult"], options: "ReportOptions") -> str:
    from dataclasses import replace

    plain = replace(options, color=False)
    diagnostics = [d for result in results for d in result.diagnostics]
    blocks: list[str] = []
    if plain.shows_findings and diagnostics:
        blocks.append("\n".join(line(d) for d in diagnostics))
    if plain.statistics and diagnostics:
        blocks.append(render_statistics(diagnostics).rstrip("\n"))
    if plain.shows_closing:
        total = sum((result.counts for result in results), Counts())
        blocks.append(render_closing(total, len(results), diagnostics, plain, hint=False))
    return "\n\n".join(blocks) + "\n" if blocks else ""


__all__ = ["line", "report"]
