"""The human report: one line per finding, the source line with a caret, the fix, a summary.

    plan.leviath:12:26: error[unknown-stage] edge target 'reviw' names no stage
       |
    12 | [stages.plan.transitions.reviw]
       |                          ^^^^^
       = fix: did you mean 'review'?

Colour is decided by the caller (the CLI honours --color and NO_COLOR); this module only
formats.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ..diagnostics import Counts, Diagnostic
from ..display import plural, visible
from ..parse.source import SourceFile

if TYPE_CHECKING:
    from ..fix.edits import Fix
    from ..pipeline import FileResult
    from . import ReportOptions

_STYLES = {
    "error": "\x1b[1;31m",
    "warning": "\x1b[1;33m",
    "note": "\x1b[1;36m",
    "bold": "\x1b[1m",
    "dim": "\x1b[2m",
    "blue": "\x1b[1;34m",
    "removed": "\x1b[31m",
    "added": "\x1b[32m",
    "reset": "\x1b[0m",
}


class _Painter:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, style: str, text: str) -> str:
        return f"{_STYLES[style]}{text}{_STYLES['reset']}" if self.color and text else text


#: Marks a finding `--fix` can fix, in its headline and in the closing line.
FIXABLE_MARK = "[*]"
#: Marks a finding only `--fix --unsafe-fixes` fixes (the fix changes what the file means).
UNSAFE_MARK = "[~]"


def render_diagnostic(
    diagnostic: Diagnostic,
    source: SourceFile | None,
    *,
    color: bool = False,
    fixable: bool = False,
    unsafe: bool = False,
) -> str:
    """One finding: the headline, the source excerpt with a caret, related places, the fix."""
    paint = _Painter(color)
    where = visible(diagnostic.file)
    if diagnostic.span:
        where += f":{diagnostic.span.line}:{diagnostic.span.column}"
    shown = FIXABLE_MARK if fixable else UNSAFE_MARK if unsafe else ""
    mark = f" {paint('blue', shown)}" if shown else ""
    head = (
        f"{paint('bold', where + ':')} {paint(diagnostic.severity, diagnostic.severity)}"
        f"{paint('dim', '[' + diagnostic.code + ']')}{mark} {visible(diagnostic.message)}"
    )
    lines = [head]
    if diagnostic.span and source is not None:
        lines.extend(_excerpt(diagnostic, source, paint))
    for related in diagnostic.related:
        file = visible(diagnostic.file)
        at = f"{file}:{related.span.line}:{related.span.column}: " if related.span else ""
        lines.append(f"   {paint('blue', '=')} {paint('bold', 'related')}: {at}{visible(related.message)}")
    if diagnostic.fix:
        lines.append(f"   {paint('blue', '=')} {paint('bold', 'fix')}: {visible(diagnostic.fix)}")
    return "\n".join(lines)


def render_edits(fix: "Fix", source: SourceFile, *, color: bool = False, unsafe: bool = False) -> str:
    """A fix under its finding (`--show-fixes`): its title, then for each edit the lines it
    changes, as removed (`-`) and added (`+`) lines."""
    paint = _Painter(color)
    mark = UNSAFE_MARK if unsafe else FIXABLE_MARK
    lines = [f"   {paint('blue', '=')} {paint('bold', 'edit')} {paint('blue', mark)}: {visible(fix.title)}"]
    for edit in fix.edits:
        span = edit.span
        old_lines = [source.line_text(n) for n in range(span.line, span.end_line + 1)]
        old = "\n".join(old_lines)
        end = len(old) - len(old_lines[-1]) + span.end_column - 1
        new = old[: span.column - 1] + edit.new_text + old[end:]
        lines.extend(f"     {paint('removed', '- ' + _shown(line))}" for line in old_lines)
        lines.extend(f"     {paint('added', '+ ' + _shown(line))}" for line in new.split("\n"))
    return "\n".join(lines)


def _excerpt(diagnostic: Diagnostic, source: SourceFile, paint: _Painter) -> list[str]:
    span = diagnostic.span
    assert span is not None
    text = source.line_text(span.line)
    if not text and span.line > source.lines.count:
        return []
    number = str(span.line)
    gutter = " " * len(number)
    end = span.end_column - 1 if span.end_line == span.line else len(text)
    start = _width(_shown(text[: span.column - 1]))
    width = max(1, _width(_shown(text[:end])) - start)
    caret = " " * start + "^" * width
    bar = paint("blue", "|")
    return [
        f"{gutter} {bar}",
        f"{paint('blue', number)} {bar} {_shown(text)}",
        f"{gutter} {bar} {paint(diagnostic.severity, caret)}",
    ]


def _shown(line: str) -> str:
    """A source line (or its start) as the excerpt shows it: tabs expanded, controls visible."""
    return visible(line.expandtabs(4))


def _width(text: str) -> int:
    """Display width: wide East Asian characters as 2, combining marks as 0."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        elif unicodedata.east_asian_width(char) in ("W", "F"):
            width += 2
        else:
            width += 1
    return width


