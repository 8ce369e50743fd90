"""GitHub annotations (`--format github`): golden output, and escaping as actions/toolkit does it.

Golden cases are `tests/formats/github/<case>.leviath` beside `<case>.out`; run with
`UPDATE_GOLDEN=1` to rewrite the `.out` files, then read the diff. The cases are about the
format, not the rules: they run the established rule families only, so a new lint rule does
not change them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.config import Settings
from compiler.diagnostics import Diagnostic, Related, Span
from compiler.display import visible
from compiler.pipeline import FileResult, validate_bytes
from compiler.render import get_reporter
from compiler.render.github import annotation, escape_data, escape_property
from tests.helpers import ROOT

CASES = Path(__file__).parent / "formats" / "github"
CASE_FILES = sorted(CASES.glob("*.leviath"))
#: Cases checked under a file name other than their own.
DISPLAY_PATHS = {"hostile-path": "odd,dir/v1: 100%\r\nname.leviath"}

SETTINGS = Settings(select=("syntax", "schema", "structure"))

COMMAND = re.compile(r"::(?P<command>[a-z]+) (?P<properties>[^:]*)::(?P<message>.*)")


def display_path(case: Path) -> str:
    return DISPLAY_PATHS.get(case.stem, case.relative_to(CASES.parent).as_posix())


def render(case: Path) -> tuple[FileResult, str]:
    result = validate_bytes(display_path(case), case.read_bytes(), SETTINGS)
    return result, get_reporter("github")([result], None)


def unescape(text: str) -> str:
    """What the Actions runner does to a value (the inverse of actions/toolkit's escaping)."""
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def parse(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command line as the runner reads it: command, properties, message."""
    match = COMMAND.fullmatch(line)
    assert match, f"not a workflow command: {line!r}"
    properties = {}
    for item in match["properties"].split(","):
        key, _, value = item.partition("=")
        properties[key] = unescape(value)
    return match["command"], properties, unescape(match["message"])


@pytest.mark.parametrize("case", CASE_FILES, ids=lambda p: p.stem)
def test_golden(case: Path) -> None:
    _, output = render(case)
    expected_file = case.with_suffix(".out")
    if os.environ.get("UPDATE_GOLDEN"):
        expected_file.write_bytes(output.encode("utf-8"))
    assert expected_file.exists(), f"missing {expected_file.name}; run with UPDATE_GOLDEN=1 and review it"
    assert output == expected_file.read_bytes().decode("utf-8")


@pytest.mark.parametrize("case", CASE_FILES, ids=lambda p: p.stem)
def test_the_runner_reads_back_every_finding(case: Path) -> None:
    """One line per finding, and unescaping gives back the path, title and message (with any
    control character from the blueprint or the path shown, not obeyed)."""
    result, output = render(case)
    lines = output.splitlines()
    assert len(lines) == len(result.diagnostics)
    for line, d in zip(lines, result.diagnostics):
        command, properties, message = parse(line)
        assert command == {"error": "error", "warning": "warning", "note": "notice"}[d.severity]
        assert properties["file"] == visible(display_path(case))
        assert properties["title"] == f"blueprint: {d.code}"
        assert (int(properties["line"]), int(properties["endLine"])) == (d.line, d.end_line)
        if d.line == d.end_line:
            assert (int(properties["col"]), int(properties["endColumn"])) == (d.column, d.end_column)
        else:
            assert "col" not in properties and "endColumn" not in properties
        assert message.startswith(visible(d.message) + (f"\nfix: {visible(d.fix)}" if d.fix else ""))


def test_the_cases_cover_what_they_claim() -> None:
    rendered = {case.stem: render(case) for case in CASE_FILES}
    assert rendered["clean"][1] == ""
    hostile = rendered["hostile-names"][0].diagnostics
    assert any("\n" in d.message and "%" in d.message and "," in d.message and ":" in d.message for d in hostile)
    assert any(d.span.line != d.span.end_line for d in rendered["multi-line-span"][0].diagnostics)
    assert any(d.related for d in rendered["mixed"][0].diagnostics)
    assert {d.severity for d in rendered["mixed"][0].diagnostics} == {"error", "warning"}


def test_escaping_follows_actions_toolkit() -> None:
    assert escape_data("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext: a, b"
    assert escape_property("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext%3A a%2C b"
    assert escape_data("%0A") == "%250A"


def test_notes_are_notices_and_findings_without_a_position_name_the_file_only() -> None:
    d = Diagnostic("unknown-key", "note", "a note", "a.leviath", span=None)
    command, properties, message = parse(annotation(d, "a.leviath"))
    assert command == "notice"
    assert properties == {"file": "a.leviath", "title": "blueprint: unknown-key"}
    assert message == "a note"


def test_related_places_follow_the_fix() -> None:
    d = Diagnostic(
        "duplicate-key",
        "error",
        "defined twice",
        "a.leviath",
        span=Span(5, 1, 5, 4),
        fix="merge them",
        related=(Related("first defined here", (), Span(2, 1, 2, 4)),),
    )
    _, _, message = parse(annotation(d, "a.leviath"))
    assert message.split("\n") == ["defined twice", "fix: merge them", "related: 2:1: first defined here"]


def test_the_cli_prints_annotations_and_exits_1_on_errors(tmp_path: Path) -> None:
    source = CASES / "mixed.leviath"
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "agent.leviath").write_bytes(source.read_bytes())
    done = subprocess.run(
        [sys.executable, "-m", "compiler", "validate", "--format", "github", str(tmp_path / "agents")],
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines and all(line.startswith(("::error ", "::warning ")) for line in lines)
    # An absolute path inside the working directory is shown relative to it.
    assert {parse(line)[1]["file"] for line in lines} == {"agents/agent.leviath"}
