"""`--fix`: golden fixed files for every golden case of a fixable rule, byte preservation,
the safety guard, and the shapes a stage table can take.

Expected fixed files live in `tests/fixes/<code>/<case>.leviath`; rewrite them with
`UPDATE_GOLDEN=1 pytest tests/test_fix.py` and read the diff.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import compiler.fix as fix_module
from compiler.fix import fix_bytes, fixable_codes
from compiler.pipeline import validate_bytes
from compiler.rulebook.fixers import KeyFix
from compiler.rulebook.registry import REGISTRY
from tests.helpers import ROOT

CASES = ROOT / "tests" / "cases"
FIXES = ROOT / "tests" / "fixes"
FIXABLE = sorted(fixable_codes())
FIXABLE_CASES = sorted(p for code in FIXABLE for p in (CASES / code).glob("*.leviath"))
ALL_CASES = sorted(CASES.glob("*/*.leviath"))
#: Lines a fix may add: the mode of a stage that had none.
INSERTED = {'mode = "autonomous"'}
#: Fixes that move an old spelling where Leviath reads it now: the run changes on purpose.
MIGRATING = tuple(rule.code for rule in REGISTRY.all() if rule.fixer is not None and rule.fixer.meant is not None)


def expects_a_fix(case: Path) -> bool:
    """A case of a fixable rule is fixed when its golden fixed file differs from it: `ok-*` and
    `unfixable-*` cases never are, and a rule whose fixer covers some of its findings only
    (`rejected-key` renames one old key) shows the rest unchanged."""
    if case.stem.startswith(("ok-", "unfixable-")):
        return False
    fixed = FIXES / case.parent.name / case.name
    return fixed.exists() and fixed.read_bytes() != case.read_bytes()


def meant(data: bytes, fixed) -> object:
    """The compiled form the original means, with fixed old spellings read where they belong."""
    from compiler.fix import meant_blueprint

    return meant_blueprint(validate_bytes("case.leviath", data), list(fixed))


def fix_text(text: str) -> tuple[str, list[str]]:
    outcome = fix_bytes("test.leviath", textwrap.dedent(text).lstrip("\n").encode())
    return outcome.data.decode(), [d.code for d in outcome.fixed]


def other_findings(data: bytes) -> Counter:
    result = validate_bytes("case.leviath", data)
    return Counter((d.code, d.path) for d in result.diagnostics if d.code not in FIXABLE)


@pytest.mark.parametrize("case", FIXABLE_CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_fix(case: Path) -> None:
    code = case.parent.name
    original = case.read_bytes()
    outcome = fix_bytes(case.relative_to(ROOT).as_posix(), original)
    expected = FIXES / code / case.name
    if os.environ.get("UPDATE_GOLDEN"):
        expected.parent.mkdir(parents=True, exist_ok=True)
        expected.write_bytes(outcome.data)
    assert expected.exists(), f"missing {expected.relative_to(ROOT)}; run with UPDATE_GOLDEN=1 and review it"
    assert outcome.data == expected.read_bytes()
    assert outcome.problem is None
    after = validate_bytes("case.leviath", outcome.data)
    if not expects_a_fix(case):
        assert code not in [d.code for d in outcome.fixed]
    else:
        assert code not in [d.code for d in after.diagnostics]
        assert code in [d.code for d in outcome.fixed] and outcome.changed
    # the run is the same (or, for an old spelling, what the file meant), and so is every other finding
    if code in MIGRATING:
        assert after.blueprint == meant(original, outcome.fixed)
    else:
        assert after.blueprint == validate_bytes("case.leviath", original).blueprint
    assert other_findings(outcome.data) == other_findings(original)


@pytest.mark.parametrize("case", FIXABLE_CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_other_byte_is_unchanged(case: Path) -> None:
    """An oracle independent of the goldens: lines change only where a fixed finding points,
    and inside such a line only the finding's own span (or the comment) changes; a line is
    added only for a missing mode, and removed only when it held nothing but a directive."""
    outcome = fix_bytes("case.leviath", case.read_bytes())
    if any(d.code in MIGRATING for d in outcome.fixed):
        return  # a move or a rename: test_old_spellings_keep_every_line checks it
    spans: dict[int, list[tuple[int, int]]] = {}
    for d in outcome.fixed:
        spans.setdefault(d.span.line, []).append((d.span.column - 1, d.span.end_column - 1))
    before = case.read_text(encoding="utf-8").splitlines(keepends=True)
    after = outcome.data.decode().splitlines(keepends=True)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes():
        if tag == "insert":
            assert {line.strip() for line in after[j1:j2]} <= INSERTED, after[j1:j2]
        elif tag == "delete":
            assert all(line.lstrip().startswith("# blueprint:") for line in before[i1:i2]), before[i1:i2]
        elif tag == "replace":
            assert i2 - i1 == j2 - j1, (before[i1:i2], after[j1:j2])
            for number, old, new in zip(range(i1 + 1, i2 + 1), before[i1:i2], after[j1:j2]):
                # The common prefix and suffix of two lines of text (not paths), character by character.
                head = len(os.path.commonprefix([old, new]))  # noqa: RUF071
                tail = len(os.path.commonprefix([old[head:][::-1], new[head:][::-1]]))  # noqa: RUF071
                start, end = head, len(old) - tail
                comment = old.find("#")
                in_span = any(s <= start and end <= e for s, e in spans.get(number, []))
                in_comment = comment >= 0 and start >= len(old[:comment].rstrip()) and number in spans
                assert in_span or in_comment, (number, old, new)


def test_fixing_twice_changes_nothing_more() -> None:
    for case in FIXABLE_CASES:
        once = fix_bytes("case.leviath", case.read_bytes())
        twice = fix_bytes("case.leviath", once.data)
        assert twice.data == once.data and twice.fixed == (), case.name


@pytest.mark.parametrize("case", [c for c in FIXABLE_CASES if c.parent.name in MIGRATING], ids=lambda p: p.stem)
def test_old_spellings_keep_every_line(case: Path) -> None:
    """A move or a rename keeps every line, comments included: what follows the `=` of each
    line is kept (only keys are renamed or moved), and so is the number of table headers (a
    table moved is a header renamed); blank lines may come and go with a moved table."""
    outcome = fix_bytes("case.leviath", case.read_bytes())

    def lines(text: str) -> tuple[list[str], int]:
        rows = [line.strip() for line in text.splitlines() if line.strip()]
        headers = [row for row in rows if row.startswith("[")]
        return sorted(row.partition("=")[2] if "=" in row else row for row in rows if row not in headers), len(headers)

    assert lines(outcome.data.decode()) == lines(case.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_any_case_fixes_without_changing_the_run(case: Path) -> None:
    """Every golden case of every rule: no crash, and a changed file runs the same."""
    original = case.read_bytes()
    outcome = fix_bytes("case.leviath", original)
    if outcome.changed:
        assert validate_bytes("x", outcome.data).blueprint == meant(original, outcome.fixed)
        assert other_findings(outcome.data) == other_findings(original)
        assert {d.code for d in outcome.fixed} <= set(FIXABLE)


# --- the shapes a stage table can take ------------------------------------------------------

MODEL = 'model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }'


def test_mode_goes_first_under_the_header_keeping_comments() -> None:
    text, codes = fix_text(
        f"""
        [agent]
        name = "x"

        # the one stage
        [stages.work]  # trailing comment
        {MODEL}
        max_iterations = 3

        # about the edge
        [stages.work.transitions]
        """
    )
    assert codes == ["stage-missing-mode"]
    assert text == textwrap.dedent(
        f"""\
        [agent]
        name = "x"

        # the one stage
        [stages.work]  # trailing comment
        mode = "autonomous"
        {MODEL}
        max_iterations = 3

        # about the edge
        [stages.work.transitions]
        """
    )


def test_mode_follows_the_indentation_and_newlines_of_the_file() -> None:
    source = f'[agent]\r\nname = "x"\r\n[stages.work]\r\n    {MODEL}\r\n    max_iterations = 3\r\n'
    outcome = fix_bytes("t.leviath", source.encode())
    assert outcome.data.decode() == source.replace("[stages.work]\r\n", '[stages.work]\r\n    mode = "autonomous"\r\n')


def test_inline_and_implicit_stage_tables() -> None:
    text, codes = fix_text(
        f"""
        [agent]
        name = "x"
        [stages]
        a = {{ {MODEL}, max_iterations = 3 }}
        """
    )
    assert codes == ["stage-missing-mode"]
    assert 'a = { mode = "autonomous", model' in text
    text, codes = fix_text(
        f"""
        [agent]
        name = "x"
        [stages.a.transitions.b]
        [stages.b]
        mode = "output"
        {MODEL}
        max_iterations = 3
        [stages.b.transitions]
        """
    )
    assert codes == ["stage-missing-mode"]
    assert validate_bytes("t", text.encode()).blueprint.stage("a").mode == "autonomous"


def test_a_byte_order_mark_is_kept() -> None:
    source = f'[agent]\nname = "x"\n[stages.work]\n{MODEL}\nmax_iterations = 3\n'.encode()
    outcome = fix_bytes("t.leviath", b"\xef\xbb\xbf" + source)
    assert outcome.data.startswith(b"\xef\xbb\xbf[agent]") and b'mode = "autonomous"' in outcome.data


def test_a_stage_written_in_two_places_is_left_alone() -> None:
    text, codes = fix_text(
        f"""
        [agent]
        name = "x"
        [stages.work]
        {MODEL}
        max_iterations = 3
        [sandbox]
        kind = "none"
        [stages.work.transitions]
        """
    )
    assert "stage-missing-mode" not in codes or 'mode = "autonomous"' in text


# --- values -------------------------------------------------------------------------------


def test_respelling_keeps_quote_style_and_comments() -> None:
    text, codes = fix_text(
        """
        [agent]
        name = "x"
        [tool_permissions]
        read_file = 'ALLOW'   # literal
        write_file = "Deny"
        shell = "maybe"
        """
    )
    assert codes == ["non-canonical-value", "non-canonical-value"]
    assert "read_file = 'allow'   # literal\n" in text
    assert 'write_file = "deny"\n' in text
    assert 'shell = "maybe"' in text  # not a policy at all: the schema layer's finding, not ours


# --- suppressions -------------------------------------------------------------------------


def test_stale_codes_and_directives_go_misspelled_ones_stay() -> None:
    text, codes = fix_text(
        f"""
        [agent]
        name = "x"
        [sandbox]
        kind = "none"  # blueprint: ignore[unknown-key]
        # blueprint: ignore[stage-missing-modle]
        mounts = ["/data"]  # blueprint: ignore[unknown-key, stage-missing-model]
        [stages.work]
        mode = "autonomous"
        {MODEL}
        max_iterations = 3  # blueprint: ignroe[all]
        """
    )
    assert codes == ["unused-suppression", "unused-suppression"]
    assert 'kind = "none"\n' in text
    assert "# blueprint: ignore[stage-missing-modle]\n" in text  # a typo: the author decides
    assert 'mounts = ["/data"]  # blueprint: ignore[unknown-key]\n' in text
    assert "max_iterations = 3  # blueprint: ignroe[all]\n" in text  # malformed: left


def test_a_directive_alone_on_its_line_goes_with_its_line() -> None:
    text, codes = fix_text(
        f"""
        [agent]
        name = "x"
        [stages.work]
        mode = "autonomous"
        # blueprint: ignore[stage-missing-model]
        {MODEL}
        max_iterations = 3
        """
    )
    assert codes == ["unused-suppression"]
    assert "blueprint" not in text and text.count("\n") == 6


def test_stale_codes_are_cut_from_a_list_keeping_its_spacing() -> None:
    """Cuts are made last column first, so each finding's span still points at its code."""
    text, codes = fix_text(
        f"""
        [agent]
        name = "x"
        [sandbox]
        mounts = ["/data"]  # blueprint: ignore[stage-missing-model,unknown-key ,  shadowed-edge]  kept
        colour = 1  # blueprint: ignore[unknown-key,  stage-missing-model]
        [stages.work]
        mode = "autonomous"
        {MODEL}
        max_iterations = 3
        """
    )
    assert codes == ["unused-suppression"] * 3
    assert 'mounts = ["/data"]  # blueprint: ignore[unknown-key]  kept\n' in text
    assert "colour = 1  # blueprint: ignore[unknown-key]\n" in text


