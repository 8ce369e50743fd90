"""Suppression comments, and the finding for one that suppresses nothing.

    max_iterations = 500          # blueprint: ignore[stuck-threshold-unreachable]
    # blueprint: ignore[unreachable-stage]
    [stages.legacy]
    # blueprint: ignore-file[stage-missing-model, stage-missing-mode]

A trailing directive covers findings that start on its own line; a directive alone on its line
covers the next line; `ignore-file[...]` covers the whole file. `ignore` without a list covers
every code on that line. Codes are rule codes or `all`. A directive (or one of its codes) that
suppresses nothing is reported as `unused-suppression`, so stale ones do not pile up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .diagnostics import Diagnostic, Related, Span
from .parse.comments import iter_comments
from .rulebook.fixers import LineEdits, LineFix, Unfixable
from .rulebook.registry import META, REGISTRY
from .rulebook.snippets import MODEL
from .rulebook.snippets import stage as declared
from .rules.context import RuleContext

_DIRECTIVE = re.compile(r"\s*blueprint\s*:\s*(?P<kind>[A-Za-z_-]+)\s*(?:\[(?P<codes>[^\]]*)\])?")
_KINDS = ("ignore", "ignore-file")
#: What every directive's text contains (and more: it also matches inside strings).
_MAY_HOLD_DIRECTIVE = re.compile(r"#\s*blueprint\s*:")
_COMMA = re.compile(r"\s*,\s*")


def drop_unused(edits: LineEdits, finding: Diagnostic) -> None:
    """The fixer: cut a code that matched nothing out of its directive (the whole directive when
    no code is left), or a blanket `ignore` that matched nothing. A misspelled code or a
    malformed directive is left to the author, who meant to suppress *something*."""
    span = finding.span
    if span is None:
        raise Unfixable("no position")
    if finding.related:  # it names the finding it meant, now reported under another code
        raise Unfixable("the author meant a finding that has a new code: renaming it is theirs to do")
    line = edits.line(span.line)
    start = _comment_start(line)
    match = _DIRECTIVE.match(line, start + 1) if start is not None else None
    if start is None or match is None or match["kind"] not in _KINDS:
        raise Unfixable("no directive where the finding points")
    at = span.column - 1
    if at == start:  # the whole directive: only a blanket `ignore` that matched nothing
        if match["kind"] != "ignore" or match["codes"] is not None:
            raise Unfixable("not a blanket ignore")
        edits.replace_line(span.line, _without_comment(line, start))
        return
    if match["codes"] is None or not match.start("codes") <= at < match.end("codes"):
        raise Unfixable("the finding points at no code of the directive")
    end = span.end_column - 1
    code = line[at:end]
    if code != "all" and REGISTRY.get(code) is None:
        raise Unfixable("a misspelling: the author meant some code")
    codes = [c for c in match["codes"].split(",") if c.strip()]
    if len(codes) <= 1:
        edits.replace_line(span.line, _without_comment(line, start))
        return
    after = _COMMA.match(line, end, match.end("codes"))
    if after is not None:  # `a, b` without `a`: the code and the comma after it
        edits.replace_line(span.line, line[:at] + line[after.end() :])
    else:  # the last code: the comma before it too
        before = line.rindex(",", match.start("codes"), at)
        edits.replace_line(span.line, line[:before].rstrip(" \t") + line[end:])


UNUSED_SUPPRESSION = META.define(
    "unused-suppression",
    severity="warning",
    summary="A `# blueprint: ignore[...]` directive suppresses nothing.",
    rationale=(
        "A suppression that no longer matches a finding hides nothing today but will silently hide "
        "a real finding tomorrow, and it misleads readers about what is wrong with the file. "
        "Unknown codes and misspelled directives are reported the same way."
    ),
    example=(
        f'[stages.plan]\nmode = "autonomous"  # blueprint: ignore[stage-missing-mode]\n{MODEL}\nmax_iterations = 20'
    ),
    example_fixed=declared("plan"),
    fix="remove the directive, or the code that no longer fires",
    fixer=LineFix(drop_unused),
)


@dataclass
class _Directive:
    kind: str
    #: Line whose findings it covers (None for file-level).
    target: int | None
    #: code → span of that code in the comment; empty = every code on the target line.
    codes: dict[str, Span]
    span: Span
    used: set[str] = field(default_factory=set)

    def covers(self, diagnostic: Diagnostic) -> str | None:
        """The directive code that suppresses `diagnostic`, if any ('*' for a blanket one)."""
        if self.target is not None and (diagnostic.span is None or diagnostic.span.line != self.target):
            return None
        if not self.codes:
            return "*"
        for code in (diagnostic.code, "all"):
            if code in self.codes:
                return code
        return None


def apply_suppressions(ctx: RuleContext, diagnostics: list[Diagnostic], families: tuple[str, ...]) -> list[Diagnostic]:
    """Drop suppressed findings; add `unused-suppression` for directives that did nothing."""
    if not _MAY_HOLD_DIRECTIVE.search(ctx.source.text):  # most files: skip reading every comment
        return diagnostics
    directives, malformed = _directives(ctx)
    if not directives and not malformed:
        return diagnostics
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        hit = None
        for directive in directives if diagnostic.file == ctx.file else ():  # another file's finding
            hit = directive.covers(diagnostic)
            if hit is not None:
                directive.used.add(hit)
                break
        if hit is None:
            kept.append(diagnostic)
    if ctx.settings.enabled(UNUSED_SUPPRESSION.code, UNUSED_SUPPRESSION.family):
        findings = tuple(kept)
        kept.extend(malformed)
        for directive in directives:
            kept.extend(_unused(ctx, directive, families, findings))
    return kept


def _directives(ctx: RuleContext) -> tuple[list[_Directive], list[Diagnostic]]:
    directives: list[_Directive] = []
    malformed: list[Diagnostic] = []
    for comment in iter_comments(ctx.source.text, ctx.source.lines):
        match = _DIRECTIVE.match(comment.text)
        if not match:
            continue
        base = comment.column + 1  # column of the first character after '#'
        span = Span(comment.line, comment.column, comment.line, comment.column + 1 + len(comment.text.rstrip()))
        kind = match.group("kind")
        if kind not in _KINDS:
            import difflib  # only for a misspelt comment

            suggestion = difflib.get_close_matches(kind, _KINDS, n=1)
            malformed.append(
                _diagnostic(
                    ctx,
                    f"'blueprint: {kind}' is not a directive (use 'ignore[...]' or 'ignore-file[...]')",
                    span,
                    f"did you mean 'blueprint: {suggestion[0]}[...]'?" if suggestion else None,
                )
            )
            continue
        codes: dict[str, Span] = {}
        if match.group("codes") is not None:
            offset = match.start("codes")
            for code_match in re.finditer(r"[^,\s]+", match.group("codes")):
                start = base + offset + code_match.start()
                codes[code_match.group()] = Span(comment.line, start, comment.line, start + len(code_match.group()))
        if kind == "ignore-file" and not codes:
            malformed.append(
                _diagnostic(
                    ctx,
                    "'blueprint: ignore-file' needs the codes it ignores, e.g. 'ignore-file[unknown-key]'",
                    span,
                    "list the codes in brackets, or 'all'",
                )
            )
            continue
        target = None if kind == "ignore-file" else comment.line + (1 if comment.own_line else 0)
        directives.append(_Directive(kind, target, codes, span))
    return directives, malformed


def _unused(
    ctx: RuleContext, directive: _Directive, families: tuple[str, ...], findings: tuple[Diagnostic, ...]
) -> list[Diagnostic]:
    where = "this file" if directive.target is None else f"line {directive.target}"
    if not directive.codes:
        if "*" in directive.used:
            return []
        return [_diagnostic(ctx, f"'blueprint: ignore' suppresses nothing on {where}", directive.span, None)]
    out = []
    for code, span in directive.codes.items():
        if code in directive.used:
            continue
        info = REGISTRY.get(code)
        if code != "all" and info is None:
            import difflib  # only for an unknown code

            close = difflib.get_close_matches(code, list(REGISTRY.rules), n=1)
            out.append(
                _diagnostic(
                    ctx,
                    f"'{code}' is not a rule code",
                    span,
                    f"did you mean '{close[0]}'?" if close else "see `blueprint rules` for every code",
                )
            )
            continue
        if info is not None and (info.family not in families and info.family != "meta"):
            continue  # that family does not run in this command; it may well be needed elsewhere
        if info is not None and not ctx.settings.enabled(code, info.family):
            continue  # not selected in this run, so we cannot tell
        message = f"suppression of '{code}' is unused: no such finding on {where}"
        renamed = _renamed(directive, code, findings)
        if renamed is None:
            out.append(_diagnostic(ctx, message, span, None))
            continue
        out.append(
            _diagnostic(
                ctx,
                f"{message}; the finding there, '{renamed.code}', is one earlier versions reported as '{code}'",
                span,
                f"write '{renamed.code}' instead of '{code}', or fix what it reports",
                (Related(f"the finding now reported as '{renamed.code}'", renamed.path, renamed.span),),
            )
        )
    return out


def _renamed(directive: _Directive, code: str, findings: tuple[Diagnostic, ...]) -> Diagnostic | None:
    """A finding the directive covers but for its code, of a rule earlier versions reported as `code`."""
    successors = {rule.code for rule in REGISTRY.successors(code)}
    if not successors:
        return None
    for finding in findings:
        if finding.code in successors and (
            directive.target is None or (finding.span is not None and finding.span.line == directive.target)
        ):
            return finding
    return None


def _diagnostic(
    ctx: RuleContext, message: str, span: Span, fix: str | None, related: tuple[Related, ...] = ()
) -> Diagnostic:
    return UNUSED_SUPPRESSION.diagnostic(
        message, file=ctx.file, span=span, fix=fix or UNUSED_SUPPRESSION.fix, related=related
    )


def _without_comment(line: str, start: int) -> str | None:
    """The line without its comment (from column `start`); None when nothing is left."""
    before = line[:start].rstrip(" \t")
    if not before.strip():
        return None
    return before + ("\r" if line.endswith("\r") else "")


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
