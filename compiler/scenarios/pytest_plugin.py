"""A pytest plugin: every `*.scenarios.toml` file pytest meets is collected, one test per scenario.

Registered through the `pytest11` entry point, so installing the package is enough:
`pytest blueprints/` runs the scenarios there, and a repository's usual `pytest` run picks up
the scenario files under its test paths. A failure shows the same report as `blueprint test`
(the expectation's line and column, the script beside the run). `-p no:blueprint_scenarios`
turns the plugin off.

This module is imported by every pytest run in an environment where the package is
installed, so it imports nothing of the compiler until a scenario file is collected.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pytest

from ..display import visible

if TYPE_CHECKING:
    from .runner import FileOutcome, ScenarioResult

SUFFIX = ".scenarios.toml"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name.endswith(SUFFIX) and not file_path.name.startswith("."):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFailed(Exception):
    """A scenario failed; the message is the report `blueprint test` prints for it."""


class ScenarioFile(pytest.File):
    def collect(self):
        from ..parse.source import read_blueprint
        from .runner import run_file

        display = self._display()
        outcome = run_file(display, read_blueprint(self.path))  # bounded; too large is reported
        for result in outcome.results:
            # The name is shown in pytest's report and its terminal title: input is shown, never obeyed.
            name = visible(result.scenario.name)
            yield ScenarioItem.from_parent(self, name=name, outcome=outcome, result=result)
        if outcome.problems:
            yield ScenarioProblems.from_parent(self, name="(scenario file)", outcome=outcome)

    def _display(self) -> str:
        """The path relative to the working directory when it is below it (the blueprint and
        any events file are found from it), else absolute."""
        relative = os.path.relpath(self.path)
        return str(self.path) if relative.startswith("..") else relative


class _Reported(pytest.Item):
    """An item whose failure is shown as `blueprint test` shows it, without a traceback."""

    #: No fixtures; an empty mapping, as function items have, for plugins that look there
    #: (pytest-lsp's `pytest_runtest_call` wrapper fails on an item without it).
    funcargs: ClassVar[dict[str, Any]] = {}

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))


class ScenarioItem(_Reported):
    def __init__(self, *, outcome: "FileOutcome", result: "ScenarioResult", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.outcome = outcome
        self.result = result

    def runtest(self) -> None:
        if not self.result.passed:
            from .report import failure_text

            raise ScenarioFailed(failure_text(self.outcome, self.result))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        span = self.result.scenario.where.span
        return self.path, (span.line - 1 if span else None), f"scenario: {self.name}"


class ScenarioProblems(_Reported):
    """The problems that kept a file's scenarios from running (format errors, a broken blueprint)."""

    def __init__(self, *, outcome: "FileOutcome", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.outcome = outcome

    def runtest(self) -> None:
        from .report import problems_text

        raise ScenarioFailed("\n\n".join(problems_text(self.outcome)))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, "scenario file problems"
