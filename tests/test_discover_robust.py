"""Walking directories survives hostile trees: symlink loops, links out of the root, FIFOs,
unreadable folders, entries that vanish mid-walk, odd names and very deep nesting.

The permission cases that need a non-root user are simulated instead (a directory whose
listing fails with EACCES), so they run as root too.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compiler import discover as discover_module
from compiler.discover import discover
from tests.conftest import invoke_cli

VALID = '[agent]\nname = "t"\n'
posix_only = pytest.mark.skipif(os.name != "posix", reason="needs POSIX symlinks and FIFOs")


def touch(root: Path, *relative: str) -> None:
    for rel in relative:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(VALID, encoding="utf-8")


def names(root: Path) -> list[str]:
    return [Path(os.path.relpath(f, root)).as_posix() for f in discover([str(root)]).files]


def discover_in_subprocess(root: Path) -> list[str]:
    """`discover` in a child process with a timeout, so a hang fails the test instead of the run."""
    code = "import sys; from compiler.discover import discover; print('\\n'.join(discover([sys.argv[1]]).files))"
    done = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [Path(os.path.relpath(line, root)).as_posix() for line in done.stdout.splitlines()]


@posix_only
def test_symlink_loops_do_not_hang_and_are_not_followed(tmp_path: Path) -> None:
    touch(tmp_path, "a/agent.leviath")
    (tmp_path / "a" / "self").symlink_to(tmp_path / "a", target_is_directory=True)
    (tmp_path / "a" / "up").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "ping").symlink_to(tmp_path / "pong")
    (tmp_path / "pong").symlink_to(tmp_path / "ping")
    (tmp_path / "loop.leviath").symlink_to(tmp_path / "loop.leviath")
    (tmp_path / "ring.leviath").symlink_to(tmp_path / "ping")
    assert discover_in_subprocess(tmp_path) == ["a/agent.leviath"]


@posix_only
def test_links_out_of_the_root_are_never_followed_however_deep(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    touch(root, "in/agent.leviath")
    touch(outside, "secret/agent.leviath", "other.leviath")
    (root / "in" / "deeper").mkdir()
    (root / "in" / "deeper" / "escape").symlink_to(outside / "secret", target_is_directory=True)
    (root / "in" / "deeper" / "far.leviath").symlink_to(outside / "other.leviath")
    (root / "in" / "deeper" / "relative.leviath").symlink_to(Path("../../../outside/other.leviath"))
    assert names(root) == ["in/agent.leviath"]


@posix_only
def test_a_link_inside_the_root_to_a_file_inside_it_is_kept_once(tmp_path: Path) -> None:
    touch(tmp_path, "real/agent.leviath")
    (tmp_path / "real" / "copy.leviath").symlink_to(Path("agent.leviath"))
    assert names(tmp_path) == ["real/agent.leviath"]


@posix_only
def test_a_fifo_named_like_a_blueprint_is_not_opened(tmp_path: Path) -> None:
    touch(tmp_path, "ok/agent.leviath")
    os.mkfifo(tmp_path / "ok" / "pipe.leviath")
    # Opening a FIFO with no writer blocks forever: the subprocess timeout catches a regression.
    assert discover_in_subprocess(tmp_path) == ["ok/agent.leviath"]


@posix_only
def test_a_dangling_link_and_a_directory_named_like_blueprints_are_not_files(tmp_path: Path) -> None:
    touch(tmp_path, "x.leviath/agent.leviath")
    (tmp_path / "gone.leviath").symlink_to(tmp_path / "nowhere.leviath")
    assert names(tmp_path) == ["x.leviath/agent.leviath"]


def test_an_unlistable_directory_is_skipped_and_reported_even_as_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    touch(tmp_path, "ok/agent.leviath", "locked/agent.leviath", "locked/inner/agent.leviath")
    real_scandir = os.scandir

    def scandir(path):  # what a directory without read permission does for a normal user
        if Path(path).name == "locked":
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(discover_module.os, "scandir", scandir)
    result = discover([str(tmp_path)])
    assert [Path(os.path.relpath(f, tmp_path)).as_posix() for f in result.files] == ["ok/agent.leviath"]
    assert len(result.skipped) == 1 and "locked" in result.skipped[0] and "Permission denied" in result.skipped[0]


def test_an_entry_that_vanishes_during_the_walk_is_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    touch(tmp_path, "a/agent.leviath", "b/agent.leviath")
    real_scandir = os.scandir

    class Vanishing:
        """A directory entry whose file was deleted after the listing was read."""

        def __init__(self, entry: os.DirEntry) -> None:
            self.name, self.path = entry.name, entry.path

        def is_dir(self, follow_symlinks: bool = True) -> bool:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", self.path)

        is_file = is_symlink = is_dir

    class Listing:
        def __init__(self, path) -> None:
            self.inner = real_scandir(path)

        def __enter__(self):
            entries = list(self.inner)
            return [Vanishing(e) if e.name == "b" else e for e in entries]

        def __exit__(self, *exc) -> None:
            self.inner.close()

    monkeypatch.setattr(discover_module.os, "scandir", Listing)
    assert names(tmp_path) == ["a/agent.leviath"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a non-root POSIX user")
def test_an_unreadable_nested_directory_for_real(tmp_path: Path) -> None:
    touch(tmp_path, "a/b/ok.leviath", "a/locked/c/agent.leviath")
    (tmp_path / "a" / "locked").chmod(0)
    try:
        result = discover([str(tmp_path)])
    finally:
        (tmp_path / "a" / "locked").chmod(0o755)
    assert [Path(f).name for f in result.files] == ["ok.leviath"] and len(result.skipped) == 1


def test_very_deep_nesting_is_walked_without_recursion(tmp_path: Path) -> None:
    deep = tmp_path
    for _ in range(120):  # well past what a recursive walk with a small stack would manage
        deep = deep / "d"
    touch(deep, "agent.leviath")
    result = discover([str(tmp_path)])
    assert len(result.files) == 1 and result.files[0].endswith(os.path.join("d", "agent.leviath"))


@pytest.mark.skipif(sys.platform == "darwin" or os.name != "posix", reason="needs byte file names")
def test_undecodable_and_odd_file_names_are_found_and_reported(tmp_path: Path) -> None:
    odd = os.fsencode(tmp_path) + b"/caf\xe9 \xff.leviath"
    with open(odd, "w", encoding="utf-8") as handle:
        handle.write(VALID + "[stages.s]\nmode = 1\n")
    touch(tmp_path, "spaces and 'quotes'/agent.leviath", "ünï/agent.leviath")
    assert len(discover([str(tmp_path)]).files) == 3
    # A real process: the command writes undecodable names with backslash escapes.
    for output_format in ("text", "json"):
        done = subprocess.run(
            [sys.executable, "-m", "compiler", "validate", "--format", output_format, str(tmp_path)],
            capture_output=True,
            timeout=120,
        )
        assert done.returncode == 1, done.stderr
        assert b"caf" in done.stdout and b"Traceback" not in done.stderr


@posix_only
def test_the_cli_reports_unreadable_explicit_paths_and_checks_the_rest(tmp_path: Path) -> None:
    touch(tmp_path, "good.leviath", "dir.leviath/agent.leviath")
    (tmp_path / "dangling.leviath").symlink_to(tmp_path / "nowhere")
    result = invoke_cli("validate", tmp_path / "dangling.leviath", tmp_path / "good.leviath", tmp_path)
    assert result.exit_code == 2
    assert "cannot read" in result.stderr and "dangling.leviath" in result.stderr
    assert "Checked 2 files" in result.stdout
