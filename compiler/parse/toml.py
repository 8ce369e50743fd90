"""Text → TOML document, with syntax errors as positioned diagnostics.

The read path uses the standard library's `tomllib` (strict TOML 1.0, the fastest reader we
have); tomlkit is kept for the commands that write a file back. On Python < 3.14 tomllib
carries the error position only in its message, so we read it from there.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..diagnostics import Diagnostic, Related, Span, format_key_path
from ..rulebook.registry import SYNTAX
from ..rulebook.snippets import stage as declared
from .comments import TOKENS
from .positions import PositionIndex
from .reader import read_plain

if TYPE_CHECKING:
    import tomllib
from .source import SourceFile
from .syntax_errors import explain, twice

#: Deeper than any blueprint needs; keeps every later recursive walk well inside the stack.
MAX_DEPTH = 48

TOML_SYNTAX = SYNTAX.define(
    "toml-syntax",
    severity="error",
    summary="The file is not valid TOML 1.0.",
    rationale=(
        "Nothing can be read from a file that does not parse; the reference runtime refuses it "
        "with 'Failed to parse agent.leviath'. Only the first syntax error can be reported: "
        "after it, the reader cannot know what the rest of the file means."
    ),
    example='[agent]\nname = "coder\n\n' + declared("plan", max_iterations=10),
    example_fixed='[agent]\nname = "coder"\n\n' + declared("plan", max_iterations=10),
    fix="correct the TOML at the position shown",
    leviath="P1",
)

DUPLICATE_KEY = SYNTAX.define(
    "duplicate-key",
    severity="error",
    summary="A key or table header appears twice.",
    rationale=(
        "TOML forbids defining a key or a table twice, and the reference runtime refuses the "
        "file. It usually means two edits of the same setting, and only one of them can be "
        "what the author meant. This is also why two stages, regions or edges can never share "
        "a name."
    ),
    example='[agent]\nname = "dup"\n\n' + declared("plan", "max_iterations = 20", max_iterations=10),
    example_fixed='[agent]\nname = "dup"\n\n' + declared("plan"),
    fix="TOML allows each key and table once; merge the two definitions",
    leviath="P1, V1",
)

NESTING_TOO_DEEP = SYNTAX.define(
    "nesting-too-deep",
    severity="error",
    summary="Arrays or tables nest deeper than 48 levels.",
    rationale=(
        "No blueprint key nests more than a handful of levels. Absurd nesting is either "
        "generated garbage or an attempt to exhaust the reader, so it is refused up front."
    ),
    example="[agent]\nname = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    fix="flatten the nested value",
)

_AT = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)$")
_OVERWRITE = re.compile(
    r"^(?:Cannot (?:overwrite a value|declare .* twice|mutate immutable namespace|redefine namespace)|Duplicate inline table key)"
)


def parse_toml(source: SourceFile) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """The document, or None and one `toml-syntax` / `nesting-too-deep` diagnostic.

    `read_plain` reads most blueprints in a third of tomllib's time; what it leaves (other
    TOML, and every error) tomllib reads, and words the errors."""
    document = read_plain(source.text)
    if document is None:
        import tomllib

        try:
            document = tomllib.loads(source.text)
        except tomllib.TOMLDecodeError as exc:
            return None, [_syntax_diagnostic(source, exc)]
        except RecursionError:
            return None, [_too_deep(source, None)]
        except ValueError:  # Python converts at most 4,300 digits to an int (a guard against slow conversions)
            return None, [_too_long_integer(source)]
    too_deep, huge = _walk(document)
    if too_deep is not None:
        return None, [_too_deep(source, too_deep)]
    if not huge:
        return document, []
    index = PositionIndex(source.text, source.lines)  # one scan of the text for every huge integer
    return document, [_huge_integer(source, index, path, value) for path, value in huge]


def _syntax_diagnostic(source: SourceFile, exc: tomllib.TOMLDecodeError) -> Diagnostic:
    raw = str(exc.args[0]) if exc.args else str(exc)
    line = getattr(exc, "lineno", None)
    column = getattr(exc, "colno", None)
    match = _AT.search(raw)
    if match:
        raw = raw[: match.start()]
        if line is None and match.group(1):
            line, column = int(match.group(1)), int(match.group(2))
    if _OVERWRITE.match(raw) and line is not None:
        duplicate = _explain_duplicate(source, line)
        if duplicate is not None:
            return duplicate
        message, fix = twice(raw)
        return TOML_SYNTAX.diagnostic(message, file=source.path, span=Span.point(line, column or 1), fix=fix)
    text = source.text
    offset = len(text) if line is None else _offset(text, line, column or 1)
    said = explain(text, raw, offset)
    return TOML_SYNTAX.diagnostic(
        said.message, file=source.path, span=source.lines.span(said.offset, said.offset + 1), fix=said.fix
    )


def _offset(text: str, line: int, column: int) -> int:
    """The offset of (line, column), both 1-based, in `text`."""
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return min(start + column - 1, len(text))


def _explain_duplicate(source: SourceFile, line: int) -> Diagnostic | None:
    """Name the duplicated key and point at both definitions, when the line shows it."""
    text = source.text
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    try:
        index = PositionIndex(text[:start])
        found = index.resolve_line(source.line_text(line))
    except Exception:  # the prefix ends inside a construct the error line continues
        return None
    if found is None:
        return None
    path, key_start, key_end, is_header = found
    first, _ = index.locate(path, prefer="key") if path in index else (None, ())
    if first is None:
        return None
    shown = format_key_path(path)
    what = f"table [{shown}]" if is_header else f"key '{shown}'"
    return DUPLICATE_KEY.diagnostic(
        f"{what} is defined twice (first at line {first.line})",
        file=source.path,
        path=path,
        span=Span(line, key_start + 1, line, key_end + 1),
        related=(Related("first defined here", path, first),),
    )


_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1


def _walk(document: Any) -> tuple[tuple | None, list[tuple[tuple, int]]]:
    """The first path nested too deep (if any), and every integer outside 64 bits."""
    if _within_limits(document):  # the common case, answered without building a path per value
        return None, []
    huge: list[tuple[tuple, int]] = []
    stack: list[tuple[Any, tuple]] = [(document, ())]
    while stack:
        value, path = stack.pop()
        if len(path) > MAX_DEPTH:
            return path, huge
        if isinstance(value, dict):
            stack.extend((v, path + (k,)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, path + (i,)) for i, v in enumerate(value))
        elif type(value) is int and not _INT_MIN <= value <= _INT_MAX:
            huge.append((path, value))
    return None, sorted(huge, key=lambda item: str(item[0]))


def _within_limits(document: Any) -> bool:
    """No value nested deeper than MAX_DEPTH and no integer outside 64 bits."""
    if not isinstance(document, (dict, list)):
        return type(document) is not int or _INT_MIN <= document <= _INT_MAX
    stack: list[tuple[Any, int]] = [(document, 0)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value
        if children and depth >= MAX_DEPTH:
            return False
        for child in children:
            kind = type(child)
            if kind is str:  # most values: nothing to check
                continue
            if kind is dict or kind is list or isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
            elif kind is int and not _INT_MIN <= child <= _INT_MAX:
                return False
    return True


def _huge_integer(source: SourceFile, index: PositionIndex, path: tuple, value: int) -> Diagnostic:
    """TOML integers are 64-bit; tomllib accepts more, the reference's reader does not."""
    span, _ = index.locate(path, prefer="value")
    return _out_of_range(source, span, str(value), path)


