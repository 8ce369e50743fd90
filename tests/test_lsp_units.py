"""The language server's pure parts: position systems, the cursor scanner, the every-key index."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.diagnostics import Span
from compiler.lsp.cursor import cursor_at
from compiler.lsp.text import TextLines
from compiler.parse.positions import PositionIndex


@pytest.mark.parametrize(("encoding", "units"), [("utf-16", 2), ("utf-8", 4), ("utf-32", 1)])
def test_an_astral_character_counts_in_the_negotiated_units(encoding: str, units: int) -> None:
    lines = TextLines('a = "🦀x"\n', encoding)
    offset = 'a = "🦀x"'.index("x")
    position = lines.position(offset)
    assert (position.line, position.character) == (0, 5 + units)
    assert lines.offset(0, 5 + units) == offset


def test_a_position_inside_a_surrogate_pair_or_past_the_line_is_clamped() -> None:
    lines = TextLines("🦀b\nnext\n")
    assert lines.offset(0, 1) == 1  # half of the crab: the character after it
    assert lines.offset(0, 99) == 2  # past the end of the line: its end, not the next line
    assert lines.offset(9, 0) == len(lines.text)


def test_lsp_lines_break_at_cr_lf_and_crlf_only() -> None:
    text = "a\rb\r\nc\nd\u2028e\x0cf"
    lines = TextLines(text)
    assert [lines.position(text.index(c)).line for c in "abcde"] == [0, 1, 2, 3, 3]


def test_spans_count_lines_by_newline_and_columns_after_a_bom() -> None:
    text = "\ufeffab\ncd\n"
    lines = TextLines(text)
    start, end = lines.span_range(Span(1, 1, 1, 3))  # "ab", as the pipeline (BOM dropped) counts it
    assert (start.line, start.character, end.character) == (0, 1, 3)
    assert lines.span_at(text.index("d")) == (2, 2)


def test_a_span_past_its_line_end_stays_on_it_unless_exact() -> None:
    lines = TextLines("ab\ncd\n")
    assert lines.span_offset(1, 4) == 2
    assert lines.span_offset(1, 4, exact=True) == 3  # an edit may take the line break


@given(st.text(alphabet=st.sampled_from(list("ab\n\r🦀é\u2028")), max_size=30), st.data())
@settings(max_examples=200, derandomize=True, deadline=None)
def test_offsets_and_positions_round_trip(text: str, data: st.DataObject) -> None:
    lines = TextLines(text)
    offset = data.draw(st.integers(0, len(text)))
    if 0 < offset < len(text) and text[offset - 1 : offset + 1] == "\r\n":
        offset -= 1  # no LSP position lies between the two characters of a CRLF
    position = lines.position(offset)
    assert lines.offset(position.line, position.character) == offset


@pytest.mark.parametrize(
    ("text", "where", "path", "word"),
    [
        ("[stages.plan]\nmo", "key", ("stages", "plan"), "mo"),
        ('[stages.plan]\nmode = "aut', "value", ("stages", "plan", "mode"), "aut"),
        (
            '[stages.p]\navailable_tools = [\n  "read_file",\n  "ed',
            "value",
            ("stages", "p", "available_tools", 1),
            "ed",
        ),
        (
            '[stages.p.transitions.q]\ngate = { require_regions = ["a", "',
            "value",
            ("stages", "p", "transitions", "q", "gate", "require_regions", 1),
            "",
        ),
        ("[stages.pl", "header", ("stages",), "pl"),
        (
            '[[transforms]]\n[[transforms]]\n[[transforms.mappings]]\nto_region = "',
            "value",
            ("transforms", 1, "mappings", 0, "to_region"),
            "",
        ),
        ('[stages.p]\nsystem_prompt = """\n[not.a.header]\n"""\nmax_', "key", ("stages", "p"), "max_"),
        ("x = 1  # blueprint: ignore[unk", "comment", (), ""),
    ],
)
def test_the_cursor_scanner_reads_half_typed_text(text: str, where: str, path: tuple, word: str) -> None:
    cursor = cursor_at(text, len(text))
    assert (cursor.where, cursor.path, cursor.word) == (where, path, word)


def test_every_key_index_keeps_each_occurrence_of_a_key() -> None:
    text = (
        '[stages.plan]\nmode = "x"\n[stages.plan.transitions.review]\n[stages . "plan" . context]\na.b = 1\na.c = 2\n'
    )
    index = PositionIndex(text, every_key=True)
    assert [s.line for s in index.key_spans(("stages", "plan"))] == [1, 3, 4]
    assert [s.line for s in index.key_spans(("stages", "plan", "context", "a"))] == [5, 6]
    assert index.key_spans(("stages", "plan"))[0] == PositionIndex(text).key_span(("stages", "plan"))
    with pytest.raises(ValueError):
        PositionIndex(text).key_spans(("stages",))
