"""Which files `blueprint validate` finds below a directory, and which it leaves alone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compiler.discover import discover, is_blueprint_name


def touch(root: Path, *relative: str) -> None:
    for rel in relative:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("[agent]\n", encoding="utf-8")


def found(root: Path, *paths: str | Path) -> list[str]:
    """Discovered files relative to `root`, as posix strings."""
    result = discover([str(p) for p in paths] or [str(root)])
    return [Path(os.path.relpath(f, root)).as_posix() for f in result.files]


def test_finds_agent_files_and_leviath_files_in_sorted_order(tmp_path: Path) -> None:
    touch(tmp_path, "b/agent.leviath", "a/z.leviath", "a/agent.leviath", "top.leviath", "notes.toml", "a/README.md")
    assert found(tmp_path) == ["a/agent.leviath", "a/z.leviath", "b/agent.leviath", "top.leviath"]


def test_skips_hidden_vendored_and_build_folders(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "keep/agent.leviath",
        ".git/agent.leviath",
        ".venv/agent.leviath",
        "node_modules/pkg/agent.leviath",
        "vendor/agent.leviath",
        "venv/agent.leviath",
        "lib/site-packages/x/agent.leviath",
        "__pycache__/agent.leviath",
        "dist/agent.leviath",
        "build/agent.leviath",
        "target/agent.leviath",
        ".hidden.leviath",
    )
    assert found(tmp_path) == ["keep/agent.leviath"]


def test_skips_a_virtual_environment_whatever_its_name(tmp_path: Path) -> None:
    touch(tmp_path, "env/pyvenv.cfg", "env/share/agent.leviath", "app/agent.leviath")
    assert found(tmp_path) == ["app/agent.leviath"]


def test_a_named_file_is_always_checked_whatever_its_name_or_folder(tmp_path: Path) -> None:
    touch(tmp_path, ".git/odd-name.toml", "node_modules/agent.leviath")
    explicit = [tmp_path / ".git/odd-name.toml", tmp_path / "node_modules/agent.leviath"]
    assert found(tmp_path, *explicit) == [".git/odd-name.toml", "node_modules/agent.leviath"]


def test_a_named_directory_is_searched_even_when_it_would_be_skipped_below(tmp_path: Path) -> None:
    touch(tmp_path, "vendor/agent.leviath", "vendor/.cache/agent.leviath")
    assert found(tmp_path, tmp_path / "vendor") == ["vendor/agent.leviath"]


def test_command_line_order_is_kept_and_a_file_reached_twice_is_checked_once(tmp_path: Path) -> None:
    touch(tmp_path, "a/agent.leviath", "b/agent.leviath")
    order = found(tmp_path, tmp_path / "b", tmp_path / "a", tmp_path / "b/agent.leviath")
    assert order == ["b/agent.leviath", "a/agent.leviath"]


def test_missing_paths_are_reported_not_raised(tmp_path: Path) -> None:
    result = discover([str(tmp_path / "nope"), str(tmp_path)])
    assert result.missing == (str(tmp_path / "nope"),)
    assert result.files == ()


def test_paths_are_shown_normalised_and_relative_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    touch(tmp_path, "bp/x/agent.leviath")
    monkeypatch.chdir(tmp_path)
    assert discover(["./bp"]).files == (os.path.join("bp", "x", "agent.leviath"),)
    assert discover(["."]).files == (os.path.join("bp", "x", "agent.leviath"),)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")
def test_symlinks_never_lead_out_of_the_searched_directory(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    touch(root, "real/agent.leviath")
    touch(outside, "secret.leviath", "dir/agent.leviath")
    (root / "escape.leviath").symlink_to(outside / "secret.leviath")
    (root / "linked-dir").symlink_to(outside / "dir", target_is_directory=True)
    (root / "alias.leviath").symlink_to(root / "real/agent.leviath")
    (root / "broken.leviath").symlink_to(root / "missing.leviath")
    # The in-root alias and its target are one file: checked once, under the first name found.
    assert found(root) == ["alias.leviath"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a non-root POSIX user")
def test_an_unreadable_directory_is_skipped_and_reported(tmp_path: Path) -> None:
    touch(tmp_path, "ok/agent.leviath", "locked/agent.leviath")
    (tmp_path / "locked").chmod(0)
    try:
        result = discover([str(tmp_path)])
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert [Path(f).name for f in result.files] == ["agent.leviath"]
    assert len(result.skipped) == 1 and "locked" in result.skipped[0]


def test_blueprint_names() -> None:
    assert is_blueprint_name("agent.leviath")
    assert is_blueprint_name("review.leviath")
    assert not is_blueprint_name(".leviath")
    assert not is_blueprint_name("agent.leviath.bak")
    assert not is_blueprint_name("agent.toml")
