"""The JSON form of a `RunState`: encoding, and a strict reader that names the wrong field.

A host may persist the state after every step, so both directions are on the hot path.

Encoding hands the state to the JSON encoder's C core, which calls back only for our records
and answers with the record's own `__dict__`. That relies on one invariant: a record's
`__dict__` holds exactly its fields, in declaration order. A dataclass `__init__` makes it so,
`run.evolve` and the `Run` working copies keep it (they copy and update existing keys), and
the reader below builds records in that order (tests compare `to_json` with `to_dict`).

Reading checks a record's plain fields with one lookup per record whenever their types have
been seen before, and runs a per-field reader only for containers and enumerations. Anything
unusual (a missing or extra field, keys out of order, a wrong type, a value out of range)
takes the field-by-field path, which decides what is accepted and which error is raised.

Ranges are part of each field's reader, so a new field states its range in its one line of
the tables below: `_count` (a non-negative integer: every counter, index and total),
`_finite` (a finite number: the clock), `_count_map` (names → counts). A saved state that
breaks one is a `StateError` naming the field, never a run that counts from -1000.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import MISSING, fields
from functools import partial
from operator import itemgetter
from typing import TYPE_CHECKING, Any, cast, get_args

from ..ir.model import NudgeConfig
from .events import Event, event_from_dict, event_to_dict
from .records import (
    PHASES,
    READABLE_STATE_VERSIONS,
    STATE_VERSION,
    STATUSES,
    Flags,
    Injection,
    Outcome,
    RegionSnapshot,
    StateError,
    Visit,
)

if TYPE_CHECKING:
    from .state import RunState

# --- encoding ---------------------------------------------------------------------------------

_RECORDS = (RegionSnapshot, Injection, Outcome, Visit, Flags)
#: Field names per record type, in declaration order (looked up once, not per call).
_FIELDS: dict[type, tuple[str, ...]] = {cls: tuple(f.name for f in fields(cls)) for cls in _RECORDS}
_RECORD_TYPES = frozenset(_RECORDS)
_EVENTS = frozenset(get_args(Event))
#: Values that are their own JSON form (most fields of a state): no call to encode them.
_PLAIN = frozenset({str, int, float, bool, type(None)})


def _default(value: Any) -> Any:
    """The JSON form of what the encoder does not know itself: our records, nudges, events."""
    kind = type(value)
    if kind in _RECORD_TYPES:
        return value.__dict__  # its fields in order (see the module docstring): no new dict
    if kind is NudgeConfig:
        return {"enabled": value.enabled, "max": value.max, "text": value.text}
    if kind in _EVENTS:
        return event_to_dict(value)
    raise TypeError(f"a run state holds a {kind.__name__}, which has no JSON form")


#: `json.dumps(…, ensure_ascii=False, separators=(",", ":"))`, built once (`dumps` builds an
#: encoder per call when given options). A state has no cycles: skipping the check saves
#: an id lookup per container.
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False, default=_default)


def state_json(state: "RunState") -> str:
    return _JSON.encode({"state_version": STATE_VERSION, **state.__dict__})


def state_dict(state: "RunState") -> dict[str, Any]:
    """The state as plain JSON data, field by field: what `state_json` writes (tests compare them)."""
    out: dict[str, Any] = {"state_version": STATE_VERSION}
    for name, value in state.__dict__.items():  # its fields in order (see the module docstring)
        if type(value) in _PLAIN:
            out[name] = value
        else:
            out[name] = [event_to_dict(e) for e in value] if name == "parked" else encode(value)
    return out


def encode(value: Any) -> Any:
    """A record, or a dict / tuple of them, as plain JSON data."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    names = _FIELDS.get(kind)
    if names is not None:
        values = value.__dict__
        out = {}
        for name in names:
            item = values[name]
            out[name] = item if type(item) in _PLAIN else encode(item)
        return out
    if kind is dict:
        return {k: v if type(v) in _PLAIN else encode(v) for k, v in value.items()}
    if kind is tuple:
        return [v if type(v) in _PLAIN else encode(v) for v in value]
    if kind is NudgeConfig:
        return {"enabled": value.enabled, "max": value.max, "text": value.text}
    return value


# --- decoding: strict, with a StateError naming the field that is wrong -----------------------

Reader = Callable[[Any, str], Any]


