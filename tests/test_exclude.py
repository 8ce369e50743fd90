"""What a directory search leaves out: `exclude` / `extend-exclude`, `--exclude`, `.gitignore`
(checked against git itself where it is installed), and what is never left out."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.config import ConfigFinder, Overrides
from compiler.discover import discover
from compiler.ignore import PathFilter, check_patterns, compile_patterns
from tests.conftest import invoke_cli
from tests.helpers import ROOT

AGENT = '[agent]\nname = "a"\n[stages.s]\nmode = "output"\n[stages.s.transitions]\n'


def touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(AGENT if name.endswith(".leviath") else "", encoding="utf-8")


def found(root: Path, *paths: str, overrides: Overrides = Overrides()) -> list[str]:
    given = [str(root / p) for p in paths] or [str(root)]
    result = discover(given, PathFilter(ConfigFinder(), overrides, cwd=str(root)))
    return sorted(Path(os.path.relpath(f, root)).as_posix() for f in result.files)


def test_extend_exclude_adds_to_the_defaults_and_exclude_replaces_them(tmp_path: Path) -> None:
    touch(tmp_path, "a/agent.leviath", "fixtures/bad.leviath", "node_modules/x/agent.leviath", "a/b.draft.leviath")
    (tmp_path / "blueprint.toml").write_text('extend-exclude = ["fixtures/", "*.draft.leviath"]\n', encoding="utf-8")
    assert found(tmp_path) == ["a/agent.leviath"]
    (tmp_path / "blueprint.toml").write_text('exclude = ["fixtures/"]\n', encoding="utf-8")
    assert found(tmp_path) == ["a/agent.leviath", "a/b.draft.leviath", "node_modules/x/agent.leviath"]


def test_patterns_are_relative_to_their_configuration_file(tmp_path: Path) -> None:
    touch(tmp_path, "tests/t.leviath", "agents/tests/agent.leviath", "agents/old/agent.leviath")
    (tmp_path / "blueprint.toml").write_text('extend-exclude = ["/tests/"]\n', encoding="utf-8")
    (tmp_path / "agents" / "blueprint.toml").write_text('extend-exclude = ["/old/"]\n', encoding="utf-8")
    # The nearest configuration decides: agents/ has its own, which anchors /old/ there and
    # does not inherit the root's /tests/ (which would not match agents/tests/ anyway).
    assert found(tmp_path) == ["agents/tests/agent.leviath"]


def test_command_line_patterns_add_to_the_configuration(tmp_path: Path) -> None:
    touch(tmp_path, "a/agent.leviath", "b/agent.leviath", "c/x.leviath")
    (tmp_path / "blueprint.toml").write_text('extend-exclude = ["/a/"]\n', encoding="utf-8")
    assert found(tmp_path, overrides=Overrides(exclude=("/b/",))) == ["c/x.leviath"]


def test_gitignore_files_are_respected_unless_switched_off(tmp_path: Path) -> None:
    touch(tmp_path, "keep/agent.leviath", "gen/agent.leviath", "sub/local.leviath", "sub/kept.leviath", ".git/")
    (tmp_path / ".gitignore").write_text("gen/\n*.leviath\n!keep/agent.leviath\n", encoding="utf-8")
    (tmp_path / "sub" / ".gitignore").write_text("!kept.leviath\n", encoding="utf-8")
    assert found(tmp_path) == ["keep/agent.leviath", "sub/kept.leviath"]
    everything = ["gen/agent.leviath", "keep/agent.leviath", "sub/kept.leviath", "sub/local.leviath"]
    assert found(tmp_path, overrides=Overrides(respect_gitignore=False)) == everything
    (tmp_path / "blueprint.toml").write_text("respect-gitignore = false\n", encoding="utf-8")
    assert found(tmp_path) == everything


def test_a_gitignore_above_the_searched_folder_counts_inside_a_repository(tmp_path: Path) -> None:
    touch(tmp_path, ".git/info/", "agents/a/agent.leviath", "agents/scratch/agent.leviath", "agents/b/agent.leviath")
    (tmp_path / ".gitignore").write_text("scratch/\n", encoding="utf-8")
    (tmp_path / ".git" / "info" / "exclude").write_text("/agents/b/\n", encoding="utf-8")
    result = discover([str(tmp_path / "agents")], PathFilter(ConfigFinder(), cwd=str(tmp_path)))
    assert [Path(f).relative_to(tmp_path).as_posix() for f in result.files] == ["agents/a/agent.leviath"]
    assert any("'scratch/' in .gitignore" in line for line in result.excluded)


def test_named_files_and_folders_are_never_left_out(tmp_path: Path) -> None:
    touch(tmp_path, "fixtures/bad.leviath", "fixtures/deep/cache/x.leviath", "vendor/v.leviath")
    (tmp_path / "blueprint.toml").write_text('extend-exclude = ["fixtures/", "cache/"]\n', encoding="utf-8")
    assert found(tmp_path) == []
    assert found(tmp_path, "fixtures/bad.leviath", "vendor/v.leviath") == ["fixtures/bad.leviath", "vendor/v.leviath"]
    # Inside a folder named on the command line, the patterns that exclude that folder are
    # off; the others still apply.
    assert found(tmp_path, "fixtures") == ["fixtures/bad.leviath"]


def test_no_blueprint_left_says_how_many_were_left_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    touch(tmp_path, "drafts/a.leviath")
    monkeypatch.chdir(tmp_path)
    result = invoke_cli("validate", "--exclude", "drafts/")
    assert result.exit_code == 2
    assert "1 path(s) left out by exclude patterns or .gitignore" in result.stderr
    assert invoke_cli("validate", "--exclude", "!").exit_code == 2


def test_this_checkout_validates_without_its_test_fixtures() -> None:
    """The README's first Use line, at the root of the project: only the example blueprints."""
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "validate", "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    import json

    paths = sorted(f["path"] for f in json.loads(done.stdout)["files"])
    assert paths == sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "blueprints").glob("*.leviath"))


