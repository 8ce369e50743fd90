"""The example blueprints in blueprints/ are all valid: no error, no warning.

They are what a new user copies first, so a finding in one of them is a bug in the example or
a false positive in a rule; either way it must not ship.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.pipeline import validate_bytes
from tests.helpers import ROOT

EXAMPLES = sorted((ROOT / "blueprints").rglob("*.leviath"))


def test_each_example_shows_its_own_feature_and_has_scenarios() -> None:
    """However many examples the folder holds: each opens with a comment naming the feature it
    shows (no two alike), and each has its scenario file, which has its example."""
    assert EXAMPLES
    headlines = [path.read_text(encoding="utf-8").splitlines()[0] for path in EXAMPLES]
    assert all(line.startswith("# ") for line in headlines), headlines
    assert len(set(headlines)) == len(EXAMPLES), headlines
    scenarios = sorted((ROOT / "blueprints").rglob("*.scenarios.toml"))
    assert [p.with_name(p.name.removesuffix(".scenarios.toml")) for p in scenarios] == [
        p.with_suffix("") for p in EXAMPLES
    ]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_example_has_no_error_or_warning(path: Path) -> None:
    result = validate_bytes(path.relative_to(ROOT).as_posix(), path.read_bytes())
    findings = [
        f"{d.line}:{d.column} {d.severity}[{d.code}] {d.message}" for d in result.diagnostics if d.severity != "note"
    ]
    assert findings == []
    assert result.blueprint is not None


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_example_states_mode_model_and_max_iterations_for_every_stage(path: Path) -> None:
    import tomllib

    stages = tomllib.loads(path.read_text(encoding="utf-8"))["stages"]
    for name, stage in stages.items():
        missing = [key for key in ("mode", "model", "max_iterations") if key not in stage]
        assert not missing, f"stage '{name}' does not set {missing}"
