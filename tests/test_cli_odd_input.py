"""The command line as its users push on it: control characters from a blueprint or an event
stream, and `blueprint run --events -` on odd standard input."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import invoke_cli
from tests.helpers import ROOT, run_with_stdin_closed

#: A stage named with an escape sequence that clears the screen (a TOML escape, so valid TOML).
HOSTILE = """\
[agent]
name = "hostile"

[stages."a\\u001b[2Jx"]
mode = "autonomous"
max_iterations = 5
[stages."a\\u001b[2Jx".transitions.review]
condition = "always"
"""
CLEAR_SCREEN = "\x1b[2J"
EVENTS = (ROOT / "tests" / "runtime" / "review-loop.ndjson").read_bytes()
BLUEPRINT = ROOT / "tests" / "runtime" / "review-loop.leviath"


def hostile(tmp_path: Path) -> str:
    path = tmp_path / "hostile.leviath"
    path.write_text(HOSTILE, encoding="utf-8")
    return str(path)


def test_a_stage_name_cannot_send_escape_sequences_to_the_terminal(tmp_path: Path) -> None:
    result = invoke_cli("validate", "--color", "always", hostile(tmp_path))
    assert result.exit_code == 1
    assert CLEAR_SCREEN not in result.stdout
    assert "stage 'a␛[2Jx' does not exist" not in result.stdout  # the edge goes to 'review'
    assert "'review'" in result.stdout and "a␛[2Jx" in result.stdout
    assert "\x1b[1;31m" in result.stdout  # the report's own colours stay


def test_raw_control_bytes_in_a_source_line_are_shown_and_carets_still_line_up(tmp_path: Path) -> None:
    path = tmp_path / "raw.leviath"
    path.write_bytes(b'[agent]\nname = "x"\nbad = "\x1b]52;c;AAAA\x07" oops\n')
    result = invoke_cli("validate", "--color", "never", str(path))
    assert result.exit_code == 1
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    source, caret = [line for line in result.stdout.splitlines() if line.startswith(("3 |", "  |   "))][:2]
    assert source == '3 | bad = "␛]52;c;AAAA␇" oops'
    assert caret.index("^") == source.index("␛")  # the illegal character itself


def test_check_and_run_show_control_characters_instead_of_obeying_them(tmp_path: Path) -> None:
    path = hostile(tmp_path)
    outputs = [invoke_cli("check", "--color", "always", path).stdout]
    runnable = tmp_path / "runnable.leviath"
    runnable.write_text(
        HOSTILE.replace('.transitions.review]\ncondition = "always"', ".transitions]"), encoding="utf-8"
    )
    events = b'{"type":"system","subtype":"init","session_id":"s1"}\n'
    outputs.append(invoke_cli("run", str(runnable), "--events", "-", input=events).stdout)
    for output in outputs:
        assert "a␛[2Jx" in output and CLEAR_SCREEN not in output


def test_run_reads_undecodable_standard_input_as_unreadable_lines() -> None:
    result = invoke_cli("run", str(BLUEPRINT), "--events", "-", input=b"\xff\xfe not json\n" + EVENTS)
    from_file = invoke_cli("run", str(BLUEPRINT), "--events", str(ROOT / "tests" / "runtime" / "review-loop.ndjson"))
    assert result.exit_code == from_file.exit_code == 0
    assert "Error" not in result.stderr
    # The undecodable first line, then the stream's own line 14 (now line 15).
    assert result.stdout.rstrip().splitlines()[-1] == "  skipped 2 unreadable lines (lines 1, 15)"
    assert from_file.stdout.rstrip().splitlines()[-1] == "  skipped 1 unreadable line (line 14)"


def test_run_with_standard_input_closed_is_an_io_error_not_a_crash() -> None:
    done = run_with_stdin_closed("run", str(BLUEPRINT), "--events", "-")
    assert done.returncode == 2
    assert done.stderr.decode().strip() == "Error: cannot read '<stdin>': standard input is closed"


@pytest.mark.parametrize("args", [("validate", str(BLUEPRINT)), ("rules",)], ids=["quick path", "click"])
def test_standard_output_closed_is_an_io_error_not_a_crash(args: tuple[str, ...]) -> None:
    """Started with `>&-`: nowhere to write the report, said in one line, exit 2."""
    done = run_with_stdin_closed(*args, descriptor=1)
    assert done.returncode == 2
    assert done.stderr.decode().strip() == "Error: cannot write to standard output: Bad file descriptor"


def test_check_says_it_does_not_read_standard_input() -> None:
    result = invoke_cli("check", "-", input=b"[agent]\n")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "Error: '-' (standard input) is read by 'blueprint validate' only; 'blueprint check' takes files and directories"
    )
