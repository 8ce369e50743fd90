"""`benchmarks/run.py --quick` works end to end. It times nothing that is asserted: the
benchmark is never a timed test; this only keeps the script (and its generators) working."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

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
    rows = {row["name"]: row for row in report["rows"]}
    expected = [
        "corpus:",
        "process: blueprint validate FILE",
        "scaling: time per stage",
        "scaling: one",
        "check:",
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
