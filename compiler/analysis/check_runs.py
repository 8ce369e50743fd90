"""The check of the `analysis` family: every run explored (`analyze_cached`), each finding
reported as a diagnostic with its trace as related locations. The exploration is imported
when the check first runs, so that loading the registry (every `validate`) does not load it.
"""

from __future__ import annotations

from collections.abc import Iterator

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
    from .core import analyze_cached
    from .findings import trace_path

    analysis = analyze_cached(ctx.blueprint, ctx.settings.default_max_iterations)
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
