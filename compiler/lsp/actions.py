"""Quick fixes for the findings under the cursor.

- Every fix `blueprint validate --fix` can make, from the same code (`compiler.fix.edits`),
  verified the same way: the file keeps its IR and every other finding.
- "Replace 'reveiw' with 'review'": a misspelt name or key whose finding suggests the name
  that was meant ("did you mean 'NAME'?"): the edit `validate --unsafe-fixes` makes, from the
  same code (`compiler.fix.suggestions`), offered only when the finding's range is exactly the
  misspelt token its message quotes, so the edit replaces nothing else.
- "Ignore CODE on this line": a `# blueprint: ignore[CODE]` directive at the end of the
  finding's line (added to a directive already there), or on its own line above when the line
  ends in another comment or inside a multi-line string.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..diagnostics import Diagnostic
from ..parse.comments import TOKENS
from .diagnostics import to_lsp
from .ranges import offsets_range, to_range

if TYPE_CHECKING:
    from .documents import Analysis, Document
    from .server import BlueprintServer

_TRAILING_DIRECTIVE = re.compile(r"#\s*blueprint\s*:\s*ignore\s*\[(?P<codes>[^\]]*)\]")


def code_actions(ls: "BlueprintServer", document: "Document", analysis: "Analysis", params: Any) -> Any:
    only = params.context.only if params.context is not None else None
    if only and not any(str(kind).startswith(types.CodeActionKind.QuickFix) for kind in only):
        return None
    wanted = to_range_key(params.range)
    here = [
        finding
        for finding in analysis.result.diagnostics
        if finding.span is not None and _overlaps(to_range_key(to_range(analysis.lines, finding.span)), wanted)
    ]
    fixed = _machine_fixes(analysis, here)
    out: list[types.CodeAction] = []
    for finding in here:
        lsp_diagnostic = to_lsp(finding, analysis, document.uri, ls.client_settings)
        for title, edits, preferred in [*fixed.get(finding, []), *_fixes(analysis, finding)]:
            out.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[lsp_diagnostic],
                    is_preferred=preferred or None,
                    edit=types.WorkspaceEdit(changes={document.uri: edits}),
                )
            )
    return out


def to_range_key(r: types.Range) -> tuple[tuple[int, int], tuple[int, int]]:
    return (r.start.line, r.start.character), (r.end.line, r.end.character)


def _overlaps(a: tuple, b: tuple) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _machine_fixes(
    analysis: "Analysis", findings: list[Diagnostic]
) -> dict[Diagnostic, list[tuple[str, list[types.TextEdit], bool]]]:
    """`validate --fix`'s fix of each fixable finding, as LSP edits."""
    from ..config import DEFAULT_SETTINGS
    from ..fix.edits import fixes_for

    fixes = fixes_for(analysis.result, analysis.settings or DEFAULT_SETTINGS, only=findings) if findings else {}
    out: dict[Diagnostic, list[tuple[str, list[types.TextEdit], bool]]] = {}
    for finding, fix in fixes.items():
        edits = [
            types.TextEdit(
                range=offsets_range(analysis.lines, *analysis.lines.span_offsets(edit.span, exact=True)),
                new_text=edit.new_text,
            )
            for edit in fix.edits
        ]
        out[finding] = [(fix.title, edits, True)]
    return out


def _fixes(analysis: "Analysis", finding: Diagnostic) -> Iterator[tuple[str, list[types.TextEdit], bool]]:
    replacement = _replacement(analysis, finding)
    if replacement is not None:
        yield replacement
    # A directive needs a document that parses, and silencing `unused-suppression` with another
    # directive would only stack them up.
    ignore = _ignore_edit(analysis, finding) if analysis.parsed and finding.code != "unused-suppression" else None
    if ignore is not None:
        yield f"Ignore {finding.code} on this line", [ignore], False


def _replacement(analysis: "Analysis", finding: Diagnostic) -> tuple[str, list[types.TextEdit], bool] | None:
    """The suggestion written over the misspelt token: the edit `--unsafe-fixes` makes."""
    from ..fix.suggestions import suggestion_fix

    fix = suggestion_fix(analysis.text, finding)
    if fix is None:
        return None
    edits = [
        types.TextEdit(
            range=offsets_range(analysis.lines, *analysis.lines.span_offsets(edit.span, exact=True)),
            new_text=edit.new_text,
        )
        for edit in fix.edits
    ]
    return fix.title, edits, True


def _ignore_edit(analysis: "Analysis", finding: Diagnostic) -> types.TextEdit | None:
    """A directive covering the finding's first line, or None when none can be placed safely."""
    assert finding.span is not None
    text = analysis.text
    lines = analysis.lines
    line_start = lines.span_offset(finding.span.line, 1)
    line_end = lines.span_offset(finding.span.line, 1 << 30)
    content = text[line_start:line_end].rstrip("\r")
    strings, comment = _strings_and_comment(text, line_start, line_start + len(content))
    existing = _TRAILING_DIRECTIVE.search(content) if comment is not None else None
    if existing is not None and comment is not None and line_start + existing.start() == comment:
        codes = existing.group("codes").strip()
        at = line_start + existing.end("codes")
        new_text = (", " if codes else "") + finding.code
        return types.TextEdit(range=offsets_range(lines, at, at), new_text=new_text)
    line_end = line_start + len(content)
    if comment is None and not _inside(strings, line_end):
        directive = f"  # blueprint: ignore[{finding.code}]"
        return types.TextEdit(range=offsets_range(lines, line_end, line_end), new_text=directive)
    if _inside(strings, line_start):
        return None  # the finding's line starts inside a multi-line string: no comment fits there
    indent = content[: len(content) - len(content.lstrip())]
    directive = f"{indent}# blueprint: ignore[{finding.code}]\n"
    return types.TextEdit(range=offsets_range(lines, line_start, line_start), new_text=directive)


def _strings_and_comment(text: str, start: int, end: int) -> tuple[list[tuple[int, int]], int | None]:
    """String tokens that overlap [start, end], and the offset of a comment starting on it."""
    strings: list[tuple[int, int]] = []
    comment = None
    for token in TOKENS.finditer(text):
        if token.start() > end:
            break
        if token.end() < start:
            continue
        if token.group().startswith("#"):
            if start <= token.start() <= end and comment is None:
                comment = token.start()
        elif token.group()[0] in "\"'":
            strings.append(token.span())
    return strings, comment


def _inside(strings: list[tuple[int, int]], offset: int) -> bool:
    return any(s < offset < e for s, e in strings)
