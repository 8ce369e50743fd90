"""The analysis in a report: the ceilings block of the text output, the `analysis` object of JSON."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ..diagnostics import format_key_path
from ..display import plural, visible

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from .core import Analysis
    from .findings import Finding
    from .property_check import Verdict
    from .tokens import RunCost
    from .traces import Trace

UNBOUNDED = "unbounded"


def _number(value: int | None) -> str:
    return UNBOUNDED if value is None else f"{value:,}"


def ceilings_text(path: str, analysis: "Analysis", tokens: "RunCost | None" = None) -> str:
    """The per-file block: how much was explored, then the ceilings per run and per stage,
    with tokens and dollars where `tokens` knows them (else one line saying why not). Names
    from the blueprint, and the path, are made visible before they are laid out."""
    path = visible(path)
    runs = f"{analysis.states:,} run state{'s' if analysis.states != 1 else ''}"
    visits = analysis.visits_explored
    head = f"{path}: every run explored ({runs}; {visits:,} kind{'s' if visits != 1 else ''} of stage visit explored move by move)"
    ceilings = analysis.ceilings
    if not analysis.complete or ceilings is None:
        limit = analysis.runs.limit
        return f"{path}: run analysis incomplete: it stopped at its limit of {limit:,} run states, so no ceiling is computed"
    lines = [head, "  " + _summary_line(analysis)]
    shown = tokens is not None and tokens.known
    priced = shown and tokens is not None and tokens.priced
    rows = []
    spent_by = {t.stage: t for t in tokens.stages} if tokens is not None else {}
    for s in ceilings.stages:
        row: tuple[str, ...] = (visible(s.stage), _number(s.visits), _number(s.per_visit), _number(s.inferences))
        spent = spent_by.get(s.stage)
        if shown:
            row += (_spent(spent, spent.tokens if spent else None, _number),)
        if priced:
            row += (_spent(spent, spent.cost_usd if spent else None, _dollars),)
        rows.append(row)
    header: tuple[str, ...] = ("stage", "visits", "inferences/visit", "inferences")
    total: tuple[str, ...] = ("total", _number(ceilings.visits), "", _number(ceilings.inferences))
    missing = "unknown" if ceilings.bounded else UNBOUNDED  # no bound per inference, or no inference ceiling
    if shown and tokens is not None:
        header += ("tokens",)
        total += (missing if tokens.tokens is None else f"{tokens.tokens:,}",)
    if priced and tokens is not None:
        header += ("cost",)
        total += (missing if tokens.cost_usd is None else _dollars(tokens.cost_usd),)
    widths = [max(len(r[i]) for r in [header, *rows, total]) for i in range(len(header))]
    lines.append("  " + _row(header, widths))
    lines.extend("  " + _row(row, widths) for row in rows)
    lines.append("  " + _row(total, widths))
    if tokens is not None:
        lines.extend("  " + line for line in _token_lines(tokens))
    return "\n".join(lines)


def _spent(stage, value, shown) -> str:
    """A stage's tokens or dollars: unknown without a bound per inference, unbounded without
    an inference ceiling."""
    if stage is None or stage.input_per_inference is None or stage.output_per_inference is None:
        return "unknown"
    return UNBOUNDED if value is None else shown(value)


def _dollars(value: float) -> str:
    if value == 0:
        return "$0"
    return f"${value:,.2f}" if value >= 1 else f"${value:.4f}"


def _token_lines(tokens: "RunCost") -> list[str]:
    """Under the table: the worst case of one run, or why there is none and how to get one."""
    if not tokens.known:
        return [f"tokens and cost: no ceiling: {visible(tokens.why)}"]
    if tokens.tokens is None:
        return [f"tokens: no ceiling per run: {visible(tokens.why)}"]
    line = (
        f"tokens: every run carries at most {tokens.tokens:,} tokens "
        f"(at most {tokens.input_tokens or 0:,} in, {tokens.output_tokens or 0:,} out)"
    )
    lines = [line]
    if tokens.cost_usd is not None:
        lines.append(f"cost: every run costs at most {_dollars(tokens.cost_usd)}")
    else:
        lines.append(f"cost: no ceiling in dollars: {visible(tokens.cost_why)}")
    return lines


def _row(cells: tuple[str, ...], widths: list[int]) -> str:
    first = cells[0].ljust(widths[0])
    rest = "  ".join(cell.rjust(width) for cell, width in zip(cells[1:], widths[1:]))
    return f"{first}  {rest}".rstrip()


def _summary_line(analysis: "Analysis") -> str:
    ceilings = analysis.ceilings
    assert ceilings is not None
    if ceilings.bounded:
        assert ceilings.visits is not None and ceilings.inferences is not None  # what bounded means
        return (
            f"ceiling: every run ends within {plural(ceilings.visits, 'stage visit', grouped=True)} and "
            f"{plural(ceilings.inferences, 'inference', grouped=True)} "
            "(stage replies plus routing answers)"
        )
    parts = []
    if ceilings.visits is None:
        parts.append("stage visits are unbounded: a run can loop for ever (see run-can-loop-forever)")
    else:
        parts.append(f"every run ends within {plural(ceilings.visits, 'stage visit', grouped=True)}")
    if ceilings.endless:
        names = ", ".join(f"'{visible(name)}'" for name in ceilings.endless)
        parts.append(f"inferences are unbounded: a visit of {names} can go on for ever ({_why_endless(analysis)})")
    elif ceilings.inferences is None:
        parts.append("inferences are unbounded")
    return "ceiling: " + "; ".join(parts)


def _why_endless(analysis: "Analysis") -> str:
    """Why no iteration cap ends the endless visits: fan-out stages, or no cap at all."""
    ir, ceilings = analysis.blueprint, analysis.ceilings
    stages = [ir.stage(name) for name in (ceilings.endless if ceilings is not None else ())]
    modes = {stage.mode for stage in stages if stage is not None}
    reasons = ["a fan-out stage, which no iteration cap binds"] if "fan_out" in modes else []
    if modes - {"fan_out"}:
        reasons.append("no max_iterations, and default-max-iterations is 0")
    return "; ".join(reasons)


def analysis_json(
    analysis: "Analysis | None",
    diagnostics: Iterable["Diagnostic"],
    tokens: "RunCost | None" = None,
    verdicts: Sequence["Verdict"] = (),
) -> dict | None:
    """The `analysis` object of a file in the JSON report (None when the file was not analysed),
    with the verdict on each declared property (`verdicts`) and the run that breaks it."""
    if analysis is None:
        return None
    shown = {(d.code, d.key_path, d.message) for d in diagnostics}
    traces = [
        _trace_json(finding)
        for finding in analysis.findings
        if finding.trace is not None and (finding.code, format_key_path(finding.path), finding.message) in shown
    ]
    traces += [
        _trace_dict(v.code or "", format_key_path(v.path), None, v.trace)
        for v in verdicts
        if v.trace is not None and (v.code, format_key_path(v.path), v.message) in shown
    ]
    document = {
        "complete": analysis.complete,
        "run_states": analysis.states,
        "visits_explored": analysis.visits_explored,
        "ceilings": analysis.ceilings.to_dict() if analysis.ceilings is not None else None,
        "tokens": tokens.to_dict() if tokens is not None else None,
        "traces": traces,
    }
    if verdicts:
        document["properties"] = [
            {
                "name": v.name,
                "status": v.status,
                "code": v.code,
                "key_path": format_key_path(v.path),
                "message": v.message,
            }
            for v in verdicts
        ]
    return document


def _trace_json(finding: "Finding") -> dict:
    assert finding.trace is not None
    return _trace_dict(finding.code, format_key_path(finding.path), finding.stage, finding.trace)


def _trace_dict(code: str, key_path: str, stage: str | None, trace: "Trace") -> dict:
    return {
        "code": code,
        "key_path": key_path,
        "stage": stage,
        "outcome": trace.outcome,
        "verified": trace.verified,
        "steps": [
            {"stage": step.stage, "visit": step.visit, "description": step.describe(), "events": len(step.runs)}
            for step in trace.steps
        ],
        "events": trace.event_dicts(),
    }
