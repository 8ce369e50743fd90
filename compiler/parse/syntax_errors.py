"""tomllib's syntax errors, said in a TOML author's words, at the place to look, with a fix.

tomllib words its errors for the parser ("Illegal character '\\n'", "Invalid value") and puts
the position where the parser stopped: after an unterminated string, at the end of the line.
`explain` turns each kind of error into what is wrong (a missing closing quote, an
unterminated table header, an invalid escape, a bad number …), moves the position to where
the author must look (the opening quote, the opening bracket, the backslash, the start of
the number) and adds a fix line. A kind it does not know keeps tomllib's words, so no error
is ever lost; `tests/cases/toml-syntax/` shows one case of each kind, and `tests/test_reader.py`
checks that every file of the toml-test invalid set gets a message and a position.
"""

from __future__ import annotations

import re

from compiler.records import record

from .comments import TOKENS

_ESCAPES = 'TOML knows \\b \\t \\n \\f \\r \\" \\\\ \\uXXXX and \\UXXXXXXXX'
_BARE_KEY = "letters, digits, '_' and '-'"
_VALUE_TOKEN = re.compile(r"[^\s,\]}#]*")
_NUMBER_START = re.compile(r"[+-]?(?:\d|inf\b|nan\b)")
_DATE_START = re.compile(r"\d{4}-|\d{2}:")


@record
class Explained:
    """Our own words for one syntax error: the message, its fix, and the offset to point at."""

    message: str
    fix: str | None
    offset: int


def explain(text: str, raw: str, offset: int) -> Explained:
    """What tomllib's message `raw` (position removed) at `offset` in `text` means."""
    line_start = text.rfind("\n", 0, offset) + 1
    found = _by_message(text, raw, offset, line_start)
    if found is not None:
        return found
    return Explained(raw[:1].lower() + raw[1:], None, offset)


def _by_message(text: str, raw: str, offset: int, line_start: int) -> Explained | None:
    at = text[offset : offset + 1]
    if at == "\r" and text[offset + 1 : offset + 2] != "\n":
        return Explained(
            "a carriage return that is not part of a line break", "end lines with '\\n' or '\\r\\n' only", offset
        )
    if raw.startswith(("Illegal character '\\n'", "Unterminated string", 'Expected "\'"', "Expected \"'''\"")) or (
        raw == "Illegal character '\\r'" and text[offset + 1 : offset + 2] == "\n"
    ):
        return _unclosed_string(text, offset, line_start)
    if raw.startswith("Expected ']' at the end of a table declaration"):
        return Explained(
            "unterminated table header: '[' is not closed with ']' on its line",
            "end the header with ']' (a table name with spaces or dots in it needs quotes)",
            line_start + _indent(text, line_start),
        )
    if raw.startswith("Expected ']]' at the end of an array declaration"):
        return Explained(
            "unterminated array-of-tables header: '[[' is not closed with ']]' on its line",
            "end the header with ']]'",
            line_start + _indent(text, line_start),
        )
    if raw.startswith("Unescaped '\\' in a string") or raw in ("Invalid hex value",):
        backslash = text.rfind("\\", line_start, offset + 1)
        start = backslash if backslash >= 0 else offset
        shown = _escape_at(text, start)
        return Explained(
            f"invalid escape '{shown}' in a string",
            f"write '\\\\' for a backslash, or use a 'literal string' where backslashes are kept; {_ESCAPES}",
            start,
        )
    if raw.startswith("Escaped character is not a Unicode scalar value"):
        backslash = text.rfind("\\", line_start, offset + 1)
        start = backslash if backslash >= 0 else offset
        return Explained(
            f"invalid escape '{_escape_at(text, start)}': it names no Unicode character (a surrogate, or past U+10FFFF)",
            "write the character itself, or the escape of a real code point",
            start,
        )
    if raw.startswith(("Found invalid character", "Illegal character")):
        char = at or "?"
        where = "a comment" if _in_comment(text, line_start, offset) else "a string"
        if char == "\r":
            return Explained(
                f"a carriage return in {where} that is not part of a line break",
                "end lines with '\\n' or '\\r\\n' only",
                offset,
            )
        return Explained(
            f"control character U+{ord(char):04X} is not allowed in {where}",
            'remove it; inside a "basic string" write it as an escape (\\u' + f"{ord(char):04X})",
            offset,
        )
    if raw == "Invalid statement":
        if at == "\r":
            return Explained(
                "a carriage return that is not part of a line break", "end lines with '\\n' or '\\r\\n' only", offset
            )
        return Explained(
            f"a line cannot start with {_shown(text, offset)}: expected a key, a [table] header or a comment",
            "write key = value, [table] or # comment",
            offset,
        )
    if raw.startswith("Expected '=' after a key in a key/value pair"):
        return Explained(
            f"expected '=' after the key, found {_shown(text, offset)}",
            f"write key = value; a key of other characters than {_BARE_KEY} needs quotes",
            offset,
        )
    if raw.startswith("Invalid initial character for a key part") and at in ("\n", "\r", ""):
        opening = _opening(text, offset, "{")
        if opening < offset:
            return Explained(
                "an inline table must be written on one line: this '{' is not closed on its line",
                "close it with '}' on the same line, or write it as a [table]",
                opening,
            )
    if raw.startswith("Invalid initial character for a key part"):
        return Explained(
            f"a key cannot start with {_shown(text, offset)}",
            f"bare keys are {_BARE_KEY}; put any other key in quotes",
            offset,
        )
    if raw.startswith("Unclosed array"):
        opening = _opening(text, offset, "[")
        return Explained(
            "unclosed array: this '[' is not closed with ']'",
            "close the array with ']', with a comma between items",
            opening,
        )
    if raw.startswith("Unclosed inline table"):
        opening = _opening(text, offset, "{")
        return Explained(
            "unclosed inline table: this '{' is not closed with '}' on its line",
            "close it with '}' on the same line, with a comma between pairs and none after the last; "
            "for more lines, use a [table]",
            opening,
        )
    if raw == "Invalid date or datetime":
        token = _VALUE_TOKEN.match(text, offset)
        shown = token.group() if token else ""
        return Explained(
            f"invalid date or time '{shown}'",
            "write a real date and time: YYYY-MM-DD, HH:MM:SS, or both joined by 'T' (a string needs quotes)",
            offset,
        )
    if raw == "Invalid value" or raw.startswith("Expected newline or end of document after a statement"):
        return _bad_value(text, raw, offset, line_start)
    return None


