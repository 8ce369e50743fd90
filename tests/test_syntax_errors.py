"""Syntax errors in a TOML author's words (`compiler.parse.syntax_errors`): every file of the
toml-test invalid set gets a finding with a position and a fix line, none in tomllib's words,
and each kind of error points where the author must look."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from compiler.diagnostics import Span
from compiler.pipeline import validate_text
from tests.helpers import TOML_TEST
from tests.test_reader import toml_test_files

SYNTAX = ("toml-syntax", "duplicate-key", "nesting-too-deep")


@pytest.mark.parametrize("path", toml_test_files("invalid"), ids=lambda p: p.relative_to(TOML_TEST).as_posix())
def test_every_invalid_toml_test_file_is_explained_with_a_position_and_a_fix(path: Path) -> None:
    text = path.read_bytes().decode("utf-8")
    found = [d for d in validate_text(text, "t.toml").diagnostics if d.code in SYNTAX]
    if not found:
        return  # accepted by tomllib too (tests/test_reader.py holds the reader to it)
    (first,) = found
    assert first.span is not None and first.fix, first
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        theirs = str(exc).split(" (at ")[0]
        assert first.message.lower() != theirs.lower(), f"left in tomllib's words: {first.message}"


@pytest.mark.parametrize(
    ("text", "message", "span"),
    [
        ('a = "x\nb = 1\n', "missing closing quote", Span(1, 5, 1, 6)),
        ('a = 1\nb = """x\n\nc = 2\n', "missing closing quotes: the multi-line string opened here", Span(2, 5, 2, 6)),
        ("a = 'x\n", "missing closing quote", Span(1, 5, 1, 6)),
        ("  [a.b\nc = 1\n", "unterminated table header", Span(1, 3, 1, 4)),
        ("[[a]\n", "unterminated array-of-tables header", Span(1, 1, 1, 2)),
        ('a = "C:\\data"\n', "invalid escape '\\d' in a string", Span(1, 8, 1, 9)),
        ('a = "\\ud800"\n', "invalid escape '\\ud800'", Span(1, 6, 1, 7)),
        ("a = 01\n", "invalid number '01'", Span(1, 5, 1, 6)),
        ("a = 1__0\n", "invalid number '1__0'", Span(1, 5, 1, 6)),
        ("a = \n", "missing value after '='", None),
        ("a = [1,\n", "unclosed array", Span(1, 5, 1, 6)),
        ("a = [1,,2]\n", "two commas", Span(1, 8, 1, 9)),
        ("a = { b = 1\n", "unclosed inline table", Span(1, 5, 1, 6)),
        ("a = { b = 1,\n c = 2 }\n", "an inline table must be written on one line", Span(1, 5, 1, 6)),
        ("a = True\n", "booleans are lower case", Span(1, 5, 1, 6)),
        ("a = xyz\n", "invalid value 'xyz'", Span(1, 5, 1, 6)),
        ("a = 1979-02-30\n", "invalid date or time '1979-02-30'", Span(1, 5, 1, 6)),
        ("a b = 1\n", "expected '=' after the key, found 'b'", Span(1, 3, 1, 4)),
        ("a = 1 b\n", "expected the end of the line after the value, found 'b'", Span(1, 7, 1, 8)),
        ("# \x01\n", "control character U+0001 is not allowed in a comment", Span(1, 3, 1, 4)),
        ("a = 1\rb = 2\n", "carriage return", None),
        ("a = {b = 1, b = 2}\n", "key 'b' is defined twice in this inline table", None),
    ],
)
def test_each_kind_of_error_is_said_and_placed_as_an_author_needs(text: str, message: str, span: Span | None) -> None:
    (finding,) = [d for d in validate_text(text, "t.leviath").diagnostics if d.code in SYNTAX]
    assert message in finding.message and finding.fix, finding
    if span is not None:
        assert finding.span == span, finding
