"""SARIF output (`--format sarif`): valid against the official schema, complete for GitHub
code scanning, stable fingerprints, deterministic bytes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from compiler.diagnostics import Diagnostic, Span
from compiler.pipeline import FileResult, validate_text
from compiler.render import get_reporter
from compiler.render.sarif import FINGERPRINT_KEY, MAX_DESCRIPTION, artifact_uri, rule_descriptor, sarif_log
from compiler.rulebook.registry import REGISTRY
from tests.helpers import ROOT, SARIF_SCHEMA

#: Errors, a warning, and a finding with a related location (the worker stage's declaration).
MIXED = textwrap.dedent(
    """\
    [agent]
    name = "mixed"
    flavour = "x"

    [stages.split]
    mode = "fan_out"
    max_iterations = 10
    worker_stage = "scan"

    [stages.scan]
    mode = "autonomous"
    max_iterations = 10

    [stages.scan.transitions.reviw]
    """
)

#: An example blueprint of the project: free of errors and warnings (tests/test_examples.py).
CLEAN = (ROOT / "blueprints" / "linear-pipeline.leviath").read_text(encoding="utf-8")


def mixed_result(path: str = "agents/mixed.leviath") -> FileResult:
    return validate_text(MIXED, path)


def with_a_note(result: FileResult) -> FileResult:
    """The same findings, the last one demoted to a note (no built-in rule emits notes yet)."""
    *rest, last = result.diagnostics
    return replace(result, diagnostics=(*rest, replace(last, severity="note")))


def results_of(log: dict) -> list[dict]:
    (run,) = log["runs"]
    return run["results"]


# --- the official schema ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def sarif_validator():
    if not SARIF_SCHEMA.is_file():
        pytest.skip("../shared/data/sarif is not present (fresh clone)")
    import jsonschema

    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


@pytest.mark.parametrize(
    "results",
    [
        pytest.param(lambda: [with_a_note(mixed_result())], id="every-severity-and-related"),
        pytest.param(lambda: [FileResult("clean.leviath", ())], id="no-findings"),
        pytest.param(lambda: [], id="no-files"),
        pytest.param(lambda: [validate_text("[agent\n", "broken.leviath"), mixed_result()], id="two-files"),
    ],
)
def test_valid_against_the_official_schema(sarif_validator, results) -> None:
    log = json.loads(get_reporter("sarif")(results(), None))
    errors = sorted(sarif_validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_the_mixed_blueprint_covers_every_severity_and_related_locations() -> None:
    """Guards the schema test above: it must see what it claims to see."""
    results = results_of(sarif_log([with_a_note(mixed_result())]))
    assert {r["level"] for r in results} == {"error", "warning", "note"}
    assert any(r.get("relatedLocations") for r in results)


# --- what GitHub code scanning requires -------------------------------------------------------


def non_empty(value) -> bool:
    return value not in (None, "", [], {})


def test_every_field_github_requires_is_present_and_non_empty() -> None:
    log = sarif_log([with_a_note(mixed_result())])
    assert log["version"] == "2.1.0" and non_empty(log["$schema"])
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert non_empty(driver["name"]) and non_empty(driver["semanticVersion"])
    assert run["columnKind"] == "unicodeCodePoints"
    for rule in driver["rules"]:
        for field in ("id", "name"):
            assert non_empty(rule[field])
        for field in ("shortDescription", "fullDescription"):
            assert 0 < len(rule[field]["text"]) <= MAX_DESCRIPTION
        assert non_empty(rule["help"]["text"]) and non_empty(rule["help"]["markdown"])
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    for result in run["results"]:
        assert non_empty(result["message"]["text"])
        assert non_empty(result["partialFingerprints"])
        assert 1 <= len(result["locations"]) <= 10
        location = result["locations"][0]["physicalLocation"]
        assert non_empty(location["artifactLocation"]["uri"])
        region = location["region"]
        for field in ("startLine", "startColumn", "endLine", "endColumn"):
            assert isinstance(region[field], int) and region[field] >= 1


def test_every_registered_rule_makes_a_complete_descriptor() -> None:
    for info in REGISTRY.all():
        descriptor = rule_descriptor(info.code)
        assert descriptor["id"] == info.code
        assert descriptor["defaultConfiguration"]["level"] == info.severity
        for field in ("shortDescription", "fullDescription"):
            assert 0 < len(descriptor[field]["text"]) <= MAX_DESCRIPTION
        assert info.fix in descriptor["help"]["text"] and info.fix in descriptor["help"]["markdown"]
        assert f"docs/rules/{info.code}.md" in descriptor["help"]["markdown"]
        assert (ROOT / info.doc_path).is_file(), f"the help points at {info.doc_path}, which does not exist"


def test_long_descriptions_are_clipped(monkeypatch) -> None:
    info = REGISTRY.get("unknown-stage")
    long = replace(info, summary="s" * 3000, rationale="r" * 3000)
    monkeypatch.setattr(REGISTRY, "get", lambda code: long)
    descriptor = rule_descriptor("unknown-stage")
    assert len(descriptor["shortDescription"]["text"]) == MAX_DESCRIPTION
    assert len(descriptor["fullDescription"]["text"]) == MAX_DESCRIPTION


def test_an_unregistered_code_still_gets_a_descriptor() -> None:
    descriptor = rule_descriptor("no-such-code", "warning")
    assert descriptor["id"] == "no-such-code"
    assert descriptor["shortDescription"]["text"] and descriptor["help"]["text"]
    assert descriptor["defaultConfiguration"]["level"] == "warning"


# --- rules and results --------------------------------------------------------------------------


def test_rules_are_the_codes_present_sorted_and_indexed() -> None:
    result = mixed_result()
    log = sarif_log([result])
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    ids = [rule["id"] for rule in rules]
    assert ids == sorted({d.code for d in result.diagnostics})
    for sarif_result in results_of(log):
        assert rules[sarif_result["ruleIndex"]]["id"] == sarif_result["ruleId"]


def test_results_follow_the_diagnostics() -> None:
    result = with_a_note(mixed_result())
    for d, sarif_result in zip(result.diagnostics, results_of(sarif_log([result])), strict=True):
        assert sarif_result["ruleId"] == d.code
        assert sarif_result["level"] == d.severity
        assert sarif_result["message"]["text"].splitlines()[0] == d.message
        if d.fix:
            assert sarif_result["message"]["text"].splitlines()[1] == f"fix: {d.fix}"
        region = sarif_result["locations"][0]["physicalLocation"]["region"]
        assert (region["startLine"], region["startColumn"], region["endLine"], region["endColumn"]) == (
            d.line,
            d.column,
            d.end_line,
            d.end_column,
        )
        related = sarif_result.get("relatedLocations", [])
        assert [r["message"]["text"] for r in related] == [r.message for r in d.related]
        for sarif_related, r in zip(related, d.related):
            region = sarif_related["physicalLocation"]["region"]
            assert (region["startLine"], region["startColumn"]) == (r.span.line, r.span.column)


def test_columns_are_code_points() -> None:
    """A wide character before the finding counts as one column (SARIF `unicodeCodePoints`)."""
    result = validate_text('[agent]\nname = "é"\n\n[stages."日本"]\n[stages."日本".transitions.nowhere]\n', "u.leviath")
    (finding,) = [d for d in result.diagnostics if d.code == "unknown-stage"]
    region = results_of(sarif_log([result]))[[d.code for d in result.diagnostics].index("unknown-stage")]
    region = region["locations"][0]["physicalLocation"]["region"]
    line = '[stages."日本".transitions.nowhere]'
    assert region["startColumn"] == line.index("nowhere") + 1 == finding.column
    assert region["endColumn"] == region["startColumn"] + len("nowhere")


def test_a_finding_without_a_position_is_located_at_line_1() -> None:
    d = Diagnostic("internal-error", "error", "check x crashed", "a.leviath", span=None)
    log = sarif_log([FileResult("a.leviath", (d,))])
    region = results_of(log)[0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1}


def test_a_backwards_span_becomes_a_valid_region() -> None:
    d = Diagnostic("unknown-stage", "error", "m", "a.leviath", span=Span(3, 9, 2, 4))
    region = results_of(sarif_log([FileResult("a.leviath", (d,))]))[0]["locations"][0]["physicalLocation"]["region"]
    assert region["endLine"] >= region["startLine"]
    assert region["endLine"] > region["startLine"] or region["endColumn"] >= region["startColumn"]


# --- fingerprints ----------------------------------------------------------------------------


def fingerprints(text: str, path: str = "a.leviath") -> dict[tuple[str, str], str]:
    result = validate_text(text, path)
    return {
        (r["ruleId"], r["message"]["text"]): r["partialFingerprints"][FINGERPRINT_KEY]
        for r in results_of(sarif_log([result]))
    }


def test_fingerprints_survive_unrelated_line_shifts() -> None:
    before = fingerprints(MIXED)
    shifted = MIXED.replace("[agent]\n", "# a comment\n\n[agent]\n", 1).replace(
        "[stages.scan]\n", "[stages.scan]\ndescription = 'scans'\n", 1
    )
    after = fingerprints(shifted)
    assert (
        validate_text(shifted, "a.leviath").diagnostics[-1].line
        != validate_text(MIXED, "a.leviath").diagnostics[-1].line
    )
    assert after == before


def test_fingerprints_ignore_line_numbers_in_messages() -> None:
    text = '[agent]\nname = "a"\nname = "b"\n'
    before = fingerprints(text)
    after = fingerprints("\n\n" + text)
    assert any("line" in message for _, message in before)
    assert list(before.values()) == list(after.values())


def test_fingerprints_tell_findings_and_files_apart() -> None:
    values = list(fingerprints(MIXED).values())
    assert len(set(values)) == len(values)
    assert set(fingerprints(MIXED, "other.leviath").values()).isdisjoint(values)


def test_equal_findings_get_distinct_fingerprints() -> None:
    d = Diagnostic("unknown-stage", "error", "same", "a.leviath", span=Span(1, 1, 1, 2))
    twice = (d, replace(d, span=Span(2, 1, 2, 2)))
    values = [
        r["partialFingerprints"][FINGERPRINT_KEY] for r in results_of(sarif_log([FileResult("a.leviath", twice)]))
    ]
    assert len(set(values)) == 2
    assert [v.rsplit(":", 1)[1] for v in values] == ["1", "2"]


def test_fingerprints_tolerate_lone_surrogates() -> None:
    d = Diagnostic("unknown-stage", "error", "stage '\udcff' does not exist", "a.leviath", span=Span(1, 1, 1, 2))
    get_reporter("sarif")([FileResult("a.leviath", (d,))], None)


# --- paths ---------------------------------------------------------------------------------------


def test_uris_are_relative_with_forward_slashes(tmp_path: Path) -> None:
    cwd = str(tmp_path)
    assert artifact_uri("agents/./coder/agent.leviath", cwd) == "agents/coder/agent.leviath"
    assert artifact_uri(str(tmp_path / "agents" / "agent.leviath"), cwd) == "agents/agent.leviath"


def test_files_outside_the_working_directory_keep_the_path_given(tmp_path: Path) -> None:
    cwd = tmp_path / "repo"
    outside = tmp_path / "elsewhere" / "agent.leviath"
    assert artifact_uri("../elsewhere/agent.leviath", str(cwd)) == "../elsewhere/agent.leviath"
    assert artifact_uri(str(outside), str(cwd)) == outside.as_uri()


def test_odd_file_names_are_percent_encoded() -> None:
    uri = artifact_uri("we,ird/dir: 100%/a b\n.leviath", "/nowhere")
    assert uri == "we%2Cird/dir%3A%20100%25/a%20b%0A.leviath"
    assert re.fullmatch(r"[A-Za-z0-9\-._~/%]+", uri)


# --- the command --------------------------------------------------------------------------------


def run_cli(args: list[str], cwd: Path, seed: str = "0") -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "compiler", *args], cwd=cwd, env=env, capture_output=True, timeout=120)


def test_the_cli_writes_the_same_bytes_every_time(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "mixed.leviath").write_text(MIXED, encoding="utf-8")
    (tmp_path / "agents" / "agent.leviath").write_text(CLEAN, encoding="utf-8")
    first = run_cli(["validate", "--format", "sarif", "agents"], tmp_path, seed="1")
    second = run_cli(["validate", "--format", "sarif", "agents"], tmp_path, seed="2")
    assert first.returncode == 1, first.stderr
    assert first.stdout == second.stdout
    log = json.loads(first.stdout)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results_of(log)}
    assert uris == {"agents/mixed.leviath"}


def test_the_cli_exits_0_on_clean_files(tmp_path: Path) -> None:
    (tmp_path / "agent.leviath").write_text(CLEAN, encoding="utf-8")
    done = run_cli(["validate", "--format", "sarif", "agent.leviath"], tmp_path)
    assert done.returncode == 0, done.stderr
    log = json.loads(done.stdout)
    assert all(r["level"] == "note" for r in results_of(log))
    rules = [rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]]
    assert rules == sorted({r["ruleId"] for r in results_of(log)})


def test_a_run_without_findings_lists_no_rules() -> None:
    log = sarif_log([FileResult("clean.leviath", ())])
    assert results_of(log) == [] and log["runs"][0]["tool"]["driver"]["rules"] == []


def test_related_locations_point_into_the_same_file() -> None:
    result = mixed_result()
    (with_related,) = [r for r in results_of(sarif_log([result])) if r.get("relatedLocations")]
    uri = with_related["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    for related in with_related["relatedLocations"]:
        assert related["physicalLocation"]["artifactLocation"]["uri"] == uri
