"""The validate path's shortcuts give the answers of the slow paths they stand in for.

- `schema.precheck.is_valid` (decides a valid document without jsonschema) is sound: when
  it says valid, jsonschema finds nothing; and it does say valid for the real blueprints, so
  they take the fast path.
- `parse.toml._within_limits` (the depth and 64-bit check without a path per value) agrees
  with a plain recursive walk.
- `parse.positions.PositionIndex` reads inline tables, arrays and runs of simple pairs only
  when a path inside them is asked for; asked in any order, it gives the spans of an index
  read in full.
"""

from __future__ import annotations

import tomllib
from typing import Any

import tomlkit
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.parse.positions import PositionIndex
from compiler.parse.toml import MAX_DEPTH, _within_limits
from compiler.resources import load_schema
from compiler.schema.precheck import compile_document, compile_schema, is_valid
from compiler.schema.validator import inline_refs, iter_schema_errors
from tests.helpers import CORPUS, ROOT
from tests.test_fuzz_validate import BASES, FUZZ, SOURCES, mutate_document, paths, values

REAL = [tomllib.loads(p.read_text(encoding="utf-8")) for p in SOURCES]
#: The pre-check compiled from the schema with every reference inlined first (as it was built
#: before definitions were compiled once each).
INLINED = compile_schema(inline_refs(load_schema("blueprint")))


@st.composite
def documents(draw: st.DrawFn) -> dict:
    """A real blueprint, unchanged (about a third of the time) or mutated."""
    document = tomllib.loads(tomlkit.dumps(draw(st.sampled_from(BASES))))
    if draw(st.integers(0, 2)):
        document = mutate_document(draw(st.data()), document)
    return document


# --- the schema pre-check ---------------------------------------------------------------------


@FUZZ
@given(documents())
def test_precheck_never_accepts_what_jsonschema_refuses(document: dict) -> None:
    if is_valid(document):
        assert list(iter_schema_errors(document)) == []


@FUZZ
@given(st.dictionaries(st.sampled_from(["agent", "stages", "context", "sandbox", "x"]), values, max_size=4))
def test_precheck_is_sound_on_arbitrary_documents(document: dict) -> None:
    if is_valid(document):
        assert list(iter_schema_errors(document)) == []


def test_real_blueprints_take_the_fast_path() -> None:
    assert REAL and all(is_valid(document) for document in REAL)
    assert not is_valid({"agent": {"name": 1}})  # and the check can say no


@FUZZ
@given(documents())
def test_compiling_each_definition_once_agrees_with_inlining_them(document: dict) -> None:
    assert INLINED(document) == is_valid(document)


def test_a_cycle_of_references_is_compiled_as_the_inlined_schema() -> None:
    """A reference back to a definition being compiled stays a reference (`inline_refs`),
    which the pre-check cannot decide: a document reaching it goes to jsonschema."""
    schema = {
        "definitions": {"node": {"type": "object", "properties": {"next": {"$ref": "#/definitions/node"}}}},
        "$ref": "#/definitions/node",
    }
    check, inlined = compile_document(schema), compile_schema(inline_refs(schema))
    for document in ({}, {"next": {}}, {"next": 1}, []):
        assert check(document) == inlined(document)
    assert check({}) is True and check({"next": {}}) is False


# --- depth and 64-bit integers ----------------------------------------------------------------


def reference_within_limits(value: Any, depth: int = 0) -> bool:
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, dict):
        return all(reference_within_limits(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return all(reference_within_limits(v, depth + 1) for v in value)
    return type(value) is not int or -(2**63) <= value <= 2**63 - 1


@FUZZ
@given(documents())
def test_the_limits_check_agrees_with_a_recursive_walk(document: dict) -> None:
    assert _within_limits(document) == reference_within_limits(document)


def test_the_limits_check_at_the_depth_boundary() -> None:
    for depth in (MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1):
        value: Any = 1
        for _ in range(depth):
            value = [value]
        document = {"a": value}
        assert _within_limits(document) == reference_within_limits(document), depth


# --- the lazily read position index -----------------------------------------------------------

TEXTS = [p.read_text(encoding="utf-8") for p in SOURCES]


@st.composite
def toml_texts(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return draw(st.sampled_from(TEXTS))
    text = tomlkit.dumps(draw(documents()))
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return draw(st.sampled_from(TEXTS))
    return text


def spans(index: PositionIndex, path: tuple) -> tuple:
    return (
        index.key_span(path),
        index.value_span(path),
        index.header_span(path),
        index.locate(path, prefer="key"),
        index.locate(path, prefer="value"),
        path in index,
    )


@settings(FUZZ, max_examples=60)
@given(toml_texts(), st.randoms(use_true_random=False))
def test_a_lazily_read_index_matches_one_read_in_full(text: str, rng) -> None:
    full = PositionIndex(text)
    every = list(full.entries)  # reads everything
    lazy = PositionIndex(text)
    document = tomllib.loads(text)
    asked = every + [p + ("missing",) for p in paths(document)[:20]]
    rng.shuffle(asked)
    for path in asked:
        assert spans(lazy, path) == spans(full, path), path
    assert lazy.entries.keys() == full.entries.keys()


def test_the_index_defers_and_still_finds_paths_in_deferred_text() -> None:
    text = (ROOT / "blueprints" / "gates.leviath").read_text(encoding="utf-8")
    index = PositionIndex(text)
    assert index._scanner.deferred, "nothing was deferred: the fast path is not taken"
    line = next(n for n, row in enumerate(text.split("\n"), 1) if row.startswith("todo = {"))
    span = index.value_span(("context", "regions", "todo", "kind"))
    assert span is not None and span.line == line


def test_corpus_paths_agree_between_lazy_and_full_reads() -> None:
    for path in sorted(CORPUS.glob("*/agent.leviath")):
        text = path.read_text(encoding="utf-8")
        full = PositionIndex(text)
        lazy = PositionIndex(text)
        for key in reversed(list(full.entries)):
            assert spans(lazy, key) == spans(full, key), (path.parent.name, key)
