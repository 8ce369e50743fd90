"""More shortcuts of the validate path, each checked against the slow path it stands in for.

- `parse.source.LineIndex` answers its first positions by counting newlines, before it
  builds its table of line starts: both give the same (line, column).
- `parse.positions._Scanner.resolve_bare` reads a `[table]` header of bare keys by splitting
  it on dots: it records the entries the general key reader records.
- `rules.context.RuleContext.raw` steps through tables without `isinstance`: it finds what
  a plain walk finds, for any path into any document.
- `pipeline.validate_bytes` pauses the collector for a large input and leaves it as it was.
"""

from __future__ import annotations

import gc
import re
import tomllib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.config import DEFAULT_SETTINGS
from compiler.ir.build import build_blueprint
from compiler.parse.positions import _BARE_HEADER, _BARE_KEY, _Scanner
from compiler.parse.source import LineIndex, SourceFile
from compiler.pipeline import validate_bytes
from compiler.rules.context import MISSING, RuleContext
from tests.test_fuzz_fastpaths import toml_texts
from tests.test_fuzz_validate import FUZZ, paths, values

# --- line index ---------------------------------------------------------------------------------


@FUZZ
@given(st.text(alphabet="ab\n\r\té€", max_size=60), st.data())
def test_counted_positions_match_the_table(text: str, data: st.DataObject) -> None:
    counted, table = LineIndex(text), LineIndex(text)
    assert table.count >= 1  # builds the table
    for offset in data.draw(st.lists(st.integers(0, len(text) + 3), max_size=40)):
        assert counted.position(offset) == table.position(offset), offset
    assert counted.span(0, len(text)) == table.span(0, len(text))


def test_the_index_counts_first_then_builds_its_table() -> None:
    index = LineIndex("a\nbc\n\nd")
    assert index.position(3) == (2, 2)
    assert index._table is None  # answered by counting
    for _ in range(40):
        index.position(6)
    assert index._table is not None and index.position(6) == (4, 1)


# --- bare headers -------------------------------------------------------------------------------


class _GeneralHeaders(_Scanner):
    """The scanner with every bare header read by the general key reader."""

    def read_header(self, start: int):
        bare = _BARE_HEADER.match(self.text, start)
        if bare is None:
            return super().read_header(start)
        i = bare.end()
        segments = [(m.group(), m.start(), m.end()) for m in _BARE_KEY.finditer(self.text, start + 1, i - 1)]
        resolved = self.resolve(segments, False)
        entry = self._entry(resolved)
        if entry.header is None:
            entry.header = (start, i)
        return resolved, i


def _scanned(scanner: _Scanner) -> tuple:
    last = scanner.scan()
    scanner.expand_all()
    entries = {path: (e.key, e.value, e.header) for path, e in scanner.entries.items()}
    return last, entries, scanner.aot_last


@settings(FUZZ, max_examples=80)
@given(toml_texts())
def test_bare_headers_read_by_splitting_match_the_key_reader(text: str) -> None:
    assert _scanned(_Scanner(text, {})) == _scanned(_GeneralHeaders(text, {}))


def test_bare_headers_with_arrays_of_tables_and_spaces() -> None:
    text = '[[a]]\nx = 1\n[a.b]\ny = 2\n[[a]]\n[a.b]\nz = 3\n[ c . d ]\n[c.e]\n["q".r]\n'
    tomllib.loads(text)
    fast, general = _scanned(_Scanner(text, {})), _scanned(_GeneralHeaders(text, {}))
    assert fast == general
    assert ("a", 1, "b") in fast[1] and ("c", "e") in fast[1]


# --- raw lookups --------------------------------------------------------------------------------


def _plain_raw(document: Any, path: tuple) -> Any:
    node = document
    for part in path:
        if isinstance(part, int):
            if not isinstance(node, list) or not -len(node) <= part < len(node):
                return MISSING
        elif not isinstance(node, dict) or part not in node:
            return MISSING
        node = node[part]
    return node


@FUZZ
@given(st.dictionaries(st.sampled_from(["agent", "stages", "context", "x"]), values, max_size=4), st.data())
def test_raw_finds_what_a_plain_walk_finds(document: dict, data: st.DataObject) -> None:
    ctx = RuleContext(SourceFile("f.leviath", ""), document, build_blueprint(document), DEFAULT_SETTINGS)
    known = paths(document)
    extra = data.draw(
        st.lists(
            st.lists(st.one_of(st.sampled_from(["agent", "x", "0"]), st.integers(-3, 3)), max_size=4).map(tuple),
            max_size=8,
        )
    )
    for path in known + extra + [p + (0,) for p in known] + [p + ("k",) for p in known]:
        assert ctx.raw(path) is _plain_raw(document, path) or ctx.raw(path) == _plain_raw(document, path), path
        assert ctx.raw(path, None) is (None if _plain_raw(document, path) is MISSING else ctx.raw(path))


def test_raw_does_not_index_into_strings() -> None:
    document = {"a": "text", "b": [1, 2], "c": {"d": True}}
    ctx = RuleContext(SourceFile("f.leviath", ""), document, build_blueprint(document), DEFAULT_SETTINGS)
    assert ctx.raw(("a", 0)) is MISSING
    assert ctx.raw(("b", -1)) == 2 and ctx.raw(("b", 2)) is MISSING and ctx.raw(("b", "x")) is MISSING
    assert ctx.raw(("c", "d")) is True and ctx.raw(("c", 0)) is MISSING
    assert re.fullmatch(r"MISSING", repr(ctx.raw(("z",))))


# --- the collector ------------------------------------------------------------------------------


def test_the_library_leaves_the_collector_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # The command line tunes the cyclic collector (compiler/cli/main.py); a program that calls
    # the library keeps its own settings, whatever the size of the file.
    from compiler.check import check_bytes

    data = b'[agent]\nname = "big"\n' + b"# padding line\n" * (256 * 1024 // 15 + 1)
    touched: list[str] = []
    for name in ("disable", "enable", "freeze", "unfreeze", "set_threshold", "collect"):
        monkeypatch.setattr(gc, name, lambda *args, name=name: touched.append(name))
    for blob in (data, b'[agent]\nname = "small"\n'):
        validate_bytes("f.leviath", blob)
        check_bytes("f.leviath", blob)
    assert touched == []
