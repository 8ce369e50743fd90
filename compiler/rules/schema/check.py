"""The check of the `schema` family: the raw document against the blueprint schema, one
diagnostic per finding of `findings.py`. jsonschema and the schema load when the check first
runs, so that loading the registry does not load them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from ...diagnostics import Diagnostic, Span
from ...rulebook.registry import DEFAULT, SCHEMA
from ..context import RuleContext
from .codes import (
    EMPTY_ROUTING_OVERRIDE,
    INVALID_TYPE,
    INVALID_VALUE,
    MISSING_AGENT,
    MISSING_KEY,
    OUT_OF_RANGE,
    REJECTED_KEY,
    UNKNOWN_KEY,
)


@SCHEMA.check(
    MISSING_AGENT,
    INVALID_TYPE,
    INVALID_VALUE,
    OUT_OF_RANGE,
    UNKNOWN_KEY,
    REJECTED_KEY,
    EMPTY_ROUTING_OVERRIDE,
    MISSING_KEY,
)
def schema_check(ctx: RuleContext) -> Iterator[Diagnostic]:
    """Validate the raw document against the blueprint schema."""
    from .findings import schema_findings

    for finding in schema_findings(ctx.document):
        fix = DEFAULT if finding.fix is None else finding.fix
        diagnostic = ctx.report(finding.rule, finding.message, finding.path, anchor=finding.anchor, fix=fix)
        if diagnostic.span is None:  # a finding about the whole file: point at its start
            diagnostic = replace(diagnostic, span=Span(1, 1, 1, 2))
        yield diagnostic
