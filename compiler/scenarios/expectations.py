"""Expectations: what a scenario says about its run, read from `expect`, checked against a `Played` run.

Each key has a reader (its value's shape, checked when the file is read), a check (expected
and actual, as text for the report) and the actual value `--update` writes in its place.
`expect_not` takes the same keys and fails when the expectation holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from compiler.records import record

from ..runtime.state import Flags, flags_report
from .model import Expectation, Where
from .player import HOLDS, Played

STATUSES = ("complete", "error", "cancelled", "paused", "unfinished")
FLAG_NAMES = (*(f.name for f in fields(Flags)), "produced_output", "empty_output", "forced_moves")
_COMPARISON = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(\d+)\s*$")
_OPS: dict[str, Callable[[int, int], bool]] = {
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
}


@record
class Failure:
    """An expectation that did not hold (or a script that did not fit), where it is written."""

    key: str
    message: str
    where: Where
    expected: str | None = None
    actual: str | None = None
    #: `--update` can rewrite it to what happened (not a script mismatch, not `expect_not`).
    updatable: bool = False
    expectation: Expectation | None = None


# --- reading ---------------------------------------------------------------------------------------


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("must be a string")
    return value


def _status(value: Any) -> str:
    if value not in STATUSES:
        raise ValueError(f"must be one of: {', '.join(STATUSES)}")
    return value


def _via(value: Any) -> str:
    if value not in ("terminal", "done"):
        raise ValueError('must be "terminal" (no edge was left) or "done" (the model answered DONE)')
    return value


def _stages(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("must be an array of stage names")
    return list(value)


def count(value: Any, *, unlimited: bool = False) -> Any:
    """A whole number, a comparison such as ">= 2" (and, for budgets, "unlimited")."""
    if type(value) is int and value >= 0:
        return value
    if isinstance(value, str) and (_COMPARISON.match(value) or (unlimited and value == "unlimited")):
        return value
    extra = ', or "unlimited"' if unlimited else ""
    raise ValueError(f'must be a whole number or a comparison such as ">= 2"{extra}')


def _counts(
    value: Any, *, names: tuple[str, ...] | None = None, boolean: bool = False, unlimited: bool = False
) -> dict:
    if not isinstance(value, dict):
        raise ValueError("must be a table")
    for key, item in value.items():
        if names is not None and key not in names:
            raise ValueError(f"has no '{key}': the keys are {', '.join(names)}")
        if not (boolean and isinstance(item, bool)):
            try:
                count(item, unlimited=unlimited)
            except ValueError as exc:
                raise ValueError(f"'{key}' {exc}{' (or true/false)' if boolean else ''}") from None
    return dict(value)


def _notes(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError("must be an array of texts, each found in some note or message the runner wrote")
    return list(value)


def _shown(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("must be an array of texts: the document each interaction round showed, in order")
    return list(value)


def _output(value: Any) -> bool | str:
    if not isinstance(value, (bool, str)):
        raise ValueError("must be true, false, or the stage whose output was accepted")
    return value


def _flags(value: Any) -> dict:
    if not isinstance(value, dict):
        raise ValueError("must be a table of run flags")
    unknown = [k for k in value if k not in FLAG_NAMES]
    if unknown:
        raise ValueError(f"has no flag '{unknown[0]}': the flags are {', '.join(FLAG_NAMES)}")
    return dict(value)


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


READERS: dict[str, Callable[[Any], Any]] = {
    "status": _status,
    "stage": _string,
    "reason": _string,
    "via": _via,
    "path": _stages,
    "path_includes": _stages,
    "visits": _counts,
    "inferences": count,
    "output": _output,
    "holds": lambda v: _counts(v, names=HOLDS, boolean=True),
    "notes": _notes,
    "budgets": lambda v: _counts(v, unlimited=True),
    "flags": _flags,
    "bounded": _bool,
    "shown": _shown,
}
KEYS = tuple(READERS)


def read(key: str, value: Any) -> Any:
    """The expectation's value, checked; `ValueError` says what it must be."""
    return READERS[key](value)


