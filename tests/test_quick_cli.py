"""The click-free `validate` path (`compiler.cli.quick`) reads a line exactly as click does,
or leaves it to click; and both paths print the same and exit the same."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from compiler.cli import quick
from compiler.cli.validate_cmd import command
from compiler.cli.validate_run import run_validate
from tests.helpers import ROOT

EXAMPLE = str(ROOT / "blueprints" / "review-loop.leviath")
EXAMPLES = str(ROOT / "blueprints")
DEFAULTS = {name: p.default for name, p in inspect.signature(run_validate).parameters.items()}


def click_reading(args: list[str]) -> dict:
    """The parameters click gives the `validate` command for `args` (after `validate`)."""
    with command.make_context("validate", list(args)) as ctx:
        return dict(ctx.params)


def click_options() -> dict[str, click.Option]:
    return {opt: p for p in command.params if isinstance(p, click.Option) for opt in (*p.opts, *p.secondary_opts)}


def test_every_option_of_the_command_is_read_here_or_declared_click_only() -> None:
    ours = set(quick.FLAGS) | set(quick.VALUED) | quick.CLICK_ONLY
    theirs = set(click_options()) | {"--help", "-h"}
    assert ours == theirs, f"read here but unknown to click: {ours - theirs}; not declared: {theirs - ours}"


def test_each_option_sets_the_parameter_click_sets() -> None:
    options = click_options()
    for flag, (name, value) in quick.FLAGS.items():
        assert options[flag].name == name and options[flag].is_flag, flag
        assert click_reading([flag])[name] is value, flag
    for option, name in quick.VALUED.items():
        assert options[option].name == name and not options[option].is_flag, option
    assert {o.name for o in options.values() if o.multiple} == quick.REPEATABLE


def test_the_defaults_of_run_validate_are_the_defaults_of_the_options() -> None:
    assert click_reading([]) == DEFAULTS


@pytest.mark.parametrize(
    "args",
    [
        [EXAMPLE],
        [EXAMPLE, EXAMPLES, "-"],
        ["-q", EXAMPLE, "--statistics"],
        ["--format", "json", EXAMPLE],
        ["--format=sarif", "--format", "github", EXAMPLE],
        ["--color", "never", "--color=always"],
        ["--select", "lint", "--select=schema,dead-end", "--ignore", "cycle-without-exit", "--exclude", "x/**"],
        ["--deny-warnings", "--no-deny-warnings", "--respect-gitignore"],
        ["--no-respect-gitignore", "--fix"],
        ["--diff", "--stdin-filename", "a b.leviath", "-"],
        ["--leviath-config", "c.toml", "--leviath-models=m.txt", "--default-max-iterations", "0"],
        ["--default-max-iterations=12", "--select="],
        ["--stdin-filename", ""],
    ],
)
def test_a_line_read_here_is_read_as_click_reads_it(args: list[str]) -> None:
    read = quick.options(["validate", *args])
    assert read is not None, "this line should not need click"
    assert {**DEFAULTS, **read} == click_reading(args)


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["check", EXAMPLE],
        ["--version"],
        ["validate", "--help"],
        ["validate", "-h"],
        ["validate", "--watch"],
        ["validate", "--show-settings", EXAMPLE],
        ["validate", "--", EXAMPLE],
        ["validate", "-qq", EXAMPLE],
        ["validate", "--quiet=yes", EXAMPLE],
        ["validate", "--format", "bogus", EXAMPLE],
        ["validate", "--format"],
        ["validate", "--format", "--quiet"],
        ["validate", "--color", "sometimes"],
        ["validate", "--default-max-iterations", "-1"],
        ["validate", "--default-max-iterations", "1_0"],
        ["validate", "--default-max-iterations", " 5"],
        ["validate", "--frmat", "json"],
    ],
)
def test_any_other_line_is_left_to_click(args: list[str]) -> None:
    assert quick.options(args) is None


def test_shell_completion_is_left_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_BLUEPRINT_COMPLETE", "bash_complete")
    assert quick.options(["validate", EXAMPLE]) is None


_ENTRY = {
    "quick": "from compiler.cli.main import main; main()",
    "click": "from compiler.cli.app import cli; cli.main(prog_name='blueprint')",
}


def through(path: str, args: list[str], cwd: Path, stdin: str = "") -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-c", _ENTRY[path], *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        input=stdin,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1"},
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["validate", EXAMPLE], ""),
        (["validate", "--statistics", "broken.leviath", EXAMPLE], ""),
        (["validate", "-q", "broken.leviath"], ""),
        (["validate", "--format", "json", "broken.leviath"], ""),
        (["validate", "--format", "github", "--deny-warnings", "broken.leviath"], ""),
        (["validate", "--format", "concise", "-"], '[agent]\nname = "t"\n[stages.a]\nmode = "autonomus"\n'),
        (["validate", "--format", "json", "--quiet", EXAMPLE], ""),
        (["validate", "missing.leviath"], ""),
        (["validate", "--select", "no-such-rule", EXAMPLE], ""),
        (["validate", "--fix", "--diff", EXAMPLE], ""),
        (["validate", "empty-folder"], ""),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else None,
)
def test_both_paths_print_the_same_and_exit_the_same(args: list[str], stdin: str, tmp_path: Path) -> None:
    (tmp_path / "broken.leviath").write_text('[agent]\nname = "t"\n\n[stages.work]\nmode = "autonomus"\n')
    (tmp_path / "empty-folder").mkdir()
    assert quick.options(args) is not None
    fast = through("quick", args, tmp_path, stdin)
    slow = through("click", args, tmp_path, stdin)
    assert fast == slow
    assert fast[1] or fast[2], "the command printed nothing: the comparison proves nothing"
