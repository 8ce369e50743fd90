"""Positions are exact: the scanner agrees with an independent parser (tree-sitter-toml).

The oracle walks tree-sitter's syntax tree and resolves key paths by TOML's rules on its own
(tables, dotted keys, inline tables, arrays of tables); every key and value span must match
ours exactly. It runs over the real blueprints, every valid file of the TOML conformance suite,
and hand-written tricky cases.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from compiler.diagnostics import Span
from compiler.parse.positions import PositionIndex
from compiler.parse.source import LineIndex, decode
from tests.helpers import CORPUS, TOML_TEST, requires_shared

tree_sitter = pytest.importorskip("tree_sitter")
tree_sitter_toml = pytest.importorskip("tree_sitter_toml")

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_toml.language()))
_VALUE_TYPES = {
    "string",
    "integer",
    "float",
    "boolean",
    "offset_date_time",
    "local_date_time",
    "local_date",
    "local_time",
    "array",
    "inline_table",
}


class Oracle:
    """Key path → (key span, value span) from tree-sitter, in code-point columns."""

    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8")
        self.lines = text.split("\n")
        self.keys: dict[tuple, Span] = {}
        self.values: dict[tuple, Span] = {}
        self.aot: dict[tuple, int] = {}
        tree = _PARSER.parse(self.data)
        self.ok = not tree.root_node.has_error
        if self.ok:
            self.walk_document(tree.root_node)

    def span(self, node) -> Span:
        def col(point) -> int:
            line = self.lines[point.row].encode("utf-8")
            return len(line[: point.column].decode("utf-8")) + 1

        return Span(node.start_point.row + 1, col(node.start_point), node.end_point.row + 1, col(node.end_point))

    def key_segments(self, node) -> list:
        if node.type == "dotted_key":
            return [seg for child in node.named_children for seg in self.key_segments(child)]
        return [node]

    def key_name(self, node) -> str:
        raw = node.text.decode("utf-8")
        if node.type == "bare_key":
            return raw
        return next(iter(tomllib.loads(f"{raw} = 0")))

    def record_key(self, path: tuple, node) -> None:
        self.keys.setdefault(path, self.span(node))

    def walk_document(self, root) -> None:
        for node in root.named_children:
            if node.type == "pair":
                self.walk_pair(node, ())
            elif node.type in ("table", "table_array_element"):
                key_node = next(c for c in node.named_children if c.type in ("bare_key", "quoted_key", "dotted_key"))
                segments = self.key_segments(key_node)
                path: tuple = ()
                for pos, seg in enumerate(segments):
                    path = path + (self.key_name(seg),)
                    self.record_key(path, seg)
                    if pos == len(segments) - 1 and node.type == "table_array_element":
                        index = self.aot.get(path, -1) + 1
                        self.aot[path] = index
                        path = path + (index,)
                        self.record_key(path, seg)
                    elif path in self.aot:
                        path = path + (self.aot[path],)
                for child in node.named_children:
                    if child.type == "pair":
                        self.walk_pair(child, path)

    def walk_pair(self, node, table: tuple) -> None:
        key_node = node.named_children[0]
        value_node = next(c for c in node.named_children[1:] if c.type in _VALUE_TYPES)
        path = table
        for seg in self.key_segments(key_node):
            path = path + (self.key_name(seg),)
            self.record_key(path, seg)
        self.walk_value(value_node, path)

    def walk_value(self, node, path: tuple) -> None:
        self.values[path] = self.span(node)
        if node.type == "inline_table":
            for child in node.named_children:
                if child.type == "pair":
                    self.walk_pair(child, path)
        elif node.type == "array":
            values = [c for c in node.named_children if c.type in _VALUE_TYPES]
            for i, child in enumerate(values):
                self.walk_value(child, path + (i,))


def compare(text: str) -> int:
    """Assert the scanner matches the oracle on `text`; return how many spans were compared."""
    oracle = Oracle(text)
    if not oracle.ok:
        pytest.skip("tree-sitter-toml cannot parse this valid file (a known gap of the grammar)")
    index = PositionIndex(text, LineIndex(text))
    for path, span in oracle.keys.items():
        assert index.key_span(path) == span, f"key span of {path}"
    for path, span in oracle.values.items():
        assert index.value_span(path) == span, f"value span of {path}"
    return len(oracle.keys) + len(oracle.values)


def leaf_paths(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaf_paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaf_paths(v, path + (i,))
    else:
        yield path


def valid_toml_files() -> list[Path]:
    return sorted(TOML_TEST.glob("valid/**/*.toml")) if TOML_TEST.is_dir() else []


def corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*/agent.leviath")) if CORPUS.is_dir() else []


@requires_shared
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.parent.name)
def test_corpus_positions_match_the_oracle(path: Path) -> None:
    assert compare(path.read_text(encoding="utf-8")) > 100


@requires_shared
@pytest.mark.parametrize("path", valid_toml_files(), ids=lambda p: p.relative_to(TOML_TEST).as_posix())
def test_conformance_positions(path: Path) -> None:
    source, problems = decode(path.name, path.read_bytes())
    assert not problems
    document = tomllib.loads(source.text)
    index = PositionIndex(source.text, source.lines)
    for leaf in leaf_paths(document):
        if leaf:
            assert leaf in index, f"no position for {leaf}"
    oracle = Oracle(source.text)
    if oracle.ok:
        compare(source.text)


TRICKY = {
    "quoted-and-dotted": """
