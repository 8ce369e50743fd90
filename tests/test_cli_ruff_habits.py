"""Command-line habits a ruff user brings: `--output-format`, `--exit-zero`, `--statistics`
printing only its table, and help text that names every configuration file."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import Result

from compiler.cli.app import cli
from tests.conftest import invoke_cli

#: A TOML syntax error: one `toml-syntax` error whatever else the rules check.
BROKEN = '[agent]\nname = "unterminated\n'


def run(*args: str) -> Result:
    return invoke_cli(*args)


@pytest.fixture
def broken(tmp_path: Path) -> str:
    path = tmp_path / "broken.leviath"
    path.write_text(BROKEN, encoding="utf-8")
    return str(path)


def _commands_with_format() -> list[str]:
    assert isinstance(cli, click.Group)
    with click.Context(cli) as ctx:
        commands = {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}
    return sorted(
        name
        for name, command in commands.items()
        if command is not None and any(isinstance(p, click.Option) and "--format" in p.opts for p in command.params)
    )


def test_every_command_with_format_takes_output_format_too() -> None:
    names = _commands_with_format()
    assert {"validate", "check", "graph", "diff", "test", "rules", "run"} <= set(names)
    for name in names:
        help_text = run(name, "--help").stdout
        assert "--format, --output-format" in help_text, name


@pytest.mark.parametrize("command", ["validate", "check"])
def test_output_format_gives_the_same_report_as_format(broken: str, command: str) -> None:
    long = run(command, broken, "--output-format", "json")
    short = run(command, broken, "--format", "json")
    assert long.exit_code == short.exit_code == 1
    assert long.stdout == short.stdout and long.stdout.startswith("{")
    assert run(command, broken, "--output-format=concise").stdout == run(command, broken, "--format=concise").stdout


def test_output_format_is_rules_format_too() -> None:
    assert run("rules", "--output-format", "json").stdout == run("rules", "--format", "json").stdout


@pytest.mark.parametrize("command", ["validate", "check"])
def test_exit_zero_reports_the_same_and_exits_0(broken: str, command: str) -> None:
    plain = run(command, broken)
    zero = run(command, broken, "--exit-zero")
    assert plain.exit_code == 1 and zero.exit_code == 0, zero.output
    assert zero.stdout == plain.stdout and "error[toml-syntax]" in zero.stdout


@pytest.mark.parametrize("command", ["validate", "check"])
def test_exit_zero_keeps_status_2_for_usage_and_io_errors(tmp_path: Path, command: str) -> None:
    result = run(command, str(tmp_path / "missing.leviath"), "--exit-zero")
    assert result.exit_code == 2 and "does not exist" in result.stderr


def test_exit_zero_with_deny_warnings_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "w.leviath"
    path.write_text('[agent]\nname = "w"  # blueprint: ignore[no-such-rule]\n', encoding="utf-8")
    assert run("validate", str(path), "--deny-warnings").exit_code == 1
    assert run("validate", str(path), "--deny-warnings", "--exit-zero").exit_code == 0


@pytest.mark.parametrize("command", ["validate", "check"])
@pytest.mark.parametrize("output_format", ["text", "concise"])
def test_statistics_prints_only_the_table(tmp_path: Path, command: str, output_format: str) -> None:
    for name in ("a", "b"):
        (tmp_path / f"{name}.leviath").write_text(BROKEN, encoding="utf-8")
    result = run(command, str(tmp_path), "--statistics", "--format", output_format)
    assert result.exit_code == 1  # the status is that of the findings
    assert result.stdout == "2  error    toml-syntax\n"
    with_summary = run(command, str(tmp_path), "--statistics", "-q", "--format", output_format).stdout
    assert with_summary.splitlines() == [
        "2  error    toml-syntax",
        "",
        "Checked 2 files: 2 errors, 0 warnings, 0 notes",
    ]


def test_statistics_of_a_clean_run_prints_nothing(tmp_path: Path) -> None:
    from tests.helpers import ROOT

    clean = sorted((ROOT / "blueprints").glob("*.leviath"))[0]
    result = run("validate", str(clean), "--statistics", "--select", "toml-syntax")
    assert result.exit_code == 0 and result.stdout == ""


def test_compile_help_names_every_configuration_file() -> None:
    help_text = " ".join(run("compile", "--help").stdout.split())
    assert "blueprint.toml, .blueprint.toml or pyproject.toml [tool.blueprint]" in help_text


# --- --watch clears the screen on a terminal only -------------------------------------------

CLEAR = "\x1b[2J\x1b[H"


def _read_until(fd: int, text: str, seen: str, deadline: float) -> str:
    import os
    import select
    import time

    while seen.count(text) < 1 and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                seen += os.read(fd, 65536).decode("utf-8", "replace")
            except OSError:  # the terminal closed
                break
    return seen


def test_watch_clears_the_screen_before_each_run_on_a_terminal(tmp_path: Path) -> None:
    import os
    import pty
    import signal
    import subprocess
    import sys
    import time

    from tests.helpers import ROOT

    path = tmp_path / "a.leviath"
    path.write_text(BROKEN, encoding="utf-8")
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "compiler", "validate", "--watch", str(path)],
        stdout=slave,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    os.close(slave)
    try:
        deadline = time.monotonic() + 30
        first = _read_until(master, "Checked 1 file", "", deadline)
        assert first.startswith(CLEAR) and "Checked 1 file: 1 error" in first, first
        time.sleep(0.3)
        path.write_text('[agent]\nname = "w"  # blueprint: ignore[no-such-rule]\n', encoding="utf-8")
        second = _read_until(master, "Checked 1 file", "", deadline)
        assert second.startswith(CLEAR) and "error[toml-syntax]" not in second, second
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
        os.close(master)


def test_watch_never_clears_a_pipe(tmp_path: Path) -> None:
    from tests.watching import Watch

    (tmp_path / "a.leviath").write_text(BROKEN, encoding="utf-8")
    watch = Watch(tmp_path, "validate", "--watch")
    try:
        watch.wait_for("Checked 1 file")
        assert not any("\x1b[" in line for _, line in watch.seen)
    finally:
        watch.stop()


# --- --show-fixes ---------------------------------------------------------------------------

MODEL = 'model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }'
#: A missing mode (a safe fix) and `max_iteration` (a suggestion: an unsafe fix).
TWO_FIXES = f'[agent]\nname = "a"\n\n[stages.work]\n{MODEL}\nmax_iteration = 3\n'


def test_show_fixes_shows_each_edit_under_its_finding(tmp_path: Path) -> None:
    path = tmp_path / "a.leviath"
    path.write_text(TWO_FIXES, encoding="utf-8")
    result = run("validate", str(path), "--show-fixes")
    assert result.exit_code == 1
    text = result.stdout
    assert (
        '   = edit [*]: Fix stage-missing-mode: write mode = "autonomous" if that is what you meant\n'
        f"     - {MODEL}\n"
        '     + mode = "autonomous"\n'
        f"     + {MODEL}\n"
    ) in text
    assert (
        "   = edit [~]: Replace 'max_iteration' with 'max_iterations'\n"
        "     - max_iteration = 3\n"
        "     + max_iterations = 3\n"
    ) in text
    assert "= edit" not in run("validate", str(path)).stdout
    assert path.read_text(encoding="utf-8") == TWO_FIXES  # showing writes nothing


def test_fix_with_show_fixes_lists_what_was_fixed_per_file(tmp_path: Path) -> None:
    path = tmp_path / "a.leviath"
    path.write_text(TWO_FIXES, encoding="utf-8")
    result = run("validate", str(path), "--fix", "--unsafe-fixes", "--show-fixes")
    assert result.exit_code == 0, result.output
    listed = result.stderr.splitlines()
    at = listed.index(f"- {path}:")
    assert listed[at + 1].startswith("    1 × rejected-key [~] (")
    assert listed[at + 2].startswith("    1 × stage-missing-mode (A stage does not say which mode")
    assert "= edit" not in result.stdout  # after --fix the report shows what remains