def stages_named(expectation: Expectation) -> list[str]:
    """The stage names an expectation refers to (each must be in the blueprint)."""
    key, value = expectation.key, expectation.value
    if key in ("path", "path_includes"):
        return list(value)
    if key in ("visits", "budgets"):
        return list(value)
    if key == "stage" or (key == "output" and isinstance(value, str)):
        return [value]
    return []


# --- checking --------------------------------------------------------------------------------------


def holds(wanted: Any, actual: int) -> bool:
    """A count expectation (a number, a comparison, true = at least one, false = none)."""
    if isinstance(wanted, bool):
        return (actual > 0) == wanted
    if isinstance(wanted, int):
        return actual == wanted
    match = _COMPARISON.match(wanted)
    assert match is not None
    return _OPS[match.group(1)](actual, int(match.group(2)))


def _path(stages: list[str]) -> str:
    return " → ".join(stages) if stages else "(no stage)"


def _table(values: dict) -> str:
    return ", ".join(f"{k} = {_show(v)}" for k, v in values.items())


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(_show, value)) + "]"
    return str(value) if not isinstance(value, str) or value[:1] in "<>=!" or value == "unlimited" else f'"{value}"'


def subsequence(wanted: list[str], path: list[str]) -> bool:
    remaining = iter(path)
    return all(any(stage == seen for seen in remaining) for stage in wanted)


def check(expectation: Expectation, played: Played) -> Failure | None:
    """None when the expectation holds (for `expect_not`: when it does not)."""
    key, wanted = expectation.key, expectation.value
    ok, expected, actual = _CHECKS[key](wanted, played)
    if ok != expectation.negated:
        return None
    if expectation.negated:
        return Failure(
            key,
            f"expect_not.{key}: the run must not show {expected}, and it does: {actual}",
            expectation.where,
            f"not {expected}",
            actual,
        )
    return Failure(
        key, f"{key}: expected {expected}, got {actual}", expectation.where, expected, actual, True, expectation
    )


def _check_status(wanted: str, p: Played):
    return p.status == wanted, wanted, p.status


def _check_stage(wanted: str, p: Played):
    return p.state.stage == wanted, f"'{wanted}'", f"'{p.state.stage}'"


def _check_reason(wanted: str, p: Played):
    reason = p.state.reason
    got = f'"{reason}"' if reason else f"no reason (the run is {p.status})"
    return wanted in (reason or ""), f'a reason containing "{wanted}"', got


def _check_via(wanted: str, p: Played):
    return p.state.done_via == wanted, wanted, p.state.done_via or f"none (the run is {p.status})"


def _check_path(wanted: list[str], p: Played):
    return p.path == wanted, _path(wanted), _path(p.path)


def _check_includes(wanted: list[str], p: Played):
    order = " in this order" if len(wanted) > 1 else ""
    return subsequence(wanted, p.path), f"a path through {_path(wanted)}{order}", _path(p.path)


def _check_visits(wanted: dict, p: Played):
    got = {stage: p.state.visits.get(stage, 0) for stage in wanted}
    return all(entry_ok("visits", w, got[s]) for s, w in wanted.items()), _table(wanted), _table(got)


def _check_inferences(wanted: Any, p: Played):
    return holds(wanted, p.state.iteration), _show(wanted), str(p.state.iteration)


def _check_output(wanted: bool | str, p: Played):
    accepted = p.state.final_output
    got = f"output accepted from '{accepted}'" if accepted else "no output accepted"
    if isinstance(wanted, bool):
        return (accepted is not None) == wanted, "an accepted output" if wanted else "no accepted output", got
    return accepted == wanted, f"output accepted from '{wanted}'", got


def _check_holds(wanted: dict, p: Played):
    counts = p.holds()
    got = {name: counts[name] for name in wanted}
    return all(entry_ok("holds", w, got[n]) for n, w in wanted.items()), _table(wanted), _table(got)


