"""Machine-applicable edits: each fixable finding with the text edits that fix it on its own.

`--fix` rewrites a whole file; an editor's quick fix, the JSON report and SARIF `fixes` need
the same fix as ranges and replacement text, one finding at a time. Each fix is found by
running the one fixer `--fix` uses on that finding alone and comparing the text before and
after, so there is a single implementation of every fix. The edits are verified the way a
`--fix` pass is (the file reads back to the same IR and no other finding appears or
disappears): first all together, and one by one only when the batch is refused.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from typing import TYPE_CHECKING

from compiler.records import record

from ..config import DEFAULT_SETTINGS, Settings
from ..diagnostics import Span
from ..parse.source import LineIndex
from ..rulebook.fixers import KeyFix

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from ..pipeline import FileResult
    from ..rulebook.registry import Rule


@record
class TextEdit:
    """Replace the text of `span` (1-based code-point line/column, end exclusive) with
    `new_text`; an insertion has an empty span (`column == end_column` on one line)."""

    span: Span
    new_text: str

    def to_dict(self) -> dict[str, object]:
        span = self.span
        return {
            "line": span.line,
            "column": span.column,
            "end_line": span.end_line,
            "end_column": span.end_column,
            "new_text": self.new_text,
        }


@record
class Fix:
    """How to fix one finding: a short imperative title and non-overlapping edits in order."""

    title: str
    edits: tuple[TextEdit, ...]


def fixes_for(
    result: "FileResult",
    settings: Settings = DEFAULT_SETTINGS,
    only: Iterable["Diagnostic"] | None = None,
) -> dict["Diagnostic", Fix]:
    """Each fixable finding of `result` (or of `only`, a subset of its findings) mapped to the
    edits that fix it on its own. A finding that cannot be fixed safely is left out."""
    from . import fixable_codes, has_syntax_errors, rule_of

    if result.source is None or result.blueprint is None or has_syntax_errors(result):
        return {}
    codes = fixable_codes()
    wanted = result.diagnostics if only is None else tuple(only)
    text = result.source.text
    present = set(result.diagnostics)
    todo = [d for d in wanted if d.code in codes and d in present]
    found = {d: Fix(_fix_title(rule_of(d), d), edits) for d, edits in _edits_of_each(text, todo).items() if edits}
    if not found:
        return {}
    if _safe(result, found, settings):
        return found
    return {d: fix for d, fix in found.items() if _safe(result, {d: fix}, settings)}


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """`text` with `edits` applied; they must not overlap. Raises ValueError when they do or
    when a span lies outside the text."""
    starts = _line_starts(text)
    located = sorted(
        (
            _offset(starts, text, e.span.line, e.span.column),
            _offset(starts, text, e.span.end_line, e.span.end_column),
            e.new_text,
        )
        for e in edits
    )
    out: list[str] = []
    at = 0
    for start, end, new_text in located:
        if start < at or end < start:
            raise ValueError("the edits overlap")
        out += (text[at:start], new_text)
        at = end
    out.append(text[at:])
    return "".join(out)


def span_text(text: str, span: Span) -> str | None:
    """The text `span` covers, or None when it lies outside `text`."""
    starts = _line_starts(text)
    try:
        start = _offset(starts, text, span.line, span.column)
        end = _offset(starts, text, span.end_line, span.end_column)
    except ValueError:
        return None
    return text[start:end] if start <= end else None


#: The last text's line starts: the fixes of one file ask for them once per finding, and
#: counting the lines of a large file again each time made thousands of findings quadratic.
_last_starts: tuple[str, list[int]] | None = None


def _line_starts(text: str) -> list[int]:
    """The offset at which each line (counted by `\\n`, like every position) starts (shared:
    callers only read it)."""
    global _last_starts
    last = _last_starts  # read once: another thread may replace it, never half of it
    if last is not None and last[0] is text:
        return last[1]
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    _last_starts = (text, starts)
    return starts


def _offset(starts: list[int], text: str, line: int, column: int) -> int:
    """The offset of (line, column); the column may point just past the line's newline."""
    if not 1 <= line <= len(starts):
        raise ValueError(f"line {line} is outside the text")
    start = starts[line - 1]
    end = starts[line] if line < len(starts) else len(text)
    if not 1 <= column <= end - start + 1:
        raise ValueError(f"column {column} is outside line {line}")
    return start + column - 1


