"""`blueprint check`: refusal on errors, exit statuses, every format, traces that `blueprint run` replays."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import Result

from tests.conftest import invoke_cli
from tests.helpers import CORPUS, ROOT, SARIF_SCHEMA, requires_shared

CASES = Path(__file__).parent / "check_cases"
STRAND = CASES / "run-can-strand" / "review-loop.leviath"
CLEAN = CASES / "run-can-strand" / "ok-dead-end-edge.leviath"
BROKEN = '[agent]\nname = "b"\n[stages.a.transitions.nowhere]\n'


def check(*args: str) -> Result:
    return invoke_cli("check", *args)


def test_a_clean_blueprint_passes_and_prints_its_ceiling():
    result = check(CLEAN)
    assert result.exit_code == 0, result.output
    assert "every run ends within 6 stage visits and 31 inferences" in result.output
    assert "warning[" not in result.output


def test_a_run_that_ends_with_nothing_fails_and_a_loop_only_when_denied():
    stranded = check(STRAND)
    assert stranded.exit_code == 1 and "error[run-can-strand]" in stranded.output
    loop = CASES / "run-can-loop-forever" / "two-stage.leviath"
    assert check(loop).exit_code == 0
    denied = check("--deny-warnings", loop)
    assert denied.exit_code == 1 and "warning[run-can-loop-forever]" in denied.output


def test_a_blueprint_with_errors_is_refused(tmp_path):
    path = tmp_path / "broken.leviath"
    path.write_text(BROKEN, encoding="utf-8")
    result = check(path)
    assert result.exit_code == 1
    assert "error[unknown-stage]" in result.output
    assert "not analysed: it has errors" in result.output and "ceiling" not in result.output


def test_usage_and_io_errors_exit_2(tmp_path):
    assert check(tmp_path / "missing.leviath").exit_code == 2
    assert check("--max-states", "0", CLEAN).exit_code == 2
    assert check("--format", "yaml", CLEAN).exit_code == 2


def test_the_heuristic_lint_is_replaced_by_the_exact_answer(tmp_path):
    source = CASES / "run-can-strand" / "ok-budgets-never-meet.leviath"
    validated = invoke_cli("validate", source)
    assert "dead-end-possible" in validated.output
    assert "dead-end-possible" not in check(source).output


def test_the_heuristic_lint_stays_when_its_replacement_is_ignored():
    source = CASES / "run-can-strand" / "ok-budgets-never-meet.leviath"
    assert "dead-end-possible" in check("--ignore", "run-can-strand", source).output


def test_json_extends_the_report_schema_and_its_trace_replays_with_blueprint_run(tmp_path):
    import jsonschema

    result = check("--format", "json", STRAND)
    assert result.exit_code == 1, result.output
    document = json.loads(result.output)
    jsonschema.validate(document, json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8")))
    analysis = document["files"][0]["analysis"]
    assert analysis["complete"] and analysis["ceilings"]["visits"] == 5
    (trace,) = analysis["traces"]
    assert trace["code"] == "run-can-strand" and trace["verified"] and trace["outcome"] == "fail:dead_end"
    assert sum(step["events"] for step in trace["steps"]) == len(trace["events"])
    events = tmp_path / "trace.ndjson"
    events.write_text("".join(json.dumps(e) + "\n" for e in trace["events"]), encoding="utf-8")
    replayed = invoke_cli("run", STRAND, "--events", events)
    assert replayed.exit_code == 1 and "dead-ended" in replayed.output


def test_json_marks_a_refused_file(tmp_path):
    path = tmp_path / "broken.leviath"
    path.write_text(BROKEN, encoding="utf-8")
    document = json.loads(check("--format", "json", path).output)
    assert document["files"][0]["analysis"] is None


def test_sarif_carries_the_trace_as_related_locations():
    result = check("--format", "sarif", STRAND)
    log = json.loads(result.output)
    (finding,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "run-can-strand"]
    steps = [r["message"]["text"] for r in finding["relatedLocations"]]
    assert steps[0].startswith("1. 'draft' (visit 1)") and steps[-1].startswith("5. 'draft' (visit 3)")
    if SARIF_SCHEMA.is_file():
        import jsonschema

        schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
        assert not list(jsonschema.validators.validator_for(schema)(schema).iter_errors(log))


def test_github_annotations():
    result = check("--format", "github", STRAND)
    assert result.output.startswith("::error ") and "run-can-strand" in result.output


def test_a_state_limit_makes_the_analysis_say_it_is_incomplete():
    result = check("--max-states", "2", STRAND)
    assert (
        "note[analysis-incomplete]" in result.output
        and "analysis incomplete: it stopped at its limit of 2" in result.output
    )


def test_the_command_is_listed():
    assert "check" in invoke_cli("--help").output


def test_directories_are_checked_file_by_file(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "agent.leviath").write_bytes(CLEAN.read_bytes())
    result = check(tmp_path)
    assert result.exit_code == 0 and result.output.count("every run explored") == 2


@requires_shared
def test_every_corpus_blueprint_is_analysed():
    result = check(CORPUS)
    # Five of Leviath's own blueprints have a fan-out stage a run can leave without splitting
    # (its model never calls fan_out), and the run then ends without its output: an error.
    assert result.exit_code == 1, result.output
    assert result.output.count("error[output-can-be-skipped]") == 5
    assert "error[" not in result.output.replace("error[output-can-be-skipped]", "")
    assert result.output.count("every run explored") == len(list(CORPUS.glob("*/agent.leviath")))


def test_the_default_iteration_cap_bounds_the_ceiling_and_can_be_set(tmp_path):
    source = tmp_path / "agent.leviath"
    source.write_text(
        '[agent]\nname = "t"\n[stages.work]\nmode = "autonomous"\n'
        'model = { models = [{ provider = "anthropic", model = "m" }] }\n'
        "[stages.work.transitions]\n"
    )
    assert "every run ends within 1 stage visit and 50 inferences" in check(source).output
    assert "and 7 inferences" in check("--default-max-iterations", "7", source).output
    unbounded = check("--default-max-iterations", "0", source).output
    assert "a visit of 'work' can go on for ever (no max_iterations, and default-max-iterations is 0)" in unbounded
    validated = invoke_cli("validate", "--default-max-iterations", "0", source)
    assert "default-max-iterations is 0, so nothing bounds" in validated.output
