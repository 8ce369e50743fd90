"""`blueprint validate --fix` and `--diff`: what is written, what is printed, exit statuses."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.conftest import invoke_cli

MODEL = 'model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }'
FIXABLE = f'[agent]\nname = "a"\n\n[stages.work]  # one stage\n{MODEL}\nmax_iterations = 3\n'
FIXED = f'[agent]\nname = "a"\n\n[stages.work]  # one stage\nmode = "autonomous"\n{MODEL}\nmax_iterations = 3\n'
CLEAN = f'[agent]\nname = "b"\n\n[stages.work]\nmode = "autonomous"\n{MODEL}\nmax_iterations = 3\n'
NOTE_ONLY = CLEAN.replace('name = "b"', 'name = "c"\n[tool_permissions]\nread_file = "ALLOW"')


def invoke(*args: str):
    return invoke_cli("validate", *args)


def tree(tmp_path: Path, **files: str) -> dict[str, Path]:
    paths = {}
    for name, text in files.items():
        path = tmp_path / f"{name}.leviath"
        path.write_text(text, encoding="utf-8")
        paths[name] = path
    return paths


def test_fix_writes_changed_files_only_and_reports_what_remains(tmp_path: Path) -> None:
    paths = tree(tmp_path, a=FIXABLE, b=CLEAN)
    os.utime(paths["b"], (1_000_000, 1_000_000))
    result = invoke(str(tmp_path), "--fix")
    assert result.exit_code == 0, result.output
    assert paths["a"].read_text(encoding="utf-8") == FIXED
    assert paths["b"].read_text(encoding="utf-8") == CLEAN
    assert paths["b"].stat().st_mtime == 1_000_000  # untouched, not rewritten
    assert "fixed 1 finding in 1 file" in result.stderr
    assert "stage-missing-mode" not in result.stdout
    assert "Checked 2 files: 0 errors, 0 warnings, 0 notes" in result.stdout


def test_fix_leaves_what_it_cannot_fix_and_exits_by_what_remains(tmp_path: Path) -> None:
    broken = FIXABLE + "\n[stages.work.transitions.ghost]\n"
    paths = tree(tmp_path, a=broken, s='[agent]\nname = "s"\n[stages.work\n')
    result = invoke(str(tmp_path), "--fix")
    assert result.exit_code == 1
    assert 'mode = "autonomous"' in paths["a"].read_text(encoding="utf-8")
    assert "error[unknown-stage]" in result.stdout
    assert (
        paths["s"].read_text(encoding="utf-8") == '[agent]\nname = "s"\n[stages.work\n'
    )  # syntax error: never touched
    assert "error[toml-syntax]" in result.stdout


def test_diff_prints_a_patch_and_writes_nothing(tmp_path: Path) -> None:
    paths = tree(tmp_path, a=FIXABLE, b=CLEAN)
    result = invoke(str(paths["a"]), str(paths["b"]), "--diff")
    assert result.exit_code == 1
    assert paths["a"].read_text(encoding="utf-8") == FIXABLE
    assert f"--- {paths['a']}\n+++ {paths['a']}\n" in result.stdout
    assert '+mode = "autonomous"\n' in result.stdout
    assert result.stdout.count("@@") == 2  # one hunk, for 'a' only
    assert "1 fixable finding in 1 file" in result.stderr


def test_diff_exits_0_when_nothing_needs_fixing(tmp_path: Path) -> None:
    paths = tree(tmp_path, b=CLEAN)
    result = invoke(str(paths["b"]), "--diff")
    assert result.exit_code == 0 and result.stdout == ""


def test_diff_of_notes_still_exits_1(tmp_path: Path) -> None:
    paths = tree(tmp_path, c=NOTE_ONLY)
    assert invoke(str(paths["c"])).exit_code == 0  # a note never fails validation …
    result = invoke(str(paths["c"]), "--diff")
    assert result.exit_code == 1  # … but --diff says there is something to fix
    assert '-read_file = "ALLOW"\n+read_file = "allow"\n' in result.stdout


@pytest.mark.skipif(shutil.which("patch") is None, reason="patch is not installed")
def test_the_diff_applies_with_patch(tmp_path: Path) -> None:
    tree(tmp_path, a=FIXABLE, c=NOTE_ONLY)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = invoke("a.leviath", "c.leviath", "--diff")
    finally:
        os.chdir(cwd)
    assert "--- a/a.leviath\n+++ b/a.leviath\n" in result.stdout
    subprocess.run(["patch", "-p1", "-s"], input=result.stdout.encode(), cwd=tmp_path, check=True)
    assert (tmp_path / "a.leviath").read_text(encoding="utf-8") == FIXED
    assert 'read_file = "allow"' in (tmp_path / "c.leviath").read_text(encoding="utf-8")


def test_fix_and_diff_together_is_a_usage_error(tmp_path: Path) -> None:
    paths = tree(tmp_path, a=FIXABLE)
    result = invoke(str(paths["a"]), "--fix", "--diff")
    assert result.exit_code == 2 and "cannot be combined" in result.stderr
    assert paths["a"].read_text(encoding="utf-8") == FIXABLE


def test_fix_respects_select_and_ignore(tmp_path: Path) -> None:
    paths = tree(tmp_path, a=FIXABLE.replace('name = "a"', 'name = "a"\n[tool_permissions]\nread_file = "ALLOW"'))
    result = invoke(str(paths["a"]), "--fix", "--ignore", "stage-missing-mode")
    assert result.exit_code == 0
    text = paths["a"].read_text(encoding="utf-8")
    assert 'read_file = "allow"' in text and "mode =" not in text


def test_fix_keeps_permissions_and_writes_through_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real.leviath"
    real.write_text(FIXABLE, encoding="utf-8")
    real.chmod(0o640)
    link = tmp_path / "link" / "agent.leviath"
    link.parent.mkdir()
    link.symlink_to(real)
    result = invoke(str(link), "--fix")
    assert result.exit_code == 0, result.output
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8") == FIXED
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".blueprint-write-")] == []


def test_a_file_that_cannot_be_written_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import compiler.fix.files as files

    def refuse(path: str, expected: bytes, data: bytes) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files, "replace_checked", refuse)
    paths = tree(tmp_path, a=FIXABLE)
    result = invoke(str(paths["a"]), "--fix")
    assert result.exit_code == 2
    assert f"error: cannot write '{paths['a']}': Permission denied" in result.stderr
    assert paths["a"].read_text(encoding="utf-8") == FIXABLE
