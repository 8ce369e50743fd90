"""Unsafe fixes: the name a finding suggests written in place of the misspelt one.

`max_iteration = 5` is reported with "did you mean 'max_iterations'?", `to = "reveiw"` with
"did you mean 'review'?". Writing the suggestion is usually what the author meant, but unlike
a `--fix` fix it changes what the file means (a cap starts to count, an edge leads somewhere
else), so only `--unsafe-fixes` applies it, as ruff does with its unsafe fixes.

A suggestion is written only where the finding's range is exactly the misspelt token (a
bare key, or a one-line string whose content the message quotes), and it is kept only when
the fixed file still parses, the finding is gone and no new error appears.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..config import DEFAULT_SETTINGS, Settings
from ..diagnostics import format_key
from .edits import Fix, TextEdit, revalidated, span_text

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from ..pipeline import FileResult

SUGGESTION = re.compile(r"did you mean '(?P<name>[^'\n]+)'\?")
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def suggestion(finding: "Diagnostic") -> str | None:
    """The name a finding's fix hint suggests ("did you mean 'review'?"), if it gives one."""
    match = SUGGESTION.search(finding.fix or "")
    return match.group("name") if match else None


def suggestion_fix(text: str, finding: "Diagnostic") -> Fix | None:
    """The edit that writes the finding's suggestion over the misspelt token, unverified; None
    when the finding suggests nothing or its range is not exactly one token it quotes."""
    name = suggestion(finding)
    span = finding.span
    if name is None or span is None or span.line != span.end_line:
        return None
    token = span_text(text, span)
    if token is None:
        return None
    if token[:1] in ("'", '"'):
        quote = token[0]
        if len(token) < 2 or token[-1] != quote or token.startswith(quote * 3):
            return None
        old = token[1:-1]
        if quote == '"' and "\\" in old:
            return None  # an escape: the text is not the name the message quotes
        new = f"'{name}'" if quote == "'" and "'" not in name else json.dumps(name, ensure_ascii=False)
    elif _BARE.fullmatch(token):
        old, new = token, format_key(name)
    else:
        return None
    if old == name or f"'{old}'" not in finding.message:
        return None
    return Fix(f"Replace '{old}' with '{name}'", (TextEdit(span, new),))


def suggestion_fixes_for(
    result: "FileResult",
    settings: Settings = DEFAULT_SETTINGS,
    only: Iterable["Diagnostic"] | None = None,
) -> dict["Diagnostic", Fix]:
    """Each finding of `result` (or of `only`) whose suggestion can be written, with its edit:
    checked all together, and one by one only when the batch is refused."""
    from . import has_syntax_errors

    if result.source is None or has_syntax_errors(result):
        return {}
    text = result.source.text
    found: dict["Diagnostic", Fix] = {}
    taken: set[tuple[int, int, int, int]] = set()
    for finding in result.diagnostics if only is None else only:
        fix = suggestion_fix(text, finding)
        if fix is None:
            continue
        span = fix.edits[0].span
        where = (span.line, span.column, span.end_line, span.end_column)
        if where not in taken:  # two findings of one token: one edit
            taken.add(where)
            found[finding] = fix
    if not found or _improves(result, found, settings):
        return found
    return {d: fix for d, fix in found.items() if _improves(result, {d: fix}, settings)}


def _improves(result: "FileResult", fixes: dict["Diagnostic", Fix], settings: Settings) -> bool:
    """Whether writing `fixes` leaves a file that parses, without the findings they fix and
    with no more errors than before."""
    from . import has_syntax_errors

    after = revalidated(result, fixes, settings)
    if after is None:
        return False
    if has_syntax_errors(after) or (result.blueprint is not None and after.blueprint is None):
        return False
    left = {(d.code, d.path) for d in after.diagnostics}
    if any((d.code, d.path) in left for d in fixes):
        return False
    return after.counts.errors <= result.counts.errors


__all__ = ["SUGGESTION", "suggestion", "suggestion_fix", "suggestion_fixes_for"]
