"""Golden cases of `blueprint check`: `tests/check_cases/<code>/<case>.leviath` beside `<case>.out`.

The `.out` is the exact text report: the findings (with their traces) and the ceilings. A
case whose name starts with `ok-` is a near miss: its folder's code must stay silent. A case
may start with a comment `# blueprint check --max-states N` to run with that limit, and a folder's
`blueprint.toml` gives its cases their settings (the prices behind the token ceilings). Run with
`UPDATE_GOLDEN=1` to rewrite the `.out` files after an intended change, then read the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.check import check_bytes, scenario_file_beside
from compiler.config import Settings, load_config, settings_for
from compiler.render import ReportOptions
from compiler.render.check_report import text_report
from compiler.render.rule_docs import state_limit_of
from tests.helpers import assert_golden, golden_id

CASES = Path(__file__).parent / "check_cases"
CASE_FILES = sorted(CASES.glob("*/*.leviath"))


def render_case(path: Path) -> tuple[str, list[str]]:
    """The report of one case, with the settings of a `blueprint.toml` in its folder (prices);
    a `<case>.scenarios.toml` beside it declares its properties."""
    data = path.read_bytes()
    limit = state_limit_of(data.decode("utf-8", errors="replace"))
    config = path.parent / "blueprint.toml"
    settings = settings_for(load_config(config)) if config.exists() else Settings()
    shown = path.relative_to(CASES).as_posix()
    beside = scenario_file_beside(str(path))
    properties = (shown.removesuffix(".leviath") + ".scenarios.toml", beside[1]) if beside is not None else None
    item = check_bytes(shown, data, settings, max_states=limit, properties=properties)
    return text_report([item], ReportOptions()), [d.code for d in item.result.diagnostics]


@pytest.mark.parametrize("case", CASE_FILES, ids=golden_id)
def test_check_golden(case: Path) -> None:
    assert_golden(case, *render_case(case))