def _edits_of_each(text: str, diagnostics: list["Diagnostic"]) -> dict["Diagnostic", tuple[TextEdit, ...]]:
    """The edits of each finding's fix. Key and value fixes go through tomlkit, which reads the
    whole file: they are applied in one pass and the changes shared out by position (each
    change belongs to the last finding before it), and a finding whose share is unclear is
    fixed again on its own."""
    from . import fix_pass, fixer_of

    edits: dict["Diagnostic", tuple[TextEdit, ...]] = {}
    by_key = [d for d in diagnostics if isinstance(fixer_of(d), KeyFix) and d.span is not None]
    if len(by_key) > 1:
        new_text, done = fix_pass(text, by_key)
        edits.update(_share_out(text_edits(text, new_text), done))
    for diagnostic in diagnostics:
        if diagnostic in edits:
            continue
        new_text, done = fix_pass(text, [diagnostic])
        if done:
            edits[diagnostic] = text_edits(text, new_text)
    return edits


def _share_out(changes: tuple[TextEdit, ...], fixed: list["Diagnostic"]) -> dict["Diagnostic", tuple[TextEdit, ...]]:
    """Each change given to the last fixed finding that starts at or before it; a finding with
    no change, or whose change reaches over another finding's start, gets nothing here."""
    anchors = sorted(((d.span.line, d.span.column), d) for d in fixed if d.span is not None)
    starts = [at for at, _ in anchors]
    shares: dict["Diagnostic", list[TextEdit]] = {}
    refused: set["Diagnostic"] = set()
    for change in changes:
        begin = (change.span.line, change.span.column)
        end = (change.span.end_line, change.span.end_column)
        owner = bisect_right(starts, begin) - 1
        if owner < 0:
            return {}
        diagnostic = anchors[owner][1]
        if owner + 1 < len(starts) and starts[owner + 1] < end:
            refused.update(d for at, d in anchors if begin <= at < end)
            refused.add(diagnostic)
        shares.setdefault(diagnostic, []).append(change)
    return {d: tuple(share) for d, share in shares.items() if d not in refused}


def text_edits(old: str, new: str) -> tuple[TextEdit, ...]:
    """The edits that turn `old` into `new`: changed runs of lines, each trimmed to the
    characters that really differ."""
    old_lines, new_lines = _chunks(old), _chunks(new)
    old_at, new_at = _ends(old_lines), _ends(new_lines)
    index = LineIndex(old)
    edits = []
    for i1, i2, j1, j2 in _changed_blocks(old_lines, new_lines, 0, len(old_lines), 0, len(new_lines)):
        start, end = old_at[i1], old_at[i2]
        before, after = old[start:end], new[new_at[j1] : new_at[j2]]
        prefix = _common_prefix(before, after)
        suffix = _common_prefix(before[prefix:][::-1], after[prefix:][::-1])
        edits.append(TextEdit(_span(index, start + prefix, end - suffix), after[prefix : len(after) - suffix]))
    return tuple(edits)


