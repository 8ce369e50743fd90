"""The check of the `analysis` family: every run explored (`analyze_cached`), each finding
reported as a diagnostic with its trace as related locations. The exploration is imported
when the check first runs, so that loading the registry (every `validate`) does not load it.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..diagnostics import Diagnostic, Related
from ..rulebook.registry import ANALYSIS
from ..rules.context import RuleContext
from .property_rules import PROPERTY_RULES
from .property_spec import declared_properties
from .rules import (
    ANALYSIS_INCOMPLETE,
    EDGE_NEVER_TAKEN,
    OUTPUT_CAN_BE_SKIPPED,
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


@ANALYSIS.check(*PROPERTY_RULES)
def check_properties(ctx: RuleContext) -> Iterator[Diagnostic]:
    """The properties declared in the blueprint's scenario file, over the same exploration."""
    request = declared_properties.get()
    if request is None or not (request.file.properties or request.file.problems):
        return
    from .core import analyze_cached
    from .findings import trace_path
    from .property_check import evaluate

    analysis = analyze_cached(ctx.blueprint, ctx.settings.default_max_iterations)
    request.verdicts = evaluate(analysis, request.file)
    rules = {rule.code: rule for rule in PROPERTY_RULES}
    for verdict in request.verdicts:
        if verdict.code is None:
            continue
        steps = verdict.trace.steps if verdict.trace is not None else ()
        related = tuple(
            Related(f"{number}. {step.describe()}", trace_path(step)) for number, step in enumerate(steps, 1)
        )
        rule = rules[verdict.code]
        yield rule.diagnostic(
            verdict.message,
            file=request.file.path,
            path=verdict.path,
            span=verdict.span,
            fix=verdict.fix if verdict.fix is not None else rule.fix,
            related=related,
        )
