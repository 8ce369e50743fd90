"""Model values ⇄ JSON values, driven by the dataclass type hints of `compiler.ir.model`.

One `Codec` (an encoder and a decoder) per type hint, built on first use and cached, so a
field added to the model needs no code here. The choices a generic walk cannot make:

- a dataclass is an object with every field, in declaration order;
- `tuple[X, ...]` is an array; a fixed tuple such as a `(key, value)` pair is an array of
  that length, so order and repeats survive in every reader;
- a float is always a JSON float (`35.0`); NaN and the infinities are the strings of
  `NON_FINITE`, since JSON has no literal for them;
- `bool` is never an integer and an integer never a bool, whatever Python thinks;
- every integer is a count, a size or a limit, never negative; the fields of `MINIMUMS` must
  be at least their minimum (reading checks both; the IR schema says so too);
- opaque values (`Any`, `dict[str, Any]`) are JSON data, copied both ways so a model never
  shares mutable state with a document; TOML dates and times become ISO 8601 text and a
  non-finite float null, as the builder (and the reference's converter) does.

A value that does not fit raises `Invalid`, whose path is filled in while it unwinds.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

from compiler.records import record

#: How non-finite floats are spelled (JSON has no literal for them; these are JavaScript's).
NON_FINITE: dict[str, float] = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


#: (model class name, field) → the least value the field may hold, where more than zero (as
#: the blueprint schema demands). One line per field; `None` ("unset") is always allowed.
MINIMUMS: dict[tuple[str, str], int] = {
    ("StuckThresholds", "iterations"): 1,
    ("StuckThresholds", "minutes"): 1,
    ("StuckThresholds", "same_file_edits"): 1,
    ("StuckThresholds", "tool_calls"): 1,
}


class Invalid(Exception):
    """A value that does not fit its type, with the path to it (filled in while unwinding)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path: list[str | int] = []

    def at(self, part: str | int) -> None:
        """Record that the value lies under `part` (called by each container, innermost first)."""
        self.path.insert(0, part)

    def where(self, root: str = "") -> str:
        out = root
        for part in self.path:
            out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
        return out or "(top)"


@record
class Codec:
    """How one type is written to JSON and read back."""

    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]


_CODECS: dict[Any, Codec] = {}


def codec_for(hint: Any) -> Codec:
    """The (cached) codec of a type hint; `TypeError` for a type the IR cannot hold."""
    codec = _CODECS.get(hint)
    if codec is None:
        codec = _CODECS[hint] = _make_codec(hint)
    return codec


