"""Machine-applicable edits (`compiler.fix.edits`): every fixable finding of every golden case
gets edits that fix it on its own, and the edits agree with `--fix`."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.diagnostics import Span
from compiler.fix import fix_bytes, fixable_codes
from compiler.fix.edits import TextEdit, apply_edits, fixes_for, text_edits
from compiler.pipeline import validate_bytes, validate_text
from tests.helpers import ROOT
from tests.test_fix import expects_a_fix, meant

CASES = sorted(p for code in sorted(fixable_codes()) for p in (ROOT / "tests" / "cases" / code).glob("*.leviath"))


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_each_fix_alone_removes_its_finding_and_keeps_the_run(case: Path) -> None:
    data = case.read_bytes()
    result = validate_bytes(case.name, data)
    fixable = [d for d in result.diagnostics if d.code in fixable_codes()]
    fixes = fixes_for(result)
    assert set(fixes) <= set(fixable)
    if not expects_a_fix(case):
        assert case.parent.name not in {d.code for d in fixes}
        return
    assert fixes, "a firing case of a fixable rule offers no fix"
    text = result.source.text
    for diagnostic, fix in fixes.items():
        assert fix.edits and fix.title.startswith(f"Fix {diagnostic.code}")
        after = validate_bytes(case.name, apply_edits(text, fix.edits).encode())
        assert after.blueprint == meant(data, [diagnostic])  # the same run, or what an old spelling meant
        assert len(after.diagnostics) == len(result.diagnostics) - 1
        assert diagnostic.code in {d.code for d in result.diagnostics}


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_quick_fixes_applied_one_by_one_end_where_fix_ends(case: Path) -> None:
    """An editor applies one fix, the file is checked again, and so on: that ends in the
    file `--fix` writes."""
    data = case.read_bytes()
    text = validate_bytes(case.name, data).source.text
    for _ in range(50):
        result = validate_bytes(case.name, text.encode())
        fixes = fixes_for(result)
        if not fixes:
            break
        first = min(fixes, key=lambda d: d.sort_key())
        text = apply_edits(text, fixes[first].edits)
    assert text.encode() == fix_bytes(case.name, data).data.removeprefix(b"\xef\xbb\xbf")


def test_an_insertion_is_an_empty_span_on_the_line_after_the_header() -> None:
    text = '[agent]\nname = "x"\n\n[stages.work]\nmax_iterations = 3\n'
    result = validate_text(text, "x.leviath")
    (diagnostic,) = [d for d in result.diagnostics if d.code == "stage-missing-mode"]
    (edit,) = fixes_for(result)[diagnostic].edits
    assert edit == TextEdit(Span(5, 1, 5, 1), 'mode = "autonomous"\n')


def test_a_respelt_value_replaces_only_the_characters_that_change() -> None:
    text = textwrap.dedent(
        """\
        [agent]
        name = "x"  # 𝄞 an astral character before the value counts as one column

        [stages.work]
        mode = "autonomous"
        max_iterations = 3
        [stages.work.transitions.done]
        transform = "summarize"
        [stages.done]
        mode = "autonomous"
        """
    )
    result = validate_text(text, "x.leviath")
    fixes = fixes_for(result)
    (diagnostic,) = [d for d in fixes if d.code == "non-canonical-value"]
    (edit,) = fixes[diagnostic].edits
    assert edit.new_text == "compact"
    assert (edit.span.line, edit.span.column, edit.span.end_line, edit.span.end_column) == (8, 14, 8, 23)


def test_crlf_files_keep_their_line_ends() -> None:
    text = '[agent]\r\nname = "x"\r\n[stages.work]\r\nmax_iterations = 3\r\n'
    result = validate_text(text, "x.leviath")
    (fix,) = fixes_for(result).values()
    assert (
        apply_edits(text, fix.edits)
        == '[agent]\r\nname = "x"\r\n[stages.work]\r\nmode = "autonomous"\r\nmax_iterations = 3\r\n'
    )


def test_only_limits_the_work_to_the_findings_asked_for() -> None:
    text = '[agent]\nname = "x"\n[stages.a]\nmax_iterations = 3\n[stages.b]\nmax_iterations = 3\n'
    result = validate_text(text, "x.leviath")
    first = next(d for d in result.diagnostics if d.code == "stage-missing-mode")
    assert list(fixes_for(result, only=[first])) == [first]


def test_no_fixes_for_a_file_that_does_not_parse() -> None:
    assert fixes_for(validate_text("[agent\n", "x.leviath")) == {}


def test_apply_edits_refuses_overlaps_and_spans_outside_the_text() -> None:
    with pytest.raises(ValueError, match="overlap"):
        apply_edits("abcdef", [TextEdit(Span(1, 1, 1, 4), "x"), TextEdit(Span(1, 3, 1, 5), "y")])
    with pytest.raises(ValueError, match="outside"):
        apply_edits("abc", [TextEdit(Span(2, 1, 2, 1), "x")])
    with pytest.raises(ValueError, match="outside"):
        apply_edits("abc\n", [TextEdit(Span(1, 9, 1, 9), "x")])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab\n\r𝄞 ", max_size=40), st.text(alphabet="ab\n\r𝄞 ", max_size=40))
def test_text_edits_turn_the_old_text_into_the_new(old: str, new: str) -> None:
    edits = text_edits(old, new)
    assert apply_edits(old, edits) == new
    assert (edits == ()) == (old == new)


LINES = st.lists(
    st.sampled_from(["[stages.a]", 'mode = "x"', "max_iterations = 3", "", "# c", "[stages.b]"]), max_size=30
)


@settings(max_examples=300, deadline=None)
@given(LINES, LINES)
def test_text_edits_of_files_of_alike_lines(old: list[str], new: list[str]) -> None:
    old_text, new_text = "\n".join(old) + "\n", "\n".join(new) + "\n"
    assert apply_edits(old_text, text_edits(old_text, new_text)) == new_text


def test_the_lines_of_a_text_are_counted_once_for_all_its_findings(monkeypatch) -> None:
    """A file with thousands of misspelt names asks for a token per finding: its line starts are
    counted once, not once per finding (which made such a file take seconds)."""
    from compiler.diagnostics import Span
    from compiler.fix import edits

    text = "a = 1\n" * 1000
    counted: list[str] = []
    real = str.find

    class Counting(str):
        def find(self, *args):  # type: ignore[override]
            counted.append("find")
            return real(self, *args)

    tracked = Counting(text)
    monkeypatch.setattr(edits, "_last_starts", None)
    for line in range(1, 201):
        assert edits.span_text(tracked, Span(line, 1, line, 2)) == "a"
    assert len(counted) == 1001  # one pass over the text: a find per line, and the last
