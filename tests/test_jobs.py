"""`--jobs`: a tree checked in several processes reports exactly what one process reports."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.cli.errors import CliError
from compiler.cli.pool import ENVIRONMENT, cores, in_order, resolve_jobs
from compiler.config import ConfigFinder
from tests.helpers import ROOT


def tree(root: Path) -> Path:
    """The examples four times over, a file with a syntax error, one with schema errors and
    two fixable ones: enough files for a pool in both commands, findings of every severity."""
    root.mkdir()
    for copy in ("a", "b", "c", "d"):
        (root / copy).mkdir()
        for example in sorted((ROOT / "blueprints").glob("*.leviath")):
            shutil.copy(example, root / copy / example.name)
    (root / "broken.leviath").write_text("[agent\nname = 1\n", encoding="utf-8")
    (root / "schema.leviath").write_text('[agent]\nname = 3\n[stages.a]\nmode = "nope"\n', encoding="utf-8")
    model = 'model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }'
    stage = f"[stages.work]\n{model}\nmax_iterations = 3\n"
    (root / "no-mode.leviath").write_text(f'[agent]\nname = "a"\n\n{stage}', encoding="utf-8")
    (root / "case.leviath").write_text(
        f'[agent]\nname = "c"\n[tool_permissions]\nread_file = "ALLOW"\n\n{stage}mode = "autonomous"\n',
        encoding="utf-8",
    )
    return root


def blueprint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != ENVIRONMENT}
    return subprocess.run(
        [sys.executable, "-m", "compiler", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )


@pytest.mark.parametrize("command", ["validate", "check"])
def test_two_jobs_report_byte_for_byte_what_one_does_in_every_format(tmp_path: Path, command: str) -> None:
    root = tree(tmp_path / "tree")
    human = (["--statistics"], ["-q", "--statistics"])
    for output in ("text", "json", "sarif", "concise", "github"):
        for extra in ([], *(human if output in ("text", "concise") else ())):
            one = blueprint(command, "--jobs", "1", "--format", output, *extra, ".", cwd=root)
            two = blueprint(command, "--jobs", "2", "--format", output, *extra, ".", cwd=root)
            assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout, one.stderr), (output, extra)
            assert one.returncode == 1
            assert ("broken.leviath" in one.stdout) == (not extra), (output, extra)


def test_fix_with_two_jobs_writes_what_one_job_writes(tmp_path: Path) -> None:
    first, second = tree(tmp_path / "first"), tree(tmp_path / "second")
    one = blueprint("validate", "--fix", "--jobs", "1", ".", cwd=first)
    two = blueprint("validate", "--fix", "--jobs", "2", ".", cwd=second)
    assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout, one.stderr)
    assert "fixed " in one.stderr
    written = {path.relative_to(first): path.read_bytes() for path in sorted(first.rglob("*.leviath"))}
    assert written == {path.relative_to(second): path.read_bytes() for path in sorted(second.rglob("*.leviath"))}


def test_a_pool_starts_only_for_enough_files_and_more_than_one_job() -> None:
    here = os.getpid()
    assert set(in_order(lambda _path: os.getpid(), ("a",), 2)) == {here}  # one file: no pool
    assert set(in_order(lambda _path: os.getpid(), ("a", "b", "c", "d"), 1)) == {here}
    many = tuple(f"f{i}" for i in range(8))
    assert set(in_order(lambda _path: os.getpid(), many, 2, minimum=9)) == {here}  # fewer than the minimum
    assert list(in_order(str.upper, many, 2, minimum=8)) == [name.upper() for name in many]  # in the files' order
    assert here not in set(in_order(lambda _path: os.getpid(), many, 2, minimum=8))


def test_the_flag_then_the_environment_then_the_configuration_then_every_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(ENVIRONMENT, raising=False)
    assert resolve_jobs(None, ConfigFinder()) == cores()
    (tmp_path / "blueprint.toml").write_text("jobs = 3\n", encoding="utf-8")
    assert resolve_jobs(None, ConfigFinder()) == 3
    monkeypatch.setenv(ENVIRONMENT, "5")
    assert resolve_jobs(None, ConfigFinder()) == 5
    assert resolve_jobs(1, ConfigFinder()) == 1
    assert resolve_jobs(0, ConfigFinder()) == cores()
    monkeypatch.setenv(ENVIRONMENT, "two")
    with pytest.raises(CliError, match="BLUEPRINT_JOBS=two"):
        resolve_jobs(None, ConfigFinder())


def test_the_text_report_is_written_file_by_file_and_keeps_no_source(tmp_path: Path) -> None:
    from compiler.cli import validate_run
    from compiler.config import Settings
    from compiler.render import ReportOptions

    root = tree(tmp_path / "tree")
    files = tuple(str(path) for path in sorted(root.rglob("*.leviath")))
    written: list[str] = []
    run = validate_run._check(
        files, dict.fromkeys(files, Settings()), False, text=ReportOptions(), write=written.append
    )
    assert len(written) == len(files) == len(run.results)
    assert "broken.leviath" in "".join(written)
    assert all(r.source is None and r.blueprint is None and r.document is None for r in run.results)


def test_the_json_report_keeps_each_file_as_its_entry(tmp_path: Path) -> None:
    from compiler.cli import validate_run
    from compiler.config import Settings

    root = tree(tmp_path / "tree")
    files = tuple(str(path) for path in sorted(root.rglob("*.leviath")))
    run = validate_run._check(files, dict.fromkeys(files, Settings()), False, fixes=True, entries=True)
    assert [entry["path"] for entry in run.entries] == list(files)
    assert any(entry["blueprint"] is not None for entry in run.entries)
    assert all(r.source is None and r.blueprint is None for r in run.results)