# --- never touch what must not be touched -------------------------------------------------


def test_a_file_with_syntax_errors_is_never_fixed() -> None:
    source = b'[agent]\nname = "x"\n[stages.work]\nmax_iterations = \n'
    outcome = fix_bytes("t.leviath", source)
    assert not outcome.changed and outcome.fixed == ()
    assert outcome.problem == "not fixed: the file has syntax errors"
    bad_utf8 = b'[agent]\nname = "\xff"\n[stages.work]\n'
    assert not fix_bytes("t.leviath", bad_utf8).changed


def test_a_fix_that_would_change_the_run_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    def harmful(text, diagnostics):
        return text.replace("max_iterations = 3", "max_iterations = 4"), list(diagnostics)

    monkeypatch.setattr(fix_module, "fix_pass", harmful)
    source = f'[agent]\nname = "x"\n[stages.work]\n{MODEL}\nmax_iterations = 3\n'.encode()
    outcome = fix_bytes("t.leviath", source)
    assert not outcome.changed
    assert outcome.problem.startswith("a fix was not applied: the fixer of rule 'stage-missing-mode'")


def _with_fixer(monkeypatch: pytest.MonkeyPatch, code: str, fixer: KeyFix) -> None:
    monkeypatch.setitem(REGISTRY.rules, code, dataclasses.replace(REGISTRY.rules[code], fixer=fixer))