_NAMESPACE = re.compile(r"\((.*)\)")


def twice(raw: str) -> tuple[str, str]:
    """The message and fix for a key or table tomllib finds defined twice (or extended where
    TOML forbids it), when the line does not show which definition came first."""
    found = _NAMESPACE.search(raw)
    names = re.findall(r"'((?:[^'\\]|\\.)*)'", found.group(1)) if found else []
    shown = ".".join(names) or "a key"
    merge = "TOML keys and table headers must be unique; merge the two definitions"
    if raw.startswith("Cannot mutate immutable namespace"):
        return (
            f"'{shown}' is an inline table or an array, and gets every key where it is written; it cannot be extended here",
            "add the key inside the inline table, or write the table as a [table] section",
        )
    if raw.startswith("Cannot redefine namespace"):
        return (
            f"'{shown}' is already a table (made by a header or by dotted keys elsewhere); it cannot be defined again here",
            "add its keys where the table is first defined, or under one header",
        )
    if raw.startswith("Duplicate inline table key"):
        key = re.search(r"'(.*)'", raw)
        return f"key '{key.group(1) if key else '?'}' is defined twice in this inline table", merge
    if raw.startswith("Cannot declare"):
        return f"table [{shown}] is defined twice", merge
    return "a key is defined twice", merge


def _unclosed_string(text: str, offset: int, line_start: int) -> Explained:
    """At the opening quote of the string that never closes."""
    opening = _unmatched_quote(text, 0 if offset >= len(text) or text[offset] != "\n" else line_start, offset)
    if opening is None:
        opening = offset
    quote = text[opening : opening + 3] if text.startswith(('"""', "'''"), opening) else text[opening : opening + 1]
    if len(quote) == 3:
        return Explained(
            f"missing closing quotes: the multi-line string opened here with {quote} is never closed",
            f"close the string with {quote}",
            opening,
        )
    return Explained(
        "missing closing quote: the string opened here runs to the end of the line",
        f"close the string with {quote} on the same line, or use {quote * 3} for a string of several lines",
        opening,
    )


def _unmatched_quote(text: str, start: int, end: int) -> int | None:
    """The first quote between `start` and `end` that opens no complete string."""
    i = start
    gaps: list[tuple[int, int]] = []
    for token in TOKENS.finditer(text, start, max(end, start)):
        gaps.append((i, token.start()))
        i = token.end()
    gaps.append((i, end + 1))
    for gap_start, gap_end in gaps:
        for j in range(gap_start, min(gap_end, len(text))):
            if text[j] in "\"'":
                back = j
                while back - 1 >= start and text[back - 1] == text[j] and j - back < 2:
                    back -= 1  # `"""x`: the first two quotes were read as an empty string
                return back if text.startswith(text[j] * 3, back) else j
    return None


