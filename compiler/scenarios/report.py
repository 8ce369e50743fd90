"""Reports of `blueprint test`: text for people, JSON for tools (JUnit XML is in `junit.py`).

A failing expectation is shown like a blueprint finding: the scenario file's line and column,
the line itself with a caret, then the script beside the actual run, one stage visit a row,
with `≠` where the run went elsewhere.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..diagnostics import Diagnostic
from ..display import visible
from ..render.text import render_diagnostic
from ..runtime.actions import Complete, Fail, TakeEdge
from .expectations import Failure
from .player import Played, VisitRun
from .runner import FileOutcome, ScenarioResult
from .vocabulary import WAITING

LEFT_WIDTH = 44
RIGHT_WIDTH = 72


def failure_diagnostic(path: str, result: ScenarioResult, failure: Failure) -> Diagnostic:
    code = "script-mismatch" if failure.key == "script" else "expectation-failed"
    if result.scenario.kind == "property":
        code = failure.key  # property-violated, -vacuous, -unproven or -invalid, as check has it
    return Diagnostic(
        code,
        "error",
        failure.message
        if result.scenario.kind == "property"
        else f"scenario '{result.scenario.name}': {failure.message}",
        file=path,
        path=failure.where.path,
        span=failure.where.span,
    )


def _short(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def describe_exit(visit: VisitRun) -> str:
    exit = visit.exit
    if isinstance(exit, TakeEdge):
        extra = f", gate {exit.gate}" if exit.gate == "forced" else ""
        return f"→ {exit.target} ({exit.condition.replace('_', '-')}{extra})"
    if isinstance(exit, Complete):
        return f"✓ complete ({exit.via})"
    if isinstance(exit, Fail):
        return f"✗ {exit.status}: {exit.reason}"
    return ""


#: How the actual run names a hold where its `expect.holds` key would read as something else:
#: `fan_out` is a nudge holding a fan-out stage that ended without calling the tool.
HOLD_LABELS = {
    "fan_out": "nudged to fan out",
    "split": "split given up",
}


def describe_visit(played: Played, visit: VisitRun, last: bool) -> str:
    replies = sum(1 for f in visit.fed if type(f.event).__name__ == "InferenceFinished")
    holds = played.holds(visit)
    parts = [f"{replies} repl{'y' if replies == 1 else 'ies'}"] if replies else []
    parts += [f"{HOLD_LABELS.get(name, name.replace('_', ' '))} ×{n}" for name, n in holds.items() if n]
    head = f"{visit.stage} (visit {visit.number})" + (f": {', '.join(parts)}" if parts else "")
    exit = describe_exit(visit)
    if not exit and last:
        state = played.state
        exit = (
            "… stopped: the script did not fit"
            if played.mismatch
            else f"… waits for {WAITING.get(state.phase, state.phase)}"
        )
        if state.status == "paused":
            exit = "… paused"
    return f"{head} {exit}".rstrip()


def expected_rows(result: ScenarioResult) -> list[str]:
    scenario = result.scenario
    for failure in result.failures:
        if failure.key == "path" and failure.updatable:
            path = next(e.value for e in scenario.expectations if e.key == "path" and not e.negated)
            return list(path)
    if scenario.visits is None:
        return [f"(the events of {scenario.events_file})"]
    return [f"{v.stage}: {', '.join(a.source for a in v.actions)}" if v.actions else v.stage for v in scenario.visits]


def timeline(result: ScenarioResult) -> list[str]:
    """The script (or expected path) beside the run, one stage visit a row; for a broken
    property, the run that breaks it."""
    if result.counterexample:
        return ["   the run that breaks it:", *(visible(f"      {line}") for line in result.counterexample)]
    played = result.played
    if played is None:
        return []
    left = expected_rows(result)
    right = [describe_visit(played, v, i == len(played.visits) - 1) for i, v in enumerate(played.visits)]
    width = min(max([len("expected"), *map(len, left)]), LEFT_WIDTH)
    lines = [f"      {'expected':<{width}}   │ actual run"]
    for i in range(max(len(left), len(right))):
        expected = _short(left[i], width) if i < len(left) else ""
        actual = _short(right[i], RIGHT_WIDTH) if i < len(right) else "(no more visits)"
        same = i < len(left) and i < len(right) and left[i].split(":")[0] == played.visits[i].stage
        lines.append(f"   {i + 1:>2} {expected:<{width}} {' ' if same else '≠'} │ {actual}")
    return [visible(line) for line in lines]  # names and reasons from the blueprint and the events


def failure_text(outcome: FileOutcome, result: ScenarioResult, *, color: bool = False) -> str:
    """Every failure of a scenario, each at its line and column, then the script beside the run."""
    shown = [
        render_diagnostic(failure_diagnostic(outcome.file.path, result, f), outcome.file.source, color=color)
        for f in result.failures
    ]
    return "\n\n".join(shown[:-1] + ["\n".join([shown[-1], *timeline(result)])]) if shown else ""


def problems_text(outcome: FileOutcome, *, color: bool = False) -> list[str]:
    """What kept the file's scenarios from running, and the blueprint's own errors."""
    blocks = [render_diagnostic(d, outcome.file.source, color=color) for d in outcome.problems]
    blueprint = outcome.blueprint_result
    if blueprint is not None and not blueprint.ok:
        errors = [d for d in blueprint.diagnostics if d.severity == "error"]
        blocks.extend(render_diagnostic(d, blueprint.source, color=color) for d in errors)
    return blocks


def render_text(outcomes: Sequence[FileOutcome], *, color: bool = False, verbose: bool = False) -> str:
    """Each scenario's verdict, every failure in full, the problems of the files, the totals."""
    blocks: list[str] = []
    listing: list[str] = []
    for outcome in outcomes:
        path = outcome.file.path
        for result in outcome.results:
            mark = "PASS" if result.passed else "FAIL"
            listing.append(f"{mark} {visible(path)}::{visible(result.scenario.name)}")
            if result.failures:
                blocks.append(failure_text(outcome, result, color=color))
        for name in outcome.unread:
            listing.append(
                f"FAIL {visible(path)}::{visible(name)} (not run: the scenario could not be read, see below)"
            )
        blocks.extend(problems_text(outcome, color=color))
    shown = listing if verbose else [line for line in listing if line.startswith("FAIL")]
    parts = ["\n".join(shown)] if shown else []
    parts += blocks
    parts.append(summary_line(outcomes))
    return "\n\n".join(parts) + "\n"


