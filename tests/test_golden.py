"""Golden cases: `tests/cases/<code>/<case>.leviath` beside `<case>.out`, the exact text report.

A case whose name starts with `ok-` is a near miss: its rule must stay silent. Any other case
must show its folder's code. Run with `UPDATE_GOLDEN=1` to rewrite the `.out` files after an
intended change, then read the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.config import Settings
from compiler.pipeline import validate_bytes
from compiler.render.text import render_report
from tests.helpers import ROOT, assert_golden, golden_id, installation

CASES = Path(__file__).parent / "cases"
CASE_FILES = sorted(CASES.glob("*/*.leviath"))


def render_case(path: Path) -> tuple[str, list[str]]:
    """The report of one case, checked as the command line checks a file (what lies beside it
    counts: custom-region scripts); paths of installation files are relative to the checkout."""
    display = path.relative_to(CASES).as_posix()
    settings = Settings(**installation(path.parent)).for_file(path)
    result = validate_bytes(display, path.read_bytes(), settings)
    return render_report([(result.diagnostics, result.source)], color=False), [d.code for d in result.diagnostics]


@pytest.mark.parametrize("case", CASE_FILES, ids=golden_id)
def test_golden(case: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # installation files are named relative to the checkout
    assert_golden(case, *render_case(case))
