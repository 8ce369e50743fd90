"""`benchmarks/run.py --quick` works end to end. It times nothing that is asserted: the
benchmark is never a timed test; this only keeps the script (and its generators) working."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT


def test_quick_run_writes_a_complete_report(tmp_path: Path) -> None:
    out = tmp_path / "quick.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["header"]["quick"] is True and report["header"]["python"]
    assert report["header"]["corpus"].startswith(("real: ", "generated ")) and "corpus: " in done.stdout
    rows = {row["name"]: row for row in report["rows"]}
    expected = [
        "corpus:",
        "process: blueprint validate FILE",
        "scaling: time per stage",
        "scaling: one",
        "check:",
        "check shapes: nested",
        "jobs: blueprint check DIR",
        "validate memory, json",
        "check properties:",
        "runner: step",
        "runner: RunState",
        "lsp:",
        "host: reference host overhead per step, MemoryStore",
        "host: reference host overhead per step, SqliteStore",
        "temporal:",
    ]
    for prefix in expected:
        assert any(name.startswith(prefix) for name in rows), f"no row {prefix!r}"
    for row in rows.values():
        # A growth (MB) may be zero or negative; every other measure is a positive time or ratio.
        assert math.isfinite(row["value"]) and (row["unit"] == "MB" or row["value"] > 0), row
        assert row["target"] and row["met"] in (True, False, None)
        assert row["name"] in done.stdout
    corpus = next(row for name, row in rows.items() if name.startswith("corpus:"))
    # Every input is a clean blueprint: the benchmark times the path a valid file takes.
    assert corpus["details"]["files_with_errors"] == []


def test_every_shape_checks_clean_and_is_analysed_completely() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import generate

    from compiler.check import check_bytes
    from compiler.config import Settings

    for shape in generate.SHAPES:
        item = check_bytes(f"{shape}.leviath", generate.shaped(shape, 40).encode(), Settings())
        serious = [d.code for d in item.result.diagnostics if d.severity in ("error", "warning")]
        assert serious == [], (shape, serious)
        assert item.analysis is not None and item.analysis.complete and not item.analysis.findings, shape
        assert len(item.analysis.ceilings.stages) == 40, shape


def test_the_real_corpus_is_found_beside_any_folder_above_the_checkout(tmp_path: Path, monkeypatch) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import corpus

    monkeypatch.chdir(tmp_path)
    checkout = tmp_path / "deep" / "worktrees" / "checkout"
    checkout.mkdir(parents=True)
    assert not corpus.locate(checkout, {}).real
    assert "generated" in corpus.locate(checkout, {}).describe()
    real = tmp_path / "deep" / "shared" / "corpus" / "leviath" / "coder"
    real.mkdir(parents=True)
    (real / "agent.leviath").write_text("[agent]\n", encoding="utf-8")
    found = corpus.locate(checkout, {})
    assert found.real and found.blueprint("coder") == real / "agent.leviath"
    assert found.describe().startswith("real: 1 blueprint in ")
    elsewhere = tmp_path / "mine"
    (elsewhere / "x").mkdir(parents=True)
    (elsewhere / "x" / "a.leviath").write_text("[agent]\n", encoding="utf-8")
    assert corpus.locate(checkout, {"BLUEPRINT_CORPUS": str(elsewhere)}).files == (elsewhere / "x" / "a.leviath",)
    with pytest.raises(SystemExit, match="no such folder"):
        corpus.locate(checkout, {"BLUEPRINT_CORPUS": str(tmp_path / "missing")})
