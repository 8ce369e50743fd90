"""Comments of a TOML text, found without being fooled by `#` inside strings.

Used for suppression directives (`# blueprint: ignore[...]`) and by the nesting guard.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from compiler.records import record

from .source import LineIndex

#: Strings of all four kinds, comments, and brackets — enough to tell a comment from a `#`
#: inside a string, and to count nesting, on text that need not be valid TOML.
TOKENS = re.compile(
    r'"""(?:[^"\\]+|\\.|"(?!""))*+"{3,5}'
    r"|'''(?:[^']+|'(?!''))*+'{3,5}"
    r'|"(?:[^"\\\n]+|\\.)*+"'
    r"|'[^'\n]*'"
    r"|#[^\n]*"
    r"|[\[{\]}]",
    re.S,
)


@record
class Comment:
    line: int
    column: int
    #: The comment text after `#`, line ending removed.
    text: str
    #: Nothing but whitespace before it on its line.
    own_line: bool


def iter_comments(text: str, lines: LineIndex | None = None) -> Iterator[Comment]:
    lines = lines or LineIndex(text)
    for token in TOKENS.finditer(text):
        raw = token.group()
        if raw[0] != "#":
            continue
        line, column = lines.position(token.start())
        before = lines.line_text(line)[: column - 1]
        yield Comment(line, column, raw[1:].rstrip("\r"), not before.strip())