def _changed_blocks(a: list[str], b: list[str], i1: int, i2: int, j1: int, j2: int) -> list[tuple[int, int, int, int]]:
    """The runs `a[i1:i2]` → `b[j1:j2]` that differ, found the "patience" way: lines that occur
    once on each side anchor the match and only the gaps between anchors are compared line by
    line. A fix changes a few places in a file of many alike lines (`mode = ...` in every
    stage), where a plain longest-match diff takes quadratic time."""
    while i1 < i2 and j1 < j2 and a[i1] == b[j1]:
        i1, j1 = i1 + 1, j1 + 1
    while i1 < i2 and j1 < j2 and a[i2 - 1] == b[j2 - 1]:
        i2, j2 = i2 - 1, j2 - 1
    if i1 == i2 or j1 == j2:
        return [(i1, i2, j1, j2)] if (i1, j1) != (i2, j2) else []
    anchors = _unique_anchors(a, b, i1, i2, j1, j2)
    if not anchors:
        matcher = difflib.SequenceMatcher(None, a[i1:i2], b[j1:j2], autojunk=False)
        return [(i1 + p, i1 + q, j1 + r, j1 + t) for tag, p, q, r, t in matcher.get_opcodes() if tag != "equal"]
    blocks: list[tuple[int, int, int, int]] = []
    for i, j in [*anchors, (i2, j2)]:
        blocks += _changed_blocks(a, b, i1, i, j1, j)
        i1, j1 = i + 1, j + 1
    return blocks


def _unique_anchors(a: list[str], b: list[str], i1: int, i2: int, j1: int, j2: int) -> list[tuple[int, int]]:
    """Pairs (i, j) of lines that occur exactly once in each range, the longest run of them
    that is in order on both sides."""
    counts: dict[str, list[int]] = {}
    for i in range(i1, i2):
        counts.setdefault(a[i], [0, 0, i, -1])[0] += 1
    for j in range(j1, j2):
        entry = counts.get(b[j])
        if entry is not None:
            entry[1] += 1
            entry[3] = j
    pairs = [(entry[2], entry[3]) for entry in counts.values() if entry[0] == 1 and entry[1] == 1]
    pairs.sort()
    # the longest increasing run of j (patience sorting), with back links to rebuild it
    tops: list[int] = []
    tails: list[int] = []
    back: list[int] = []
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(tops, j)
        back.append(tails[k - 1] if k else -1)
        if k == len(tops):
            tops.append(j)
            tails.append(n)
        else:
            tops[k], tails[k] = j, n
    chain: list[tuple[int, int]] = []
    n = tails[-1] if tails else -1
    while n >= 0:
        chain.append(pairs[n])
        n = back[n]
    return chain[::-1]


def _chunks(text: str) -> list[str]:
    """`text` cut after each `\\n`: the pieces join back to exactly `text`."""
    pieces = text.split("\n")
    return [piece + "\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])


def _ends(chunks: list[str]) -> list[int]:
    """Offset of the start of each chunk, and of the end of the text."""
    ends = [0]
    for chunk in chunks:
        ends.append(ends[-1] + len(chunk))
    return ends


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _span(index: LineIndex, start: int, end: int) -> Span:
    """The span of offsets [start, end); empty for an insertion (unlike `LineIndex.span`)."""
    line, column = index.position(start)
    end_line, end_column = index.position(end)
    return Span(line, column, end_line, end_column)


def _fix_title(rule: "Rule | None", finding: "Diagnostic") -> str:
    assert rule is not None  # only findings of fixable rules get here
    return rule.fix_title(finding)


def _safe(result: "FileResult", fixes: dict["Diagnostic", Fix], settings: Settings) -> bool:
    """Whether applying every edit of `fixes` keeps the IR and every other finding."""
    from . import fixable_codes, unsafe_reason

    after = revalidated(result, fixes, settings)
    return after is not None and unsafe_reason(result, after, list(fixes), fixable_codes()) is None


def revalidated(result: "FileResult", fixes: dict["Diagnostic", Fix], settings: Settings) -> "FileResult | None":
    """The file validated again with every edit of `fixes` applied; None when the edits do not
    apply (they overlap, or lie outside the text)."""
    from ..pipeline import validate_bytes

    assert result.source is not None
    try:
        new_text = apply_edits(result.source.text, (e for fix in fixes.values() for e in fix.edits))
    except ValueError:
        return None
    return validate_bytes(result.path, new_text.encode("utf-8"), settings)


__all__ = ["Fix", "TextEdit", "apply_edits", "fixes_for", "revalidated", "span_text", "text_edits"]
