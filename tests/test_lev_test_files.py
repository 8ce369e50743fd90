"""`lev test` files (`tests/*.toml` with `[[test]]` cases, `tests/*.rhai` scripts, beside an
`agent.leviath`; Leviath's `crates/leviath-cli/src/commands/test.rs`) on every path by which
one can reach us. They are not blueprints and not scenario files: a command handed one says
so once (`not-a-blueprint`, a note; `scenario-format` in `blueprint test`), never reports a
missing `[agent]` or an unknown key `test`, and a search never picks one up."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler import validate_file, validate_text
from compiler.scenarios.pytest_plugin import pytest_collect_file
from tests.conftest import invoke_cli
from tests.helpers import ROOT

LEV_TEST = '[[test]]\nname = "greets"\ninput = "Hello"\nexpect_contains = "hello"\n\n[[test]]\nname = "reads"\ninput = "Read a.txt"\nexpect_tool_call = "read_file"\n'
RHAI = "let answer = 6 * 7;\nanswer == 42\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An agent project as `lev test` expects it: agent.leviath and its tests/ folder."""
    (tmp_path / "agent.leviath").write_bytes((ROOT / "blueprints" / "linear-pipeline.leviath").read_bytes())
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "basic.toml").write_text(LEV_TEST, encoding="utf-8")
    (tmp_path / "tests" / "sums.rhai").write_text(RHAI, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_lev_test_file_is_recognised_and_nothing_else_is_reported():
    result = validate_text(LEV_TEST, "tests/basic.toml")
    assert [(d.code, d.severity, d.line, d.column) for d in result.diagnostics] == [("not-a-blueprint", "note", 1, 3)]
    assert result.blueprint is None and result.ok
    assert "one real inference" in result.diagnostics[0].message
    # an empty test list and keys of its own are still Leviath's test file (serde ignores them)
    assert [d.code for d in validate_text('description = "x"\ntest = []\n').diagnostics] == ["not-a-blueprint"]


def test_a_blueprint_with_a_test_key_is_still_a_blueprint():
    text = '[agent]\nname = "t"\n[stages.a]\n[[test]]\nname = "x"\n'
    codes = [d.code for d in validate_text(text).diagnostics]
    assert "not-a-blueprint" not in codes and "unknown-key" in codes
    codes = [d.code for d in validate_text('test = "not a table"\n').diagnostics]
    assert "not-a-blueprint" not in codes and "missing-agent" in codes


def test_a_rhai_script_is_recognised_by_its_suffix(project: Path):
    (finding,) = validate_file("tests/sums.rhai").diagnostics
    assert (finding.code, finding.severity, finding.span.line, finding.span.column) == ("not-a-blueprint", "note", 1, 1)
    assert [d.code for d in validate_text("not toml at all {", "tools/x.rhai").diagnostics] == ["not-a-blueprint"]


def test_validate_names_it_and_a_search_never_finds_it(project: Path):
    named = invoke_cli("validate", "tests/basic.toml", "tests/sums.rhai")
    assert named.exit_code == 0, named.output
    assert named.output.count("note[not-a-blueprint]") == 2
    assert "missing-agent" not in named.output and "unknown-key" not in named.output
    searched = invoke_cli("validate", "--format", "json", ".")
    assert searched.exit_code == 0 and '"path": "agent.leviath"' in searched.output
    assert "tests/" not in searched.output


def test_check_says_it_is_not_a_blueprint(project: Path):
    result = invoke_cli("check", "tests/basic.toml")
    assert result.exit_code == 0
    assert "tests/basic.toml: not analysed: it is not a blueprint" in result.output


@pytest.mark.parametrize(
    "args, says",
    [
        (["compile", "tests/basic.toml"], "note[not-a-blueprint]"),
        (["graph", "tests/basic.toml"], "note[not-a-blueprint]"),
        (["docs", "tests/sums.rhai"], "note[not-a-blueprint]"),
        (
            ["run", "tests/basic.toml", "--events", "/dev/null"],
            "refusing to run 'tests/basic.toml': it is not a blueprint",
        ),
        (["diff", "tests/basic.toml", "agent.leviath"], "not compared: the old version is not a blueprint"),
    ],
)
def test_commands_that_need_a_blueprint_refuse_it_and_say_why(project: Path, args: list[str], says: str):
    result = invoke_cli(*args)
    assert result.exit_code == 1
    assert says in result.output


def test_blueprint_test_names_what_it_was_given(project: Path):
    named = invoke_cli("test", "tests/basic.toml", "tests/sums.rhai")
    assert named.exit_code == 1
    assert named.output.count("error[scenario-format]") == 2
    assert "this is a `lev test` file" in named.output and "this is a Rhai script" in named.output
    assert "unknown key 'test'" not in named.output and "no [[scenario]] table" not in named.output
    for where in (".", "agent.leviath", "tests"):
        found = invoke_cli("test", where)
        assert found.exit_code == 2, where
        assert "`lev test` files, which `lev test` runs and blueprint test does not" in found.output, where


def test_pytest_collects_only_scenario_files(project: Path):
    for name in ("basic.toml", "sums.rhai"):
        assert pytest_collect_file(project / "tests" / name, None) is None  # type: ignore[arg-type]


def test_the_language_server_shows_the_note_alone(project: Path):
    from compiler.lsp.diagnostics import _analyse

    analysis, _ = _analyse(str(project / "tests" / "basic.toml"), LEV_TEST, 1, "utf-16", False)
    assert [d.code for d in analysis.result.diagnostics] == ["not-a-blueprint"]
    assert not analysis.parsed  # no navigation over a file that is not a blueprint