def _check(value: Any, types: tuple[type, ...], what: str) -> Any:
    if type(value) not in types:
        raise StateError(f"{what} has the wrong type")
    return value


_NUM, _STR, _LIST, _DICT = (int, float), (str,), (list,), (dict,)
_NONE = type(None)


def _str(value: Any, what: str) -> str:
    if type(value) is not str:
        raise StateError(f"{what} has the wrong type")
    return value


def _bool(value: Any, what: str) -> bool:
    if type(value) is not bool:
        raise StateError(f"{what} has the wrong type")
    return value


def _count(value: Any, what: str) -> int:
    if type(value) is not int:
        raise StateError(f"{what} has the wrong type")
    if value < 0:
        raise StateError(f"{what} must not be negative (got {value})")
    return value


def _is_finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond any float
        return False


def _finite(value: Any, what: str) -> float:
    if not _is_finite(_check(value, _NUM, what)):
        raise StateError(f"{what} must be a finite number (got {str(value)[:30]})")
    return cast(float, value)


def _opt_finite(value: Any, what: str) -> float | None:
    return None if value is None else _finite(value, what)


def _opt_str(value: Any, what: str) -> str | None:
    return None if value is None else _check(value, _STR, what)


# The container checks compare the set of element types (built in C) with the one allowed:
# a Python-level loop over the elements costs several times more.
_ONLY_STR, _ONLY_INT = {str}, {int}


def _strs(value: Any, what: str) -> tuple[str, ...]:
    if type(value) is not list or (value and set(map(type, value)) != _ONLY_STR):
        raise StateError(f"{what} has the wrong type")
    return tuple(value)


def _count_map(value: Any, what: str) -> dict[str, int]:
    if type(value) is not dict or (
        value and (set(map(type, value)) != _ONLY_STR or set(map(type, value.values())) != _ONLY_INT)
    ):
        raise StateError(f"{what} has the wrong type")
    if value and min(value.values()) < 0:
        raise StateError(f"{what} must hold no negative count (got {min(value.values())})")
    return value.copy()


def _str_map(value: Any, what: str) -> dict[str, str]:
    if type(value) is not dict or (
        value and (set(map(type, value)) != _ONLY_STR or set(map(type, value.values())) != _ONLY_STR)
    ):
        raise StateError(f"{what} has the wrong type")
    return value.copy()


def _pairs(value: Any, what: str) -> tuple[tuple[str, str], ...]:
    out = []
    for item in _check(value, _LIST, what):
        if len(_check(item, _LIST, what)) != 2:
            raise StateError(f"{what} holds a pair of the wrong length")
        out.append((_check(item[0], _STR, what), _check(item[1], _STR, what)))
    return tuple(out)


#: Readers that accept exactly these types and return the value itself: a field read by one
#: needs no call once its type is known to be right.
_SCALAR: dict[Reader, frozenset[type]] = {
    _str: frozenset({str}),
    _bool: frozenset({bool}),
    _opt_str: frozenset({str, _NONE}),
    # These check a range too (see `_record`).
    _count: frozenset({int}),
    _finite: frozenset({int, float}),
    _opt_finite: frozenset({int, float, _NONE}),
}


def _member(allowed: tuple[str, ...]) -> Reader:
    def read(value: Any, what: str) -> str:
        if value not in allowed:
            raise StateError(f"{what} must be one of {', '.join(allowed)}")
        return cast(str, value)

    return read


