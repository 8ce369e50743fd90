"""`blueprint diff` on the command line: two files, `--rev` in a git repository, the gate
(`--fail-on`), the formats, errors and exit statuses; `blueprint compile --digest`; the
pre-commit hook's entry (test_precommit.py runs it through `pre-commit try-repo`)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import Result

import compiler
from compiler.diff.rules import RULES
from tests.conftest import invoke_cli
from tests.helpers import ROOT

CASES = ROOT / "tests" / "diff_cases"
BASE = (CASES / "budget-raised" / "build-revisits.old.leviath").read_text(encoding="utf-8")
RISKY = BASE.replace("max_iterations = 20\nmax_revisits = 2", "max_iterations = 20\nmax_revisits = 4")
INFO = BASE.replace('version = "1.0.0"', 'version = "1.1.0"')
BREAKING = BASE.replace('name = "shop"', 'name = "store"')
BROKEN = BASE.replace("max_iterations = 20", "max_iterations = 20\nmax_iterations = 21")

requires_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def diff(*args: str | Path) -> Result:
    return invoke_cli("diff", *args)


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name, text in (("base", BASE), ("risky", RISKY), ("info", INFO), ("breaking", BREAKING), ("broken", BROKEN)):
        (tmp_path / f"{name}.leviath").write_text(text, encoding="utf-8")
    return tmp_path


# --- two files: the gate and the formats ----------------------------------------------------------


@pytest.mark.parametrize(
    ("new", "fail_on", "status"),
    [
        ("risky", None, 0),
        ("breaking", None, 0),
        ("breaking", "breaking", 1),
        ("risky", "breaking", 0),
        ("risky", "risky", 1),
        ("breaking", "risky", 1),
        ("info", "risky", 0),
        ("info", "any", 1),
        ("base", "any", 0),
    ],
)
def test_the_gate(files: Path, new: str, fail_on: str | None, status: int) -> None:
    result = diff("base.leviath", f"{new}.leviath", *(["--fail-on", fail_on] if fail_on else []), "--no-runs")
    assert result.exit_code == status, result.output
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("kind", "case", "status"), [("cost-raised", "plan-opus", 1), ("cost-lowered", "plan-sonnet", 0)]
)
def test_the_cost_gate_trips_on_a_dearer_run_only(kind: str, case: str, status: int) -> None:
    """The prices come from the blueprint.toml beside the files, as for every command."""
    old, new = CASES / kind / f"{case}.old.leviath", CASES / kind / f"{case}.new.leviath"
    result = diff(old, new, "--fail-on", "cost")
    assert result.exit_code == status, result.output
    assert f"[{kind}]" in result.output
    assert diff(old, new, "--fail-on", "cost", "--no-runs").exit_code == 0  # no runs, no cost compared


def test_text_names_each_change_with_its_class_kind_and_places(files: Path) -> None:
    result = diff("base.leviath", "risky.leviath")
    assert result.exit_code == 0
    assert "base.leviath → risky.leviath: 3 changes (0 breaking, 3 risky, 0 info)" in result.output
    assert "risky     max_revisits of stage 'build' raised from 2 to 4  [budget-raised]" in result.output
    assert "30:16 → 30:16" in result.output
    assert re.search(r"build\s+3 → 5\s+60 → 100", result.output)  # the ceilings delta
    assert "\x1b[" not in result.output


def test_color_paints_the_classes(files: Path) -> None:
    result = diff("base.leviath", "breaking.leviath", "--color", "always", "--no-runs")
    assert "\x1b[1;31mbreaking" in result.output


def test_json_is_one_document_with_typed_changes(files: Path) -> None:
    result = diff("base.leviath", "risky.leviath", "--format", "json")
    document = json.loads(result.output)
    (entry,) = document["files"]
    assert entry["status"] == "changed" and entry["counts"] == {"breaking": 0, "risky": 3, "info": 0}
    first = entry["changes"][0]
    assert first["kind"] == "budget-raised" and first["path"] == "stages.build.max_revisits"
    assert (first["old"], first["new"]) == (2, 4)
    assert first["old_location"] == {"file": "base.leviath", "line": 30, "column": 16}
    assert entry["runs"]["new"]["visits"] == 10 and entry["runs"]["old"]["visits"] == 8
    assert document["summary"]["risky"] == 3
    assert re.fullmatch("[0-9a-f]{64}", entry["old"]["digest"])


def test_markdown_is_a_pull_request_comment(files: Path) -> None:
    result = diff("base.leviath", "breaking.leviath", "--format", "markdown")
    lines = result.output.splitlines()
    assert lines[0] == "<!-- blueprint-diff -->"
    assert "| **breaking** | agent renamed from 'shop' to 'store' | `agent-renamed` | 4:8 → 4:8 |" in lines


def test_markdown_escapes_what_a_blueprint_writes(files: Path) -> None:
    odd = BASE.replace("You make the change the plan describes.", "Use `a | b` and <b>bold</b> *here*")
    (files / "odd.leviath").write_text(odd, encoding="utf-8")
    result = diff("base.leviath", "odd.leviath", "--format", "markdown", "--no-runs")
    (row,) = [line for line in result.output.splitlines() if "prompt-changed" in line]
    assert row.count(" | ") == 3  # the pipe inside the prompt does not open a column
    assert "<b>" not in row and "&lt;b&gt;" in row


def test_identical_meaning_is_no_change(files: Path) -> None:
    old, new = CASES / "_unchanged" / "formatting.old.leviath", CASES / "_unchanged" / "formatting.new.leviath"
    result = diff(old, new, "--fail-on", "any")
    assert result.exit_code == 0
    # An unchanged blueprint is counted, not listed.
    assert result.output == "Compared 1 blueprint: 0 changed, 1 unchanged (0 breaking, 0 risky, 0 info)\n"


def test_explain_lists_every_kind_by_class() -> None:
    result = invoke_cli("diff", "--explain")
    assert result.exit_code == 0
    for kind, rule in RULES.items():
        assert f"  {kind}  ({rule.group})" in result.output
    assert result.output.index("breaking:") < result.output.index("risky:") < result.output.index("info:")


# --- errors ------------------------------------------------------------------------------------------


def test_a_version_with_errors_is_shown_and_not_compared(files: Path) -> None:
    result = diff("base.leviath", "broken.leviath", "--format", "text")
    assert result.exit_code == 1
    assert "base.leviath → broken.leviath: not compared: the new version has 1 error" in result.output
    assert "broken.leviath:30:1: error[duplicate-key]" in result.output
    document = json.loads(diff("broken.leviath", "base.leviath", "--format", "json").output)
    assert document["files"][0]["status"] == "refused" and document["files"][0]["refused_side"] == "old"
    assert document["files"][0]["diagnostics"][0]["code"] == "duplicate-key"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["base.leviath"], "give two blueprint files (OLD NEW)"),
        (["base.leviath", "missing.leviath"], "cannot read 'missing.leviath'"),
        (["base.leviath", "risky.leviath", "--fail-on", "worst"], "'worst' is not one of"),
    ],
)
def test_usage_and_io_errors_exit_2(files: Path, args: list[str], message: str) -> None:
    result = diff(*args)
    assert result.exit_code == 2
    assert message in result.stderr


# --- --rev in a git repository --------------------------------------------------------------------------


def _git(*args: str, cwd: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for role in ("AUTHOR", "COMMITTER"):
        env[f"GIT_{role}_NAME"], env[f"GIT_{role}_EMAIL"] = "t", "t@t.invalid"
    subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two commits: agents/a, agents/b and a hidden draft; then a working tree that raises a
    budget in a, deletes b and adds c."""
    monkeypatch.chdir(tmp_path)
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "a.leviath").write_text(BASE, encoding="utf-8")
    (agents / "b.leviath").write_text(BASE, encoding="utf-8")
    (agents / ".draft.leviath").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a blueprint\n", encoding="utf-8")
    _git("init", "-q", cwd=tmp_path)
    _git("add", "-A", cwd=tmp_path)
    _git("commit", "-q", "-m", "one", cwd=tmp_path)
    (agents / "a.leviath").write_text(INFO, encoding="utf-8")
    _git("commit", "-q", "-am", "two", cwd=tmp_path)
    (agents / "a.leviath").write_text(RISKY.replace('version = "1.0.0"', 'version = "1.1.0"'), encoding="utf-8")
    (agents / "b.leviath").unlink()
    (agents / "c.leviath").write_text(BASE, encoding="utf-8")
    return tmp_path