def test_a_fixer_that_changes_the_meaning_without_meant_is_named_with_what_it_lacks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Addressed to the rule's author: the rule, its module, and `meant=` as the missing piece."""
    _with_fixer(
        monkeypatch, "stage-missing-mode", KeyFix(lambda edits, d: edits.insert_first(d.path, "mode", "output"))
    )
    source = f'[agent]\nname = "x"\n[stages.work]\n{MODEL}\nmax_iterations = 3\n'.encode()
    outcome = fix_bytes("t.leviath", source)
    assert not outcome.changed and outcome.fixed == ()
    assert outcome.problem == (
        "a fix was not applied: the fixer of rule 'stage-missing-mode' (compiler.rules.lint.declarations) changes "
        "what the blueprint means, and it declares no `meant=`: a fix must keep the meaning, or, when it moves an "
        "old spelling where Leviath reads it now, say with `meant=` what the fixed file means "
        "(compiler/rulebook/fixers.py)"
    )
    assert "report" not in outcome.problem


def test_a_fixer_whose_file_does_not_mean_what_its_meant_says_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    def same(document, paths):
        return document

    _with_fixer(
        monkeypatch,
        "stage-missing-mode",
        KeyFix(lambda edits, d: edits.insert_first(d.path, "mode", "output"), meant=same),
    )
    source = f'[agent]\nname = "x"\n[stages.work]\n{MODEL}\nmax_iterations = 3\n'.encode()
    outcome = fix_bytes("t.leviath", source)
    assert not outcome.changed
    assert outcome.problem.endswith("writes a file that does not mean what its `meant=` says it means")