def _record(cls: type, readers: dict[str, Reader], ignored: str | None = None) -> Reader:
    """A reader that builds `cls` from a JSON object, a missing field taking its default.

    `ignored`: a key the object may hold before the fields (as `to_json` writes it). The
    record is assembled directly (as `run.evolve` does): a frozen dataclass's `__init__`
    costs a call per field.
    """
    names = tuple(f.name for f in fields(cls))
    written = names if ignored is None else (ignored, *names)
    scalar_names = tuple(name for name in names if readers[name] in _SCALAR)
    scalars = itemgetter(*scalar_names)
    allowed = tuple(_SCALAR[readers[name]] for name in scalar_names)
    #: Fields that keep a reader call on the fast path: containers, records, enumerations.
    nested = tuple((name, readers[name]) for name in names if readers[name] not in _SCALAR)
    #: Type patterns of the scalar fields known to be right (a bounded set: each field
    #: allows at most three types).
    good: set[tuple[type, ...]] = set()
    in_range = _range_check(
        tuple(name for name in scalar_names if readers[name] is _count),
        tuple(name for name in scalar_names if readers[name] in (_finite, _opt_finite)),
    )
    slow = _field_by_field(cls, names, readers)

    def read(data: Any, what: str) -> Any:
        if type(data) is not dict:
            return slow(data, what)
        keys = tuple(data)
        if keys != written and keys != names:
            return slow(data, what)  # a field missing, an extra key, or keys out of order
        kinds = tuple(map(type, scalars(data)))
        if kinds not in good:
            if not all(kind in types for kind, types in zip(kinds, allowed)):
                return slow(data, what)  # raises, naming the first wrong field
            good.add(kinds)
        if in_range is not None and not in_range(data):
            return slow(data, what)  # raises, naming the first field out of range
        values = data.copy()  # the fields in order (the keys were compared): one C call
        if ignored is not None and ignored in values:
            del values[ignored]
        for name, reader in nested:  # in declaration order, so the first wrong one is named
            values[name] = reader(values[name], name)
        record: Any = object.__new__(cls)
        object.__setattr__(record, "__dict__", values)
        return record

    return read


def _range_check(counts: tuple[str, ...], finite: tuple[str, ...]) -> Callable[[dict[str, Any]], bool] | None:
    """Whether a record's scalar fields are in range (their types already known right): the
    counts all at once with `min`, the few finite numbers one by one. None: nothing to check."""
    get_counts = itemgetter(*counts) if len(counts) > 1 else (lambda data: (data[counts[0]],)) if counts else None
    if get_counts is None and not finite:
        return None

    def check(data: dict[str, Any]) -> bool:
        if get_counts is not None and min(get_counts(data)) < 0:
            return False
        for name in finite:
            value = data[name]
            if value is not None and not _is_finite(value):
                return False
        return True

    return check


def _field_by_field(cls: type, names: tuple[str, ...], readers: dict[str, Reader]) -> Reader:
    """The reference reader of `_record`: every field in turn, defaults for missing ones."""
    spec = tuple(
        (f.name, readers[f.name], None if f.default_factory is MISSING else f.default_factory, f.default)
        for f in fields(cls)
    )

    def read(data: Any, what: str) -> Any:
        _check(data, _DICT, what)
        values: dict[str, Any] = {}
        for name, reader, factory, default in spec:
            if name in data:
                values[name] = reader(data[name], name if what == "state" else f"{what}.{name}")
            elif factory is not None:
                values[name] = factory()
            elif default is not MISSING:
                values[name] = default
            else:
                raise StateError(f"{what} lacks '{name}'")
        record: Any = object.__new__(cls)
        object.__setattr__(record, "__dict__", values)
        return record

    return read


def _injection(data: Any, what: str) -> Injection:
    _check(data, _DICT, what)
    region = _str(data["region"], what)
    text = _str(data["text"], what)
    kind = _str(data["kind"], what)
    injection = object.__new__(Injection)  # as `_record` does: no frozen `__init__`
    object.__setattr__(injection, "__dict__", {"region": region, "text": text, "kind": kind})
    return injection


def _injections(data: Any, what: str) -> tuple[Injection, ...]:
    if type(data) is list and not data:
        return ()
    return tuple([_injection(i, what) for i in _check(data, _LIST, what)])


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
        max=None if most is None else _count(most, f"{what}.max"),
        text=_opt_str(text, what),
    )


def _parked(data: Any, what: str) -> tuple[Event, ...]:
    if type(data) is list and not data:  # nearly always: answers park only while paused
        return ()
    events: list[Event] = []
    for item in _check(data, _LIST, what):
        event = event_from_dict(item)
        if event is None:
            raise StateError("a parked event cannot be read")
        events.append(event)
    return tuple(events)


def _regions(data: Any, what: str) -> dict[str, RegionSnapshot]:
    if type(data) is dict and not data:
        return {}
    return {_str(k, what): _read_snapshot(x, what) for k, x in _check(data, _DICT, what).items()}


def _resume_status(value: Any, what: str) -> str | None:
    return None if value is None else _status(value, what)


