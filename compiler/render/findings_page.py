"""The page `blueprint docs` writes for a blueprint with errors: its findings instead of its
stages.

A blueprint that does not validate cannot be described truthfully (its stages may not even
exist), but leaving it out of a published site makes it vanish without a word. So it gets a
page of its own that says why: every finding with its severity, rule code, position, message,
fix line and the source line it points at, and the index lists it, marked as having errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compiler.records import record

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from ..pipeline import FileResult


@record
class FindingRow:
    severity: str
    code: str
    message: str
    #: `line:column`, or "" when the finding has no position (a file-level finding).
    position: str
    key_path: str
    fix: str | None
    #: The source line the finding points at (empty when it has no position).
    excerpt: str


@record
class FindingsPage:
    """What a page for a blueprint with errors shows. The attributes the index reads
    (`description`, `stages`, `edge_count`) are empty so both kinds of page share its rows."""

    name: str
    source: str | None
    findings: tuple[FindingRow, ...]
    errors: int
    description: str = ""
    stages: tuple[()] = ()
    edge_count: int = 0
    has_errors: bool = True


def findings_page(result: "FileResult", source: str | None = None) -> FindingsPage:
    """The findings of `result` (errors first, then by position), named after `[agent] name`
    when the file got that far, else after its source (as the page shows it)."""
    blueprint = result.blueprint
    name = blueprint.name if blueprint is not None and blueprint.name else (source or result.path)
    order = {"error": 0, "warning": 1, "note": 2}
    ordered = sorted(result.diagnostics, key=lambda d: (order.get(d.severity, 3), d.sort_key()))
    rows = tuple(_row(d, result) for d in ordered)
    return FindingsPage(name, source, rows, sum(1 for d in result.diagnostics if d.severity == "error"))


def _row(diagnostic: "Diagnostic", result: "FileResult") -> FindingRow:
    position, excerpt = "", ""
    if diagnostic.line is not None:
        position = f"{diagnostic.line}:{diagnostic.column}"
        if result.source is not None:
            excerpt = result.source.line_text(diagnostic.line).strip()
    return FindingRow(
        severity=diagnostic.severity,
        code=diagnostic.code,
        message=diagnostic.message,
        position=position,
        key_path=diagnostic.key_path,
        fix=diagnostic.fix,
        excerpt=excerpt,
    )


__all__ = ["FindingRow", "FindingsPage", "findings_page"]
