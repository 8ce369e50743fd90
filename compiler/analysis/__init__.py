"""Exhaustive run analysis: every run a blueprint allows, explored with the stage-runner.

    from compiler.analysis import analyze

    analysis = analyze(blueprint)          # blueprint: compiler.ir.model.Blueprint
    analysis.findings                      # strands, endless loops, dead stages and edges …
    analysis.findings[0].trace.events      # … each with a run that shows it, as runner events
    analysis.ceilings                      # the most visits and inferences any run makes
    analysis.graph                         # the run-state graph (networkx)

`worst_case(compiler.check_file(path))` gives the most tokens and dollars one run can spend
(a `RunCost`). Importing this package is cheap: the exploration loads on the first call, and networkx only
when `Analysis.graph` is read. See docs/check.md for what is explored and what is not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .ceilings import Ceilings, StageCeiling
    from .core import Analysis, analyze
    from .findings import Finding
    from .tokens import RunCost, StageTokens, worst_case
    from .traces import Trace, TraceStep

_EXPORTS = {
    "Analysis": "core",
    "analyze": "core",
    "Ceilings": "ceilings",
    "StageCeiling": "ceilings",
    "Finding": "findings",
    "RunCost": "tokens",
    "StageTokens": "tokens",
    "worst_case": "tokens",
    "Trace": "traces",
    "TraceStep": "traces",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
