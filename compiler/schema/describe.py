"""Words for schema findings: TOML type names, short value previews, table names, suggestions.

Messages speak TOML, not JSON: a user wrote a table, a float or a local date, never an
"object" or a "number".
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..diagnostics import KeyPath, format_key, format_key_path
from ..suggestions import closest

_JSON_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "object": "a table",
    "array": "an array",
    "null": "nothing",
}
_PLURAL = {
    "string": "strings",
    "integer": "integers",
    "number": "numbers",
    "boolean": "booleans",
    "object": "tables",
    "array": "arrays",
}
_PREVIEW_LIMIT = 40


def toml_type(value: Any) -> str:
    """The TOML type of a parsed value, with its article: 'a float', 'an offset date-time'."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    import datetime as dt  # only a date or a time gets this far

    if isinstance(value, dt.datetime):
        return "an offset date-time" if value.tzinfo is not None else "a local date-time"
    if isinstance(value, dt.date):
        return "a local date"
    if isinstance(value, dt.time):
        return "a local time"
    return f"a {type(value).__name__}"


def preview(value: Any) -> str | None:
    """A short TOML-like spelling of a scalar value (None for tables and arrays)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        text = value if len(value) <= _PREVIEW_LIMIT else value[: _PREVIEW_LIMIT - 1] + "…"
        text = "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)
        return f"'{text}'"
    isoformat = getattr(value, "isoformat", None)  # of TOML's other values, dates and times only
    return None if isoformat is None else isoformat()


def expected_type(schema: dict) -> str:
    """What a schema's `type` asks for, in words: 'an integer', 'a string or a table'."""
    if schema.get("x-toml-type") == "float":
        return "a float"
    types = schema.get("type", [])
    types = [types] if isinstance(types, str) else list(types)
    words = []
    for name in types:
        if name == "array":
            item_type = (schema.get("items") or {}).get("type")
            if isinstance(item_type, str) and item_type in _PLURAL:
                words.append(f"an array of {_PLURAL[item_type]}")
                continue
        words.append(_JSON_TYPE_NAMES.get(name, name))
    return " or ".join(words) or "another type"


def dotted(path: KeyPath) -> str:
    """A key path quoted for a message: 'stages.plan.max_iterations'."""
    return f"'{format_key_path(path)}'"


def table_name(path: KeyPath) -> str:
    """How a message names the table at `path`: stage 'plan', edge 'plan' → 'review', …"""
    path = tuple(path)
    if not path:
        return "the top level"
    if len(path) == 2 and path[0] == "stages":
        return f"stage {_quoted(path[1])}"
    if len(path) in (4, 5) and path[0] == "stages" and path[2] == "transitions":
        edge = f"edge {_quoted(path[1])} → {_quoted(path[3])}"
        if len(path) == 4:
            return edge
        if path[4] == "gate":
            return f"the gate of {edge}"
    return f"[{format_key_path(path)}]"


def _quoted(name: object) -> str:
    return f"'{format_key(name) if isinstance(name, str) else name}'"


def _normal(word: str) -> str:
    return word.lower().replace("-", "_").replace(" ", "_")


def suggest(word: Any, candidates: Iterable[str]) -> str | None:
    """The candidate `word` was most likely meant to be, if one is close enough."""
    if not isinstance(word, str):
        return None
    candidates = [c for c in candidates if c != word]
    by_normal = {_normal(c): c for c in candidates}
    if _normal(word) in by_normal:
        return by_normal[_normal(word)]
    close = closest(_normal(word), by_normal)
    return by_normal[close] if close is not None else None


def join_values(values: Iterable[Any]) -> str:
    return ", ".join(str(v) for v in values)
