"""Declared properties (`[[property]]` in a blueprint's scenario file): read, answered over the one
exploration `blueprint check` makes, reported with the run that breaks them, and run as tests
by `blueprint test` in every format and the pytest plugin. The golden cases are in
tests/check_cases/property-*/."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import jsonschema
import pytest

from compiler.analysis.property_spec import read_properties
from compiler.check import check_bytes, check_file
from compiler.config import Settings
from tests.conftest import invoke_cli
from tests.helpers import ROOT, run_pytest

CASES = ROOT / "tests" / "check_cases"
EARLY = CASES / "property-violated" / "publish-early.leviath"
REVIEWED = CASES / "property-violated" / "ok-reviewed.leviath"
SCENARIO_SCHEMA = json.loads((ROOT / "schemas" / "scenario.schema.json").read_text(encoding="utf-8"))
REPORT_SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))


def verdicts(blueprint: Path, properties: str) -> dict[str, tuple[str, str]]:
    item = check_bytes(
        blueprint.name, blueprint.read_bytes(), Settings(), properties=("agent.scenarios.toml", properties.encode())
    )
    return {v.name: (v.status, v.message) for v in item.properties}


def project(tmp_path: Path, blueprint: Path, properties: str) -> Path:
    (tmp_path / "agent.leviath").write_bytes(blueprint.read_bytes())
    (tmp_path / "agent.scenarios.toml").write_text(properties, encoding="utf-8")
    return tmp_path


def invoke(*args: str, cwd: Path):
    return invoke_cli(*args, catch_exceptions=False, cwd=cwd)


EARLY_PROPERTIES = (CASES / "property-violated" / "publish-early.scenarios.toml").read_text(encoding="utf-8")
#: Without its token and dollar limits, which need the prices of the case folder's blueprint.toml.
REVIEWED_PROPERTIES = (
    (CASES / "property-violated" / "ok-reviewed.scenarios.toml")
    .read_text(encoding="utf-8")
    .replace(", tokens = 100000000, cost_usd = 1000", "")
)


# --- reading ------------------------------------------------------------------------------------


def test_each_form_is_read_as_written_in_the_issue_of_the_docs() -> None:
    text = (ROOT / "docs" / "check.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```toml\n(.*?)```", text, flags=re.S) if "[[property]]" in b)
    file = read_properties("agent.scenarios.toml", block.encode())
    assert file.problems == ()
    assert [(p.form, p.args) for p in file.properties] == [
        ("precedes", {"first": "review", "then": "publish"}),
        ("never", {"tool": "deploy", "before": "approve"}),
        ("reaches", {"stage": "summary"}),
        ("at_most", {"inferences": 200, "visits": {"draft": 4}, "tokens": 400000, "cost_usd": 2.5}),
    ]
    assert [p.span.line for p in file.properties] == [2, 6, 10, 14]


def test_the_docs_examples_match_the_schema_and_read_cleanly() -> None:
    from compiler.scenarios.loader import load_scenarios

    for page in ("check.md", "testing.md"):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        blocks = [b for b in re.findall(r"```toml\n(.*?)```", text, flags=re.S) if "[[property]]" in b]
        assert blocks, page
        for block in blocks:
            jsonschema.validate(tomllib.loads(block), SCENARIO_SCHEMA)
            assert load_scenarios("doc.scenarios.toml", block.encode()).diagnostics == ()


def test_the_schema_refuses_what_the_reader_refuses() -> None:
    for case in sorted(CASES.glob("property-*/*.scenarios.toml")):
        document = tomllib.loads(case.read_text(encoding="utf-8"))
        errors = list(jsonschema.Draft7Validator(SCENARIO_SCHEMA).iter_errors(document))
        refused = read_properties(case.name, case.read_bytes()).problems
        if case.parent.name == "property-invalid" and not case.name.startswith("ok-"):
            assert refused and errors, case.name
        else:
            assert not refused and not errors, (case.name, errors)


def test_a_property_file_that_is_not_toml_is_one_problem_at_its_position() -> None:
    file = read_properties("a.scenarios.toml", b'[[property]]\nname = "x\n')
    assert file.properties == () and len(file.problems) == 1 and file.problems[0].span.line == 2


# --- answers --------------------------------------------------------------------------------------


def test_every_form_can_be_broken_and_each_run_is_replayed() -> None:
    item = check_bytes(
        EARLY.name, EARLY.read_bytes(), Settings(), properties=("agent.scenarios.toml", EARLY_PROPERTIES.encode())
    )
    broken = {v.name: v for v in item.properties}
    assert {name: v.status for name, v in broken.items()} == dict.fromkeys(broken, "violated")
    for verdict in broken.values():
        assert verdict.trace is not None and verdict.trace.verified, verdict.name
    assert broken["review before publish"].trace.outcome == "enters"  # type: ignore[union-attr]
    assert broken["ends in review"].trace.outcome == "complete"  # type: ignore[union-attr]
    assert [s.stage for s in broken["stays cheap"].trace.steps].count("draft") == 3  # type: ignore[union-attr]
    assert len(broken["review before publish"].trace.steps) == 1  # the shortest: draft, then publish  # type: ignore[union-attr]


def test_the_same_forms_hold_where_no_run_breaks_them() -> None:
    assert {status for status, _ in verdicts(REVIEWED, REVIEWED_PROPERTIES).values()} == {"holds"}


def test_a_run_that_starts_in_the_stage_breaks_precedes_at_once() -> None:
    found = verdicts(REVIEWED, '[[property]]\nname = "p"\nprecedes = { first = "review", then = "draft" }\n')
    assert found["p"] == ("violated", "property 'p': every run starts in 'draft', before any entry of 'review'")


def test_reaches_counts_the_start_and_is_vacuous_where_no_run_completes() -> None:
    from dataclasses import replace

    from compiler import load
    from compiler.analysis import analyze
    from compiler.analysis.property_check import evaluate

    looping = CASES / "run-can-loop-forever" / "two-stage.leviath"
    analysis = analyze(load(looping))
    file = read_properties("a.scenarios.toml", b'[[property]]\nname = "r"\nreaches = "work"\n')
    assert [v.status for v in evaluate(analysis, file)] == ["holds"]  # every run starts in 'work'
    runs = analysis.runs
    failing_only = replace(
        runs, out=[[(n, t) for n, t in edges if type(t) is int or t.kind != "complete"] for edges in runs.out]
    )
    (verdict,) = evaluate(replace(analysis, runs=failing_only), file)
    assert (verdict.status, verdict.message) == ("vacuous", "property 'r' holds only vacuously: no run completes")


def test_an_unknown_name_is_invalid_with_the_closest_name() -> None:
    item = check_bytes(
        REVIEWED.name,
        REVIEWED.read_bytes(),
        Settings(),
        properties=("agent.scenarios.toml", b'[[property]]\nname = "p"\nreaches = "pubish"\n'),
    )
    (finding,) = [d for d in item.result.diagnostics if d.code == "property-invalid"]
    assert finding.fix == "did you mean 'publish'?" and finding.file == "agent.scenarios.toml"
    assert (finding.span.line, finding.span.column) == (3, 11)  # type: ignore[union-attr]


def test_ten_properties_are_answered_over_one_exploration(monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.analysis import core

    calls = []
    real = core.explore_runs
    monkeypatch.setattr(core, "explore_runs", lambda *a, **k: calls.append(1) or real(*a, **k))
    ten = "".join(
        f'[[property]]\nname = "p{n}"\nprecedes = {{ first = "review", then = "publish" }}\n' for n in range(10)
    )
    found = verdicts(REVIEWED, ten)
    assert len(found) == 10 and len(calls) == 1


def test_a_blueprint_suppression_on_the_same_line_does_not_hide_a_property() -> None:
    text = EARLY.read_text(encoding="utf-8").splitlines()
    text[2] = "# blueprint: ignore[property-violated]"  # covers line 4, where the first property is written
    item = check_bytes(
        EARLY.name,
        ("\n".join(text) + "\n").encode(),
        Settings(),
        properties=("agent.scenarios.toml", EARLY_PROPERTIES.encode()),
    )
    codes = [(d.code, d.span.line) for d in item.result.diagnostics if d.span is not None]  # type: ignore[union-attr]
    assert ("property-violated", 4) in codes and ("unused-suppression", 3) in codes


# --- blueprint check --------------------------------------------------------------------------------


def test_check_reads_the_scenario_file_beside_the_blueprint(tmp_path: Path) -> None:
    folder = project(tmp_path, EARLY, EARLY_PROPERTIES)
    result = invoke("check", "agent.leviath", cwd=folder)
    assert result.exit_code == 1
    assert "agent.scenarios.toml:4:8: error[property-violated] property 'review before publish'" in result.output
    assert "   = related: 1. 'draft' (visit 1):" in result.output
    assert "properties: 0 of 4 hold on every run; 4 violated" in result.output
    assert check_file(folder / "agent.leviath").properties[0].status == "violated"


def test_check_json_lists_every_verdict_and_the_runs(tmp_path: Path) -> None:
    folder = project(tmp_path, EARLY, EARLY_PROPERTIES + '\n[[property]]\nname = "fine"\nreaches = "publish"\n')
    result = invoke("check", "--format", "json", "agent.leviath", cwd=folder)
    document = json.loads(result.output)
    jsonschema.validate(document, REPORT_SCHEMA)
    analysis = document["files"][0]["analysis"]
    assert [p["status"] for p in analysis["properties"]] == ["violated"] * 4 + ["holds"]
    runs = [t for t in analysis["traces"] if t["code"] == "property-violated"]
    assert len(runs) == 4 and runs[0]["outcome"] == "enters" and all(t["verified"] for t in runs)


def test_emitted_scenarios_fail_while_the_runs_are_possible(tmp_path: Path) -> None:
    folder = project(tmp_path, EARLY, EARLY_PROPERTIES)
    invoke("check", "agent.leviath", "--emit-scenarios", "out", cwd=folder)
    emitted = (folder / "out" / "agent.scenarios.toml").read_text(encoding="utf-8")
    assert emitted.count("[[scenario]]") == 4 and "check: property 'stays cheap'" in emitted
    result = invoke("test", "out/agent.scenarios.toml", cwd=folder)
    assert result.exit_code == 1 and "Ran 4 scenarios in 1 file: 0 passed, 4 failed" in result.output


# --- blueprint test ---------------------------------------------------------------------------------


def test_blueprint_test_runs_each_property_as_a_test(tmp_path: Path) -> None:
    mixed = REVIEWED_PROPERTIES + '\n[[property]]\nname = "never drafts twice"\nat_most = { visits = { draft = 1 } }\n'
    folder = project(tmp_path, REVIEWED, mixed)
    text = invoke("test", "-v", cwd=folder).output
    assert "PASS agent.scenarios.toml::review before publish" in text
    assert "FAIL agent.scenarios.toml::never drafts twice" in text
    assert "error[property-violated] property 'never drafts twice': a run can enter 'draft' 2 times" in text
    assert (
        "the run that breaks it:" in text and "Ran 0 scenarios and 5 properties in 1 file: 4 passed, 1 failed" in text
    )
    document = json.loads(invoke("test", "--format", "json", cwd=folder).output)
    entries = document["files"][0]["scenarios"]
    assert {e["kind"] for e in entries} == {"property"} and [e["passed"] for e in entries][-1] is False
    assert entries[-1]["counterexample"][0].startswith("1. 'draft' (visit 1)")
    junit = invoke("test", "--format", "junit", cwd=folder).output
    assert junit.count("<testcase") == 5 and junit.count("<failure") == 1
    selected = invoke("test", "-k", "twice", cwd=folder).output
    assert "Ran 0 scenarios and 1 property in 1 file: 0 passed, 1 failed" in selected


def test_vacuous_unproven_and_invalid_properties_fail_as_tests(tmp_path: Path) -> None:
    properties = (
        '[[property]]\nname = "v"\nprecedes = { first = "draft", then = "nowhere" }\n'
        '[[property]]\nname = "u"\nat_most = { tokens = 10 }\n'
    )
    folder = project(tmp_path, REVIEWED, properties)
    text = invoke("test", "-v", cwd=folder).output
    assert "FAIL agent.scenarios.toml::v" in text and "error[property-invalid]" in text  # no stage 'nowhere'
    assert (
        "FAIL agent.scenarios.toml::u" in text
        and "cannot be proven: tokens: no context window is known for anthropic/claude-sonnet-4-6" in text
    )
    vacuous = CASES / "property-vacuous" / "stale-names.leviath"
    folder = project(tmp_path, vacuous, (vacuous.with_name("stale-names.scenarios.toml")).read_text(encoding="utf-8"))
    text = invoke("test", cwd=folder).output
    assert "error[property-vacuous] property 'publish before archive' holds only vacuously" in text


def test_the_pytest_plugin_collects_properties(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    project(tmp_path / "agents", EARLY, EARLY_PROPERTIES.split('[[property]]\nname = "no deploy')[0])
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    done = run_pytest(tmp_path, "-rA", "agents")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout and "agents/agent.scenarios.toml::review before publish" in done.stdout
    assert "error[property-violated]" in done.stdout


def test_every_format_puts_a_property_in_the_scenario_file(tmp_path: Path) -> None:
    folder = project(tmp_path, EARLY, EARLY_PROPERTIES)
    document = json.loads(invoke("check", "--format", "json", "agent.leviath", cwd=folder).output)
    jsonschema.validate(document, REPORT_SCHEMA)
    findings = document["files"][0]["diagnostics"]
    assert {f.get("file") for f in findings if f["code"] == "property-violated"} == {"agent.scenarios.toml"}
    assert all("file" not in f for f in findings if f["code"] != "property-violated")
    sarif = json.loads(invoke("check", "--format", "sarif", "agent.leviath", cwd=folder).output)
    result = next(r for r in sarif["runs"][0]["results"] if r["ruleId"] == "property-violated")
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "agent.scenarios.toml"
    assert result["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "agent.leviath"
    github = invoke("check", "--format", "github", "agent.leviath", cwd=folder).output
    assert "::error file=agent.scenarios.toml,line=4," in github


def test_tokens_and_dollars_are_compared_with_the_worst_case_when_it_is_known() -> None:
    from types import SimpleNamespace

    from compiler import load
    from compiler.analysis import analyze
    from compiler.analysis.property_check import evaluate

    analysis = analyze(load(REVIEWED))
    file = read_properties(
        "a.scenarios.toml",
        b'[[property]]\nname = "t"\nat_most = { tokens = 1000 }\n'
        b'[[property]]\nname = "c"\nat_most = { cost_usd = 2.5 }\n'
        b'[[property]]\nname = "both"\nat_most = { tokens = 10000000, cost_usd = 100 }\n',
    )
    cost = SimpleNamespace(tokens=250_000, cost_usd=None, why="", cost_why="no price for anthropic/claude-sonnet-4-6")
    found = {v.name: (v.status, v.message) for v in evaluate(analysis, file, lambda: cost)}
    assert found["t"] == (
        "violated",
        "property 't': a run can spend up to 250,000 tokens (its worst case), more than 1,000",
    )
    assert found["c"] == (
        "unproven",
        "property 'c' cannot be proven: cost_usd: no price for anthropic/claude-sonnet-4-6",
    )
    assert found["both"][0] == "unproven"
    cost.cost_usd = 1.25
    assert {v.name: v.status for v in evaluate(analysis, file, lambda: cost)} == {
        "t": "violated",
        "c": "holds",
        "both": "holds",
    }
