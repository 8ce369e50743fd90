"""Golden cases: `tests/cases/<code>/<case>.leviath` beside `<case>.out`, the exact text report.

A case whose name starts with `ok-` is a near miss: its rule must stay silent. Any other case
must show its folder's code. Run with `UPDATE_GOLDEN=1` to rewrite the `.out` files after an
intended change, then read the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compiler.pipeline import validate_bytes
from compiler.render.text import render_report

CASES = Path(__file__).parent / "cases"
CASE_FILES = sorted(CASES.glob("*/*.leviath"))


def render_case(path: Path) -> tuple[str, list[str]]:
    display = path.relative_to(CASES).as_posix()
    result = validate_bytes(display, path.read_bytes())
    return render_report([(result.diagnostics, result.source)], color=False), [d.code for d in result.diagnostics]


@pytest.mark.parametrize("case", CASE_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden(case: Path) -> None:
    output, codes = render_case(case)
    expected_file = case.with_suffix(".out")
    if os.environ.get("UPDATE_GOLDEN"):
        expected_file.write_text(output, encoding="utf-8")
    code = case.parent.name
    if case.stem.startswith("ok-"):
        assert code not in codes, f"near-miss case {case.name} must not report {code}"
    else:
        assert code in codes, f"case {case.name} must report {code}, got {codes}"
    assert expected_file.exists(), f"missing {expected_file.name}; run with UPDATE_GOLDEN=1 and review it"
    assert output == expected_file.read_text(encoding="utf-8")