def _check_notes(wanted: list[str], p: Played):
    texts = [item.text for item in p.injections()]
    missing = [w for w in wanted if not any(w in t for t in texts)]
    got = "all of them" if not missing else "none containing " + ", ".join(f'"{m}"' for m in missing)
    return not missing, "notes containing " + ", ".join(f'"{w}"' for w in wanted), got


def _check_budgets(wanted: dict, p: Played):
    left = p.budgets()
    got = {stage: left.get(stage, "unlimited") for stage in wanted}

    return all(entry_ok("budgets", w, got[s]) for s, w in wanted.items()), _table(wanted), _table(got)


def entry_ok(key: str, wanted: Any, got: Any) -> bool:
    """One entry of a table expectation (visits, holds, budgets, flags) against its actual value."""
    if key == "flags":
        return _plain(wanted) == _plain(got)
    if wanted == "unlimited" or got == "unlimited":
        return wanted == got
    return holds(wanted, got)


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _check_flags(wanted: dict, p: Played):
    report = flags_report(p.state)
    got = {name: _plain(report[name]) for name in wanted}
    return all(entry_ok("flags", w, got[n]) for n, w in wanted.items()), _table(wanted), _table(got)


def _check_bounded(wanted: bool, p: Played):
    repeat = p.repeated_entry()
    if repeat is None:
        got = "no stage entry repeats an earlier run state"
    else:
        first, again = repeat
        got = (
            f"'{again.stage}' (visit {again.number}) was entered in the same run state as visit {first.number}: "
            "no revisit budget moved, so the run can go round for ever"
        )
    said = "a run that cannot go round for ever" if wanted else "a run that comes back to an earlier run state"
    return (repeat is None) == wanted, said, got


def _check_shown(wanted: list[str], p: Played):
    shown = p.shown()
    return shown == wanted, _texts(wanted), _texts(shown) if shown else "no interaction round"


def _texts(texts: list[str]) -> str:
    return "[" + ", ".join(f'"{t}"' for t in texts) + "]"


_CHECKS: dict[str, Callable[[Any, Played], tuple[bool, str, str]]] = {
    "status": _check_status,
    "stage": _check_stage,
    "reason": _check_reason,
    "via": _check_via,
    "path": _check_path,
    "path_includes": _check_includes,
    "visits": _check_visits,
    "inferences": _check_inferences,
    "output": _check_output,
    "holds": _check_holds,
    "notes": _check_notes,
    "budgets": _check_budgets,
    "flags": _check_flags,
    "bounded": _check_bounded,
    "shown": _check_shown,
}
assert _CHECKS.keys() == READERS.keys()


# --- updating ----------------------------------------------------------------------------------------


def actual(expectation: Expectation, played: Played) -> Any:
    """What the run did, in the expectation's own shape (None: the key has nothing to say now)."""
    key, wanted, state = expectation.key, expectation.value, played.state
    if key == "status":
        return played.status
    if key == "stage":
        return state.stage
    if key == "reason":
        return state.reason
    if key == "via":
        return state.done_via
    if key in ("path", "path_includes"):
        return played.path
    if key == "visits":
        return {stage: state.visits.get(stage, 0) for stage in wanted}
    if key == "inferences":
        return state.iteration
    if key == "output":
        return state.final_output is not None if isinstance(wanted, bool) else (state.final_output or False)
    if key == "holds":
        counts = played.holds()
        return {n: (counts[n] > 0 if isinstance(w, bool) else counts[n]) for n, w in wanted.items()}
    if key == "notes":
        texts = [item.text for item in played.injections()]
        return [w for w in wanted if any(w in t for t in texts)]
    if key == "budgets":
        left = played.budgets()
        return {stage: left.get(stage, "unlimited") for stage in wanted}
    if key == "flags":
        report = flags_report(state)
        return {name: _plain(report[name]) for name in wanted}
    if key == "bounded":
        return played.repeated_entry() is None
    if key == "shown":
        return played.shown()
    raise KeyError(key)