"quoted key" = 1
'single.quoted' = 2
a . b . "c.d" = 3
"esc\\u00e9aped" = 4
[ "spaced" . 'header' ]
x = 5
""",
    "unicode": """
[stages."étape-1"]
"描述" = "un café ☕"
mode = "autonomous" # après
""",
    "inline-and-arrays": """
model = { models = [{ provider = "a", model = "b" }, { provider = "c" }] }
nested = [[1, 2], [3, [4, 5]], []]
empty = {}
t = { a.b = 1, c = { d = [ { e = "f" } ] } }
""",
    "arrays-of-tables": """
[[fruits]]
name = "apple"
[fruits.physical]
color = "red"
[[fruits.varieties]]
name = "red delicious"
[[fruits.varieties]]
name = "granny smith"
[[fruits]]
name = "banana"
[[fruits.varieties]]
name = "plantain"
""",
    "multi-line-strings": """
a = \"\"\"
line one
\\\"\"\" still inside
\"\"\"
b = '''
it's ''two'' quotes'''
c = \"\"\"ends with quotes\"\"\"\"\"
d = '''five''''' # trailing comment
e = "after"
""",
    "multi-line-array": """
tools = [
  "read_file",  # why
  # a comment line
  "write_file",
]
dates = [1979-05-27 07:32:00Z, 1979-05-27T07:32:00-07:00, 07:32:00, 1979-05-27]
numbers = [+1_000, 0x1f, 0o17, 0b101, 3.14e+2, inf, -nan, true]
""",
    "crlf": '[agent]\r\nname = "x"\r\n[stages.a]\r\nmode = "output"\r\n',
    "super-table-after-child": """
[stages.a.transitions.b]
hint = "x"
[stages]
note = 1
[stages.a]
mode = "autonomous"
""",
}


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_tricky_positions_match_the_oracle(name: str) -> None:
    text = TRICKY[name]
    tomllib.loads(text)  # the cases themselves must be valid TOML
    assert compare(text) > 0


def test_spans_are_one_based_code_points_with_exclusive_end() -> None:
    text = '[stages."étape"]\nnom = "café"\n'
    index = PositionIndex(text)
    assert index.key_span(("stages", "étape")) == Span(1, 9, 1, 16)
    assert index.header_span(("stages", "étape")) == Span(1, 1, 1, 17)
    assert index.key_span(("stages", "étape", "nom")) == Span(2, 1, 2, 4)
    assert index.value_span(("stages", "étape", "nom")) == Span(2, 7, 2, 13)


def test_locate_falls_back_to_the_nearest_ancestor() -> None:
    text = "[stages.plan]\nmode = 5\n"
    index = PositionIndex(text)
    span, found = index.locate(("stages", "plan", "transitions", "x"), prefer="key")
    assert found == ("stages", "plan") and span == Span(1, 9, 1, 13)
    span, found = index.locate(("stages", "plan", "mode"), prefer="value")
    assert found == ("stages", "plan", "mode") and span == Span(2, 8, 2, 9)
    assert index.locate(("nowhere",))[0] is None
