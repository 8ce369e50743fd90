"""`compiler.check_file` / `check_bytes` / `check_text`: the library under `blueprint check`, and
how a crash on one file stays that file's (in the library and in the shared CLI file loop)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

import compiler
import compiler.analysis.core
import compiler.pipeline
from tests.conftest import invoke_cli

CASES = Path(__file__).parent / "check_cases"
STRAND = CASES / "run-can-strand" / "review-loop.leviath"
CLEAN = CASES / "run-can-strand" / "ok-dead-end-edge.leviath"


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "BLUEPRINT_DEBUG"):
        monkeypatch.delenv(name, raising=False)


def codes(result: compiler.CheckResult) -> list[str]:
    return [d.code for d in result.result.diagnostics]


def test_check_file_finds_what_blueprint_check_reports() -> None:
    checked = compiler.check_file(STRAND)
    report = json.loads(invoke_cli("check", "--format", "json", STRAND).output)
    assert codes(checked) == [d["code"] for d in report["files"][0]["diagnostics"]]
    assert "run-can-strand" in codes(checked)
    assert checked.analysis is not None and checked.analysis.complete


def test_check_text_and_bytes_agree_with_check_file() -> None:
    text = STRAND.read_text(encoding="utf-8")
    assert codes(compiler.check_text(text, str(STRAND))) == codes(compiler.check_file(STRAND))
    assert codes(compiler.check_bytes(str(STRAND), text.encode())) == codes(compiler.check_file(STRAND))
    with pytest.raises(TypeError, match="check_bytes"):
        compiler.check_text(text.encode())  # type: ignore[arg-type]


def test_a_file_with_errors_is_not_analysed() -> None:
    checked = compiler.check_text('[agent]\nname = "b"\n[stages.a.transitions.nowhere]\n')
    assert checked.analysis is None
    assert not checked.result.ok and not any(d.code.startswith("run-") for d in checked.result.diagnostics)


def test_analysis_supersedes_the_lint_it_answers() -> None:
    validated = [d.code for d in compiler.validate_file(STRAND).diagnostics]
    assert "dead-end-possible" in validated
    assert "dead-end-possible" not in codes(compiler.check_file(STRAND))


def test_check_explores_once_with_the_limit_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    # validate, explore, de-duplicate: the exploration is check's own step, run once with the
    # limit as an argument (the analysis family's registered check is not what runs it).
    import compiler.analysis.check_runs

    explore = compiler.analysis.core.analyze
    limits: list[object] = []

    def analyze(blueprint, **options):  # type: ignore[no-untyped-def]
        limits.append(options.get("limit"))
        return explore(blueprint, **options)

    def registered(ctx):  # type: ignore[no-untyped-def]
        raise AssertionError("check ran the registered analysis check")

    monkeypatch.setattr(compiler.analysis.core, "analyze", analyze)
    monkeypatch.setattr(compiler.analysis.check_runs, "check_runs", registered)
    registry = compiler.pipeline.REGISTRY
    checks = [replace(c, fn=registered) if c.family == "analysis" else c for c in registry.checks]
    monkeypatch.setattr(registry, "checks", checks)
    checked = compiler.check_file(STRAND, max_states=3)
    assert limits == [3]
    assert checked.analysis is not None and not checked.analysis.complete
    assert "analysis-incomplete" in codes(checked)
    assert not hasattr(compiler.analysis.core, "state_limit")


def _explore_crashes_on(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    explore = compiler.analysis.core.analyze

    def analyze(blueprint, **options):  # type: ignore[no-untyped-def]
        if blueprint.name == name:
            raise RuntimeError("exploration bug")
        return explore(blueprint, **options)

    monkeypatch.setattr(compiler.analysis.core, "analyze", analyze)


def test_an_exploration_crash_is_the_files_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    crashing = compiler.check_file(STRAND)
    _explore_crashes_on(monkeypatch, crashing.result.blueprint.name)  # type: ignore[union-attr]
    crashed = compiler.check_file(STRAND)
    assert crashed.analysis is None
    internal = [d for d in crashed.result.diagnostics if d.code == "internal-error"]
    assert len(internal) == 1 and "RuntimeError: exploration bug" in internal[0].message


def _two_files(tmp_path: Path) -> tuple[Path, Path]:
    crashing, clean = tmp_path / "crashing.leviath", tmp_path / "clean.leviath"
    crashing.write_text(STRAND.read_text(encoding="utf-8").replace('name = "review-loop"', 'name = "crashing"'))
    shutil.copy(CLEAN, clean)
    return crashing, clean


def test_check_goes_on_after_a_file_whose_exploration_crashes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _two_files(tmp_path)
    _explore_crashes_on(monkeypatch, "crashing")
    report = json.loads(invoke_cli("check", "--format", "json", tmp_path).output)
    by_path = {Path(entry["path"]).name: entry for entry in report["files"]}
    found = [d["code"] for d in by_path["crashing.leviath"]["diagnostics"]]
    assert "internal-error" in found and "run-can-strand" not in found
    assert by_path["clean.leviath"]["analysis"] is not None
    result = invoke_cli("check", tmp_path)
    assert result.exit_code == 1  # an internal-error is an error, as when a `validate` check crashes
    assert "every run ends within" in result.output  # the other file was still explored


@pytest.mark.parametrize("command", ["validate", "check"])
def test_a_crash_outside_the_checks_skips_only_that_file(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    crashing, _ = _two_files(tmp_path)
    inner = compiler.pipeline._validate

    def validate(path: str, *args):  # type: ignore[no-untyped-def]
        if path.endswith("crashing.leviath"):
            raise RuntimeError("pipeline bug")
        return inner(path, *args)

    monkeypatch.setattr(compiler.pipeline, "_validate", validate)
    result = invoke_cli(command, tmp_path)
    assert result.exit_code == 2, result.output
    assert f"internal error while checking '{crashing}': RuntimeError: pipeline bug" in result.output
    assert "Checked 1 file" in result.output
