"""No byte of input reaches the output raw: hostile names through every command and format.

A blueprint, its file name and a recorded event stream are filled with what a terminal or a
CI service obeys instead of showing: a newline followed by a GitHub Actions workflow command
(`::error …`), a CR, ESC sequences (SGR that hides text, OSC that retitles the window, OSC 8
links, OSC 52 clipboard writes), NUL, BS, DEL, C1 controls (U+0085, U+009B), U+2028, U+2029
and bidi overrides. Every command and format must then print:

- no unsafe character (`compiler.display.UNSAFE`) except the newlines that end its lines,
  and no ESC but the report's own colours;
- no line starting with `::`, except `--format github`'s own annotations: exactly one per
  finding, each a well-formed command.

The hypothesis part is bounded for CI (`max_examples` below: a few seconds).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from compiler.display import UNSAFE, json_visible, visible
from tests.conftest import invoke_cli

#: Pieces of a hostile name. `%0A` checks the workflow-command escaping is not undone.
PIECES = (
    "\n::error file=README.md,line=1::Fake",
    "\r\n::warning::crlf",
    "\x1b]0;pwned\x07",
    "\x1b[8mHIDDEN\x1b[0m",
    "\x1b]8;;https://example.invalid\x1b\\link\x1b]8;;\x1b\\",
    "\x1b]52;c;QUFBQQ==\x07",
    "\x00",
    "\x08\x08",
    "\x7f",
    "\x85::notice::nel",
    "\x9b31m",
    "\u2028::error::ls",
    "\u2029",
    "\u202eevil\u202c",
    "\u2066iso\u2069",
    "%0A::error::pct",
    "::",
    "a",
    "é",
    "日本",
)
EVERYTHING = "".join(PIECES)

#: The report's own colours (compiler.render.text): the only ESC allowed in coloured output.
OWN_SGR = re.compile(r"\x1b\[(?:0|1|2|1;3[1-6])m")
ANNOTATION = re.compile(
    r"::(error|warning|notice) (file=[^:,]*(?:,(?:line|endLine|col|endColumn)=\d+)*,title=[^:,]*)::(.*)"
)

BLUEPRINT = """\
[agent]
name = {agent}
description = {text}

[stages.{first}]
mode = "autonomous"
description = {text}
max_iterations = 3
available_tools = ["read_file"{tool}]

[stages.{first}.transitions.{second}]
hint = {text}

[stages.{second}]
mode = "autonomous"
max_iterations = 3

