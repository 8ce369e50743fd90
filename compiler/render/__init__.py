"""Reporters: a validation run's results → the text a user or a machine reads.

A reporter is a function `(results, options) -> str`, looked up by name in `REPORTERS`, so
a new output format is one new module and one new entry here. Its module is imported only
when the format is used. Reporters never print, never exit and never decide the exit status.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from compiler.records import record

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from ..fix.edits import Fix
    from ..pipeline import FileResult


@record
class ReportOptions:
    #: ANSI colours (human formats only).
    color: bool = False
    #: Add a count per code (human formats only).
    statistics: bool = False
    #: Leave out the findings themselves: the statistics (when asked) and the summary remain
    #: (human formats only).
    quiet: bool = False
    #: The findings `--fix` can fix, with their edits (from `compiler.fix.edits.fixes_for`).
    fixes: "Mapping[Diagnostic, Fix]" = field(default_factory=dict)
    #: The findings only `--unsafe-fixes` fixes (a suggested name written), with their edits
    #: (`compiler.fix.suggestions`); the text formats mark them apart.
    unsafe_fixes: "Mapping[Diagnostic, Fix]" = field(default_factory=dict)
    #: Where rule pages are published, with `{code}` for the rule (`rule-docs-url`).
    rule_docs_url: str | None = None
    #: Show each fixable finding's edit under it, as removed and added lines (text format).
    show_fixes: bool = False

    @property
    def shows_findings(self) -> bool:
        """The findings (and `check`'s ceilings) are printed: not with `quiet`, nor with
        `statistics`, whose table takes their place."""
        return not (self.quiet or self.statistics)

    @property
    def shows_closing(self) -> bool:
        """The closing lines are printed: `statistics` alone prints only its table, as ruff
        does; `quiet` asks for the summary, so with both the table is followed by it."""
        return self.quiet or not self.statistics


Reporter = Callable[["Sequence[FileResult]", ReportOptions], str]


@record
class ReporterSpec:
    #: `module:function` of the reporter.
    target: str
    #: One line for `--help` and the docs.
    summary: str
    #: Meant for people: colour, progress, `--statistics` and `--quiet` apply.
    human: bool = False
    #: Shows which findings are fixable (the CLI works out their edits only when it does).
    shows_fixes: bool = False


REPORTERS: dict[str, ReporterSpec] = {
    "text": ReporterSpec(
        "compiler.render.text:report",
        "one block per finding with the source line, then a summary",
        human=True,
        shows_fixes=True,
    ),
    "concise": ReporterSpec(
        "compiler.render.concise:report",
        "one line per finding, path:line:col: severity: message [code], for editor problem matchers",
        human=True,
        shows_fixes=True,
    ),
    "json": ReporterSpec(
        "compiler.render.json:report", "one JSON document (schemas/report.schema.json)", shows_fixes=True
    ),
    "sarif": ReporterSpec(
        "compiler.render.sarif:report", "SARIF 2.1.0, for GitHub code scanning and SARIF viewers", shows_fixes=True
    ),
    "github": ReporterSpec("compiler.render.github:report", "GitHub Actions annotations, one line per finding"),
}


def get_reporter(name: str) -> Reporter:
    """The reporter registered as `name` (KeyError when there is none)."""
    module_name, _, function = REPORTERS[name].target.partition(":")
    return getattr(importlib.import_module(module_name), function)


__all__ = ["REPORTERS", "ReportOptions", "Reporter", "ReporterSpec", "get_reporter"]