def render_summary(counts: Counts, files: int, *, color: bool = False) -> str:
    paint = _Painter(color)
    body = f"{plural(counts.errors, 'error')}, {plural(counts.warnings, 'warning')}, {plural(counts.notes, 'note')}"
    style = "error" if counts.errors else "warning" if counts.warnings else "bold"
    return f"{paint(style, 'Checked ' + plural(files, 'file'))}: {body}"


def render_report(
    results: Sequence[tuple[Sequence[Diagnostic], SourceFile | None]],
    *,
    color: bool = False,
    summary: bool = True,
) -> str:
    """Every finding of every file, blank-line separated, then the summary line."""
    blocks: list[str] = []
    total = Counts()
    for diagnostics, source in results:
        total = total + Counts.of(diagnostics)
        blocks.extend(render_diagnostic(d, source, color=color) for d in diagnostics)
    out = "\n\n".join(blocks)
    if summary:
        out = (out + "\n\n" if out else "") + render_summary(total, len(results), color=color)
    return out + "\n"


def render_statistics(diagnostics: Iterable[Diagnostic]) -> str:
    """Count per code, most frequent first (`--statistics`)."""
    counts: dict[tuple[str, str], int] = {}
    for d in diagnostics:
        counts[(d.code, d.severity)] = counts.get((d.code, d.severity), 0) + 1
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0][0]))
    width = max((len(str(n)) for _, n in rows), default=1)
    return "".join(f"{n:>{width}}  {severity:<7}  {code}\n" for (code, severity), n in rows)


_RANK = {"error": 0, "warning": 1, "note": 2}


def _most_severe(diagnostics: Sequence[Diagnostic]) -> Diagnostic:
    """The first of the most severe findings: the rule a reader should look up first."""
    return min(diagnostics, key=lambda d: _RANK.get(d.severity, 3))


def render_closing(
    counts: Counts, files: int, diagnostics: Sequence[Diagnostic], options: "ReportOptions", *, hint: bool = True
) -> str:
    """How to read the most severe finding's rule (with `hint`, when there are findings), the
    summary line, then how many findings `--fix` can fix, and `--fix --unsafe-fixes` (when any)."""
    lines = []
    if hint and diagnostics:
        code = _most_severe(diagnostics).code
        where = f" or {visible(options.rule_docs_url.replace('{code}', code))}" if options.rule_docs_url else ""
        lines.append(f"A rule's rationale, example and fix: `blueprint rule {code}`{where}")
    lines.append(render_summary(counts, files, color=options.color))
    fixable = sum(1 for d in diagnostics if d in options.fixes)
    if fixable:
        lines.append(f"{_Painter(options.color)('blue', FIXABLE_MARK)} {fixable} fixable with `--fix`")
    unsafe = sum(1 for d in diagnostics if d in options.unsafe_fixes and d not in options.fixes)
    if unsafe:
        lines.append(f"{_Painter(options.color)('blue', UNSAFE_MARK)} {unsafe} fixable with `--fix --unsafe-fixes`")
    return "\n".join(lines)


def _finding(diagnostic: Diagnostic, source: SourceFile | None, options: "ReportOptions") -> str:
    fixable, unsafe = diagnostic in options.fixes, diagnostic in options.unsafe_fixes
    block = render_diagnostic(diagnostic, source, color=options.color, fixable=fixable, unsafe=unsafe)
    fix = options.fixes.get(diagnostic) or options.unsafe_fixes.get(diagnostic)
    if options.show_fixes and fix is not None and source is not None:
        block += "\n" + render_edits(fix, source, color=options.color, unsafe=not fixable)
    return block


def report(results: Sequence["FileResult"], options: "ReportOptions") -> str:
    """The text reporter (`--format text`): findings (unless quiet), the statistics (when
    asked), the closing lines (unless the statistics were asked for alone)."""
    return "".join(finding_blocks(result, options) for result in results) + report_tail(results, options)


def finding_blocks(result: "FileResult", options: "ReportOptions") -> str:
    """One file's part of the text report, each finding followed by a blank line (nothing when
    the findings are not shown): written as soon as the file is checked."""
    if not options.shows_findings:
        return ""
    return "".join(_finding(d, result.source, options) + "\n\n" for d in result.diagnostics)


def report_tail(results: Sequence["FileResult"], options: "ReportOptions") -> str:
    """The end of the text report, after every file's findings: the statistics and the
    closing lines. Reads only the results' findings and counts, not their sources."""
    diagnostics = [d for result in results for d in result.diagnostics]
    blocks: list[str] = []
    if options.statistics and diagnostics:
        blocks.append(render_statistics(diagnostics).rstrip("\n"))
    if options.shows_closing:
        total = sum((result.counts for result in results), Counts())
        blocks.append(render_closing(total, len(results), diagnostics, options, hint=options.shows_findings))
    return "\n\n".join(blocks) + "\n" if blocks else ""
