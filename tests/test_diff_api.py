"""The library side of the diff: `compiler.diff(old, new)`, `compiler.digest`, word diffs,
renames, the run delta on a corpus blueprint, and docs/diff.md kept in step with the rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import compiler
from compiler.diff import RULES, Change, Diff
from compiler.diff.core import Version, compare, read_version
from compiler.diff.rules import explain_markdown
from compiler.diff.words import word_diff
from compiler.ir.digest import canonical_bytes
from compiler.ir.serialize import IR_VERSION
from tests.helpers import CORPUS, ROOT, requires_shared

CASES = ROOT / "tests" / "diff_cases"
OLD = CASES / "budget-raised" / "build-revisits.old.leviath"
NEW = CASES / "budget-raised" / "build-revisits.new.leviath"


def test_compiler_diff_is_callable_however_it_was_imported(capsys: pytest.CaptureFixture[str]) -> None:
    import compiler.diff as package
    from compiler.diff import diff

    result = compiler.diff(OLD, NEW, runs=False)
    assert isinstance(result, Diff) and compiler.diff is package
    assert diff(str(OLD), str(NEW), runs=False) == result
    (change,) = result.changes
    assert isinstance(change, Change)
    assert (change.kind, change.change_class, change.path, change.old, change.new) == (
        "budget-raised",
        "risky",
        ("stages", "build", "max_revisits"),
        2,
        4,
    )
    assert (change.old_at.line, change.old_at.column) == (30, 16) and change.new_at.file == str(NEW)
    assert result.has("risky") and result.has("any") and not result.has("breaking")
    assert capsys.readouterr() == ("", "")  # the library never prints


def test_models_and_ir_documents_compare_without_places() -> None:
    by_model = compiler.diff(compiler.load(OLD), compiler.load(NEW), runs=False)
    by_ir = compiler.diff(compiler.compile(OLD), compiler.compile(NEW), runs=False)
    for result in (by_model, by_ir):
        (change,) = result.changes
        assert change.kind == "budget-raised" and change.old_at is None and change.new_at is None
    assert by_ir.old.path == compiler.compile(OLD)["source"]["path"] and by_model.old.path == "<old>"


def test_a_runtime_can_refuse_a_breaking_reload() -> None:
    running = compiler.load(CASES / "stage-removed" / "audit-removed.old.leviath")
    offered = compiler.load(CASES / "stage-removed" / "audit-removed.new.leviath")
    verdict = compiler.diff(running, offered, runs=False)
    assert verdict.has("breaking")
    assert [c.kind for c in verdict.of_class("breaking")] == ["stage-removed"]


def test_wrong_inputs_raise() -> None:
    with pytest.raises(TypeError, match="diff compares blueprint files"):
        compiler.diff(3, NEW)
    with pytest.raises(compiler.BlueprintError):
        read_version("broken.leviath", b'[agent]\nname = "a"\nname = "b"\n')
    with pytest.raises(OSError):
        compiler.diff(OLD, CASES / "missing.leviath")
    with pytest.raises(ValueError, match="threshold"):
        compiler.diff(OLD, NEW, runs=False).has("severe")


# --- the digest --------------------------------------------------------------------------------------


def test_the_digest_ignores_the_source_and_hashes_the_meaning(tmp_path: Path) -> None:
    ir = compiler.compile(OLD)
    moved = {**ir, "source": {"path": "elsewhere.leviath", "sha256": "0" * 64}}
    assert compiler.digest(ir) == compiler.digest(moved) == compiler.digest(compiler.load(OLD))
    assert b'"source"' not in canonical_bytes(ir) and f'"ir_version":{IR_VERSION}'.encode() in canonical_bytes(ir)
    assert compiler.digest(ir) != compiler.digest(compiler.compile(NEW))
    with pytest.raises(TypeError):
        compiler.digest("agent.leviath")
    with pytest.raises(compiler.IRError):
        compiler.digest({"ir_version": 99})


# --- comparison details ----------------------------------------------------------------------------------


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _version(text: str, label: str) -> Version:
    return read_version(label, text.encode("utf-8"))


def test_a_renamed_stage_with_other_edits_is_one_rename_and_its_edits() -> None:
    old = _text(CASES / "stage-renamed" / "review-to-check.old.leviath")
    new = _text(CASES / "stage-renamed" / "review-to-check.new.leviath")
    new = new.replace("max_iterations = 5", "max_iterations = 7")
    result = compare(_version(old, "a.leviath"), _version(new, "b.leviath"), runs=False)
    assert [(c.kind, c.path) for c in result.changes] == [
        ("stage-renamed", ("stages", "check")),
        ("budget-raised", ("stages", "check", "max_iterations")),
    ]
    assert result.changes[1].old_at.line == result.changes[1].new_at.line  # located under each side's own name


def test_an_entry_change_points_at_the_first_stage_on_each_side() -> None:
    old, new = (CASES / "entry-changed" / f"build-declared-first.{side}.leviath" for side in ("old", "new"))
    result = compiler.diff(old, new, runs=False)
    (entry,) = [c for c in result.changes if c.kind == "entry-changed"]
    assert (entry.old, entry.new) == ("plan", "build")
    assert (entry.old_at.line, entry.new_at.line) == (15, 15)


def test_a_cut_short_exploration_is_noted_and_its_ceilings_are_not_compared() -> None:
    result = compiler.diff(OLD, NEW, max_states=3)
    assert result.runs is not None and not result.runs.old.complete
    assert any("state limit" in note for note in result.runs.notes)
    assert result.runs.stages == () and not [c for c in result.changes if c.kind.startswith("ceiling")]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("same text", "same text", "same text"),
        (
            "one two three four five six seven eight",
            "one two three FOUR five six seven eight",
            "one two three [-four-]{+FOUR+} five six seven …",
        ),
        (None, "brand new", "{+brand new+}"),
        ("gone away", None, "[-gone away-]"),
        ("a b c d e f g h i j k l", "a b c d e f g h i j k l m", "… j k l {+m+}"),
    ],
)
def test_word_diff(old: str | None, new: str | None, expected: str) -> None:
    assert word_diff(old, new) == expected


def test_a_long_word_diff_is_cut() -> None:
    text = word_diff("x " * 200, "y " * 200)
    assert len(text) == 160 and text.endswith("…")


# --- the run delta on a real blueprint --------------------------------------------------------------------


@requires_shared
def test_lowering_one_max_revisits_lowers_the_ceilings_of_a_corpus_blueprint() -> None:
    path = CORPUS / "coder" / "agent.leviath"
    text = _text(path)
    stage = "plan"  # entered once per revisit its budget allows: the budget is what bounds it
    match = re.search(r"^\[stages\.plan\]$(?:(?!^\[)[\s\S])*?^max_revisits = (\d+)$", text, flags=re.M)
    assert match is not None
    revisits = int(match.group(1))
    start = match.start(1)
    lowered = text[:start] + str(revisits - 1) + text[match.end(1) :]
    result = compare(_version(text, "coder.leviath"), _version(lowered, "coder-lowered.leviath"))
    budget = [c for c in result.changes if c.kind == "budget-lowered"]
    assert [(c.path, c.old, c.new) for c in budget] == [(("stages", stage, "max_revisits"), revisits, revisits - 1)]
    assert budget[0].new_at.line == text[:start].count("\n") + 1
    runs = result.runs
    assert runs is not None and runs.old.complete and runs.new.complete
    row = next(s for s in runs.stages if s.stage == stage)
    assert row.new_visits < row.old_visits
    assert runs.new.visits < runs.old.visits
    assert "ceiling-lowered" in [c.kind for c in result.changes]


# --- the docs ---------------------------------------------------------------------------------------------


def test_docs_list_every_kind_as_the_rules_table_does() -> None:
    """docs/diff.md holds `python -m compiler.diff.rules` between its markers."""
    text = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- change-kinds:start -->\n(.*?)<!-- change-kinds:end -->", text, flags=re.S)
    assert found is not None and found.group(1) == explain_markdown(), "regenerate: python -m compiler.diff.rules"
    assert all(f"`{kind}`" in found.group(1) for kind in RULES)


def test_the_runs_are_explored_with_the_settings_default_cap(tmp_path: Path) -> None:
    from compiler.config import Settings

    blueprint = """[agent]
name = "capless"
[stages.work]
mode = "autonomous"
max_revisits = {revisits}
[stages.work.transitions.work]
condition = "max_iterations"
[stages.work.transitions.done]
hint = "finished"
[stages.done]
mode = "autonomous"
max_iterations = 1
[stages.done.transitions]
"""
    old, new = tmp_path / "old.leviath", tmp_path / "new.leviath"
    old.write_text(blueprint.format(revisits=1), encoding="utf-8")
    new.write_text(blueprint.format(revisits=2), encoding="utf-8")
    usual = compiler.diff(old, new).runs
    capped = compiler.diff(old, new, settings=Settings(default_max_iterations=4)).runs
    # the capless stage runs up to its cap on each of its visits (2, then 3)
    assert (usual.old.inferences, usual.new.inferences) == (2 * 50 + 1, 3 * 50 + 1)
    assert (capped.old.inferences, capped.new.inferences) == (2 * 4 + 1, 3 * 4 + 1)