def totals(outcomes: Sequence[FileOutcome]) -> dict[str, int]:
    results = [r for o in outcomes for r in o.results]
    unread = sum(len(o.unread) for o in outcomes)
    return {
        "files": len(outcomes),
        "scenarios": len(results) + unread,
        "passed": sum(1 for r in results if r.passed),
        "failed": sum(1 for r in results if not r.passed) + unread,
        "problems": sum(len(o.problems) for o in outcomes),
    }


def summary_line(outcomes: Sequence[FileOutcome]) -> str:
    t = totals(outcomes)
    files = f"{t['files']} file{'s' if t['files'] != 1 else ''}"
    properties = sum(1 for o in outcomes for r in o.results if r.scenario.kind == "property")
    scenarios = t["scenarios"] - properties
    ran = f"{scenarios} scenario{'s' if scenarios != 1 else ''}"
    if properties:
        ran += f" and {properties} propert{'ies' if properties != 1 else 'y'}"
    line = f"Ran {ran} in {files}: {t['passed']} passed, {t['failed']} failed"
    if t["problems"]:
        line += f"; {t['problems']} problem{'s' if t['problems'] != 1 else ''} in the files"
    return line


# --- JSON -------------------------------------------------------------------------------------------------


def run_summary(played: Played | None) -> dict[str, Any] | None:
    if played is None:
        return None
    state = played.state
    return {
        "status": played.status,
        "stage": state.stage,
        "reason": state.reason,
        "path": played.path,
        "visits": dict(state.visits),
        "inferences": state.iteration,
        "holds": {k: v for k, v in played.holds().items() if v},
        "output": state.final_output,
        "timeline": [describe_visit(played, v, i == len(played.visits) - 1) for i, v in enumerate(played.visits)],
    }


def _failure_json(failure: Failure) -> dict[str, Any]:
    span = failure.where.span
    return {
        "expectation": failure.key,
        "message": failure.message,
        "line": span.line if span else None,
        "column": span.column if span else None,
        "expected": failure.expected,
        "actual": failure.actual,
    }


def json_document(outcomes: Sequence[FileOutcome], coverage: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    files = []
    for outcome in outcomes:
        files.append(
            {
                "path": outcome.file.path,
                "blueprint": outcome.file.blueprint,
                "problems": [d.to_dict() for d in outcome.problems],
                "scenarios": [
                    {
                        "name": r.scenario.name,
                        "kind": r.scenario.kind,
                        "line": r.scenario.where.span.line if r.scenario.where.span else None,
                        "passed": r.passed,
                        "failures": [_failure_json(f) for f in r.failures],
                        "run": run_summary(r.played),
                        **({"counterexample": list(r.counterexample)} if r.counterexample else {}),
                    }
                    for r in outcome.results
                ]
                + [
                    {"name": name, "line": None, "passed": False, "failures": [], "run": None, "unread": True}
                    for name in outcome.unread
                ],
            }
        )
    document: dict[str, Any] = {"version": 1, "files": files, "summary": totals(outcomes)}
    if coverage is not None:
        document["coverage"] = coverage
    return document


def render_json(outcomes: Sequence[FileOutcome], coverage: list[dict[str, Any]] | None = None) -> str:
    return json.dumps(json_document(outcomes, coverage), indent=2, ensure_ascii=True) + "\n"