def test_a_fix_that_changes_other_findings_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    def noisy(text, diagnostics):
        noise = text.replace("[agent]", "[agent]\ncolour = 1")
        return noise.replace("[stages.work]", '[stages.work]\nmode = "autonomous"'), list(diagnostics)

    monkeypatch.setattr(fix_module, "fix_pass", noisy)
    source = f'[agent]\nname = "x"\n[stages.work]\n{MODEL}\nmax_iterations = 3\n'.encode()
    outcome = fix_bytes("t.leviath", source)
    assert not outcome.changed and "changed other findings" in outcome.problem
    assert "the fixer of rule 'stage-missing-mode'" in outcome.problem


# --- properties ---------------------------------------------------------------------------


_CASED = st.sampled_from(["allow", "ask", "deny"]).flatmap(
    lambda p: st.lists(st.booleans(), min_size=len(p), max_size=len(p)).map(
        lambda upper: "".join(c.upper() if u else c for c, u in zip(p, upper, strict=True))
    )
)
_SUPPRESS = st.sampled_from(
    ["", "  # blueprint: ignore[stage-missing-model]", "  # blueprint: ignore[unknown-key, all]"]
)


@st.composite
def fixable_blueprints(draw) -> str:
    count = draw(st.integers(1, 3))
    lines = ["[agent]", 'name = "p"', "", "[tool_permissions]", f'read_file = "{draw(_CASED)}"', ""]
    lines += ["[context.regions]", 'conversation = { kind = "sliding_window", max_tokens = 9000 }']
    lines += [f'idx = {{ kind = "{draw(st.sampled_from(["hash_map", "hashmap"]))}", max_tokens = 900 }}', ""]
    for i in range(count):
        lines.append(f"[stages.s{i}]" + draw(_SUPPRESS))
        if draw(st.booleans()):
            lines.append('mode = "autonomous"')
        lines += [MODEL, "max_iterations = 5" + draw(_SUPPRESS), 'available_tools = ["read_file"]']
        if i + 1 < count:
            lines.append(f"[stages.s{i}.transitions.s{i + 1}]")
            lines.append(f'transform = "{draw(st.sampled_from(["summarize", "compact", "direct"]))}"')
        else:
            lines.append(f"[stages.s{i}.transitions]")
        lines.append("")
    return "\n".join(lines)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fixable_blueprints())
