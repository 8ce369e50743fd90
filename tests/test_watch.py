"""`--watch`: a real process that checks again when a blueprint, a tool script or a
configuration file changes, and a clear exit when watchfiles is not installed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.cli.watch import relevant
from tests.conftest import invoke_cli
from tests.helpers import ROOT
from tests.watching import Watch

pytest.importorskip("watchfiles")

GOOD = """\
[agent]
name = "w"

[stages.work]
mode = "autonomous"
max_iterations = 5
available_tools = ["read_file", "summarise"]

[stages.work.transitions.done]

[stages.done]
mode = "output"
max_iterations = 3

[stages.done.transitions]
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / "blueprint.toml").write_text('ignore = ["stage-missing-model"]\n', encoding="utf-8")
    agent = tmp_path / "agents" / "w"
    (agent / "tools").mkdir(parents=True)
    (agent / "agent.leviath").write_text(GOOD, encoding="utf-8")
    (tmp_path / "node_modules" / "pkg").mkdir(parents=True)
    return agent


@pytest.mark.parametrize("command", ["validate", "check"])
def test_a_change_to_a_blueprint_a_tool_script_or_the_configuration_runs_again(tmp_path: Path, command: str) -> None:
    agent = project(tmp_path)
    watch = Watch(tmp_path, command, "--watch")
    try:
        assert watch.wait_for("Checked 1 file")[-1] == "Checked 1 file: 1 error, 0 warnings, 0 notes"
        assert any("unknown-tool" in line for _, line in watch.seen)
        watch.waiting()

        # A tool script beside the blueprint makes `summarise` known.
        (agent / "tools" / "summarise.rhai").write_text("// @tool summarise\nparams.text\n", encoding="utf-8")
        assert watch.wait_for("Checked 1 file")[-1] == "Checked 1 file: 0 errors, 0 warnings, 0 notes"
        # stderr is read by its own thread: wait for the line rather than look for it
        watch.wait_for("changed: agents/w/tools/summarise.rhai; checking again", "err")
        watch.waiting()

        # The blueprint itself.
        (agent / "agent.leviath").write_text(GOOD.replace('mode = "output"', 'mode = "outptu"'), encoding="utf-8")
        assert watch.wait_for("Checked 1 file")[-1].startswith("Checked 1 file: 1 error")
        watch.waiting()

        # The configuration file.
        (tmp_path / "blueprint.toml").write_text('ignore = ["stage-missing-model", "schema"]\n', encoding="utf-8")
        assert watch.wait_for("Checked 1 file")[-1].startswith("Checked 1 file: 0 errors")
        watch.waiting()

        # A new folder with a blueprint is watched and checked; unrelated files are not.
        (tmp_path / "node_modules" / "pkg" / "notes.txt").write_text("x", encoding="utf-8")
        (tmp_path / "agents" / "v").mkdir()
        (tmp_path / "agents" / "v" / "agent.leviath").write_text(GOOD, encoding="utf-8")
        assert watch.wait_for("Checked 2 files")[-1].startswith("Checked 2 files")
        assert not any("notes.txt" in line for _, line in watch.seen)
    finally:
        status = watch.stop()
    assert status == 130


def test_a_broken_configuration_is_reported_and_the_watch_goes_on(tmp_path: Path) -> None:
    project(tmp_path)
    watch = Watch(tmp_path, "validate", "--watch", "-q")
    try:
        watch.wait_for("Checked 1 file")
        watch.waiting()
        (tmp_path / "blueprint.toml").write_text('ignore = ["nope"]\n', encoding="utf-8")
        watch.wait_for("unknown rule or family 'nope'", "err")
        (tmp_path / "blueprint.toml").write_text("", encoding="utf-8")
        assert watch.wait_for("Checked 1 file")[-1] == "Checked 1 file: 1 error, 2 warnings, 0 notes"
    finally:
        watch.stop()


def test_without_watchfiles_the_exit_is_2_with_the_install_line(tmp_path: Path) -> None:
    project(tmp_path)
    code = "import sys; sys.modules['watchfiles'] = None; from compiler.cli.main import main; main(sys.argv[1:])"
    done = subprocess.run(
        [sys.executable, "-c", code, "validate", "--watch"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "Error: --watch needs the watchfiles package, which is not installed: "
        "reinstall agent-blueprint-compiler (pip install --force-reinstall agent-blueprint-compiler)"
    )
    assert done.stdout == ""


def test_watch_refuses_what_rewrites_or_reads_stdin(tmp_path: Path) -> None:

    for extra in (["--fix"], ["--diff"], ["-"]):
        assert invoke_cli("validate", "--watch", *extra).exit_code == 2


def test_what_counts_as_a_change() -> None:
    assert relevant("/p/agents/a/agent.leviath") and relevant("/p/x.leviath")
    assert relevant("/p/agents/a/tools/t.rhai") and not relevant("/p/agents/a/regions/r.rhai")
    assert relevant("/p/blueprint.toml") and relevant("/p/.blueprint.toml") and relevant("/p/pyproject.toml")
    assert relevant("/p/.gitignore")
    assert not relevant("/p/.draft.leviath") and not relevant("/p/notes.txt") and not relevant("/p/a.leviath.swp")