# --- gitignore semantics, against git --------------------------------------------------------

GITIGNORE = """\
# comment
*.draft.leviath
/top-only.leviath
build/
!build/keep.leviath
docs/**/gen/
!docs/keep/gen/
nested/*/skip.leviath
\\#hash.leviath
[ab]x.leviath
deep/**
!deep/again.leviath
"""
TREE = [
    "a.leviath",
    "x.draft.leviath",
    "top-only.leviath",
    "sub/top-only.leviath",
    "build/b.leviath",
    "build/keep.leviath",
    "sub/build/c.leviath",
    "docs/a/b/gen/d.leviath",
    "docs/gen/e.leviath",
    "docs/keep/gen/f.leviath",
    "nested/one/skip.leviath",
    "nested/one/two/skip.leviath",
    "#hash.leviath",
    "ax.leviath",
    "cx.leviath",
    "deep/g.leviath",
    "deep/again.leviath",
    "deep/more/h.leviath",
    "sub/.gitignore",
]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_gitignore_decisions_agree_with_git(tmp_path: Path) -> None:
    touch(tmp_path, *TREE)
    (tmp_path / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    (tmp_path / "sub" / ".gitignore").write_text("!x.draft.leviath\nc.leviath\n", encoding="utf-8")
    touch(tmp_path, "sub/x.draft.leviath")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env)
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.splitlines()
    by_git = sorted(p for p in listed if p.endswith(".leviath") and not Path(p).name.startswith("."))
    # `.*` (the default exclude) would hide nothing here but `#hash` is not hidden; compare
    # with the defaults off so only .gitignore decides.
    (tmp_path / "blueprint.toml").write_text("exclude = []\n", encoding="utf-8")
    assert found(tmp_path) == by_git, (found(tmp_path), by_git)
    # `deep/**` leaves out what is inside deep/, not deep/ itself, so a later `!` brings a file
    # back; `build/` leaves out the folder, and nothing inside it can be brought back.
    assert "deep/again.leviath" in by_git and "deep/g.leviath" not in by_git
    assert "build/keep.leviath" not in by_git and "sub/x.draft.leviath" in by_git


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(["/", "a", "b.c", "*", "**", "[", "]", "\\", "!", "#", " ", "?", "x-y"]), max_size=6))
def test_checking_patterns_without_pathspec_agrees_with_pathspec(parts: list[str]) -> None:
    """`check_patterns` skips the lines made of plain names and slashes; pathspec must accept
    every such line, and any line it rejects must still be rejected."""
    line = "".join(parts)
    try:
        compile_patterns([line])
    except ValueError as exc:
        with pytest.raises(ValueError) as caught:
            check_patterns([line])
        assert str(caught.value) == str(exc)
    else:
        check_patterns([line])


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_a_gitignore_that_is_a_device_or_fifo_is_skipped_at_once(tmp_path: Path, special: str) -> None:
    touch(tmp_path, ".git/", "a/agent.leviath")
    if special == "fifo":
        os.mkfifo(tmp_path / ".gitignore")
    else:
        (tmp_path / ".gitignore").symlink_to(special)
    assert found(tmp_path) == ["a/agent.leviath"]


def test_a_gitignore_larger_than_the_limit_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler import reading

    monkeypatch.setattr(reading.read_capped, "__defaults__", (100,))
    touch(tmp_path, ".git/", "a/agent.leviath", "b/agent.leviath")
    (tmp_path / ".gitignore").write_text("/b/\n" + "#" * 200 + "\n", encoding="utf-8")
    assert found(tmp_path) == ["a/agent.leviath", "b/agent.leviath"]
    (tmp_path / ".gitignore").write_text("/b/\n", encoding="utf-8")
    assert found(tmp_path) == ["a/agent.leviath"]


def test_a_reversed_character_range_is_accepted_as_git_accepts_it_and_matches_nothing(tmp_path: Path) -> None:
    touch(tmp_path, ".git/", "a/agent.leviath", "z/agent.leviath")
    (tmp_path / ".gitignore").write_text("[z-a]\n/a/\n", encoding="utf-8")
    assert found(tmp_path) == ["z/agent.leviath"]
    assert found(tmp_path, overrides=Overrides(exclude=("[z-a]",))) == ["z/agent.leviath"]
    check_patterns(["[z-a]"])
    result = invoke_cli("validate", "--exclude", "[z-a]", str(tmp_path / "z"))
    assert "internal error" not in result.output and result.exit_code in (0, 1)


def test_a_gitignore_not_applied_is_said_on_stderr(tmp_path: Path) -> None:
    touch(tmp_path, ".git/", "a/agent.leviath")
    (tmp_path / ".gitignore").symlink_to("/dev/zero")
    result = invoke_cli("validate", ".", cwd=tmp_path)
    assert "warning: .gitignore is not applied: not a regular file" in result.stderr
