"""`RunState`: everything that decides a run's future, as one plain, versioned value.

The reference keeps most per-visit counters in memory and refunds them on a restart; here
they all live in the state, so a run saved after any step and resumed elsewhere behaves as
if it had never stopped. The dataclasses are frozen and their dict fields are never mutated
in place (the machine copies on write), so a state can be shared and compared freely.
`to_json()` / `from_json()` round-trip exactly.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Callable

from ..ir.model import NudgeConfig
from .events import Event, event_from_dict, event_to_dict

STATE_VERSION = 1

STATUSES: tuple[str, ...] = ("active", "waiting", "paused", "complete", "error", "cancelled")
TERMINAL_STATUSES: frozenset[str] = frozenset({"complete", "error", "cancelled"})
#: ready: guards then an inference are due · infer/route/interact: a request is outstanding ·
#: children/workers: waiting on other runs · done: terminal.
PHASES: tuple[str, ...] = ("ready", "infer", "route", "interact", "children", "workers", "done")


class StateError(ValueError):
    """A serialized state that cannot be read back."""


@dataclass(frozen=True)
class RegionSnapshot:
    """A region as the host last reported it; only emptiness and the hash matter here."""

    hash: str = ""
    entries: int = 0
    open_items: tuple[tuple[str, str], ...] = ()

    @property
    def empty(self) -> bool:
        return self.entries <= 0

    @property
    def digest(self) -> str:
        """What "unchanged" compares: every empty region digests alike, whatever the host hashed."""
        return self.hash if self.entries > 0 else ""


EMPTY_REGION = RegionSnapshot()


@dataclass(frozen=True)
class Injection:
    """Text for the host to append to a region before it acts on the action carrying it.

    `kind` says why: nudge, gate, required_region, required_output, fan_out, stuck, error,
    cap, split, interaction.
    """

    region: str
    text: str
    kind: str


@dataclass(frozen=True)
class Outcome:
    """Why a stage ended abnormally: `error` (detail = message), `max_iterations`, `stuck`."""

    kind: str
    detail: str = ""


@dataclass(frozen=True)
class Visit:
    """Per-visit progress, replaced by a fresh one on every stage entry."""

    iterations: int = 0
    tool_calls: int = 0
    edits: dict[str, int] = field(default_factory=dict)
    nudges: int = 0
    modifications: int = 0
    blocked_modifications: int = 0
    gate_reentries: int = 0
    #: region → digest at entry, for gates with `require_region_updated`.
    entry_digests: dict[str, str] = field(default_factory=dict)
    #: The stuck clock: stamped the first time stuck detection looks at this visit.
    stuck_since: float | None = None
    stuck_fired: bool = False
    required_rounds: int = 0
    output_rounds: int = 0
    fan_out_rounds: int = 0
    fanned_out: bool = False
    point_cursor: int = 0
    point_rounds: int = 0
    #: Which of the stage's models is in use (provider fallback).
    model_index: int = 0


@dataclass(frozen=True)
class Flags:
    """Run-level outcome flags; never reset by a transition."""

    max_iterations_hit: int = 0
    gates_forced: int = 0
    output_forced: int = 0
    required_regions_abandoned: tuple[str, ...] = ()
    splits_degraded: int = 0
    workspace_lost: bool = False
    modified_files: tuple[str, ...] = ()
    modified_file_count: int = 0
    searches_run: int = 0
    searches_empty: int = 0
    no_output_tools: bool = False


@dataclass(frozen=True)
class RunState:
    stage: str
    status: str = "active"
    phase: str = "ready"
    #: The latest `now` seen.
    clock: float = 0
    #: Successful stage inferences over the whole run (routing calls excluded).
    iteration: int = 0
    #: Requests issued so far; the outstanding one carries this number.
    requests: int = 0
    visits: dict[str, int] = field(default_factory=dict)
    visit: Visit = Visit()
    flags: Flags = Flags()
    #: The stage whose `submit_output` was last accepted.
    final_output: str | None = None
    regions: dict[str, RegionSnapshot] = field(default_factory=dict)
    #: Child runs started and not yet finished.
    children: tuple[str, ...] = ()
    #: The abnormal ending being carried across a wait (children, interaction point).
    outcome: Outcome | None = None
    #: Targets offered by the outstanding routing request, in order.
    offer: tuple[str, ...] = ()
    #: Injections for the next action (kept with the outstanding request until it is answered).
    inject: tuple[Injection, ...] = ()
    #: Regions to summarize before the next inference (a compacting edge was taken).
    compact: tuple[str, ...] = ()
    #: The text an interaction point presents again after an edit.
    body: str | None = None
    #: Answers that landed while paused, replayed on resume.
    parked: tuple[Event, ...] = ()
    #: The status to restore on resume.
    resume_status: str | None = None
    #: Why the run failed, for terminal statuses other than complete.
    reason: str | None = None
    #: How a complete run ended: `terminal` (no edge left) or `done` (the model said DONE).
    done_via: str | None = None
    #: Host options fixed at start.
    unattended: bool = False
    global_nudge: NudgeConfig | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def region(self, name: str) -> RegionSnapshot:
        return self.regions.get(name, EMPTY_REGION)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state_version": STATE_VERSION}
        values = self.__dict__
        for name in _FIELDS[RunState]:
            value = values[name]
            if type(value) in _PLAIN:
                out[name] = value
            else:
                out[name] = [event_to_dict(e) for e in value] if name == "parked" else _encode(value)
        return out

    def to_json(self) -> str:
        return _JSON.encode(self.to_dict())

    @classmethod
    def from_dict(cls, data: Any) -> "RunState":
        if not isinstance(data, dict):
            raise StateError("a run state is a JSON object")
        version = data.get("state_version")
        if version != STATE_VERSION:
            raise StateError(f"unsupported state_version {version!r} (this runner reads {STATE_VERSION})")
        try:
            return _decode_state(data)
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            if isinstance(exc, StateError):
                raise
            raise StateError(f"malformed run state: {exc}") from exc

    @classmethod
    def from_json(cls, text: str | bytes) -> "RunState":
        try:
            data = json.loads(text)
        except (ValueError, TypeError) as exc:
            raise StateError(f"a run state must be JSON: {exc}") from exc
        return cls.from_dict(data)


def flags_report(state: RunState) -> dict[str, Any]:
    """The flags as a host records them, with the two computed at the end of a run."""
    flags = state.flags
    produced = state.final_output is not None
    out = _encode(flags)
    out["produced_output"] = produced
    out["empty_output"] = (
        state.terminal and flags.modified_file_count == 0 and not produced and not flags.no_output_tools
    )
    return out


# --- encoding ---------------------------------------------------------------------------------

_RECORDS = (RegionSnapshot, Injection, Outcome, Visit, Flags)
#: Field names per record type, in declaration order (looked up once, not per call).
_FIELDS: dict[type, tuple[str, ...]] = {cls: tuple(f.name for f in fields(cls)) for cls in (*_RECORDS, RunState)}
#: `json.dumps(…, ensure_ascii=False, separators=(",", ":"))`, built once: `dumps` builds an
#: encoder on every call when given options.
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
#: Values that are their own JSON form (most fields of a state): no call to encode them.
_PLAIN = frozenset({str, int, float, bool, type(None)})


def _encode(value: Any) -> Any:
    kind = type(value)
    if kind in _PLAIN:
        return value
    names = _FIELDS.get(kind)
    if names is not None:
        values = value.__dict__
        out = {}
        for name in names:
            item = values[name]
            out[name] = item if type(item) in _PLAIN else _encode(item)
        return out
    if kind is dict:
        return {k: v if type(v) in _PLAIN else _encode(v) for k, v in value.items()}
    if kind is tuple:
        return [v if type(v) in _PLAIN else _encode(v) for v in value]
    if kind is NudgeConfig:
        return {"enabled": value.enabled, "max": value.max, "text": value.text}
    return value


# --- decoding: strict, with a StateError naming the field that is wrong -----------------------

Reader = Callable[[Any, str], Any]


def _check(value: Any, types: tuple[type, ...], what: str) -> Any:
    if type(value) not in types:
        raise StateError(f"{what} has the wrong type")
    return value


_INT, _NUM, _STR, _BOOL, _LIST, _DICT = (int,), (int, float), (str,), (bool,), (list,), (dict,)


def _int(value: Any, what: str) -> int:
    if type(value) is not int:
        raise StateError(f"{what} has the wrong type")
    return value


def _str(value: Any, what: str) -> str:
    if type(value) is not str:
        raise StateError(f"{what} has the wrong type")
    return value


def _bool(value: Any, what: str) -> bool:
    if type(value) is not bool:
        raise StateError(f"{what} has the wrong type")
    return value


def _opt_str(value: Any, what: str) -> str | None:
    return None if value is None else _check(value, _STR, what)


def _opt_num(value: Any, what: str) -> float | None:
    return None if value is None else _check(value, _NUM, what)


def _strs(value: Any, what: str) -> tuple[str, ...]:
    if type(value) is not list or not all(type(v) is str for v in value):
        raise StateError(f"{what} has the wrong type")
    return tuple(value)


def _int_map(value: Any, what: str) -> dict[str, int]:
    if type(value) is not dict or not all(type(k) is str and type(v) is int for k, v in value.items()):
        raise StateError(f"{what} has the wrong type")
    return dict(value)


def _str_map(value: Any, what: str) -> dict[str, str]:
    if type(value) is not dict or not all(type(k) is str and type(v) is str for k, v in value.items()):
        raise StateError(f"{what} has the wrong type")
    return dict(value)


def _pairs(value: Any, what: str) -> tuple[tuple[str, str], ...]:
    out = []
    for item in _check(value, _LIST, what):
        if len(_check(item, _LIST, what)) != 2:
            raise StateError(f"{what} holds a pair of the wrong length")
        out.append((_check(item[0], _STR, what), _check(item[1], _STR, what)))
    return tuple(out)


#: Readers that only check for one exact type.
_EXACT: dict[Reader, type] = {_int: int, _str: str, _bool: bool}


def _member(allowed: tuple[str, ...]) -> Reader:
    def read(value: Any, what: str) -> str:
        if value not in allowed:
            raise StateError(f"{what} must be one of {', '.join(allowed)}")
        return value

    return read


def _record(cls: type, readers: dict[str, Reader]) -> Reader:
    """A reader that builds `cls` field by field, a missing field taking its default.

    The record is assembled directly (as `run.evolve` does): a frozen dataclass's `__init__`
    costs a call per field, and a state is read back after every persisted step.
    """
    spec = tuple(
        (
            f.name,
            _EXACT.get(readers[f.name]),
            readers[f.name],
            None if f.default_factory is MISSING else f.default_factory,
            f.default,
        )
        for f in fields(cls)
    )

    def read(data: Any, what: str) -> Any:
        _check(data, _DICT, what)
        values: dict[str, Any] = {}
        for name, exact, reader, factory, default in spec:
            if name in data:
                value = data[name]
                if exact is None:
                    values[name] = reader(value, name)
                elif type(value) is exact:  # `_int`, `_str`, `_bool` inline: most fields are one
                    values[name] = value
                else:
                    raise StateError(f"{name} has the wrong type")
            elif factory is not None:
                values[name] = factory()
            elif default is not MISSING:
                values[name] = default
            else:
                raise StateError(f"{what} lacks '{name}'")
        record = object.__new__(cls)
        object.__setattr__(record, "__dict__", values)
        return record

    return read


def _injection(data: Any, what: str) -> Injection:
    _check(data, _DICT, what)
    return Injection(region=_str(data["region"], what), text=_str(data["text"], what), kind=_str(data["kind"], what))


def _outcome(data: Any, what: str) -> Outcome | None:
    if data is None:
        return None
    _check(data, _DICT, what)
    return Outcome(_str(data["kind"], what), _str(data["detail"], what))


def _nudge(data: Any, what: str) -> NudgeConfig | None:
    if data is None:
        return None
    _check(data, _DICT, what)
    enabled, most, text = data.get("enabled"), data.get("max"), data.get("text")
    return NudgeConfig(
        enabled=None if enabled is None else _bool(enabled, what),
        max=None if most is None else _int(most, what),
        text=_opt_str(text, what),
    )


def _parked(data: Any, what: str) -> tuple[Event, ...]:
    events = tuple(event_from_dict(item) for item in _check(data, _LIST, what))
    if any(e is None for e in events):
        raise StateError("a parked event cannot be read")
    return events  # type: ignore[return-value]


_read_visit = _record(
    Visit,
    {
        **dict.fromkeys(
            "iterations tool_calls nudges modifications blocked_modifications gate_reentries "
            "required_rounds output_rounds fan_out_rounds point_cursor point_rounds model_index".split(),
            _int,
        ),
        "edits": _int_map,
        "entry_digests": _str_map,
        "stuck_since": _opt_num,
        "stuck_fired": _bool,
        "fanned_out": _bool,
    },
)
_read_flags = _record(
    Flags,
    {
        **dict.fromkeys(
            "max_iterations_hit gates_forced output_forced splits_degraded modified_file_count "
            "searches_run searches_empty".split(),
            _int,
        ),
        "required_regions_abandoned": _strs,
        "modified_files": _strs,
        "workspace_lost": _bool,
        "no_output_tools": _bool,
    },
)
_read_snapshot = _record(RegionSnapshot, {"hash": _str, "entries": _int, "open_items": _pairs})
_read_state = _record(
    RunState,
    {
        "stage": _str,
        "status": _member(STATUSES),
        "phase": _member(PHASES),
        "clock": lambda v, w: _check(v, _NUM, w),
        "iteration": _int,
        "requests": _int,
        "visits": _int_map,
        "visit": _read_visit,
        "flags": _read_flags,
        "final_output": _opt_str,
        "regions": lambda v, w: {_str(k, w): _read_snapshot(x, w) for k, x in _check(v, _DICT, w).items()},
        "children": _strs,
        "outcome": _outcome,
        "offer": _strs,
        "inject": lambda v, w: tuple(_injection(i, w) for i in _check(v, _LIST, w)),
        "compact": _strs,
        "body": _opt_str,
        "parked": _parked,
        "resume_status": lambda v, w: None if v is None else _member(STATUSES)(v, w),
        "reason": _opt_str,
        "done_via": _opt_str,
        "unattended": _bool,
        "global_nudge": _nudge,
    },
)


def _decode_state(data: dict[str, Any]) -> RunState:
    if "stage" not in data:
        raise StateError("a run state names its stage")
    return _read_state(data, "state")