@requires_git
def test_rev_compares_the_working_tree_with_a_revision(repository: Path) -> None:
    result = diff("--rev", "HEAD", "--format", "json", "--no-runs")
    assert result.exit_code == 0, result.output
    files = {entry["new"]["path"]: entry for entry in json.loads(result.output)["files"]}
    assert set(files) == {"agents/a.leviath", "agents/b.leviath", "agents/c.leviath"}
    assert [c["kind"] for c in files["agents/a.leviath"]["changes"]] == ["budget-raised"]
    assert files["agents/a.leviath"]["old"]["revision"] == "HEAD"
    assert files["agents/b.leviath"]["status"] == "removed"
    assert files["agents/c.leviath"]["status"] == "added"
    assert diff("--rev", "HEAD", "--fail-on", "breaking", "--no-runs").exit_code == 1  # b was removed


@requires_git
def test_rev_reaches_back_and_takes_paths(repository: Path) -> None:
    result = diff("--rev", "HEAD~1", "agents/a.leviath", "--no-runs")
    assert result.exit_code == 0, result.output
    assert "HEAD~1:agents/a.leviath → agents/a.leviath: 2 changes" in result.output
    assert "agent version changed from '1.0.0' to '1.1.0'" in result.output
    os.chdir(repository / "agents")  # paths relative to a subdirectory
    inside = diff("--rev", "HEAD", "b.leviath", "--fail-on", "breaking", "--no-runs")
    assert inside.exit_code == 1 and "b.leviath (removed)" in inside.output