#: More digits than Python converts to an int, written with or without underscores.
_LONG_INTEGER = re.compile(r"[0-9](?:_?[0-9]){4000,}")


def _too_long_integer(source: SourceFile) -> Diagnostic:
    """An integer with more digits than Python converts: out of 64 bits, as `_huge_integer`
    says of shorter ones, at the first such number."""
    found = _LONG_INTEGER.search(source.text)
    if found is None:  # not a number after all: no position to give
        return _out_of_range(source, source.lines.end_span(), "")
    return _out_of_range(source, source.lines.span(*found.span()), found.group().replace("_", ""))


def _out_of_range(source: SourceFile, span: Span | None, digits: str, path: tuple = ()) -> Diagnostic:
    """The finding for an integer outside 64 bits, written `digits` ("" when unknown)."""
    if not digits:
        shown = "with thousands of digits"
    else:
        shown = digits if len(digits) <= 30 else f"{digits[:12]}…({len(digits)} digits)"
    return TOML_SYNTAX.diagnostic(
        f"invalid TOML: integer {shown} does not fit in 64 bits (TOML integers range from -2^63 to 2^63-1)",
        file=source.path,
        path=path,
        span=span,
        fix="use a smaller number",
    )


def _deep_offset(text: str) -> int:
    """Where bracket nesting first passes MAX_DEPTH, ignoring strings and comments."""
    depth = 0
    for token in TOKENS.finditer(text):
        c = token.group()
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return token.start()
        elif c in "]}":
            depth -= 1
    return 0


def _too_deep(source: SourceFile, path: tuple | None) -> Diagnostic:
    """Where brackets first nest too deep; nesting made with dotted keys and table headers has
    no such bracket, so then at the first value nested too deep (its key, as far as it goes)."""
    offset = _deep_offset(source.text)
    span = None
    if offset == 0 and path:
        span = PositionIndex(source.text, source.lines).locate(path[: MAX_DEPTH + 1], prefer="key")[0]
    if span is None:
        span = Span.point(*source.lines.position(offset))
    return NESTING_TOO_DEEP.diagnostic(
        f"tables and arrays nest more than {MAX_DEPTH} levels deep here; no blueprint key needs more than a few",
        file=source.path,
        path=tuple(path[: MAX_DEPTH + 1]) if path else (),
        span=span,
    )