def _make_codec(hint: Any) -> Codec:
    if hint is Any:
        return Codec(_opaque_out, _opaque_in)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _dataclass_codec(hint)
    if hint in _SCALARS:
        return _SCALARS[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return _literal_codec(args)
    if origin in (Union, types.UnionType) and type(None) in args and len(args) == 2:
        return _optional_codec(codec_for(next(a for a in args if a is not type(None))))
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return _sequence_codec(codec_for(args[0]))
    if origin is tuple and args and Ellipsis not in args:
        return _fixed_tuple_codec(tuple(codec_for(a) for a in args))
    if origin is dict and args and args[0] is str and args[1] is Any:
        return Codec(_opaque_object_out, _opaque_object_in)
    raise TypeError(f"the IR has no JSON form for the type {hint!r}")


def _dataclass_codec(cls: type) -> Codec:
    hints = typing.get_type_hints(cls)
    names = tuple(f.name for f in dataclasses.fields(cls))
    known = frozenset(names)
    # Filled lazily: a dataclass may (indirectly) contain itself.
    codecs: list[tuple[str, Codec]] = []

    def resolved() -> list[tuple[str, Codec]]:
        if not codecs:
            codecs.extend(
                (name, _bounded(codec_for(hints[name]), MINIMUMS.get((cls.__name__, name)))) for name in names
            )
        return codecs

    def encode(value: Any) -> dict[str, Any]:
        if not isinstance(value, cls):
            raise Invalid(f"expected {cls.__name__}, got {type(value).__name__}")
        out: dict[str, Any] = {}
        for name, codec in resolved():  # inlined `_at`: the hot loop of every IR write
            try:
                out[name] = codec.encode(getattr(value, name))
            except Invalid as exc:
                exc.at(name)
                raise
        return out

    def decode(value: Any) -> Any:
        if not isinstance(value, dict):
            raise Invalid(f"expected an object ({cls.__name__}), got {json_type(value)}")
        if value.keys() != known:
            unknown = [k for k in value if k not in known]
            if unknown:
                raise Invalid(f"unknown key {unknown[0]!r} in {cls.__name__}")
            missing = next(n for n in names if n not in value)
            raise Invalid(f"missing key {missing!r} of {cls.__name__}")
        kwargs = {}
        for name, codec in resolved():  # inlined `_at`, as in `encode`
            try:
                kwargs[name] = codec.decode(value[name])
            except Invalid as exc:
                exc.at(name)
                raise
        return cls(**kwargs)

    return Codec(encode, decode)


def _scalar(kind: type, label: str) -> Codec:
    def encode(value: Any) -> Any:
        # A subclass (say, a tomlkit item) is written as its base type; bool is an int to
        # Python, never to the IR, and an int is never a bool.
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise Invalid(f"expected {label}, got {json_type(value)}")
        return value if type(value) is kind else kind(value)

    def decode(value: Any) -> Any:
        if type(value) is not kind:
            raise Invalid(f"expected {label}, got {json_type(value)}")
        if kind is int and isinstance(value, int) and value < 0:
            raise Invalid(f"must not be negative, got {value}")
        return value

    return Codec(encode, decode)


def _bounded(codec: Codec, minimum: int | None) -> Codec:
    """`codec`, whose reader also refuses a number below `minimum` (None: no extra bound)."""
    if minimum is None:
        return codec

    def decode(value: Any) -> Any:
        out = codec.decode(value)
        if out is not None and out < minimum:
            raise Invalid(f"must be at least {minimum}, got {out}")
        return out

    return Codec(codec.encode, decode)


def _float_out(value: Any) -> Any:
    if not isinstance(value, (float, int)) or isinstance(value, bool):
        raise Invalid(f"expected a number, got {json_type(value)}")
    return _finite_or_name(_as_float(value))


def _float_in(value: Any) -> float:
    if type(value) in (float, int):
        return _as_float(value)
    if isinstance(value, str) and value in NON_FINITE:
        return NON_FINITE[value]
    raise Invalid(f"expected a number, got {json_type(value)}")


def _as_float(value: float | int) -> float:
    try:
        return float(value)
    except OverflowError:
        raise Invalid(f"the number {value} is too large for a float") from None


def _finite_or_name(value: float) -> float | str:
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


_SCALARS: dict[Any, Codec] = {
    str: _scalar(str, "a string"),
    int: _scalar(int, "an integer"),
    bool: _scalar(bool, "true or false"),
    float: Codec(_float_out, _float_in),
}


def _literal_codec(allowed: tuple[Any, ...]) -> Codec:
    def check(value: Any) -> Any:
        if not any(type(value) is type(a) and value == a for a in allowed):
            choices = ", ".join(json.dumps(a) for a in allowed)
            raise Invalid(f"expected one of {choices}, got {json_type(value)}")
        return value

    return Codec(check, check)


def _optional_codec(inner: Codec) -> Codec:
    return Codec(
        lambda v: None if v is None else inner.encode(v),
        lambda v: None if v is None else inner.decode(v),
    )


def _sequence_codec(item: Codec) -> Codec:
    def encode(value: Any) -> list[Any]:
        if not isinstance(value, (tuple, list)):
            raise Invalid(f"expected a tuple, got {type(value).__name__}")
        return _each(item.encode, value)

    def decode(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise Invalid(f"expected an array, got {json_type(value)}")
        return tuple(_each(item.decode, value))

    return Codec(encode, decode)


def _fixed_tuple_codec(items: tuple[Codec, ...]) -> Codec:
    def encode(value: Any) -> list[Any]:
        if not isinstance(value, (tuple, list)) or len(value) != len(items):
            raise Invalid(f"expected a tuple of {len(items)}, got {value!r}")
        return [_at(i, codec.encode, v) for i, (codec, v) in enumerate(zip(items, value, strict=True))]

    def decode(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list) or len(value) != len(items):
            raise Invalid(f"expected an array of {len(items)} items, got {json_type(value)}")
        return tuple(_at(i, codec.decode, v) for i, (codec, v) in enumerate(zip(items, value, strict=True)))

    return Codec(encode, decode)


def _each(convert: Callable[[Any], Any], values: Any) -> list[Any]:
    return [_at(index, convert, value) for index, value in enumerate(values)]


def _members(table: dict[Any, Any], convert: Callable[[Any], Any], key_kind: str) -> dict[str, Any]:
    """A table converted value by value; its keys must be strings."""
    out: dict[str, Any] = {}
    for key, item in table.items():
        if not isinstance(key, str):
            raise Invalid(f"{key_kind} {key!r} is not a string")
        out[key] = _at(key, convert, item)
    return out


def _at(part: str | int, convert: Callable[[Any], Any], value: Any) -> Any:
    """`convert(value)`, recording `part` on the way out of an `Invalid` raised under it."""
    try:
        return convert(value)
    except Invalid as exc:
        exc.at(part)
        raise


# --- opaque JSON values -------------------------------------------------------------------


def _opaque_out(value: Any) -> Any:
    """A TOML-derived value as JSON data: containers copied, key order kept."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return _opaque_object_out(value)
    if isinstance(value, (list, tuple)):
        return _each(_opaque_out, value)
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
        return value.isoformat()
    raise Invalid(f"{type(value).__name__} has no JSON form")


def _opaque_object_out(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid(f"expected a table, got {type(value).__name__}")
    return _members(value, _opaque_out, "table key")


def _opaque_in(value: Any) -> Any:
    """A JSON value copied (the model must not share mutable state with the caller's dict)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, dict):
        return _opaque_object_in(value)
    if isinstance(value, list):
        return _each(_opaque_in, value)
    raise Invalid(f"{type(value).__name__} is not a JSON value")


def _opaque_object_in(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid(f"expected an object, got {json_type(value)}")
    return _members(value, _opaque_in, "object key")


def json_type(value: Any) -> str:
    """How a message names a value it did not expect: `null`, `the string "x"`, `an array`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {json.dumps(value, ensure_ascii=False)[:60]}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


__all__ = ["MINIMUMS", "NON_FINITE", "Codec", "Invalid", "codec_for", "json_type"]
