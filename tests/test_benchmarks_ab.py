"""`benchmarks/ab.py` works end to end: it loads a revision's package beside the working tree's
and finds both alike when they are the same code. Nothing timed is asserted."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT


def test_the_same_revision_twice_is_the_same_everywhere() -> None:
    if subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "ab.py"),
            "HEAD",
            "--after",
            "HEAD",
            "--sizes",
            "10",
            "--rounds",
            "1",
            "--only",
            "svg",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("to_svg")]
    assert lines and all(line.endswith("same") for line in lines), done.stdout