def test_fixing_removes_every_fixable_finding_and_keeps_the_run(text: str) -> None:
    data = text.encode()
    outcome = fix_bytes("p.leviath", data)
    assert outcome.problem is None
    after = validate_bytes("p.leviath", outcome.data)
    assert [d.code for d in after.diagnostics if d.code in FIXABLE] == []
    assert after.blueprint == validate_bytes("p.leviath", data).blueprint
    assert other_findings(outcome.data) == other_findings(data)
    assert fix_bytes("p.leviath", outcome.data).data == outcome.data


# --- the editor ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        ("a = [1, 2, 3]\n", ("a", 1), "a = [1, 3]\n"),
        ("a = [1, 2, 3]\n", ("a", 2), "a = [1, 2]\n"),
        ("a = [1]  # only\n", ("a", 0), "a = []  # only\n"),
        ('a = [\n  "x",  # one\n  "y",  # two\n  "z",\n]\n', ("a", 1), 'a = [\n  "x",  # one\n  "z",\n]\n'),
        ("[t]\nb = { c = [1, 2, 3] }\n", ("t", "b", "c", 0), "[t]\nb = { c = [2, 3] }\n"),
    ],
)
def test_key_edits_delete_an_array_element(text: str, path: tuple, expected: str) -> None:
    from compiler.fix.toml_edits import TomlKeyEdits

    edits = TomlKeyEdits(text)
    edits.delete_element(path)
    assert edits.text() == expected


@pytest.mark.parametrize(
    ("text", "path"), [("a = 1\n", ("a",)), ("a = { b = 1 }\n", ("a", "b")), ("[[a]]\nb = 1\n", ("a", 0))]
)
def test_key_edits_delete_only_an_element_of_an_inline_array(text: str, path: tuple) -> None:
    from compiler.fix.toml_edits import TomlKeyEdits
    from compiler.rulebook.fixers import Unfixable

    with pytest.raises(Unfixable):
        TomlKeyEdits(text).delete_element(path)


def test_a_fixer_that_deletes_an_element_keeps_the_run_or_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deleting a listed tool changes the run: without `meant=` the engine refuses it by name."""
    _with_fixer(
        monkeypatch,
        "stage-missing-mode",
        KeyFix(lambda edits, d: edits.delete_element((*d.path, "available_tools", 0))),
    )
    source = (
        f'[agent]\nname = "x"\n[stages.work]\n{MODEL}\nmax_iterations = 3\navailable_tools = ["read_file"]\n'.encode()
    )
    outcome = fix_bytes("t.leviath", source)
    assert not outcome.changed and "'stage-missing-mode'" in outcome.problem and "`meant=`" in outcome.problem
