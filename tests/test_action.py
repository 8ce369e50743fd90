"""The GitHub Action (`action.yml`): its shell steps, run as a runner runs them, on a clean and
on a broken repository, with and without SARIF; inputs never reach the shell as code."""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest

from tests.action_runner import load_action, run_action
from tests.helpers import ROOT

BROKEN = '[agent]\nname = "b"\n[stages.a]\nmode = "output"\n[stages.a.transitions.ghost]\n'


def tools(tmp_path: Path) -> list[str]:
    """A bin folder: `python` records what the install step asks pip for (no network), and
    `blueprint` is this checkout's."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python = bin_dir / "python"
    python.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{tmp_path / "pip.log"}"\n', encoding="utf-8")
    blueprint = bin_dir / "blueprint"
    blueprint.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m compiler "$@"\n', encoding="utf-8")
    for script in (python, blueprint):
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return [str(bin_dir)]


def workspace(tmp_path: Path, broken: bool = False) -> Path:
    repo = tmp_path / "repo"
    (repo / "agents").mkdir(parents=True)
    (repo / "agents" / "good.leviath").write_text(
        (ROOT / "blueprints" / "linear-pipeline.leviath").read_text(encoding="utf-8"), encoding="utf-8"
    )
    if broken:
        (repo / "agents" / "broken.leviath").write_text(BROKEN, encoding="utf-8")
    return repo


def runner_temp(tmp_path: Path) -> Path:
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    return temp


def test_the_action_is_a_composite_of_known_steps() -> None:
    action = load_action()
    assert action["runs"]["using"] == "composite"
    uses = [step["uses"].split("@")[0] for step in action["runs"]["steps"] if "uses" in step]
    assert uses == ["actions/setup-python", "github/codeql-action/upload-sarif"]
    for step in action["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), f"step '{step['name']}' splices an expression into its script"


def test_a_clean_repository_passes(tmp_path: Path) -> None:
    run = run_action(workspace(tmp_path), {}, tools(tmp_path), runner_temp(tmp_path))
    assert not run.failed, [(s.name, s.stdout, s.stderr) for s in run.steps]
    assert (tmp_path / "pip.log").read_text(encoding="utf-8").splitlines() == [
        f"-m pip install --quiet --disable-pip-version-check {ROOT}"
    ]
    assert run.outputs["validate"] == {"exit-code": "0"}
    assert run.step("Validate blueprints").stdout == ""  # nothing to annotate
    assert [s.name for s in run.steps if s.ran] == ["Install agent-blueprint-compiler", "Validate blueprints"]


def test_findings_are_annotated_reported_in_full_and_fail_the_job(tmp_path: Path) -> None:
    run = run_action(
        workspace(tmp_path, broken=True), {"args": "--deny-warnings"}, tools(tmp_path), runner_temp(tmp_path)
    )
    validate = run.step("Validate blueprints")
    assert validate.returncode == 0 and run.outputs["validate"]["exit-code"] == "1"
    annotations = [line for line in validate.stdout.splitlines() if line.startswith("::error ")]
    assert annotations and all("file=agents/broken.leviath" in line for line in annotations)
    plain = re.sub("\x1b\\[[0-9;]*m", "", validate.stdout)  # the full report is coloured for the log
    assert "::group::Full report" in plain and "error[unknown-stage]" in plain
    fail = run.step("Fail on findings")
    assert fail.ran and fail.returncode == 1 and run.failed
    assert not run.step("Upload to code scanning").ran


def test_sarif_is_written_for_the_upload(tmp_path: Path) -> None:
    repo = workspace(tmp_path, broken=True)
    inputs = {"sarif": "true", "paths": "agents", "version": "agent-blueprint-compiler==0.1.0"}
    run = run_action(repo, inputs, tools(tmp_path), runner_temp(tmp_path))
    assert run.outputs["validate"] == {"sarif-file": "blueprint.sarif", "exit-code": "1"}
    log = json.loads((repo / "blueprint.sarif").read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0" and {r["ruleId"] for r in log["runs"][0]["results"]} >= {"unknown-stage"}
    assert run.step("Upload to code scanning").ran is False  # a `uses:` step: GitHub runs it (its `if:` held)
    assert "-m pip install --quiet --disable-pip-version-check agent-blueprint-compiler==0.1.0" in (
        tmp_path / "pip.log"
    ).read_text(encoding="utf-8")


def test_a_usage_error_fails_with_status_2_and_uploads_nothing(tmp_path: Path) -> None:
    run = run_action(workspace(tmp_path), {"paths": "missing", "sarif": "true"}, tools(tmp_path), runner_temp(tmp_path))
    assert run.outputs["validate"]["exit-code"] == "2" and "sarif-file" not in run.outputs["validate"]
    assert run.step("Fail on findings").returncode == 2


def test_inputs_never_run_as_code(tmp_path: Path) -> None:
    repo = workspace(tmp_path)
    marker = tmp_path / "pwned"
    hostile = {"paths": f"agents $(touch {marker}) `touch {marker}` *", "args": f"--color=never;touch {marker}"}
    run = run_action(repo, hostile, tools(tmp_path), runner_temp(tmp_path))
    assert not marker.exists()
    assert run.outputs["validate"]["exit-code"] == "2"  # the odd words are reported as missing paths


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX shell scripts")
def test_the_documented_workflow_uses_the_action(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert "- uses: OWNER/REPO@REV" in text
    for name in load_action()["inputs"]:
        assert f"| `{name}` |" in text, f"input {name} is not documented in docs/ci.md"


def test_a_sarif_log_that_cannot_be_written_fails_the_job_and_is_not_reported(tmp_path: Path) -> None:
    inputs = {"sarif": "true", "sarif-file": "nodir/x.sarif"}
    run = run_action(workspace(tmp_path), inputs, tools(tmp_path), runner_temp(tmp_path))
    assert run.outputs["validate"] == {"exit-code": "2"}
    assert "::error::cannot write the SARIF log" in run.step("Validate blueprints").stdout
    assert run.step("Fail on findings").returncode == 2 and run.failed


def test_a_line_break_in_sarif_file_forges_no_output(tmp_path: Path) -> None:
    inputs = {"sarif": "true", "sarif-file": "x.sarif\nexit-code=0\nforged=yes"}
    run = run_action(workspace(tmp_path, broken=True), inputs, tools(tmp_path), runner_temp(tmp_path))
    assert run.outputs["validate"] == {"exit-code": "2"}
    assert "::error::the sarif-file input must be a path on one line" in run.step("Validate blueprints").stdout
    assert run.failed
