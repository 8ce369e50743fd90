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

import difflib
import re
from dataclasses import dataclass, field

from .diagnostics import Diagnostic, Span
from .parse.comments import iter_comments
from .rules.context import RuleContext
from .rules.registry import REGISTRY, define

define(
    "unused-suppression",
    severity="warning",
    family="meta",
    summary="A `# blueprint: ignore[...]` directive suppresses nothing.",
    rationale=(
        "A suppression that no longer matches a finding hides nothing today but will silently hide "
        "a real finding tomorrow, and it misleads readers about what is wrong with the file. "
        "Unknown codes and misspelled directives are reported the same way."
    ),
    example=(
        '[stages.plan]\nmode = "autonomous"  # blueprint: ignore[stage-missing-mode]'
    ),
    example_fixed='[stages.plan]\nmode = "autonomous"',
    fix="remove the directive, or the code that no longer fires",
    fixable=True,
)

_DIRECTIVE = re.compile(r"^\s*blueprint\s*:\s*(?P<kind>[A-Za-z_-]+)\s*(?:\[(?P<codes>[^\]]*)\])?")
_KINDS = ("ignore", "ignore-file")
#: What every directive's text contains (and more: it also matches inside strings).
_MAY_HOLD_DIRECTIVE = re.compile(r"#\s*blueprint\s*:")


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


def apply_suppressions(
    ctx: RuleContext, diagnostics: list[Diagnostic], families: tuple[str, ...]
) -> list[Diagnostic]:
    """Drop suppressed findings; add `unused-suppression` for directives that did nothing."""
    if not _MAY_HOLD_DIRECTIVE.search(ctx.source.text):  # most files: skip reading every comment
        return diagnostics
    directives, malformed = _directives(ctx)
    if not directives and not malformed:
        return diagnostics
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        hit = None
        for directive in directives:
            hit = directive.covers(diagnostic)
            if hit is not None:
                directive.used.add(hit)
                break
        if hit is None:
            kept.append(diagnostic)
    if ctx.settings.enabled("unused-suppression", "meta"):
        kept.extend(malformed)
        for directive in directives:
            kept.extend(_unused(ctx, directive, families))
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


def _unused(ctx: RuleContext, directive: _Directive, families: tuple[str, ...]) -> list[Diagnostic]:
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
        out.append(_diagnostic(ctx, f"suppression of '{code}' is unused: no such finding on {where}", span, None))
    return out


def _diagnostic(ctx: RuleContext, message: str, span: Span, fix: str | None) -> Diagnostic:
    info = REGISTRY.rules["unused-suppression"]
    return Diagnostic(
        code=info.code,
        severity=info.severity,
        message=message,
        file=ctx.file,
        span=span,
        fix=fix or info.fix,
    )
