"""Lenient readers for raw TOML values, shared by the model builder.

The reference runtime reads almost every key as "a value of the expected TOML type, else
absent" (format.md R3/R4/R6). These helpers encode exactly that, so the builder never
raises on a document tomllib produced: a table read off a scalar is empty, an integer is
never a bool or a float, a float is never an integer, a list keeps only its strings.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard, TypeVar

Table = Mapping[str, Any]
EMPTY: Table = {}


def table(value: Any) -> Table:
    """`value` when it is a table, else an empty one (R3: keys read off a non-table are absent)."""
    return value if isinstance(value, dict) else EMPTY


def is_table(value: Any) -> bool:
    return isinstance(value, dict)


_Choice = TypeVar("_Choice", bound=str)


def one_of(value: Any, allowed: Iterable[_Choice]) -> _Choice | None:
    """The member of `allowed` (the values of a `Literal` type) that `value` equals, else None."""
    for choice in allowed:
        if value == choice:
            return choice
    return None


def is_int(value: object) -> TypeGuard[int]:
    """A TOML integer: Python's bool is an int subclass, and TOML's booleans are not integers."""
    return isinstance(value, int) and not isinstance(value, bool)


def get_str(t: Table, key: str, default: Any = None) -> Any:
    value = t.get(key)
    return value if isinstance(value, str) else default


def get_trimmed(t: Table, key: str, default: Any = None) -> Any:
    """A string with surrounding whitespace removed (R7), or `default`."""
    value = t.get(key)
    return value.strip() if isinstance(value, str) else default


def get_bool(t: Table, key: str, default: Any = None) -> Any:
    value = t.get(key)
    return value if isinstance(value, bool) else default


def get_int(t: Table, key: str, default: Any = None) -> Any:
    """An integer as written (negatives kept: the schema layer reports them)."""
    value = t.get(key)
    return value if is_int(value) else default


def get_nonneg_int(t: Table, key: str, default: Any = None) -> Any:
    """An integer ≥ 0, else `default` (the keys the reference guards against negatives)."""
    value = t.get(key)
    return value if is_int(value) and value >= 0 else default


def get_positive_int(t: Table, key: str) -> int | None:
    value = t.get(key)
    return value if is_int(value) and value > 0 else None


def get_float(t: Table, key: str, default: Any = None) -> Any:
    """A TOML float; an integer literal does not count (R6)."""
    value = t.get(key)
    return value if isinstance(value, float) else default


def str_list(value: Any) -> tuple[str, ...]:
    """The string elements of an array, in order; anything else is an empty list."""
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, str))


def get_str_list(t: Table, key: str) -> tuple[str, ...]:
    return str_list(t.get(key))


def ascii_lower(value: str) -> str:
    """Lower-case ASCII letters only, as the reference's case-insensitive comparisons do."""
    return value.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def to_json(value: Any) -> Any:
    """A TOML value as plain JSON data: dates and times become their TOML text, and a float
    that JSON cannot hold (nan, ±inf) becomes null, as the reference's converter does."""
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    isoformat = getattr(value, "isoformat", None)  # of TOML's values, dates and times only
    return value if isoformat is None else isoformat()
