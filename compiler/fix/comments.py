"""Removing suppression directives that suppress nothing (`unused-suppression`).

A directive is a comment, which tomlkit would carry as trivia of whatever item it follows;
cutting it out of the text at the exact position the finding gives is both simpler and
byte-exact. Only what is certainly stale goes: a code of a known rule that matched nothing,
or a blanket `ignore` that matched nothing. A misspelled code or a malformed directive is
left for the author, who meant to suppress *something*.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic

COMMENT_CODES = ("unused-suppression",)

_DIRECTIVE = re.compile(r"#\s*blueprint\s*:\s*(?P<kind>ignore(?:-file)?)\s*(?:\[(?P<codes>[^\]]*)\])?")


def apply_comment_fixes(text: str, diagnostics: list["Diagnostic"]) -> tuple[str, list["Diagnostic"]]:
    """`text` without the stale directives (or stale codes of a directive) the findings name."""
    from ..rules.registry import REGISTRY

    lines: list[str | None] = text.split("\n")
    # line number → (comment start column, codes to drop, drop the whole directive?)
    plans: dict[int, tuple[int, set[str], bool]] = {}
    fixed: list["Diagnostic"] = []
    for d in diagnostics:
        if d.code != "unused-suppression" or d.span is None or not 1 <= d.span.line <= len(lines):
            continue
        line = lines[d.span.line - 1] or ""
        start = _comment_start(line)
        if start is None:
            continue
        match = _DIRECTIVE.match(line, start)
        if match is None:
            continue
        at = d.span.column - 1
        if at == start:  # the whole directive: only a blanket `ignore` that matched nothing
            if match["kind"] != "ignore" or match["codes"] is not None:
                continue
            plans[d.span.line] = (start, set(), True)
        else:
            code = line[at : d.span.end_column - 1]
            if match["codes"] is None or not (match.start("codes") <= at < match.end("codes")):
                continue
            if code != "all" and REGISTRY.get(code) is None:
                continue  # a misspelling: the author meant some code; leave it to them
            _, codes, whole = plans.get(d.span.line, (start, set(), False))
            plans[d.span.line] = (start, codes | {code}, whole)
        fixed.append(d)
    for number, (start, drop, whole) in plans.items():
        lines[number - 1] = _edit(lines[number - 1] or "", start, drop, whole)
    return "\n".join(line for line in lines if line is not None), fixed


def _edit(line: str, start: int, drop: set[str], whole: bool) -> str | None:
    """The line without the dropped codes, or without the directive; None when nothing is left."""
    match = _DIRECTIVE.match(line, start)
    assert match is not None
    codes = [c.strip() for c in (match["codes"] or "").split(",") if c.strip()]
    kept = [c for c in codes if c not in drop]
    if whole or not kept:
        before = line[:start].rstrip(" \t")
        carriage = "\r" if line.endswith("\r") else ""
        if not before.strip():
            return None
        return before + carriage
    return line[: match.start("codes")] + ", ".join(kept) + line[match.end("codes") :]


def _comment_start(line: str) -> int | None:
    """Column (0-based) of the `#` that starts the line's comment, outside any string."""
    quote: str | None = None
    i = 0
    while i < len(line):
        c = line[i]
        if quote is None:
            if c == "#":
                return i
            if line.startswith(('"""', "'''"), i):
                return None  # a multi-line string: not worth the risk
            if c in "\"'":
                quote = c
        elif c == "\\" and quote == '"':
            i += 1
        elif c == quote:
            quote = None
        i += 1
    return None
