"""The one diagnostic type every layer produces and every reporter consumes.

A `Diagnostic` is a frozen value: rules create them, the pipeline sorts and filters them,
reporters render them. Nothing here prints or exits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from compiler.records import record

Severity = Literal["error", "warning", "note"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "note")

#: A key path as jsonschema reports it: table keys are strings, array positions integers.
KeyPath = tuple["str | int", ...]


@record(order=True)
class Span:
    """A source range. Lines and columns are 1-based code points; `end_column` is the
    column just after the last character (the SARIF convention)."""

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, line: int, column: int) -> "Span":
        return cls(line, column, line, column + 1)


@record
class Related:
    """Another place that explains a finding: the rest of a cycle, a first definition."""

    message: str
    path: KeyPath = ()
    span: Span | None = None

    @property
    def key_path(self) -> str:
        return format_key_path(self.path)


@record
class Diagnostic:
    """One finding: its rule `code`, `severity`, `message` and one-line `fix`, where it is
    (`file`, key `path`, `span`; `line`/`column` are None when the span is) and the `stage` it
    concerns, with `related` places that explain it."""

    code: str
    severity: Severity
    message: str
    file: str = "<string>"
    path: KeyPath = ()
    span: Span | None = None
    stage: str | None = None
    fix: str | None = None
    related: tuple[Related, ...] = ()

    @property
    def key_path(self) -> str:
        return format_key_path(self.path)

    @property
    def line(self) -> int | None:
        return self.span.line if self.span else None

    @property
    def column(self) -> int | None:
        return self.span.column if self.span else None

    @property
    def end_line(self) -> int | None:
        return self.span.end_line if self.span else None

    @property
    def end_column(self) -> int | None:
        return self.span.end_column if self.span else None

    def sort_key(self) -> tuple:
        span = self.span or Span(0, 0, 0, 0)
        return (self.file, span.line, span.column, self.code, self.message)

    def to_dict(self) -> dict:
        """The JSON report shape (schemas/report.schema.json)."""
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "key_path": self.key_path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "stage": self.stage,
            "fix": self.fix,
            "related": [
                {
                    "message": r.message,
                    "key_path": r.key_path,
                    "line": r.span.line if r.span else None,
                    "column": r.span.column if r.span else None,
                    "end_line": r.span.end_line if r.span else None,
                    "end_column": r.span.end_column if r.span else None,
                }
                for r in self.related
            ],
        }


def sort_diagnostics(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """Sorted by (file, line, column, code, message) with exact duplicates removed."""
    unique = {d: None for d in diagnostics}
    return sorted(unique, key=Diagnostic.sort_key)


_BARE_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def format_key(key: str) -> str:
    """A key as TOML would spell it: bare when possible, else a basic quoted string."""
    if key and all(c in _BARE_KEY_CHARS for c in key):
        return key
    escaped = key.replace("\\", "\\\\").replace('"', '\\"')
    escaped = "".join(c if c.isprintable() else _escaped(c) for c in escaped)
    return f'"{escaped}"'


def _escaped(char: str) -> str:
    return f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"


def format_key_path(path: KeyPath) -> str:
    """`stages.plan.transitions.review`, `stages.plan.interaction_points[0].style`."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + format_key(part)
    return out


@record
class Counts:
    errors: int = 0
    warnings: int = 0
    notes: int = 0

    @classmethod
    def of(cls, diagnostics: Sequence[Diagnostic]) -> "Counts":
        e = sum(1 for d in diagnostics if d.severity == "error")
        w = sum(1 for d in diagnostics if d.severity == "warning")
        return cls(e, w, len(diagnostics) - e - w)

    def __add__(self, other: "Counts") -> "Counts":
        return Counts(self.errors + other.errors, self.warnings + other.warnings, self.notes + other.notes)

    def failing(self, deny_warnings: bool = False) -> bool:
        return self.errors > 0 or (deny_warnings and self.warnings > 0)


__all__ = [
    "SEVERITIES",
    "Counts",
    "Diagnostic",
    "KeyPath",
    "Related",
    "Severity",
    "Span",
    "format_key",
    "format_key_path",
    "sort_diagnostics",
]
