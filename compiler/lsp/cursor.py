"""Where the cursor is in a blueprint that may not parse: which table, key and value.

Completion is asked for while a line is half typed (`mode = "aut`), so this reads the text up
to the cursor with a small tolerant scanner instead of the TOML parser: table headers, dotted
keys, `=`, inline tables, arrays (over several lines), strings and comments. It answers the one
question completion and hover ask — what key path the cursor is at, and whether it is in a
header, a key, a value or a comment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from ..diagnostics import KeyPath

Where = Literal["header", "key", "value", "comment"]

_TOKEN = re.compile(
    r'(?P<mlstring>"""(?:[^"\\]|\\.|"(?!""))*(?:"""|\Z)|\'\'\'(?:[^\']|\'(?!\'\'))*(?:\'\'\'|\Z))'
    r'|(?P<string>"(?:[^"\\\n]|\\.)*(?:"|(?=\n)|\Z)|\'[^\'\n]*(?:\'|(?=\n)|\Z))'
    r"|(?P<comment>#[^\n]*)"
    r"|(?P<newline>\r?\n)"
    r"|(?P<space>[ \t\r]+)"
    r"|(?P<word>[A-Za-z0-9_\-+:]+)"
    r"|(?P<punct>\[\[|\]\]|[\[\]{}=,.])"
    r"|(?P<other>.)",
    re.S,
)


@dataclass
class Cursor:
    """What the text before the cursor says about it."""

    where: Where
    #: For a key or header: the table the key being typed belongs to. For a value: the key's
    #: path (with the array position inside an array). For a comment: the current table.
    path: KeyPath
    #: The part of a name or word already typed, which completion replaces.
    word: str = ""
    #: Offset where `word` starts.
    word_start: int = 0
    in_string: bool = False
    #: The text of the comment up to the cursor (where == "comment").
    comment: str = ""
    table: KeyPath = field(default=())


def _key_text(kind: str, text: str) -> str:
    if kind == "string":
        body = text[1:-1] if len(text) > 1 and text[-1] == text[0] else text[1:]
        return body if text[0] == "'" else body.replace('\\"', '"').replace("\\\\", "\\")
    return text


def cursor_at(text: str, offset: int) -> Cursor:
    """Scan `text[:offset]` and say where `offset` is."""
    scanner = _Scanner(text[:offset])
    return scanner.run()


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.table: KeyPath = ()
        self.aot: dict[KeyPath, int] = {}

    def run(self) -> Cursor:
        text = self.text
        mode = "start"  # start | header | key | value
        segments: list[str] = []
        header_array = False
        #: (kind, path, index) of open inline tables and arrays, innermost last.
        stack: list[list] = []
        value_path: KeyPath = ()
        expect_dot = False
        last: re.Match[str] | None = None
        for match in _TOKEN.finditer(text):
            last = match
            kind = match.lastgroup or "other"
            token = match.group()
            if kind == "space":
                continue
            if kind == "comment":
                if match.end() == len(text):
                    return Cursor("comment", self.table, comment=token[1:], word_start=match.start(), table=self.table)
                continue
            if kind == "newline":
                if mode == "value" and stack:
                    continue  # a multi-line array goes on
                mode, segments, stack, expect_dot = "start", [], [], False
                continue
            if mode == "start":
                if token in ("[", "[["):
                    mode, segments, header_array, expect_dot = "header", [], token == "[[", False
                    continue
                mode, segments, expect_dot = "key", [], False
            if mode in ("header", "key"):  # a dotted key: in a table header, or before `=`
                if mode == "header" and token in ("]", "]]"):
                    self._enter(tuple(segments), header_array)
                    mode = "done"
                elif mode == "key" and token == "=":
                    base = stack[-1][1] if stack else self.table
                    value_path = base + tuple(segments)
                    mode = "value"
                elif token == ".":
                    expect_dot = False
                elif kind in ("word", "string") and not expect_dot:
                    segments.append(_key_text(kind, token))
                    expect_dot = True
                continue
            if mode == "value":
                if token == "{":
                    stack.append(["table", self._element(stack, value_path), 0])
                    mode, segments, expect_dot = "key", [], False
                elif token == "[":
                    path = self._element(stack, value_path)
                    stack.append(["array", path, 0])
                elif token == ",":
                    if stack and stack[-1][0] == "array":
                        stack[-1][2] += 1
                    elif stack:
                        mode, segments, expect_dot = "key", [], False
                elif token in ("}", "]", "]]"):
                    if stack:
                        stack.pop()
                    for _ in range(len(token) - 1):
                        if stack:
                            stack.pop()
        return self._finish(mode, segments, stack, value_path, last)

    def _element(self, stack: list[list], value_path: KeyPath) -> KeyPath:
        """The path a value being opened has: inside an array, the array's current element."""
        if stack and stack[-1][0] == "array":
            return stack[-1][1] + (stack[-1][2],)
        return value_path

    def _enter(self, path: KeyPath, array: bool) -> None:
        resolved: KeyPath = ()
        for position, name in enumerate(path):
            resolved += (name,)
            if position == len(path) - 1 and array:
                index = self.aot.get(resolved, -1) + 1
                self.aot[resolved] = index
                resolved += (index,)
            elif resolved in self.aot:
                resolved += (self.aot[resolved],)
        self.table = resolved

    def _finish(
        self, mode: str, segments: list[str], stack: list[list], value_path: KeyPath, last: re.Match[str] | None
    ) -> Cursor:
        end = len(self.text)
        ends_here = last is not None and last.end() == end and last.lastgroup in ("word", "string")
        word = last.group() if ends_here and last is not None else ""
        word_start = last.start() if ends_here and last is not None else end
        in_string = bool(ends_here and last is not None and last.lastgroup == "string" and not _closed(word))
        if in_string:
            word, word_start = word[1:], word_start + 1
        if mode in ("start", "done"):
            return Cursor("key" if mode == "start" else "header", self.table, table=self.table, word_start=end)
        if mode == "header":
            typed = segments[:-1] if ends_here else segments
            return Cursor("header", tuple(typed), word, word_start, in_string, table=self.table)
        if mode == "key":
            base = stack[-1][1] if stack else self.table
            typed = segments[:-1] if ends_here else segments
            return Cursor("key", base + tuple(typed), word, word_start, in_string, table=self.table)
        path = self._element(stack, value_path) if stack else value_path
        return Cursor("value", path, word, word_start, in_string, table=self.table)


def _closed(string: str) -> bool:
    return len(string) >= 2 and string[-1] == string[0] and not string.endswith('\\"')
