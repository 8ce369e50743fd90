"""What the runs can do, before and after: the delta of `blueprint check`'s run analysis.

Both sides are explored as `blueprint check` explores them (`compiler.analysis.analyze`), and
compared: findings that appear and disappear (a new strand, a loop fixed), stages that runs
now enter or no longer enter, whether some run can still complete, the ceilings of stage
visits and inferences, in total and per stage, and the most tokens and dollars of one run. A side whose exploration was cut short has no
ceilings; then only what it did find is compared, and a note says so.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from compiler.records import record

from ..diagnostics import KeyPath, format_key_path
from .classify import Pending
from .model import Change, RunDelta, RunSide, StageCeilingDelta
from .rules import RULES

if TYPE_CHECKING:
    from ..analysis.core import Analysis
    from ..config import Settings

#: The pointer of a finding's message to the trace `blueprint check` prints under it (a diff does not).
_TRACED = re.compile(r", traced below(?=\))")
#: Findings compared as something else: reachability (below) and the notes.
NOT_COMPARED = frozenset({"stage-never-entered", "analysis-incomplete"})


@record
class _Side:
    run: RunSide
    #: (code, key path in new naming) → (message, key path as written on this side)
    findings: dict[tuple[str, str], tuple[str, KeyPath]]
    #: Stage → (most visits, most inferences); None per value when unbounded. Empty when incomplete.
    ceilings: dict[str, tuple[int | None, int | None]]


def _summary(analysis: "Analysis", rename: dict[str, str], settings: "Settings | None") -> _Side:
    from ..analysis.tokens import models_from, run_cost
    from ..config import DEFAULT_SETTINGS

    ceilings = analysis.ceilings
    cost = run_cost(analysis, models_from(settings or DEFAULT_SETTINGS))
    run = RunSide(
        complete=analysis.complete,
        states=analysis.states,
        visits=ceilings.visits if ceilings is not None else None,
        inferences=ceilings.inferences if ceilings is not None else None,
        can_complete=can_complete(analysis),
        tokens=cost.tokens,
        cost_usd=cost.cost_usd,
        tokens_why=cost.why,
        cost_why=cost.cost_why,
    )
    findings = {
        (finding.code, format_key_path(_renamed(finding.path, rename))): (
            _TRACED.sub("", finding.message),
            finding.path,
        )
        for finding in analysis.findings
        if finding.code not in NOT_COMPARED
    }
    per_stage = {rename.get(s.stage, s.stage): (s.visits, s.inferences) for s in (ceilings.stages if ceilings else ())}
    return _Side(run, findings, per_stage)


def can_complete(analysis: "Analysis") -> bool:
    """Some explored run ends by completing (the run graph's terminal ends of kind `complete`)."""
    for edges in analysis.runs.out:
        for _, target in edges:
            if not isinstance(target, int) and target.kind == "complete":
                return True
    return False


def _renamed(path: KeyPath, rename: dict[str, str]) -> KeyPath:
    """A key path of the old side with renamed stages under their new names."""
    if len(path) < 2 or path[0] != "stages":
        return path
    out = list(path)
    for index in (1, 3) if len(path) >= 4 and path[2] == "transitions" else (1,):
        part = path[index]
        if isinstance(part, str):
            out[index] = rename.get(part, part)
    return tuple(out)


def run_delta(
    old: "Analysis",
    new: "Analysis",
    renames: dict[str, str],
    old_settings: "Settings | None" = None,
    new_settings: "Settings | None" = None,
) -> tuple[list[Pending], RunDelta]:
    """The run changes (located by the file's key paths) and the ceilings of both sides (tokens
    and dollars from each side's settings: its prices and Leviath files)."""
    before, after = _summary(old, renames, old_settings), _summary(new, {}, new_settings)
    out: list[Pending] = []
    for key, (message, path) in after.findings.items():
        if key not in before.findings:
            kind = "run-failure-added" if _fails(key[0]) else "run-finding-added"
            out.append(_pending(kind, f"{key[0]}: {message}", path, None, path, new=key[0]))
    for key, (message, path) in before.findings.items():
        if key not in after.findings:
            out.append(
                _pending(
                    "run-finding-fixed", f"{key[0]} fixed: {message}", _renamed(path, renames), path, None, old=key[0]
                )
            )
    notes: list[str] = []
    for side, summary in (("old", before), ("new", after)):
        if not summary.run.complete:
            notes.append(
                f"the run analysis of the {side} version stopped at its state limit after "
                f"{summary.run.states:,} run states: ceilings and reachability are not compared"
            )
    back = {to: name for name, to in renames.items()}
    if before.run.complete and after.run.complete:
        out.extend(_reachability(before, after, back))
        out.extend(_totals(before.run, after.run))
        out.extend(_spending(before.run, after.run))
    # "No run completes" is only known of a side explored to the end.
    if before.run.can_complete and not after.run.can_complete and after.run.complete:
        out.append(_pending("runs-cannot-complete", "no run can complete any more (some could before)", (), (), ()))
    if after.run.can_complete and not before.run.can_complete and before.run.complete:
        out.append(_pending("runs-can-complete", "some run can complete now (none could before)", (), (), ()))
    both = before.run.complete and after.run.complete
    return out, RunDelta(before.run, after.run, _stage_rows(before, after) if both else (), tuple(notes))


def _fails(code: str) -> bool:
    """A finding `blueprint check` fails on by default (an error: a run that ends with nothing)."""
    from ..rulebook.registry import REGISTRY

    rule = REGISTRY.get(code)
    return rule is not None and rule.severity == "error"


def _pending(
    kind: str,
    message: str,
    path: KeyPath,
    old_path: KeyPath | None,
    new_path: KeyPath | None,
    old: object = None,
    new: object = None,
) -> Pending:
    stage = path[1] if len(path) > 1 and path[0] == "stages" and isinstance(path[1], str) else None
    change = Change(kind, RULES[kind].change_class, message, tuple(path), stage, old, new)
    return Pending(change, old_path, new_path, ir=False)


def _entered(visits: int | None) -> bool:
    return visits is None or visits > 0


def _reachability(before: _Side, after: _Side, back: dict[str, str]) -> list[Pending]:
    out = []
    for stage, (visits, _) in after.ceilings.items():
        if stage not in before.ceilings:
            continue
        was, now = _entered(before.ceilings[stage][0]), _entered(visits)
        if was != now:
            old_path, new_path = ("stages", back.get(stage, stage)), ("stages", stage)
            if now:
                out.append(
                    _pending(
                        "stage-reachable",
                        f"runs now enter stage '{stage}' (none did before)",
                        new_path,
                        old_path,
                        new_path,
                        old=False,
                        new=True,
                    )
                )
            else:
                out.append(
                    _pending(
                        "stage-unreachable",
                        f"no run enters stage '{stage}' any more",
                        new_path,
                        old_path,
                        new_path,
                        old=True,
                        new=False,
                    )
                )
    return out


def _totals(before: RunSide, after: RunSide) -> list[Pending]:
    out = []
    for label, old, new in (
        ("stage visits", before.visits, after.visits),
        ("inferences", before.inferences, after.inferences),
    ):
        if old == new:
            continue
        raised = _size(new) > _size(old)
        verb = "rose" if raised else "fell"
        message = f"the most {label} of one run {verb} from {_count(old)} to {_count(new)}"
        out.append(_pending("ceiling-raised" if raised else "ceiling-lowered", message, (), (), (), old=old, new=new))
    return out


def _spending(before: RunSide, after: RunSide) -> list[Pending]:
    """`cost-raised` / `cost-lowered` for the most tokens and dollars of one run. A side without
    a bound because its inferences have none counts as unbounded; one whose models' windows or
    prices are not known is not compared (there is nothing to compare it with)."""
    out = []
    pairs: list[tuple[str, float | None, float | None, Callable[[float | None], str]]] = [
        ("tokens", before.tokens, after.tokens, lambda v: _count(None if v is None else int(v))),
        ("dollars", before.cost_usd, after.cost_usd, _dollars),
    ]
    for label, old, new, shown in pairs:
        old_size = _spent(old, before)
        new_size = _spent(new, after)
        if old_size is None or new_size is None or old_size == new_size:
            continue
        raised = new_size > old_size
        verb = "rose" if raised else "fell"
        message = f"the most {label} of one run {verb} from {shown(old)} to {shown(new)}"
        out.append(_pending("cost-raised" if raised else "cost-lowered", message, (), (), (), old=old, new=new))
    return out


def _spent(value: float | None, side: RunSide) -> float | None:
    """What a side spends at most: inf when its inferences are unbounded, None when unknown."""
    if value is not None:
        return value
    return math.inf if side.visits is None or side.inferences is None else None


def _dollars(value: float | None) -> str:
    if value is None:
        return "unbounded"
    return f"${value:,.2f}" if value >= 1 else f"${value:.4f}"


def _stage_rows(before: _Side, after: _Side) -> tuple[StageCeilingDelta, ...]:
    rows = []
    names = [*after.ceilings, *(name for name in before.ceilings if name not in after.ceilings)]
    for name in names:
        old, new = before.ceilings.get(name), after.ceilings.get(name)
        if old == new:
            continue
        rows.append(
            StageCeilingDelta(
                name,
                old[0] if old else None,
                new[0] if new else None,
                old[1] if old else None,
                new[1] if new else None,
                old_present=old is not None,
                new_present=new is not None,
            )
        )
    return tuple(rows)


def _size(value: int | None) -> float:
    return math.inf if value is None else value


def _count(value: int | None) -> str:
    return "unbounded" if value is None else f"{value:,}"
