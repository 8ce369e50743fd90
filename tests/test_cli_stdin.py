"""`blueprint validate -`: one blueprint from standard input, as editors and pipes send it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import Result

from compiler.parse.source import MAX_FILE_BYTES
from tests.conftest import invoke_cli
from tests.helpers import ROOT, run_with_stdin_closed

BROKEN = '[agent]\nname = "unterminated\n'
EXAMPLE = sorted((ROOT / "blueprints").glob("*.leviath"))[0]


def validate(*args: str, stdin: bytes | str = b"") -> Result:
    return invoke_cli("validate", *args, input=stdin)


def test_findings_are_reported_under_stdin_with_positions() -> None:
    result = validate("-", stdin=BROKEN)
    assert result.exit_code == 1
    assert "<stdin>:2:" in result.stdout and "error[toml-syntax]" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].startswith("Checked 1 file: 1 error")


def test_a_clean_blueprint_on_stdin_gives_the_same_report_as_the_file() -> None:
    from_file = invoke_cli("validate", "--format", "json", EXAMPLE)
    from_stdin = validate("-", "--stdin-filename", str(EXAMPLE), "--format", "json", stdin=EXAMPLE.read_bytes())
    assert from_stdin.exit_code == from_file.exit_code == 0
    assert from_stdin.stdout == from_file.stdout


def test_stdin_filename_finds_the_settings_of_its_folder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.blueprint]\nignore = ["toml-syntax"]\n', encoding="utf-8")
    named = str(tmp_path / "agents" / "agent.leviath")  # need not exist
    assert validate("-", "--stdin-filename", named, stdin=BROKEN).exit_code == 0
    assert validate("-", stdin=BROKEN).exit_code == 1


def test_stdin_filename_alone_reads_stdin() -> None:
    result = validate("--stdin-filename", "x.leviath", "--format", "json", stdin=BROKEN)
    assert result.exit_code == 1
    assert [f["path"] for f in json.loads(result.stdout)["files"]] == ["x.leviath"]


def test_undecodable_and_oversized_input_are_diagnostics() -> None:
    assert "error[invalid-encoding]" in validate("-", stdin=b'[agent]\nname = "\xff"\n').stdout
    huge = validate("-", stdin=b" " * (MAX_FILE_BYTES + 10))
    assert huge.exit_code == 1 and "error[file-too-large]" in huge.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["-", "other.leviath"], "cannot be combined with other paths"),
        (["--stdin-filename", "x.leviath", "."], "pass '-' as the only path"),
        (["-", "--stdin-filename", ""], "must not be empty"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str], message: str) -> None:
    result = validate(*args, stdin=BROKEN)
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


MODEL = 'model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }'
#: A missing mode (a safe fix) and `max_iteration` (a suggestion: an unsafe fix).
FIXABLE = f'[agent]\nname = "a"\n\n[stages.work]\n{MODEL}\nmax_iteration = 3\n'


def test_fix_writes_the_fixed_blueprint_to_stdout_and_the_report_to_stderr() -> None:
    result = validate("-", "--fix", "--stdin-filename", "agents/a.leviath", stdin=FIXABLE)
    assert result.stdout == FIXABLE.replace("[stages.work]\n", '[stages.work]\nmode = "autonomous"\n')
    assert "fixed 1 finding (1 more fixable with --unsafe-fixes)" in result.stderr
    assert "agents/a.leviath:7:1: error[rejected-key] [~] unknown key 'max_iteration'" in result.stderr
    assert result.exit_code == 1  # what remains fails


def test_fix_with_unsafe_fixes_on_stdin_and_nothing_left() -> None:
    result = validate("-", "--fix", "--unsafe-fixes", "-q", stdin=FIXABLE)
    assert result.exit_code == 0, result.output
    assert "max_iterations = 3\n" in result.stdout and 'mode = "autonomous"' in result.stdout
    assert result.stderr.splitlines() == ["fixed 2 findings", "Checked 1 file: 0 errors, 0 warnings, 0 notes"]


def test_fix_on_stdin_passes_unfixable_input_through_unchanged() -> None:
    result = validate("-", "--fix", stdin=BROKEN)
    assert result.stdout == BROKEN and result.exit_code == 1
    assert "<stdin>:2:" in result.stderr and "error[toml-syntax]" in result.stderr


def test_diff_on_stdin_prints_the_patch_under_its_name() -> None:
    result = validate("-", "--diff", "--stdin-filename", "a.leviath", stdin=FIXABLE)
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/a.leviath\n+++ b/a.leviath\n") and '+mode = "autonomous"\n' in result.stdout
    assert "1 fixable finding (1 more fixable with --unsafe-fixes)" in result.stderr
    clean = validate("-", "--diff", stdin=EXAMPLE.read_bytes())
    assert clean.exit_code == 0 and clean.stdout == ""


def test_a_real_pipe() -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "validate", "-"],
        input=BROKEN.encode(),
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 1
    assert b"<stdin>:2:" in done.stdout and done.stderr == b""


def test_a_closed_stdin_is_an_io_error_not_a_crash() -> None:
    done = run_with_stdin_closed("validate", "-")
    assert done.returncode == 2
    assert done.stderr.decode().strip() == "error: cannot read '<stdin>': standard input is closed"
