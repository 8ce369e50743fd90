"""The analysis family's findings as diagnostics, each with its trace as related locations.

`check_bytes` explores a file once and reports through `run_findings`; `check_runs` is the
family's registered check (what declares its rules, and what a caller asking
`validate_bytes` for the `analysis` family gets, at the default state limit). The exploration
is imported when it first runs, so that loading the registry (every `validate`) does not load it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic
from ..rulebook.registry import ANALYSIS
from ..rules.context import RuleContext
from .rules import (
    ANALYSIS_INCOMPLETE,
    EDGE_NEVER_TAKEN,
    OUTPUT_CAN_BE_SKIPPED,
    OUTPUT_REGION_EMPTY,
    REGION_READ_BEFORE_WRITTEN,
    RUN_CAN_LOOP_FOREVER,
    RUN_CAN_STRAND,
    STAGE_NEVER_ENTERED,
)

if TYPE_CHECKING:
    from .core import Analysis


@ANALYSIS.check(
    RUN_CAN_STRAND,
    RUN_CAN_LOOP_FOREVER,
    STAGE_NEVER_ENTERED,
    EDGE_NEVER_TAKEN,
    OUTPUT_CAN_BE_SKIPPED,
    REGION_READ_BEFORE_WRITTEN,
    OUTPUT_REGION_EMPTY,
    ANALYSIS_INCOMPLETE,
)
def check_runs(ctx: RuleContext) -> Iterator[Diagnostic]:
    from .core import analyze

    yield from run_findings(ctx, analyze(ctx.blueprint, default_max_iterations=ctx.settings.default_max_iterations))


def run_findings(ctx: RuleContext, analysis: "Analysis") -> Iterator[Diagnostic]:
    """Each finding of `analysis` (an exploration of `ctx.blueprint`) as a diagnostic."""
    from .findings import trace_path

    for finding in analysis.findings:
        related = list(finding.related)
        if finding.trace is not None:
            related = [
                (f"{number}. {step.describe()}", trace_path(step)) for number, step in enumerate(finding.trace.steps, 1)
            ] + related
        yield ctx.report(
            finding.rule,
            finding.message,
            finding.path,
            stage=finding.stage,
            fix=finding.fix,
            related=related,
        )