[stages.{second}.transitions]
"""


def toml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid TOML basic string


def hostile_blueprint(name: str, *, broken: bool = False) -> str:
    """Warnings quote every name; `broken` adds errors quoting them too (an unknown tool, an
    edge to a stage that does not exist)."""
    text = BLUEPRINT.format(
        agent=toml_string("agent " + name),
        text=toml_string("text " + name),
        first=toml_string("first " + name),
        second=toml_string("second " + name),
        tool=", " + toml_string("tool " + name) if broken else "",
    )
    if broken:
        text += f"\n[stages.{toml_string('first ' + name)}.transitions.{toml_string('ghost ' + name)}]\n"
    return text


def hostile_scenarios(name: str) -> str:
    """A scenario file for `hostile_blueprint(name)` whose one scenario fails, quoting `name`."""
    first, ghost = toml_string("first " + name), toml_string("ghost " + name)
    return (
        f"[[scenario]]\nname = {toml_string('scenario ' + name)}\n"
        f'script = [{{ stage = {first}, do = ["call read_file a.md", "text"] }}]\n'
        f'expect = {{ status = "complete", path = [{first}, {ghost}] }}\n'
    )


def hostile_events(name: str) -> str:
    """A Claude stream whose text, tool name and path carry `name`, and a native event."""
    lines = [
        {
            "type": "assistant",
            "message": {
                "id": "m1",
                "content": [
                    {"type": "text", "text": "text " + name},
                    {"type": "tool_use", "id": "t1", "name": "tool " + name, "input": {"file_path": "path " + name}},
                ],
            },
        },
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": name}]}},
        {"event": "region", "region": "region " + name, "hash": name, "entries": 1, "open_items": [[name, name]]},
        {"type": "assistant", "message": {"id": "m2", "content": [{"type": "text", "text": "done " + name}]}},
    ]
    return "\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n"


def file_name(name: str) -> str:
    """`name` as much as a file name can hold (no `/`, no NUL)."""
    return "bp " + name.replace("/", "_").replace("\0", "_") + ".leviath"


def assert_nothing_raw(text: str, what: str, *, github: bool = False) -> None:
    """No unsafe character but line ends, no ESC but our colours, no forged workflow command."""
    plain = OWN_SGR.sub("", text)
    leftover = {f"U+{ord(c):04X}" for c in UNSAFE.findall(plain) if c != "\n"}
    assert not leftover, f"{what}: raw {sorted(leftover)} in {text[:400]!r}"
    for line in plain.split("\n"):
        if line.startswith("::"):
            assert github, f"{what}: a line starts a workflow command: {line[:200]!r}"
            assert ANNOTATION.fullmatch(line), f"{what}: not one of our annotations: {line[:200]!r}"


def outputs_of(tmp_path: Path, name: str) -> list[tuple[str, str, bool]]:
    """(what, output, is github) for every command and format, on files full of `name`."""
    folder = tmp_path / f"case{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    blueprint = folder / file_name(name)
    blueprint.write_text(hostile_blueprint(name), encoding="utf-8")
    folder.joinpath(blueprint.name.removesuffix(".leviath") + ".scenarios.toml").write_text(
        hostile_scenarios(name), encoding="utf-8"
    )
    changed = folder / ("changed " + file_name(name))
    changed.write_text(hostile_blueprint(name).replace("max_iterations = 3", "max_iterations = 4", 1), encoding="utf-8")
    broken = folder / ("broken " + file_name(name))
    broken.write_text(hostile_blueprint(name, broken=True), encoding="utf-8")
    events = folder / ("events " + file_name(name))
    events.write_text(hostile_events(name), encoding="utf-8")
    path = str(blueprint)
    runs = {
        "validate text": ["validate", "--color", "always", path],
        "validate json": ["validate", "--format", "json", path],
        "validate sarif": ["validate", "--format", "sarif", path],
        "validate github": ["validate", "--format", "github", path],
        "validate text, errors": ["validate", "--color", "always", str(broken)],
        "validate github, errors": ["validate", "--format", "github", str(broken)],
        "check text, errors": ["check", str(broken)],
        "run, errors": ["run", str(broken), "--events", str(events)],
        "graph text, errors": ["graph", "--format", "text", str(broken)],
        "check text": ["check", "--color", "always", path],
        "check json": ["check", "--format", "json", path],
        "check github": ["check", "--format", "github", path],
        "run text": ["run", path, "--events", str(events)],
        "run json": ["run", path, "--events", str(events), "--format", "json"],
        "graph mermaid": ["graph", path],
        "graph dot": ["graph", "--format", "dot", path],
        "graph text": ["graph", "--format", "text", path],
        "docs": ["docs", "--diagram", "builtin", path],
        "test text": ["test", "--coverage", "-v", path],
        "test json": ["test", "--format", "json", path],
        "test junit": ["test", "--format", "junit", path],
        "compile": ["compile", path],
        "diff text": ["diff", "--color", "always", path, str(changed)],
        "diff markdown": ["diff", "--format", "markdown", path, str(changed)],
        "diff json": ["diff", "--format", "json", path, str(changed)],
        "diff, errors": ["diff", path, str(broken)],
        "missing path": ["validate", str(folder / ("missing " + file_name(name)))],
        "unknown rule": ["rule", name],
        "unknown command": [name],
    }
    out = []
    for what, args in runs.items():
        result = invoke_cli(*args)
        assert result.exception is None or isinstance(result.exception, SystemExit), (what, result.exception)
        out.append((what, result.stdout, "github" in what))
        out.append((what + " (stderr)", result.stderr, False))
    return out


HOSTILE = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@HOSTILE
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join))
@example(EVERYTHING)
def test_no_command_or_format_prints_input_raw(tmp_path: Path, name: str) -> None:
    for what, output, github in outputs_of(tmp_path, name):
        assert_nothing_raw(output, what, github=github)


def test_the_hostile_blueprint_is_clean_enough_to_run_and_its_names_are_shown(tmp_path: Path) -> None:
    """The fuzz above exercises the reporters: the blueprint has findings quoting every name
    and no error, so check analyses it and run replays the events."""
    outputs = dict((what, output) for what, output, _ in outputs_of(tmp_path, EVERYTHING))
    shown = visible("first " + EVERYTHING)
    assert shown in outputs["validate text"] and shown in outputs["check text"]
    assert "not analysed" not in outputs["check text"] and "every run explored" in outputs["check text"]
    assert visible("tool " + EVERYTHING) in outputs["run text"] and "\nresult: " in outputs["run text"]
    assert f"{visible(file_name(EVERYTHING).removesuffix('.leviath'))}.scenarios.toml::" in outputs["test text"]
    assert visible("ghost " + EVERYTHING) in outputs["test text"] and "stage never entered" in outputs["test text"]
    assert "<failure" in outputs["test junit"] and json.loads(outputs["test json"])
    assert visible("first " + EVERYTHING) in outputs["diff text"] and "not compared" in outputs["diff, errors"]
    assert "␊::error file=README.md,line=1::Fake" in outputs["validate text"]
    assert "\\u2028::error::ls" in outputs["validate text"]
    annotations = [line for line in outputs["validate github"].split("\n") if line]
    findings = json.loads(outputs["validate json"])["files"][0]["diagnostics"]
    assert len(annotations) == len(findings) > 0  # one annotation per finding: none forged
    assert visible("ghost " + EVERYTHING) in outputs["validate text, errors"]
    assert "error[unknown-tool]" in OWN_SGR.sub("", outputs["validate text, errors"])
    document = json.loads(outputs["run json"])  # escaped, and still the exact text
    calls = [call for step in document["steps"] if step["event"] for call in step["event"].get("tool_calls", [])]
    assert [call["name"] for call in calls] == ["tool " + EVERYTHING]


def test_github_annotations_cannot_be_forged_by_a_stage_name(tmp_path: Path) -> None:
    path = tmp_path / "a.leviath"
    path.write_text(hostile_blueprint("a\n::error file=README.md,line=1::Fake"), encoding="utf-8")
    lines = invoke_cli("validate", "--format", "github", str(path)).stdout.splitlines()
    assert lines and all(ANNOTATION.fullmatch(line) for line in lines)
    assert not any("file=README.md" in line.split("::")[1] for line in lines)  # only ever in a message
    assert any("a␊::error file=README.md,line=1::Fake" in line for line in lines)


def test_colour_is_added_after_escaping_so_input_sgr_never_reaches_the_terminal(tmp_path: Path) -> None:
    path = tmp_path / "a.leviath"
    path.write_text(hostile_blueprint("\x1b[8mHIDDEN"), encoding="utf-8")
    for command in ("validate", "check"):
        output = invoke_cli(command, "--color", "always", str(path)).stdout
        assert "\x1b[1;33m" in output  # our own colours are there
        assert "\x1b[8m" not in output and "␛[8mHIDDEN" in output


def test_a_newline_in_a_file_path_is_shown_in_every_message(tmp_path: Path) -> None:
    path = tmp_path / "x\n::error::y.leviath"
    path.write_text("[agent]\nname = 1\n", encoding="utf-8")
    for args in (["validate", str(path)], ["check", str(path)], ["validate", "--format", "github", str(path)]):
        result = invoke_cli(*args)
        assert_nothing_raw(result.stdout, " ".join(args[:1]), github="github" in args)
        assert ("x␊%3A%3Aerror%3A%3Ay.leviath" if "github" in args else "x␊::error::y.leviath") in result.stdout
    unreadable = invoke_cli("validate", str(tmp_path / "gone\n::error::z"))
    assert unreadable.exit_code == 2 and "gone␊::error::z" in unreadable.stderr


@given(st.text(max_size=40) | st.lists(st.sampled_from(PIECES), max_size=4).map("".join))
@settings(max_examples=300, deadline=None)
def test_visible_leaves_nothing_unsafe_is_idempotent_and_keeps_safe_text(text: str) -> None:
    shown = visible(text)
    assert not UNSAFE.search(shown)
    assert visible(shown) == shown
    if not UNSAFE.search(text):
        assert shown == text
    escaped = json_visible(json.dumps(text, ensure_ascii=False))
    assert json.loads(escaped) == text and not UNSAFE.search(escaped.replace("\n", ""))


@pytest.mark.parametrize(
    "text, shown",
    [
        ("a\nb", "a␊b"),
        ("\x1b[2J", "␛[2J"),
        ("\x00\x07\x7f", "␀␇␡"),
        ("\x85", "\\u0085"),
        ("\u2028", "\\u2028"),
        ("\u202e", "\\u202e"),
        ("tab\there", "tab␉here"),
        ("é 日本 🙂", "é 日本 🙂"),
    ],
)
def test_visible_shows_each_kind_of_control(text: str, shown: str) -> None:
    assert visible(text) == shown


def test_the_ir_written_by_compile_escapes_separators_and_c1(tmp_path: Path) -> None:
    path = tmp_path / "a.leviath"
    path.write_text(hostile_blueprint("\u2028\x85\u202e"), encoding="utf-8")
    result = invoke_cli("compile", str(path))
    assert result.exit_code == 0, result.stderr
    assert "\\u2028\\u0085\\u202e" in result.stdout and not UNSAFE.search(result.stdout.replace("\n", ""))
    assert json.loads(result.stdout)["blueprint"]["name"] == "agent \u2028\x85\u202e"


if os.name != "posix":  # file names with newlines and controls need a POSIX file system
    pytestmark = pytest.mark.skip(reason="needs a POSIX file system")