def _bad_value(text: str, raw: str, offset: int, line_start: int) -> Explained:
    """A value that is not one, or something after the value on its line."""
    line_end = text.find("\n", offset)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    equals = _equals(line)
    value_start = line_start + equals + 1 if equals is not None else offset
    while value_start < offset and text[value_start] in " \t":
        value_start += 1
    token = _VALUE_TOKEN.match(text, value_start)
    written = token.group() if token else ""
    if raw == "Invalid value" and text[offset : offset + 1] == ",":
        return Explained("two commas with no value between them", "remove one comma", offset)
    if raw == "Invalid value" and offset >= len(text.rstrip()) and _opening(text, offset, "[") < offset:
        return Explained(
            "unclosed array: this '[' is not closed with ']'",
            "close the array with ']', with a comma between items",
            _opening(text, offset, "["),
        )
    if raw == "Invalid value" and (offset >= len(text) or text[offset] in "\r\n#"):
        if text[offset - 1 : offset] == "," or "[" in line[: offset - line_start]:
            return Explained(
                "missing value in the array", "put a value after the comma, or close the array with ']'", offset
            )
        return Explained("missing value after '='", "write a value after '=' (a string needs quotes)", offset)
    if _DATE_START.match(written) and value_start <= offset <= value_start + len(written):
        return Explained(
            f"invalid date or time '{written}'",
            "write a real date and time: YYYY-MM-DD, HH:MM:SS, or both joined by 'T' (a string needs quotes)",
            value_start,
        )
    looks_numeric = bool(_NUMBER_START.match(written)) and not _DATE_START.match(written)
    if looks_numeric and value_start <= offset <= value_start + len(written):
        return Explained(
            f"invalid number '{written}'",
            "TOML numbers have no leading zeros, '_' only between digits, and digits on both sides of a '.' "
            "(a version or an identifier is a string: put it in quotes)",
            value_start,
        )
    if raw == "Invalid value" and written.lower() in ("true", "false"):
        return Explained(f"invalid value '{written}': booleans are lower case", f"write {written.lower()}", offset)
    if raw == "Invalid value":
        return Explained(
            f"invalid value {_shown(text, offset)}: not a string, number, boolean, date, array or inline table",
            'put text in quotes: "…"; booleans are true and false, in lower case',
            offset,
        )
    return Explained(
        f"expected the end of the line after the value, found {_shown(text, offset)}",
        "put each key = value on a line of its own; a comment starts with '#'",
        offset,
    )


def _equals(line: str) -> int | None:
    """Where the `=` of a `key = value` line is (outside quoted keys), if it has one."""
    i = 0
    while i < len(line):
        c = line[i]
        if c in "\"'":
            close = line.find(c, i + 1)
            if close < 0:
                return None
            i = close + 1
            continue
        if c == "=":
            return i
        if c in "[{#":
            return None
        i += 1
    return None


def _opening(text: str, offset: int, bracket: str) -> int:
    """The last `bracket` before `offset` that no closing bracket matches (strings and
    comments skipped), or `offset` when there is none."""
    stack: list[int] = []
    for token in TOKENS.finditer(text, 0, offset):
        c = token.group()
        if c in "[{":
            stack.append(token.start())
        elif c in "]}" and stack:
            stack.pop()
    for start in reversed(stack):
        if text[start] == bracket:
            return start
    return offset


def _in_comment(text: str, line_start: int, offset: int) -> bool:
    for token in TOKENS.finditer(text, line_start, offset + 1):
        if token.group().startswith("#") and token.start() <= offset < token.end() + 1:
            return True
    return False


def _escape_at(text: str, start: int) -> str:
    """The escape sequence written at `start` (a backslash and what follows it, shortly)."""
    match = re.compile(r"\\(?:[uU][0-9A-Za-z]{0,8}|.)?").match(text, start)
    return match.group().replace("\n", "") if match else "\\"


def _indent(text: str, line_start: int) -> int:
    return len(text[line_start:]) - len(text[line_start:].lstrip(" \t"))


def _shown(text: str, offset: int) -> str:
    """The character at `offset`, as a message quotes it."""
    if offset >= len(text):
        return "the end of the file"
    c = text[offset]
    if c == "\n" or c == "\r":
        return "the end of the line"
    token = _VALUE_TOKEN.match(text, offset)
    word = token.group() if token and token.group() else c
    return f"'{word[:20]}'"
