"""Command-line habits a ruff user brings: `--output-format`, `--exit-zero`, `--statistics`
printing only its table, and help text that names every configuration file."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from compiler.cli.app import cli

#: A TOML syntax error: one `toml-syntax` error whatever else the rules check.
BROKEN = '[agent]\nname = "unterminated\n'


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


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