#: How deeply host data may nest (JSON readers and writers recurse on nesting).
HOST_DEPTH = 64


def host_copy(data: Any) -> Any:
    """A copy of the host's data, which must be a JSON value: objects with string keys, arrays
    (a tuple becomes one), strings, finite numbers, booleans and null, nested at most
    `HOST_DEPTH` deep. `TypeError` for another kind of value, `ValueError` for a number that is
    not finite or nesting too deep."""
    return _host_value(data, 0)


def _host_value(value: Any, depth: int) -> Any:
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise ValueError(f"host data holds a number that is not finite ({value})")
        return value
    if depth >= HOST_DEPTH:
        raise ValueError(f"host data nests more than {HOST_DEPTH} levels deep")
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise TypeError(f"host data keys are strings, not {type(key).__name__} ({key!r})")
            out[key] = _host_value(item, depth + 1)
        return out
    if kind is list or kind is tuple:
        return [_host_value(item, depth + 1) for item in value]
    raise TypeError(f"host data is a JSON value, not {kind.__name__}")


def _host(value: Any, what: str) -> Any:
    if value is None:
        return None
    try:
        return _host_value(value, 0)
    except (TypeError, ValueError) as exc:
        raise StateError(f"{what}: {exc}") from exc


_status = _member(STATUSES)
_read_visit = _record(
    Visit,
    {
        **dict.fromkeys(
            "iterations tool_calls nudges modifications blocked_modifications gate_reentries "
            "required_rounds output_rounds fan_out_rounds point_cursor point_rounds model_index".split(),
            _count,
        ),
        "edits": _count_map,
        "entry_digests": _str_map,
        "stuck_since": _opt_finite,
        "stuck_fired": _bool,
        "fanned_out": _bool,
    },
)
_read_flags = _record(
    Flags,
    {
        **dict.fromkeys(
            "max_iterations_hit gates_forced output_forced splits_degraded modified_file_count "
            "searches_run searches_empty revisits_forced routing_fallbacks".split(),
            _count,
        ),
        "required_regions_abandoned": _strs,
        "modified_files": _strs,
        "workspace_lost": _bool,
        "no_output_tools": _bool,
    },
)
_read_snapshot = _record(RegionSnapshot, {"hash": _str, "entries": _count, "open_items": _pairs})


def state_reader(state_class: type["RunState"]) -> Callable[[Any], "RunState"]:
    """The strict reader of `state_class` (`RunState`, which passes itself: the state module
    imports this one, never the other way round)."""
    read = _record(
        state_class,
        {
            "stage": _str,
            "run_id": _str,
            "blueprint": _str,
            "status": _status,
            "phase": _member(PHASES),
            "clock": _finite,
            "iteration": _count,
            "requests": _count,
            "seq": _count,
            "dispatched": _bool,
            "visits": _count_map,
            "visit": _read_visit,
            "flags": _read_flags,
            "final_output": _opt_str,
            "regions": _regions,
            "children": _strs,
            "outcome": _outcome,
            "offer": _strs,
            "inject": _injections,
            "compact": _strs,
            "body": _opt_str,
            "reply": _opt_str,
            "parked": _parked,
            "resume_status": _resume_status,
            "reason": _opt_str,
            "done_via": _opt_str,
            "unattended": _bool,
            "global_nudge": _nudge,
            "default_max_iterations": _count,
            "host": _host,
        },
        ignored="state_version",
    )

    return partial(_read_state, read)


def _read_state(read: Reader, data: Any) -> "RunState":
    """`RunState.from_dict`: the state of a decoded JSON document, or a StateError."""
    if not isinstance(data, dict):
        raise StateError("a run state is a JSON object")
    version = data.get("state_version")
    if type(version) is not int or version not in READABLE_STATE_VERSIONS:
        readable = ", ".join(map(str, READABLE_STATE_VERSIONS))
        raise StateError(f"unsupported state_version {version!r} (this runner reads {readable})")
    if "stage" not in data:
        raise StateError("a run state names its stage")
    try:
        state: RunState = read(data, "state")
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        if isinstance(exc, StateError):
            raise
        raise StateError(f"malformed run state: {exc}") from exc
    if version == 1 and "default_max_iterations" not in data:
        state.__dict__["default_max_iterations"] = 0  # a fresh record of ours: no default cap then
    return state
