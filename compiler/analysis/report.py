"""The analysis in a report: the ceilings block of the text output, the `analysis` object of JSON."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ..diagnostics import format_key_path
from ..display import visible

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from .core import Analysis
    from .findings import Finding
    from .property_check import Verdict
    from .traces import Trace

UNBOUNDED = "unbounded"


def _number(value: int | None) -> str:
    return UNBOUNDED if value is None else f"{value:,}"


def ceilings_text(path: str, analysis: "Analysis") -> str:
    """The per-file block: how much was explored, then the ceilings per run and per stage.
    Names from the blueprint, and the path, are made visible before they are laid out."""
    path = visible(path)
    runs = f"{analysis.states:,} run state{'s' if analysis.states != 1 else ''}"
    visits = analysis.visits_explored
    head = f"{path}: every run explored ({runs}; {visits:,} kind{'s' if visits != 1 else ''} of stage visit explored move by move)"
    ceilings = analysis.ceilings
    if not analysis.complete or ceilings is None:
        limit = analysis.runs.limit
        return f"{path}: run analysis incomplete: it stopped at its limit of {limit:,} run states, so no ceiling is computed"
    lines = [head, "  " + _summary_line(analysis)]
    rows = [(visible(s.stage), _number(s.visits), _number(s.per_visit), _number(s.inferences)) for s in ceilings.stages]
    header = ("stage", "visits", "inferences/visit", "inferences")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    lines.append("  " + _row(header, widths))
    lines.extend("  " + _row(row, widths) for row in rows)
    lines.append("  " + _row(("total", _number(ceilings.visits), "", _number(ceilings.inferences)), widths))
    return "\n".join(lines)


def _row(cells: tuple[str, ...], widths: list[int]) -> str:
    first = cells[0].ljust(widths[0])
    rest = "  ".join(cell.rjust(width) for cell, width in zip(cells[1:], widths[1:]))
    return f"{first}  {rest}".rstrip()


def _summary_line(analysis: "Analysis") -> str:
    ceilings = analysis.ceilings
    assert ceilings is not None
    if ceilings.bounded:
        return (
            f"ceiling: every run ends within {ceilings.visits:,} stage visits and {ceilings.inferences:,} inferences "
            "(stage replies plus routing answers)"
        )
    parts = []
    if ceilings.visits is None:
        parts.append("stage visits are unbounded: a run can loop for ever (see run-can-loop-forever)")
    else:
        parts.append(f"every run ends within {ceilings.visits:,} stage visits")
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
    analysis: "Analysis | None", diagnostics: Iterable["Diagnostic"], verdicts: Sequence["Verdict"] = ()
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
