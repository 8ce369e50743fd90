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
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.cli import quick
from compiler.cli.validate_cmd import command
from compiler.cli.validate_line import FLAGS, VALUED
from compiler.cli.validate_run import run_validate
from tests.helpers import ROOT

EXAMPLE = str(ROOT / "blueprints" / "review-loop.leviath")
EXAMPLES = str(ROOT / "blueprints")
DEFAULTS = {name: p.default for name, p in inspect.signature(run_validate).parameters.items()}


def click_reading(args: list[str]) -> dict:
    """The parameters click gives the `validate` command for `args` (after `validate`)."""
    with command.make_context("validate", list(args)) as ctx:
        return dict(ctx.params)


def test_the_table_is_derived_from_the_click_command_and_current() -> None:
    assert quick.TABLE_PATH.read_text(encoding="utf-8") == quick.table_source(), (
        "compiler/cli/validate_line.py is stale: run `python -m compiler.cli.quick`"
    )
    options = {opt for p in command.params if isinstance(p, click.Option) for opt in (*p.opts, *p.secondary_opts)}
    assert set(FLAGS) | set(VALUED) == options  # every option of the command, none left to click by hand


def test_the_defaults_of_run_validate_are_the_defaults_of_the_options() -> None:
    assert click_reading([]) == DEFAULTS


def _values(kind) -> st.SearchStrategy[str]:
    """Values of a valued option: those it takes, and some click would refuse or convert."""
    odd = st.sampled_from(["", "-1", "1_0", " 5", "--quiet", "JSON", "x y", "é", "07"])
    if kind == quick.COUNT:
        taken = st.integers(0, 99).map(str)
    elif kind == quick.TEXT:
        taken = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=8)
    else:
        taken = st.sampled_from(kind)
    return st.one_of(taken, odd)


@st.composite
def words(draw: st.DrawFn) -> list[str]:
    """One word or two of a `validate` line: a path, `-`, a flag, a valued option (`--opt
    value` or `--opt=value`), or something that is none of these."""
    choice = draw(st.integers(0, 5))
    if choice == 0:
        return [draw(st.sampled_from([EXAMPLE, "-", "a b.leviath", "x/**"]))]
    if choice == 1:
        return [draw(st.sampled_from(sorted(FLAGS)))]
    if choice in (2, 3):
        option = draw(st.sampled_from(sorted(VALUED)))
        value = draw(_values(VALUED[option][1]))
        return [f"{option}={value}"] if choice == 2 else [option, value]
    if choice == 4:
        return [draw(st.sampled_from(sorted(VALUED)))]  # a value may be missing at the end
    return [draw(st.sampled_from(["--", "-qq", "--quiet=yes", "--frmat", "-h", "--help", "--no-fix", "--form"]))]


@settings(max_examples=400, deadline=None)
@given(st.lists(words(), max_size=6).map(lambda parts: [w for part in parts for w in part]))
def test_a_line_is_read_as_click_reads_it_or_left_to_click(args: list[str]) -> None:
    read = quick.options(["validate", *args])
    try:
        theirs = click_reading(args)
    except (click.UsageError, click.exceptions.Exit):
        assert read is None, f"read a line click refuses: {args}"
        return
    if read is not None:
        assert {**DEFAULTS, **read} == theirs, args


@st.composite
def plain_words(draw: st.DrawFn) -> list[str]:
    """A path, a flag, or a valued option with a value it takes as written."""
    choice = draw(st.integers(0, 2))
    if choice == 0:
        return [draw(st.sampled_from([EXAMPLE, "-", "a b.leviath"]))]
    if choice == 1:
        return [draw(st.sampled_from(sorted(FLAGS)))]
    option = draw(st.sampled_from(sorted(VALUED)))
    kind = VALUED[option][1]
    if kind == quick.COUNT:
        value = str(draw(st.integers(0, 99)))
    elif kind == quick.TEXT:
        value = draw(st.text(st.characters(codec="utf-8", exclude_characters="\x00-"), max_size=8))
    else:
        value = draw(st.sampled_from(kind))
    return draw(st.sampled_from([[option, value], [f"{option}={value}"]]))


@settings(max_examples=100, deadline=None)
@given(st.lists(plain_words(), max_size=6).map(lambda parts: [w for part in parts for w in part]))
def test_a_line_of_plain_options_is_read_here(args: list[str]) -> None:
    """The property above is not vacuous: the lines people write are read here, as click reads them."""
    read = quick.options(["validate", *args])
    assert read is not None, args
    assert {**DEFAULTS, **read} == click_reading(args)


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
        (["validate", "--show-settings", EXAMPLE], ""),
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
