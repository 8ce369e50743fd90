"""Small things a reader meets in the reports: the footer points at the rule that matters most,
a fan-out worker is not called the end of the run, `diff` counts unchanged blueprints rather
than listing them, and counts read in the singular when there is one."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import invoke_cli
from tests.helpers import ROOT

NOTE_THEN_ERROR = """\
[agent]
name = "t"

[context.regions]
files = { kind = "pinned", budget = "3%", seed = { command = "git ls-files" } }

[stages.work]
mode = "autonomous"
model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
max_iterations = 5

[stages.work.transitions.nowhere]
"""
FAN_OUT = ROOT / "tests" / "check_cases" / "output-can-be-skipped" / "fan-out-never-splits.leviath"


def invoke(*args: str):
    return invoke_cli(*args)


def test_the_footer_names_the_most_severe_findings_rule(tmp_path: Path) -> None:
    path = tmp_path / "agent.leviath"
    path.write_text(NOTE_THEN_ERROR, encoding="utf-8")
    result = invoke("validate", str(path))
    first = result.stdout.index("note[command-seed]")
    assert first < result.stdout.index("error[")  # the note comes first in the file
    assert "A rule's rationale, example and fix: `blueprint rule no-terminal-path`" in result.stdout


def test_a_fan_out_worker_is_not_labelled_the_end_of_the_run(tmp_path: Path) -> None:
    text = invoke("graph", "--format", "text", str(FAN_OUT)).stdout
    worker = text[text.index("stage 'item'") :].split("\n\n")[0]
    assert "[fan-out worker]" in worker and "terminal" not in worker
    assert "ends the worker run" in worker and "ends the run)" not in worker
    site = invoke("docs", str(FAN_OUT), "-o", str(tmp_path / "site"))
    assert site.exit_code in (0, 1), site.output
    (page,) = [p for p in (tmp_path / "site").glob("*.md") if p.name != "index.md"]
    markdown = page.read_text(encoding="utf-8")
    assert "| item (fan-out worker) |" in markdown
    assert "a normal end here ends the worker run" in markdown


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_counts_unchanged_blueprints_instead_of_listing_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = (ROOT / "tests" / "diff_cases" / "run-failure-added" / "strand.old.leviath").read_text(encoding="utf-8")
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "agent.leviath").write_text(source.replace('name = "shop"', f'name = "{name}"'), "utf-8")

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True)

    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "agents")
    changed = tmp_path / "c" / "agent.leviath"
    changed.write_text(changed.read_text(encoding="utf-8").replace("max_iterations = 3", "max_iterations = 4"), "utf-8")
    monkeypatch.chdir(tmp_path)
    result = invoke("diff", "--rev", "HEAD", "--no-runs")
    assert result.exit_code == 0, result.output
    assert "a/agent.leviath" not in result.stdout and "b/agent.leviath" not in result.stdout
    assert "c/agent.leviath" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("Compared 3 blueprints: 1 changed, 2 unchanged (")
    markdown = invoke("diff", "--rev", "HEAD", "--no-runs", "--format", "markdown").stdout
    assert "3 blueprints compared, 1 changed, 2 unchanged:" in markdown and "a/agent.leviath" not in markdown


def test_one_stage_visit_reads_in_the_singular(tmp_path: Path) -> None:
    """(`fixed 1 finding in 1 file`: tests/test_fix_cli.py.)"""
    source = (
        '[agent]\nname = "t"\n\n[stages.work]\nmode = "autonomous"\n'
        'model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }\n'
        "max_iterations = 5\n\n[stages.work.transitions]\n"
    )
    path = tmp_path / "agent.leviath"
    path.write_text(source, encoding="utf-8")
    checked = invoke("check", str(path)).stdout
    assert "every run ends within 1 stage visit and 5 inferences" in checked
