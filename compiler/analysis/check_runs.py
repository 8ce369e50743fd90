"""The analysis family's findings as diagnostics, each with its trace as related locations.

`check_bytes` explores a file once and reports through `run_findings`; `check_runs` is the
family's registered check (what declares its rules, and what a caller asking
`validate_bytes` for the `analysis` family gets, at the default state limit). The exploration
is imported when it first runs, so that loading the registry (every `validate`) does not load it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic, Related
from ..rulebook.registry import ANALYSIS
from ..rules.context import RuleContext
from .property_rules import PROPERTY_RULES
from .property_spec import declared_properties
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
    from collections.abc import Callable
    from typing import Any

    from .core import Analysis
    from .property_spec import PropertyRequest


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


@ANALYSIS.check(*PROPERTY_RULES)
def check_properties(ctx: RuleContext) -> Iterator[Diagnostic]:
    """The properties declared in the blueprint's scenario file (`check_bytes` reports them
    through `property_findings`, over its one exploration; this check declares their rules)."""
    request = declared_properties.get()
    if request is None or not (request.file.properties or request.file.problems):
        return
    from .core import analyze

    yield from property_findings(
        request, analyze(ctx.blueprint, default_max_iterations=ctx.settings.default_max_iterations)
    )


def property_findings(
    request: "PropertyRequest", analysis: "Analysis", cost_of: "Callable[[], Any] | None" = None
) -> list[Diagnostic]:
    """Each declared property of `request` that does not hold, as a diagnostic in the scenario
    file with the run that breaks it; the verdicts are kept in `request.verdicts`. `cost_of`
    gives a run's worst case in tokens and dollars (`tokens.RunCost`), for `at_most`."""
    from .findings import trace_path
    from .property_check import evaluate

    if not (request.file.properties or request.file.problems):
        return []
    request.verdicts = evaluate(analysis, request.file, cost_of)
    rules = {rule.code: rule for rule in PROPERTY_RULES}
    out = []
    for verdict in request.verdicts:
        if verdict.code is None:
            continue
        steps = verdict.trace.steps if verdict.trace is not None else ()
        related = tuple(
            Related(f"{number}. {step.describe()}", trace_path(step)) for number, step in enumerate(steps, 1)
        )
        rule = rules[verdict.code]
        out.append(
            rule.diagnostic(
                verdict.message,
                file=request.file.path,
                path=verdict.path,
                span=verdict.span,
                fix=verdict.fix if verdict.fix is not None else rule.fix,
                related=related,
            )
        )
    return out
