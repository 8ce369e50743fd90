"""What reports show beyond the findings: which ones `--fix` fixes (text, JSON, SARIF), where
a rule is documented, the concise format, and how `-q` and `--statistics` combine."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from compiler.diagnostics import Span
from compiler.fix.edits import TextEdit, apply_edits
from compiler.pipeline import validate_text
from tests.conftest import invoke_cli
from tests.helpers import ROOT, SARIF_SCHEMA

#: Two fixable findings (a stage without mode, an alias) among findings that are not.
FIXABLE = """\
[agent]
name = "f"

[stages.work]
max_iterations = 5

[stages.work.transitions.done]
transform = "summarize"

[stages.done]
mode = "output"
max_iterations = 3

[stages.done.transitions]
"""
FIXABLE_CODES = {"stage-missing-mode", "non-canonical-value"}


@pytest.fixture
def blueprint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "f.leviath").write_text(FIXABLE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return "f.leviath"


def validate(*args: str):
    return invoke_cli("validate", *args)


def test_text_marks_the_fixable_findings_and_counts_them(blueprint: str) -> None:
    result = validate(blueprint)
    heads = [line for line in result.stdout.splitlines() if line.startswith("f.leviath:")]
    marked = {re.search(r"\[([a-z-]+)\]", line).group(1) for line in heads if "] [*] " in line}
    assert marked == FIXABLE_CODES and len(heads) == 4
    tail = result.stdout.splitlines()[-3:]
    assert tail == [
        "A rule's rationale, example and fix: `blueprint rule stage-missing-mode`",
        "Checked 1 file: 0 errors, 4 warnings, 0 notes",
        "[*] 2 fixable with `--fix`",
    ]
    fixed = validate(blueprint, "--fix")
    assert "fixable" not in fixed.stdout and "[*]" not in fixed.stdout


def test_a_clean_report_is_only_the_summary(tmp_path: Path) -> None:
    result = validate(str(ROOT / "blueprints" / "linear-pipeline.leviath"))
    assert result.stdout == "Checked 1 file: 0 errors, 0 warnings, 0 notes\n"


def test_the_rule_line_links_the_configured_docs(blueprint: str) -> None:
    Path("blueprint.toml").write_text(
        'rule-docs-url = "https://docs.example.org/rules/{code}.html"\n', encoding="utf-8"
    )
    result = validate(blueprint)
    assert (
        "A rule's rationale, example and fix: `blueprint rule stage-missing-mode` "
        "or https://docs.example.org/rules/stage-missing-mode.html"
    ) in result.stdout.splitlines()


def test_json_carries_fixable_and_edits_that_fix_the_finding(blueprint: str) -> None:
    result = validate(blueprint, "--format", "json")
    document = json.loads(result.stdout)
    jsonschema.validate(document, json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8")))
    findings = document["files"][0]["diagnostics"]
    assert {d["code"] for d in findings if d["fixable"]} == FIXABLE_CODES
    assert all(d["fix_edits"] == [] for d in findings if not d["fixable"])
    for finding in (d for d in findings if d["fixable"]):
        edits = [
            TextEdit(Span(e["line"], e["column"], e["end_line"], e["end_column"]), e["new_text"])
            for e in finding["fix_edits"]
        ]
        after = validate_text(apply_edits(FIXABLE, edits), "f.leviath")
        codes = [d.code for d in after.diagnostics]
        assert codes.count(finding["code"]) == [d["code"] for d in findings].count(finding["code"]) - 1


def test_sarif_has_fixes_and_a_help_uri_once_configured(blueprint: str) -> None:
    if not SARIF_SCHEMA.is_file():
        pytest.skip("../shared is not present (fresh clone)")
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    log = json.loads(validate(blueprint, "--format", "sarif").stdout)
    jsonschema.validate(log, schema)
    (run,) = log["runs"]
    with_fixes = [r for r in run["results"] if "fixes" in r]
    assert {r["ruleId"] for r in with_fixes} == FIXABLE_CODES
    (fix,) = next(r for r in with_fixes if r["ruleId"] == "stage-missing-mode")["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "f.leviath"
    (replacement,) = change["replacements"]
    region = replacement["deletedRegion"]
    assert (
        region["startColumn"] == region["endColumn"] and 'mode = "autonomous"' in replacement["insertedContent"]["text"]
    )
    assert all("helpUri" not in rule for rule in run["tool"]["driver"]["rules"])

    Path("blueprint.toml").write_text('rule-docs-url = "https://docs.example.org/rules/{code}"\n', encoding="utf-8")
    log = json.loads(validate(blueprint, "--format", "sarif").stdout)
    jsonschema.validate(log, schema)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [rule["helpUri"] for rule in rules] == [f"https://docs.example.org/rules/{rule['id']}" for rule in rules]


def test_concise_is_one_line_per_finding(blueprint: str, tmp_path: Path) -> None:
    result = validate(blueprint, "--format", "concise")
    lines = result.stdout.splitlines()
    pattern = re.compile(r"^(.+):(\d+):(\d+): (error|warning|note): (.*) \[([a-z0-9-]+)\]$")
    findings = [m.groups() for m in map(pattern.match, lines) if m]
    assert [(f[0], f[1], f[2], f[3], f[5]) for f in findings] == [
        ("f.leviath", "4", "9", "warning", "stage-missing-mode"),
        ("f.leviath", "4", "9", "warning", "stage-missing-model"),
        ("f.leviath", "8", "13", "warning", "non-canonical-value"),
        ("f.leviath", "10", "9", "warning", "stage-missing-model"),
    ]
    assert lines[-2:] == ["Checked 1 file: 0 errors, 4 warnings, 0 notes", "[*] 2 fixable with `--fix`"]
    assert "\x1b" not in validate(blueprint, "--format", "concise", "--color", "always").stdout
    odd = tmp_path / "odd.leviath"
    odd.write_text(
        '[agent]\nname = "x"\n[stages."a\\nb"]\nmode = "output"\n[stages."a\\nb".transitions]\n', encoding="utf-8"
    )
    odd_lines = [
        line for line in validate(str(odd), "--format", "concise").stdout.splitlines() if line.startswith(str(odd))
    ]
    assert odd_lines and all(pattern.match(line) for line in odd_lines) and any("\u2424" in line for line in odd_lines)


def test_quiet_and_statistics_combine_in_the_human_formats(blueprint: str) -> None:
    for output_format in ("text", "concise"):
        both = validate(blueprint, "--format", output_format, "-q", "--statistics").stdout
        assert both.splitlines() == [
            "2  warning  stage-missing-model",
            "1  warning  non-canonical-value",
            "1  warning  stage-missing-mode",
            "",
            "Checked 1 file: 0 errors, 4 warnings, 0 notes",
            "[*] 2 fixable with `--fix`",
        ]
        quiet = validate(blueprint, "--format", output_format, "-q").stdout
        assert quiet.splitlines() == ["Checked 1 file: 0 errors, 4 warnings, 0 notes", "[*] 2 fixable with `--fix`"]
    for command in ("validate", "check"):
        for output_format in ("json", "sarif", "github"):
            for flag in ("-q", "--statistics"):
                result = invoke_cli(command, blueprint, "--format", output_format, flag)
                assert result.exit_code == 2
                assert "shapes the human formats (text, concise)" in result.stderr


def test_check_takes_quiet_and_statistics(blueprint: str) -> None:
    quiet = invoke_cli("check", blueprint, "-q")
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stdout.splitlines() == ["Checked 1 file: 0 errors, 4 warnings, 0 notes", "[*] 2 fixable with `--fix`"]
    table = invoke_cli("check", blueprint, "--statistics").stdout
    assert table.splitlines() == [
        "2  warning  stage-missing-model",
        "1  warning  non-canonical-value",
        "1  warning  stage-missing-mode",
    ]
    full = invoke_cli("check", blueprint).stdout
    assert "ceiling:" in full and "] [*] " in full
