"""GitHub Actions annotations (`--format github`): one workflow command per finding.

    ::error file=agents/a.leviath,line=4,endLine=4,col=26,endColumn=32,title=blueprint%3A unknown-stage::…

GitHub turns each line into an annotation on the file, shown in the run summary and on the
pull request diff. Text from the blueprint (names in messages, the path) is first made
visible (`compiler.display`: a newline shows as `␊`, ESC as `␛`), then every value is escaped
as actions/toolkit escapes it, so a hostile stage name or path (a newline, a `%`, a comma, an
escape sequence) cannot end the command early, start another one or reach the log raw.
`col` and `endColumn` are given only for a span on one line: GitHub ignores them otherwise.
Notes become `::notice`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic
from ..display import visible, visible_lines
from .paths import repository_path

if TYPE_CHECKING:
    from ..pipeline import FileResult
    from . import ReportOptions

#: Our severity → the workflow command.
COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}


def report(results: Sequence["FileResult"], options: "ReportOptions | None" = None) -> str:
    """Every finding of every file, one command per line (nothing at all when clean)."""
    return "".join(
        annotation(d, repository_path(d.file if d.file not in (result.path, "<string>") else result.path)) + "\n"
        for result in results
        for d in result.diagnostics
    )


def annotation(d: Diagnostic, path: str) -> str:
    """`::<command> file=…,line=…,…,title=…::<message>` for one finding in file `path`."""
    properties = [("file", visible(path))]
    if d.span is not None:
        span = d.span
        properties += [("line", str(span.line)), ("endLine", str(span.end_line))]
        if span.line == span.end_line:
            properties += [("col", str(span.column)), ("endColumn", str(span.end_column))]
    properties.append(("title", f"blueprint: {d.code}"))
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{COMMANDS.get(d.severity, 'error')} {props}::{escape_data(_message(d))}"


def _message(d: Diagnostic) -> str:
    """The message, the fix on a second line, then one line per related place: each made
    visible before the lines are joined, so only these line breaks remain."""
    lines = [d.message]
    if d.fix:
        lines.append(f"fix: {d.fix}")
    for related in d.related:
        where = f"{related.span.line}:{related.span.column}: " if related.span else ""
        lines.append(f"related: {where}{related.message}")
    return visible_lines(lines)


def escape_data(text: str) -> str:
    """A command's message: `%`, carriage return and newline escaped (actions/toolkit `escapeData`)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property value: also `:` and `,`, which end a value (actions/toolkit `escapeProperty`)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


__all__ = ["annotation", "escape_data", "escape_property", "report"]