@requires_git
def test_rev_does_not_judge_a_past_revision_by_the_scripts_on_disk_today(repository: Path) -> None:
    # HEAD had a custom region and its script; the working tree drops both.
    region = '\n[context.regions.board]\nkind = "custom"\nscript = "board.rhai"\n'
    (repository / "agents" / "a.leviath").write_text(BASE + region, encoding="utf-8")
    (repository / "agents" / "board.rhai").write_text('fn render(ctx) { "" }\n', encoding="utf-8")
    _git("commit", "-q", "-am", "three", cwd=repository)
    _git("add", "agents/board.rhai", cwd=repository)
    _git("commit", "-q", "-m", "four", cwd=repository)
    (repository / "agents" / "a.leviath").write_text(BASE, encoding="utf-8")
    (repository / "agents" / "board.rhai").unlink()
    result = diff("--rev", "HEAD", "agents/a.leviath", "--no-runs")
    assert result.exit_code == 0, result.output
    assert "has errors" not in result.output
    # the working tree is judged by what lies beside it
    (repository / "agents" / "a.leviath").write_text(BASE + region, encoding="utf-8")
    refused = diff("--rev", "HEAD", "agents/a.leviath", "--no-runs")
    assert refused.exit_code == 1 and "custom-region-script-not-found" in refused.output


@requires_git
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rev", "no-such-branch"], "unknown revision 'no-such-branch'"),
        (["--rev", "HEAD", "ghost/"], "path 'ghost/' exists neither in the working tree nor at HEAD"),
    ],
)
def test_rev_errors(repository: Path, args: list[str], message: str) -> None:
    result = diff(*args)
    assert result.exit_code == 2
    assert message in result.stderr


@requires_git
def test_rev_compares_a_file_named_explicitly_whatever_its_name(repository: Path) -> None:
    result = diff("--rev", "HEAD", "notes.txt")
    assert result.exit_code == 1  # not TOML: both versions have errors, so nothing is compared
    assert "notes.txt: not compared: the old version has 1 error" in result.output.replace("HEAD:notes.txt → ", "")


@requires_git
def test_rev_outside_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    monkeypatch.chdir(outside)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    result = diff("--rev", "HEAD")
    assert result.exit_code == 2
    assert "is not inside one" in result.stderr


# --- the pre-commit hook's entry -------------------------------------------------------------------------


@requires_git
def test_the_pre_commit_hook_entry_fails_a_breaking_commit(repository: Path) -> None:
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit (the 'test' extra)")
    (hook,) = [h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text()) if h["id"] == "blueprint-diff"]
    script, *args = shlex.split(hook["entry"])
    executable = shutil.which(script, path=str(Path(sys.executable).parent))
    if executable is None:
        pytest.skip(f"the '{script}' console script is not installed next to {sys.executable}")

    def run(*files: str) -> subprocess.CompletedProcess:
        command = [executable, *args, *hook["args"], "--no-runs", *files]
        return subprocess.run(command, cwd=repository, capture_output=True, text=True, timeout=120)

    assert run("agents/a.leviath").returncode == 0  # risky only
    (repository / "agents" / "a.leviath").write_text(BREAKING, encoding="utf-8")
    breaking = run("agents/a.leviath", "agents/c.leviath")
    assert breaking.returncode == 1, breaking.stdout + breaking.stderr
    assert "agent renamed from 'shop' to 'store'" in breaking.stdout


# --- compile --digest -----------------------------------------------------------------------------------


def test_compile_digest_is_one_value_per_meaning(files: Path) -> None:
    def digest(path: Path | str) -> Result:
        return invoke_cli("compile", "--digest", path)

    old, new = (digest(CASES / "_unchanged" / f"formatting.{side}.leviath") for side in ("old", "new"))
    assert old.exit_code == new.exit_code == 0
    assert re.fullmatch(r"[0-9a-f]{64}\n", old.stdout)  # warnings go to stderr
    assert old.stdout == new.stdout
    assert old.stdout.strip() == compiler.digest(compiler.compile(CASES / "_unchanged" / "formatting.old.leviath"))
    assert digest("risky.leviath").stdout != digest("base.leviath").stdout
    assert digest("broken.leviath").exit_code == 1
