"""A new user's day, end to end: a fresh repository of blueprints with only a `blueprint.toml`;
`blueprint new`; `blueprint validate --watch`, which shows what `--fix` can fix and checks
again once it is fixed; a docs site with an index; the GitHub Action wired into CI."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.action_runner import run_action
from tests.conftest import invoke_cli
from tests.test_action import runner_temp, tools
from tests.watching import Watch

pytest.importorskip("watchfiles")

WORKFLOW = """\
name: blueprints
on: [push, pull_request]
jobs:
  validate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: OWNER/REPO@REV
        with:
          args: --deny-warnings
"""


def test_a_new_users_day(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "agents-repo"
    repo.mkdir()
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "blueprint.toml").write_text('ignore = ["stage-missing-model"]\n', encoding="utf-8")
    monkeypatch.chdir(repo)

    # 1. Start an agent from a template.
    made = invoke_cli("new", "agents/writer", "--template", "review-loop")
    assert made.exit_code == 0, made.output
    blueprint = repo / "agents" / "writer" / "agent.leviath"

    # 2. Watch it while editing.
    watch = Watch(repo, "validate", "--watch")
    try:
        assert watch.wait_for("Checked 1 file")[-1] == "Checked 1 file: 0 errors, 0 warnings, 0 notes"
        watch.waiting()
        text = blueprint.read_text(encoding="utf-8")
        edited = text.replace('transform = "clear"', 'transform = "summarize"').replace(
            '[stages.review]\nmode = "autonomous"\n', "[stages.review]\n"
        )
        assert edited.count("\n") == text.count("\n") - 1
        blueprint.write_text(edited, encoding="utf-8")

        # 3. It shows which findings `--fix` can fix …
        report = watch.wait_for("fixable with `--fix`")
        assert report[-2:] == ["Checked 1 file: 0 errors, 2 warnings, 0 notes", "[*] 2 fixable with `--fix`"]
        assert sum("] [*] " in line for line in report) == 2
        watch.waiting()

        # … fixing them is seen by the watch.
        fixed = invoke_cli("validate", "--fix")
        assert fixed.exit_code == 0 and "fixed 2 findings in 1 file" in fixed.stderr
        assert watch.wait_for("Checked 1 file")[-1] == "Checked 1 file: 0 errors, 0 warnings, 0 notes"
    finally:
        assert watch.stop() == 130
    assert 'transform = "compact"' in blueprint.read_text(encoding="utf-8")

    # 4. Publish a docs site with an index.
    site = invoke_cli("docs", "agents", "-o", "site")
    assert site.exit_code == 0, site.output
    index = (repo / "site" / "index.md").read_text(encoding="utf-8")
    assert "| [writer](writer.md) | Draft a document, review it, revise until approved, then publish it | 4 |" in index
    assert "`writer/agent.leviath`" in index
    assert '<a href="writer.html">writer</a>' in (repo / "site" / "index.html").read_text(encoding="utf-8")

    # 5. Wire the action into CI: the workflow's step runs the action's steps on the repository.
    workflow = repo / ".github" / "workflows" / "blueprints.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(WORKFLOW, encoding="utf-8")
    (step,) = [
        s for s in yaml.safe_load(workflow.read_text())["jobs"]["validate"]["steps"] if "REPO" in s.get("uses", "")
    ]
    run = run_action(repo, {k: str(v) for k, v in step["with"].items()}, tools(tmp_path), runner_temp(tmp_path))
    assert not run.failed and run.outputs["validate"]["exit-code"] == "0"
