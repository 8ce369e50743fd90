"""Scenario tests for blueprints: scripted runs on the stage-runner, with expectations.

A scenario file (`<name>.scenarios.toml` beside `<name>.leviath`) scripts what the model and
the host do, stage visit by stage visit, and states what the run must show: its status, its
path, the holds that fired, the notes written, the budgets left. `blueprint test` plays each
one on the real runner (`compiler.runtime`) and reports every failing expectation at its line
and column. See docs/testing.md.

    from compiler.scenarios import run_file

    outcome = run_file("review.scenarios.toml", data)     # data: the file's bytes
    [(r.scenario.name, r.passed) for r in outcome.results]

The package never prints or exits; it reads the blueprint and any NDJSON script a scenario
names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .loader import load_scenarios
    from .runner import FileOutcome, ScenarioResult, run_file, run_scenario

_EXPORTS = {
    "load_scenarios": "loader",
    "FileOutcome": "runner",
    "ScenarioResult": "runner",
    "run_file": "runner",
    "run_scenario": "runner",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
