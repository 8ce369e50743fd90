"""A run that ends with nothing fails the commands that gate a commit, as a user runs them:
`blueprint check` exits 1 on it, and `blueprint diff --fail-on breaking` (the pre-commit hook's
command) stops the change that introduces it. `validate` alone, which runs no run, does not."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import invoke_cli
from tests.helpers import ROOT

STRAND = ROOT / "tests" / "diff_cases" / "run-failure-added"
NO_OUTPUT = ROOT / "tests" / "check_cases" / "output-can-be-skipped" / "give-up.leviath"


def invoke(*args: str):
    return invoke_cli(*args)


def test_a_strand_the_edit_introduced_fails_check_and_the_breaking_gate() -> None:
    old, new = STRAND / "strand.old.leviath", STRAND / "strand.new.leviath"
    assert invoke("validate", str(new)).exit_code == 0  # warnings at most: validate runs no run
    assert invoke("check", str(old)).exit_code == 0
    checked = invoke("check", str(new))
    assert checked.exit_code == 1, checked.output
    assert "error[run-can-strand]" in checked.stdout
    diffed = invoke("diff", str(old), str(new), "--fail-on", "breaking")
    assert diffed.exit_code == 1, diffed.output
    assert "breaking  run-can-strand:" in diffed.stdout and "[run-failure-added]" in diffed.stdout


def test_a_run_that_ends_without_its_output_fails_check() -> None:
    checked = invoke("check", str(NO_OUTPUT))
    assert checked.exit_code == 1, checked.output
    assert "error[output-can-be-skipped]" in checked.stdout
    assert invoke("check", str(NO_OUTPUT), "--ignore", "output-can-be-skipped").exit_code == 0


def test_a_new_loop_is_risky_not_breaking() -> None:
    cases = ROOT / "tests" / "diff_cases" / "run-finding-added"
    old, new = str(cases / "loop.old.leviath"), str(cases / "loop.new.leviath")
    assert invoke("diff", old, new, "--fail-on", "breaking").exit_code == 0
    assert invoke("diff", old, new, "--fail-on", "risky").exit_code == 1


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_pre_commit_diff_hook_stops_a_commit_that_strands_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True)

    blueprint = tmp_path / "agent.leviath"
    blueprint.write_text((STRAND / "strand.old.leviath").read_text(encoding="utf-8"), encoding="utf-8")
    git("init", "-q")
    git("add", "agent.leviath")
    git("commit", "-qm", "agent")
    blueprint.write_text((STRAND / "strand.new.leviath").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    hook = invoke("diff", "--rev", "HEAD", "--fail-on", "breaking", "agent.leviath")
    assert hook.exit_code == 1, hook.output
    assert "[run-failure-added]" in hook.stdout
