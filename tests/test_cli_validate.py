"""`blueprint validate`: exit statuses, formats, selection, configuration, colour, I/O errors.

Other engineers' rules keep adding findings, so these tests build files whose outcome does
not depend on them (a syntax error; an unknown code in a suppression comment, which is a
warning) and assert on structure and exit statuses rather than on today's exact report.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import Result

from tests.conftest import invoke_cli
from tests.helpers import CORPUS, ROOT, requires_shared

#: No errors; one warning (`unused-suppression`: the comment names no rule).
WARNING_ONLY = """\
[agent]
name = "w"  # blueprint: ignore[no-such-rule]

[stages.main]
mode = "autonomous"
model = { models = [{ provider = "anthropic", model = "claude-sonnet-5" }] }
max_iterations = 5
"""
#: A TOML syntax error: one `toml-syntax` error whatever else the rules check.
BROKEN = '[agent]\nname = "unterminated\n'


def validate(*args: str, env: dict[str, str] | None = None) -> Result:
    return invoke_cli("validate", *args, env=env)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def report(result: Result) -> dict:
    return json.loads(result.stdout)


def codes(result: Result) -> list[str]:
    return [d["code"] for f in report(result)["files"] for d in f["diagnostics"]]


# --- exit statuses ------------------------------------------------------------------------


def test_no_errors_exits_0_and_prints_the_summary(tmp_path: Path) -> None:
    result = validate(str(write(tmp_path / "w.leviath", WARNING_ONLY)))
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip().splitlines()[-1].startswith("Checked 1 file: 0 errors")


def test_an_error_exits_1_and_is_shown_with_its_position(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.leviath", BROKEN)
    result = validate(str(path))
    assert result.exit_code == 1
    assert f"{path}:2:" in result.stdout and "error[toml-syntax]" in result.stdout
    assert result.stderr == ""


def test_deny_warnings_makes_warnings_fail(tmp_path: Path) -> None:
    path = str(write(tmp_path / "w.leviath", WARNING_ONLY))
    assert validate(path).exit_code == 0
    assert validate(path, "--deny-warnings").exit_code == 1


# --- formats ------------------------------------------------------------------------------


def test_json_report_shape_and_schema(tmp_path: Path) -> None:
    import jsonschema

    good = write(tmp_path / "a" / "agent.leviath", WARNING_ONLY)
    bad = write(tmp_path / "b.leviath", BROKEN)
    result = validate(str(tmp_path), "--format", "json")
    assert result.exit_code == 1
    assert result.stdout.endswith("}\n") and result.stdout.startswith('{\n  "version": 1,\n')
    document = report(result)
    schema = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft7Validator(schema).validate(document)
    assert list(document) == ["version", "files", "summary"]
    assert [f["path"] for f in document["files"]] == [str(good), str(bad)]
    outline, broken = document["files"]
    assert outline["blueprint"] == {"name": "w", "version": "0.1.0", "entry_stage": "main", "stages": ["main"]}
    assert broken["blueprint"] is None
    assert "toml-syntax" in [d["code"] for d in broken["diagnostics"]]
    summary = document["summary"]
    assert summary["files"] == 2
    assert summary["errors"] == sum(d["severity"] == "error" for f in document["files"] for d in f["diagnostics"])
    assert summary["warnings"] >= 1


def test_json_is_byte_identical_across_runs(tmp_path: Path) -> None:
    write(tmp_path / "b.leviath", BROKEN)
    write(tmp_path / "w.leviath", WARNING_ONLY)
    first = validate(str(tmp_path), "--format", "json").stdout
    assert first == validate(str(tmp_path), "--format", "json").stdout


def test_machine_formats_refuse_human_only_flags(tmp_path: Path) -> None:
    path = str(write(tmp_path / "w.leviath", WARNING_ONLY))
    for flag in ("--statistics", "--quiet"):
        result = validate(path, "--format", "json", flag)
        assert result.exit_code == 2 and flag in result.stderr and result.stdout == ""


def test_statistics_counts_findings_per_code(tmp_path: Path) -> None:
    write(tmp_path / "b1.leviath", BROKEN)
    write(tmp_path / "b2.leviath", BROKEN)
    result = validate(str(tmp_path), "--statistics")
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows == [["2", "error", "toml-syntax"]]  # only the table, as ruff prints it
    assert result.exit_code == 1


def test_quiet_prints_only_the_summary(tmp_path: Path) -> None:
    result = validate(str(write(tmp_path / "b.leviath", BROKEN)), "--quiet")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == ["Checked 1 file: 1 error, 0 warnings, 0 notes"]


# --- selection ----------------------------------------------------------------------------


@pytest.mark.parametrize("flags", [["--ignore", "toml-syntax"], ["--ignore", "syntax"], ["--select", "lint,meta"]])
def test_ignore_and_select_by_code_or_family(tmp_path: Path, flags: list[str]) -> None:
    result = validate(str(write(tmp_path / "b.leviath", BROKEN)), "--format", "json", *flags)
    assert result.exit_code == 0
    assert "toml-syntax" not in codes(result)


def test_select_accepts_repeated_and_comma_separated_names(tmp_path: Path) -> None:
    path = str(write(tmp_path / "b.leviath", BROKEN))
    result = validate(path, "--format", "json", "--select", "lint", "--select", "meta,toml-syntax")
    assert result.exit_code == 1 and codes(result) == ["toml-syntax"]


def test_an_unknown_rule_name_is_a_usage_error(tmp_path: Path) -> None:
    result = validate(str(write(tmp_path / "b.leviath", BROKEN)), "--ignore", "toml-syntx")
    assert result.exit_code == 2
    assert "'toml-syntx'" in result.stderr and "toml-syntax" in result.stderr
    assert result.stdout == ""


def test_an_unknown_format_is_a_usage_error(tmp_path: Path) -> None:
    result = validate(str(write(tmp_path / "w.leviath", WARNING_ONLY)), "--format", "yaml")
    assert result.exit_code == 2


# --- configuration ------------------------------------------------------------------------


def test_configuration_applies_and_flags_override_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "pyproject.toml", '[tool.blueprint]\nignore = ["toml-syntax"]\ndeny-warnings = true\n')
    write(tmp_path / "bp" / "bad.leviath", BROKEN)
    write(tmp_path / "bp" / "warn.leviath", WARNING_ONLY)
    monkeypatch.chdir(tmp_path)
    assert validate("bp/bad.leviath").exit_code == 0  # ignored by the configuration
    assert validate("bp/bad.leviath", "--ignore", "lint").exit_code == 1  # the flag replaces `ignore`
    assert validate("bp/warn.leviath").exit_code == 1  # deny-warnings from the configuration
    assert validate("bp/warn.leviath", "--no-deny-warnings").exit_code == 0


def test_each_file_gets_the_configuration_nearest_to_it(tmp_path: Path) -> None:
    write(tmp_path / "strict" / "pyproject.toml", "[tool.blueprint]\ndeny-warnings = true\n")
    write(tmp_path / "strict" / "w.leviath", WARNING_ONLY)
    write(tmp_path / "lax" / "w.leviath", WARNING_ONLY)
    assert validate(str(tmp_path / "lax")).exit_code == 0
    assert validate(str(tmp_path / "strict")).exit_code == 1
    assert validate(str(tmp_path)).exit_code == 1


@pytest.mark.parametrize(
    ("table", "named"),
    [
        ("[tool.blueprint]\nselekt = []\n", "selekt"),
        ('[tool.blueprint]\nignore = ["no-such-rule"]\n', "no-such-rule"),
        ("[tool.blueprint]\ndeny-warnings = 1\n", "deny-warnings"),
    ],
)
def test_invalid_configuration_exits_2_naming_file_and_key(tmp_path: Path, table: str, named: str) -> None:
    write(tmp_path / "pyproject.toml", table)
    result = validate(str(write(tmp_path / "w.leviath", WARNING_ONLY)))
    assert result.exit_code == 2 and result.stdout == ""
    assert "pyproject.toml" in result.stderr and named in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


# --- colour -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "env", "coloured"),
    [
        ("auto", {}, False),  # CliRunner's stdout is not a terminal
        ("always", {}, True),
        ("never", {"FORCE_COLOR": "1"}, False),
        ("auto", {"FORCE_COLOR": "1"}, True),
        ("auto", {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
        ("auto", {"FORCE_COLOR": "1", "NO_COLOR": ""}, True),  # an empty NO_COLOR does not count
        ("always", {"NO_COLOR": "1"}, True),  # an explicit flag wins over the environment
    ],
)
def test_colour(tmp_path: Path, flag: str, env: dict[str, str], coloured: bool) -> None:
    result = validate(str(write(tmp_path / "b.leviath", BROKEN)), "--color", flag, env=env)
    assert result.exit_code == 1
    assert ("\x1b[" in result.stdout) is coloured


def test_json_is_never_coloured(tmp_path: Path) -> None:
    result = validate(str(write(tmp_path / "b.leviath", BROKEN)), "--format", "json", "--color", "always")
    assert "\x1b[" not in result.stdout
    json.loads(result.stdout)


# --- paths and I/O ------------------------------------------------------------------------


def test_a_missing_path_exits_2_with_one_line(tmp_path: Path) -> None:
    result = validate(str(tmp_path / "nope.leviath"))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [f"Error: path '{tmp_path / 'nope.leviath'}' does not exist"]


def test_no_blueprint_found_exits_2(tmp_path: Path) -> None:
    write(tmp_path / "README.md", "nothing here")
    result = validate(str(tmp_path))
    assert result.exit_code == 2 and "no blueprints found" in result.stderr


def test_an_unreadable_file_is_reported_and_the_rest_still_checked(tmp_path: Path) -> None:
    good = write(tmp_path / "w.leviath", WARNING_ONLY)
    dangling = tmp_path / "gone.leviath"
    dangling.symlink_to(tmp_path / "deleted.leviath")
    result = validate(str(dangling), str(good), "--format", "json")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [f"error: cannot read '{dangling}': No such file or directory"]
    assert [f["path"] for f in report(result)["files"]] == [str(good)]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a non-root POSIX user")
def test_a_file_without_read_permission(tmp_path: Path) -> None:
    locked = write(tmp_path / "locked.leviath", WARNING_ONLY)
    locked.chmod(0)
    try:
        result = validate(str(locked), str(write(tmp_path / "b.leviath", BROKEN)))
    finally:
        locked.chmod(0o644)
    assert result.exit_code == 2
    assert "cannot read" in result.stderr and "Checked 1 file: 1 error" in result.stdout


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    for n in range(25):
        write(tmp_path / f"b{n:02}.leviath", BROKEN)
    result = validate(str(tmp_path))
    assert result.exit_code == 1 and result.stderr == ""
    assert "Checked 25 files" in result.stdout


def test_default_path_is_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "x" / "agent.leviath", BROKEN)
    monkeypatch.chdir(tmp_path)
    result = validate("--format", "json")
    assert [f["path"] for f in report(result)["files"]] == [os.path.join("x", "agent.leviath")]


def test_an_unexpected_crash_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import compiler.discover as discover_module

    def explode(paths, path_filter=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(discover_module, "discover", explode)
    result = validate(str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "Error: internal error: RuntimeError: boom (set BLUEPRINT_DEBUG=1 for the traceback)"
    ]
    debug = validate(str(tmp_path), env={"BLUEPRINT_DEBUG": "1"})
    assert isinstance(debug.exception, RuntimeError)


# --- the real blueprints ------------------------------------------------------------------


@requires_shared
@pytest.mark.parametrize("output_format", ["text", "json"])
def test_the_corpus_validates_cleanly(output_format: str) -> None:
    result = validate(str(CORPUS), "--format", output_format)
    assert result.exit_code == 0, result.stdout
    if output_format == "json":
        document = report(result)
        assert document["summary"]["files"] == len(list(CORPUS.glob("*/agent.leviath")))
        assert document["summary"]["errors"] == 0


def test_a_crash_on_one_file_does_not_hide_the_others(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import compiler.pipeline as pipeline

    real = pipeline.validate_bytes

    def fragile(path, data, settings):
        if path.endswith("crash.leviath"):
            raise ValueError("unexpected shape")
        return real(path, data, settings)

    monkeypatch.setattr(pipeline, "validate_bytes", fragile)
    crash = write(tmp_path / "crash.leviath", WARNING_ONLY)
    bad = write(tmp_path / "other.leviath", BROKEN)
    result = validate(str(crash), str(bad), "--format", "json")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: internal error while checking '{crash}': ValueError: unexpected shape"
    ]
    assert [f["path"] for f in report(result)["files"]] == [str(bad)]


def test_an_interrupt_exits_130_not_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import compiler.discover as discover_module

    def interrupted(paths, path_filter=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(discover_module, "discover", interrupted)
    result = validate(str(tmp_path))
    assert result.exit_code == 130 and "interrupted" in result.stderr
