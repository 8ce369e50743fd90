"""Reporters: a validation run's results → the text a user or a machine reads.

A reporter is a function `(results, options) -> str`, looked up by name in `REPORTERS`, so
a new output format is one new module and one new entry here. Its module is imported only
when the format is used. Reporters never print, never exit and never decide the exit status.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

if TYPE_CHECKING:
    from ..pipeline import FileResult


@dataclass(frozen=True)
class ReportOptions:
    #: ANSI colours (human formats only).
    color: bool = False
    #: Add a count per code (human formats only).
    statistics: bool = False
    #: Only the summary line (human formats only).
    quiet: bool = False


Reporter = Callable[["Sequence[FileResult]", ReportOptions], str]


@dataclass(frozen=True)
class ReporterSpec:
    #: `module:function` of the reporter.
    target: str
    #: One line for `--help` and the docs.
    summary: str
    #: Meant for people: colour, progress, `--statistics` and `--quiet` apply.
    human: bool = False


REPORTERS: dict[str, ReporterSpec] = {
    "text": ReporterSpec(
        "compiler.render.text:report", "one block per finding with the source line, then a summary", human=True
    ),
    "json": ReporterSpec("compiler.render.json:report", "one JSON document (schemas/report.schema.json)"),
    "sarif": ReporterSpec("compiler.render.sarif:report", "SARIF 2.1.0, for GitHub code scanning and SARIF viewers"),
    "github": ReporterSpec("compiler.render.github:report", "GitHub Actions annotations, one line per finding"),
}


def get_reporter(name: str) -> Reporter:
    """The reporter registered as `name` (KeyError when there is none)."""
    module_name, _, function = REPORTERS[name].target.partition(":")
    return getattr(importlib.import_module(module_name), function)


__all__ = ["REPORTERS", "ReportOptions", "Reporter", "ReporterSpec", "get_reporter"]
