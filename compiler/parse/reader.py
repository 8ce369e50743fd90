"""A fast reader for plain TOML: tomllib's document, or None to let tomllib read the text.

tomllib reads a character at a time in places (a string is a loop over its characters), and
a blueprint is mostly long strings: reading one took as long as every check we run on it.
This reader takes each token with one regular expression match. It reads a subset of TOML
(what blueprints are written in: bare and quoted keys, dotted keys, `[table]` and
`[[array]]` headers, strings of the four kinds, decimal integers and floats, booleans,
arrays and inline tables, comments) and enforces every rule of TOML 1.0 that applies to it.
Anything else, or anything it is not sure of (a date, a hexadecimal number, an unusual but
valid table layout, any error), makes it return None; `parse_toml` then asks tomllib, which
reads the document or says what is wrong with tomllib's own message. So the document is
always tomllib's: `tests/test_reader.py` checks that what this reader returns equals what
tomllib returns, key order included, on the toml-test suite (valid and invalid files), the
real blueprints and mutated ones, and that the real blueprints do take this path.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

#: A character a comment or a string may hold: anything but a control character (tab aside).
_TEXT = r"[^\x00-\x08\x0a-\x1f\x7f"
_ESCAPE = r"\\(?:[btnfr\"\\]|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})"
_COMMENT = rf"#{_TEXT}]*"
_BASIC = re.compile(rf'"((?:{_TEXT}"\\]++|{_ESCAPE})*+)"')
_LITERAL = re.compile(rf"'({_TEXT}']*+)'")
# Multi-line strings: a line feed may follow the opening quotes (and is not part of the value);
# up to two quotes may appear inside; a carriage return anywhere sends the text to tomllib.
_ML_BASIC = re.compile(r'"""\n?((?:[^\x00-\x08\x0b-\x1f\x7f"\\]++|"(?!"")|' + _ESCAPE + r'|\\[ \t]*+\n)*+)"""(?!")')
_ML_LITERAL = re.compile(r"'''\n?((?:[^\x00-\x08\x0b-\x1f\x7f']++|'(?!''))*+)'''(?!')")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_DOT = re.compile(r"[ \t]*\.[ \t]*")
_EQUALS = re.compile(r"[ \t]*=[ \t]*")
_WS = re.compile(r"[ \t]*")
#: Decimal integers and floats (no leading zeros; underscores only between digits). What
#: follows must end the value, or the text goes to tomllib (a date, `0x1F`, `1.` …).
_NUMBER = re.compile(r"[+-]?(?:0|[1-9](?:_?[0-9])*+)(\.[0-9](?:_?[0-9])*+)?([eE][+-]?[0-9](?:_?[0-9])*+)?")
_VALUE_END = frozenset(" \t\r\n,]}#")
#: The end of a line after a header or a pair: blanks, a comment, a line break or the end.
_LINE_END = re.compile(rf"[ \t]*(?:{_COMMENT})?(?:\r?\n|\Z)")
#: Whole blank or comment lines, and the blanks that start the next one.
_GAPS = re.compile(rf"(?:[ \t]*(?:{_COMMENT})?\r?\n)*+[ \t]*")
#: Inside an array: blanks, line breaks and comments.
_ARRAY_GAP = re.compile(rf"(?:[ \t]++|\r?\n|{_COMMENT})*+")
_UNESCAPE = re.compile(r"\\(?:([btnfr\"\\])|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|[ \t]*\n[ \t\n]*)")
_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}
#: Deeper nesting is tomllib's to read (and the depth check's to refuse).
_MAX_NESTING = 32


_Matcher = Callable[[str, int], "re.Match[str]"]
# These match everywhere (if only nothing): typed so, their `match` is never None.
_gaps, _ws, _array_gap = (cast(_Matcher, pattern.match) for pattern in (_GAPS, _WS, _ARRAY_GAP))


class _NotPlain(Exception):
    """Raised inside the reader: the text is for tomllib."""


def read_plain(text: str) -> dict[str, Any] | None:
    """The document tomllib would read from `text`, or None when this reader leaves it to
    tomllib (the text is not plain TOML as above, or is not valid TOML at all)."""
    try:
        return _Reader(text).document()
    except (_NotPlain, IndexError, ValueError):  # ValueError: an integer too long for `int`
        return None


def loads(text: str) -> dict[str, Any]:
    """The document in `text`: `read_plain`'s, else tomllib's, which raises
    `tomllib.TOMLDecodeError` (a `ValueError`) for text that is not TOML. tomllib is
    imported only then."""
    document = read_plain(text)
    if document is None:
        import tomllib

        document = tomllib.loads(text)
    return document


def _unescape(raw: str) -> str:
    return _UNESCAPE.sub(_escaped, raw) if "\\" in raw else raw


def _escaped(match: re.Match[str]) -> str:
    simple, short, long = match.groups()
    if simple is not None:
        return _SIMPLE_ESCAPES[simple]
    if short is None and long is None:
        return ""  # a line-ending backslash: it and the blanks after it go
    code = int(short or long, 16)
    if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        raise _NotPlain  # not a Unicode scalar value
    return chr(code)


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        #: Tables by id: defined by a header (or an array-of-tables element), created as the
        #: parent of a header, created by dotted keys in the current section, and arrays of
        #: tables. A table or array in none of these (a value) cannot be extended.
        self.defined: set[int] = set()
        self.implicit: set[int] = set()
        self.dotted: set[int] = set()
        self.arrays_of_tables: set[int] = set()

    def document(self) -> dict[str, Any]:
        text, n = self.text, len(self.text)
        root: dict[str, Any] = {}
        table = root
        i = _gaps(text, 0).end()
        while i < n:
            if text[i] == "[":
                table, i = self.header(root, i)
            elif text[i] == "#":  # a comment on the last line, with no line break after it
                i = self.line_end(i)
                continue
            else:
                i = self.pair(table, i, self.dotted)
            i = self.line_end(i)
            i = _gaps(text, i).end()
        return root

    def line_end(self, i: int) -> int:
        end = _LINE_END.match(self.text, i)
        if end is None:
            raise _NotPlain
        return end.end()

    # -- keys and tables ---------------------------------------------------------------------

    def key(self, i: int) -> tuple[list[str], int]:
        """A dotted key's parts, and where it ends (blanks after it skipped)."""
        text = self.text
        parts = []
        while True:
            c = text[i]
            if c == '"':
                match = _BASIC.match(text, i)
                if match is None:
                    raise _NotPlain
                parts.append(_unescape(match.group(1)))
            elif c == "'":
                match = _LITERAL.match(text, i)
                if match is None:
                    raise _NotPlain
                parts.append(match.group(1))
            else:
                match = _BARE_KEY.match(text, i)
                if match is None:
                    raise _NotPlain
                parts.append(match.group())
            dot = _DOT.match(text, match.end())
            if dot is None:
                return parts, _ws(text, match.end()).end()
            i = dot.end()

    def header(self, root: dict[str, Any], i: int) -> tuple[dict[str, Any], int]:
        text = self.text
        array = text.startswith("[[", i)
        parts, i = self.key(_ws(text, i + (2 if array else 1)).end())
        closing = "]]" if array else "]"
        if not text.startswith(closing, i):
            raise _NotPlain
        table = root
        for part in parts[:-1]:
            child = table.get(part)
            if child is None:
                child = table[part] = {}
                self.implicit.add(id(child))
            elif type(child) is list and id(child) in self.arrays_of_tables:
                child = child[-1]
            elif type(child) is not dict or (id(child) not in self.defined and id(child) not in self.implicit):
                raise _NotPlain
            table = child
        last = parts[-1]
        child = table.get(last)
        if array:
            if child is None:
                child = table[last] = []
                self.arrays_of_tables.add(id(child))
            elif type(child) is not list or id(child) not in self.arrays_of_tables:
                raise _NotPlain
            element: dict[str, Any] = {}
            child.append(element)
            child = element
        elif child is None:
            child = table[last] = {}
        elif type(child) is dict and id(child) in self.implicit:
            self.implicit.discard(id(child))
        else:
            raise _NotPlain  # defined twice, or a value: tomllib says which
        self.defined.add(id(child))
        self.dotted = set()  # dotted keys of the next section extend only its own tables
        return child, i + len(closing)

    def pair(self, table: dict[str, Any], i: int, dotted: set[int], depth: int = 0) -> int:
        """`key = value` into `table`; `dotted` holds the tables this section's (or this
        inline table's) dotted keys made, the only ones a dotted key may go into."""
        parts, i = self.key(i)
        equals = _EQUALS.match(self.text, i)
        if equals is None:
            raise _NotPlain
        for part in parts[:-1]:
            child = table.get(part)
            if child is None:
                child = table[part] = {}
                dotted.add(id(child))
            elif type(child) is not dict or id(child) not in dotted:
                raise _NotPlain
            table = child
        if parts[-1] in table:
            raise _NotPlain  # defined twice
        table[parts[-1]], i = self.value(equals.end(), depth)
        return i

    # -- values ------------------------------------------------------------------------------

    def value(self, i: int, depth: int) -> tuple[Any, int]:
        text = self.text
        c = text[i]
        if c == '"':
            match = _ML_BASIC.match(text, i) if text.startswith('"""', i) else _BASIC.match(text, i)
            if match is None:
                raise _NotPlain
            return _unescape(match.group(1)), match.end()
        if c == "'":
            match = _ML_LITERAL.match(text, i) if text.startswith("'''", i) else _LITERAL.match(text, i)
            if match is None:
                raise _NotPlain
            return match.group(1), match.end()
        if depth >= _MAX_NESTING:
            raise _NotPlain
        if c == "[":
            return self.array(i, depth + 1)
        if c == "{":
            return self.inline_table(i, depth + 1)
        if text.startswith("true", i):
            return True, self.ended(i + 4)
        if text.startswith("false", i):
            return False, self.ended(i + 5)
        match = _NUMBER.match(text, i)
        if match is None:
            raise _NotPlain
        end = self.ended(match.end())
        digits = match.group().replace("_", "")
        return (float(digits) if match.group(1) or match.group(2) else int(digits)), end

    def ended(self, i: int) -> int:
        """`i`, where a value must end (else the text is something this reader does not read)."""
        if i < len(self.text) and self.text[i] not in _VALUE_END:
            raise _NotPlain
        return i

    def array(self, i: int, depth: int) -> tuple[list[Any], int]:
        text = self.text
        items: list[Any] = []
        i = _array_gap(text, i + 1).end()
        while text[i] != "]":
            item, i = self.value(i, depth)
            items.append(item)
            i = _array_gap(text, i).end()
            if text[i] == ",":
                i = _array_gap(text, i + 1).end()
            elif text[i] != "]":
                raise _NotPlain
        return items, i + 1

    def inline_table(self, i: int, depth: int) -> tuple[dict[str, Any], int]:
        """`{ key = value, … }` on one line, no comma after the last pair."""
        text = self.text
        table: dict[str, Any] = {}
        dotted: set[int] = set()
        i = _ws(text, i + 1).end()
        if text[i] == "}":
            return table, i + 1
        while True:
            i = _ws(text, self.pair(table, i, dotted, depth)).end()
            if text[i] == "}":
                return table, i + 1
            if text[i] != ",":
                raise _NotPlain
            i = _ws(text, i + 1).end()
