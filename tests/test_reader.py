"""`parse.reader.read_plain` returns tomllib's document or None, never anything else.

The reader stands in for tomllib on the validate path, so it is held to tomllib: on every
file of the toml-test suite, valid and invalid, on the real blueprints and the examples, and
on mutated blueprints (text-level edits that break and bend the TOML), what it returns is
None or exactly what tomllib returns, key order and value types included; where tomllib
refuses a text, it returns None. The real blueprints take the fast path (else the reader
would be dead weight).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.parse.reader import read_plain
from tests.helpers import ROOT, TOML_TEST
from tests.test_fuzz_fastpaths import TEXTS, toml_texts
from tests.test_fuzz_validate import FUZZ

EXAMPLES = sorted((ROOT / "blueprints").glob("*.leviath"))


def exact(value: Any) -> str:
    """`value` as text that tells apart what `==` does not: key order, 1 and 1.0 and True."""
    return json.dumps(value, default=repr, allow_nan=True) + repr(_types(value))


def _types(value: Any) -> Any:
    if isinstance(value, dict):
        return [(k, _types(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__


def assert_agrees(text: str) -> Any:
    """What the reader returns for `text`, after checking it against tomllib."""
    ours = read_plain(text)
    try:
        theirs = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        assert ours is None, f"accepted what tomllib refuses: {text[:200]!r}"
        return None
    if ours is not None:
        assert exact(ours) == exact(theirs), text[:200]
    return ours


def toml_test_files(kind: str) -> list[Path]:
    """The suite's files of `kind` that are UTF-8: the others are refused before any TOML is
    read (`invalid-encoding`, `tests/test_reading.py`), so the reader never sees them."""
    if not TOML_TEST.is_dir():
        return []
    return [path for path in sorted(TOML_TEST.glob(f"{kind}/**/*.toml")) if _utf8(path)]


def _utf8(path: Path) -> bool:
    try:
        path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_toml_test_files_are_present_or_skipped() -> None:
    if not TOML_TEST.is_dir():
        pytest.skip("../shared is not present (fresh clone)")
    assert len(toml_test_files("valid")) > 200 and len(toml_test_files("invalid")) > 450


@pytest.mark.parametrize("path", toml_test_files("valid"), ids=lambda p: p.relative_to(TOML_TEST).as_posix())
def test_a_valid_toml_test_file_is_read_as_tomllib_reads_it(path: Path) -> None:
    assert_agrees(path.read_bytes().decode("utf-8"))


@pytest.mark.parametrize("path", toml_test_files("invalid"), ids=lambda p: p.relative_to(TOML_TEST).as_posix())
def test_an_invalid_toml_test_file_is_left_to_tomllib(path: Path) -> None:
    assert_agrees(path.read_bytes().decode("utf-8"))


def test_the_real_blueprints_and_the_examples_take_the_fast_path() -> None:
    texts = TEXTS + [p.read_text(encoding="utf-8") for p in EXAMPLES]
    assert texts
    for text in texts:
        assert assert_agrees(text) is not None


#: Characters that matter to TOML's grammar, and a few that are simply not allowed.
SIGNIFICANT = list("[]{}=.,#\"'\\\n\r\t _-+:01eE") + ['"""', "'''", "\x00", "\x7f", "\u00e9", "true", "inf"]


@st.composite
def edited_texts(draw: st.DrawFn) -> str:
    """A real blueprint with a few characters inserted, deleted or replaced."""
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(st.sampled_from(SIGNIFICANT))
        if edit == "insert":
            text = text[:at] + piece + text[at:]
        elif edit == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 3)) :]
        else:
            text = text[:at] + piece + text[at + 1 :]
    return text


@FUZZ
@given(edited_texts())
def test_an_edited_blueprint_is_read_as_tomllib_reads_it_or_left_to_it(text: str) -> None:
    assert_agrees(text)


#: Pieces of TOML, for texts made of nothing else.
TOKENS = [*SIGNIFICANT, "a", "b", " = ", "[a]", "[[a]]", "a.b", '"x"', "'y'", "1", "1.5", "1e5", "\\u00e9", "\\n"]


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=25).map("".join))
def test_strings_of_toml_tokens_are_read_as_tomllib_reads_them_or_left_to_it(text: str) -> None:
    assert_agrees(text)


@FUZZ
@given(toml_texts())
def test_documents_written_by_tomlkit_are_read_as_tomllib_reads_them(text: str) -> None:
    assert_agrees(text)


@pytest.mark.parametrize(
    "text",
    [
        "a = 1\na = 2\n",
        "[a]\n[a]\n",
        "[a]\nb = 1\n[a.b]\n",
        "a = {b = 1}\n[a]\n",
        "a = {b = 1}\na.c = 2\n",
        "[a.b]\n[a]\nb.c = 1\n",
        "a = [1]\n[[a]]\n",
        "[[a]]\n[a]\n",
        "a = { b = 1, }\n",
        "a = { b = 1,\n c = 2 }\n",
        "a = 01\n",
        "a = 1__0\n",
        "a = 1.\n",
        "a = .5\n",
        'a = "\\ud800"\n',
        'a = "\\q"\n',
        'a = "tab\there"\n',
        'a = "bell\x07"\n',
        'a = """\nx\\  \n  y"""\n',
        'a = """x\\ y"""\n',
        "a = 1 b = 2\n",
        "a =\n1\n",
        "# comment\x01\n",
        "a = 1\r\n",
        "a = 1\rb = 2\n",
        "[ [a] ]\n",
        "[[a] ]\n",
        'a."b.c".d = 1\n',
        '"" = 1\n',
        'a = """x""""\n',
        "a = '''x''''\n",
        "a = 1979-05-27\n",
        "a = 0x1F\n",
        "a = inf\n",
        "a = +1_000.5e-0_3\n",
        "a = [1, [2, [3]], {x = 1}, \"s\", 'l', true, 1.5,]\n",
        "a = [\n  1, # one\n  2\n]\n",
        'x = """\nline\\\n   continued"""\n',
        "[a.b.c]\n[a]\nd = 1\n[a.b]\ne = 2\n",
        "[[a.b]]\n[[a.b]]\nc = 1\n[a.d]\n",
        "# only a comment",
        "",
    ],
)
def test_edge_cases_agree_with_tomllib(text: str) -> None:
    assert_agrees(text)
