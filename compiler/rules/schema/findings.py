"""jsonschema errors → one finding per problem, each at the right place, in plain words.

jsonschema describes a failure in its own terms: an `additionalProperties` error sits on the
parent table and names every extra key at once; an `anyOf` error hides its real cause among
the sub-errors of every branch; a value of the wrong type also fails the `enum` beside its
`type`. Users need the opposite: one finding per problem, on the offending key or value, that
says what was expected. This module does that translation and nothing else: it returns plain
`Finding`s; the check in `check.py` turns them into diagnostics.

Schema annotations that steer it (ignored by other tools, Draft-07 valid):
`x-strict` (an unknown key here is refused by the reference, not ignored), `x-hints` (a fix
for a known misplaced key), `x-key-noun` (what the keys of a table are: "hook"),
`x-values` / `x-values-note` (the values of an enumeration checked by `pattern`, such as the
case-insensitive tool policies), `title` (what a value is: "stage mode"), `x-on-wrong-type`
(what the reference does with a value of another type: `refuses:P8` names the rule that
refuses the file; `defaults` and `no-seed` mark values it reads with a meaning, reported by
the lint rules `non-canonical-value` and `region-seed-not-understood` instead; unmarked, it
reads the value as absent).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Literal

from compiler.records import record

from ...diagnostics import KeyPath, format_key_path
from ...rulebook.registry import Rule
from ...schema.describe import dotted, expected_type, join_values, preview, suggest, table_name, toml_type
from ...schema.precheck import is_valid
from ...schema.validator import blueprint_validator, iter_schema_errors
from .codes import (
    EMPTY_ROUTING_OVERRIDE,
    INVALID_TYPE,
    INVALID_VALUE,
    MISSING_AGENT,
    MISSING_KEY,
    OUT_OF_RANGE,
    REJECTED_KEY,
    UNKNOWN_KEY,
)

#: `x-on-wrong-type` outcomes where the reference reads a value of another type with a meaning.
READ_WITH_A_MEANING = ("defaults", "no-seed")
#: A table with more keys than this is not listed in full in a fix hint.
_LIST_KEYS_UP_TO = 12


@record
class Finding:
    rule: Rule
    message: str
    path: KeyPath
    anchor: Literal["key", "value"]
    #: None means the rule's own fix hint.
    fix: str | None = None

    @property
    def code(self) -> str:
        return self.rule.code


def schema_findings(document: dict[str, Any]) -> list[Finding]:
    """Every schema problem of a parsed document, one finding each, in validation order."""
    if is_valid(document):  # the common case, decided without jsonschema (see precheck.py)
        return []
    found: list[Finding] = []
    for error in iter_schema_errors(document):
        found.extend(_translate(error))
    return _one_per_problem(found)


def _one_per_problem(found: list[Finding]) -> list[Finding]:
    """A wrong type is the whole problem: drop the enum/range findings of the same value."""
    typed = {f.path for f in found if f.rule is INVALID_TYPE}
    out: list[Finding] = []
    seen: set[tuple] = set()
    for finding in found:
        if finding.rule is not INVALID_TYPE and finding.path in typed:
            continue
        key = (
            (finding.rule, finding.path)
            if finding.rule is INVALID_TYPE
            else (finding.rule, finding.path, finding.message)
        )
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out


def _translate(error: Any) -> list[Finding]:
    path: KeyPath = tuple(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    instance = error.instance
    keyword = error.validator
    if keyword in ("type", "x-toml-type"):
        if schema.get("x-on-wrong-type") in READ_WITH_A_MEANING:
            return []  # the reference gives it a meaning: a lint rule reports it, with its meaning
        return [_wrong_type(path, instance, schema)]
    if keyword == "enum":
        if not isinstance(instance, str):
            return [_wrong_type(path, instance, {"type": "string", "enum": error.validator_value})]
        return [_bad_value(path, instance, schema, error.validator_value)]
    if keyword in ("anyOf", "oneOf"):
        return _alternatives(error, path, instance, schema)
    if keyword == "pattern" and "x-values" in schema:
        return [_bad_value(path, instance, schema, schema["x-values"])]
    if keyword == "minimum":
        return [_below_minimum(path, instance, error.validator_value)]
    if keyword == "additionalProperties":
        return list(_extra_keys(path, instance, schema))
    if keyword == "required":
        return list(_missing_keys(path, instance, schema, error.validator_value))
    if keyword == "minProperties":
        # Used by one table only: a tool-routing override, which the reference refuses empty.
        return [
            Finding(
                EMPTY_ROUTING_OVERRIDE,
                f"{dotted(path)} is an empty table; the reference refuses to load the file",
                path,
                "value",
            )
        ]
    return [Finding(INVALID_VALUE, f"{dotted(path)}: {_short(error.message)}", path, "value")]


# --- wrong types ----------------------------------------------------------------------------


def _wrong_type(path: KeyPath, instance: Any, schema: dict) -> Finding:
    shown = preview(instance)
    message = f"{dotted(path)} must be {expected_type(schema)}, not {toml_type(instance)}"
    if shown is not None:
        message += f" ({shown})"
    return Finding(INVALID_TYPE, message, path, "value", _type_fix(path, instance, schema))


def _type_fix(path: KeyPath, value: Any, schema: dict) -> str | None:
    """A concrete rewrite when the author's intent is clear."""
    expected = expected_type(schema)
    values = schema.get("enum") or schema.get("x-values")
    if values:
        return f"use one of: {join_values(values)}"
    if expected == "an integer":
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            return f"write {int(value)} (an integer has no decimal point)"
        if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            return f"remove the quotes: {value.strip()}"
    if expected == "a boolean" and isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return f"remove the quotes: {value.strip().lower()}"
    if expected == "a float" and isinstance(value, int) and not isinstance(value, bool):
        return f"write {value}.0 (a float needs a decimal point)"
    if expected.startswith("an array of tables") and isinstance(value, dict):
        return f"write it as an array of tables: [[{format_key_path(path)}]]"
    if expected.startswith("a table") and isinstance(value, list):
        return "write it as a table ([name] or { key = value }), not an array"
    if schema.get("type") == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return f'quote it: "{preview(value)}"'
    return None


# --- enumerations ---------------------------------------------------------------------------


def _bad_value(path: KeyPath, instance: Any, schema: dict, values: Iterable[Any]) -> Finding:
    values = list(values)
    what = schema.get("title") or _last_key(path)
    note = schema.get("x-values-note")
    message = f"{dotted(path)} = {preview(instance)} is not a valid {what}; expected one of: {join_values(values)}"
    if note:
        message += f" ({note})"
    guess = suggest(instance.strip().lower() if note else instance, [str(v) for v in values])
    return Finding(INVALID_VALUE, message, path, "value", f"did you mean '{guess}'?" if guess else None)


def _alternatives(error: Any, path: KeyPath, instance: Any, schema: dict) -> list[Finding]:
    """One finding for a failed anyOf/oneOf: the branch the value was evidently aiming at."""
    if "x-values" in schema and isinstance(instance, str):
        return [_bad_value(path, instance, schema, schema["x-values"])]
    branches = [b if isinstance(b, dict) else {} for b in error.validator_value]
    aimed = [i for i, branch in enumerate(branches) if _accepts_type(branch, instance)]
    if not aimed:
        return [_wrong_type(path, instance, _union(branches))]

    def errors_of(index: int) -> list[Any]:
        return [e for e in error.context if e.relative_schema_path and e.relative_schema_path[0] == index]

    best = min(aimed, key=lambda i: len(errors_of(i)))
    found = [f for sub in errors_of(best) for f in _translate(sub)]
    return found or [Finding(INVALID_VALUE, f"{dotted(path)}: {_short(error.message)}", path, "value")]


def _accepts_type(branch: dict, instance: Any) -> bool:
    types = branch.get("type")
    if types is None:
        return True
    types = [types] if isinstance(types, str) else types
    checker = blueprint_validator().TYPE_CHECKER
    return any(checker.is_type(instance, t) for t in types)


def _union(branches: list[dict]) -> dict:
    types: list[str] = []
    for branch in branches:
        t = branch.get("type", [])
        types.extend([t] if isinstance(t, str) else t)
    return {"type": list(dict.fromkeys(types))}


# --- ranges ---------------------------------------------------------------------------------


def _below_minimum(path: KeyPath, instance: Any, minimum: Any) -> Finding:
    if minimum == 0:
        message = f"{dotted(path)} must not be negative (got {preview(instance)})"
        fix = "use 0 or a positive whole number"
    else:
        message = f"{dotted(path)} must be at least {minimum} (got {preview(instance)})"
        fix = f"use a whole number of at least {minimum}"
        if _last_key(path).startswith("stuck_after_"):
            fix += "; 0 or less leaves the threshold unset, so it never trips"
    return Finding(OUT_OF_RANGE, message, path, "value", fix)


# --- keys -----------------------------------------------------------------------------------


def _extra_keys(path: KeyPath, instance: Any, schema: dict) -> Iterable[Finding]:
    if not isinstance(instance, dict):
        return
    known = list(schema.get("properties", {}))
    strict = bool(schema.get("x-strict"))
    hints = schema.get("x-hints", {})
    noun = schema.get("x-key-noun", "key")
    for key in instance:
        if key in known:
            continue
        name = _name(key)
        where = f"unknown top-level {noun} {name}" if not path else f"unknown {noun} {name} in {table_name(path)}"
        if strict:
            rule, message = REJECTED_KEY, f"{where}; the reference refuses to load the file"
        else:
            rule, message = UNKNOWN_KEY, f"{where}; the reference ignores it"
        yield Finding(rule, message, path + (key,), "key", _key_fix(key, known, hints, noun))


def _key_fix(key: str, known: list[str], hints: dict, noun: str) -> str:
    if key in hints:
        return hints[key]
    guess = suggest(key, known)
    if guess:
        return f"did you mean '{guess}'?"
    if len(known) <= _LIST_KEYS_UP_TO:
        return f"remove it (valid {noun}s here: {join_values(known)})"
    return "remove it, or check its spelling (docs/format.md lists every key)"


def _missing_keys(path: KeyPath, instance: Any, schema: dict, required: Iterable[str]) -> Iterable[Finding]:
    if not isinstance(instance, dict):
        return
    for key in required:
        if key in instance:
            continue
        if not path and key == "agent":
            yield Finding(
                MISSING_AGENT,
                "the [agent] table is missing; the reference refuses to load a blueprint without one",
                (),
                "key",
            )
            continue
        yield Finding(
            MISSING_KEY,
            f"{table_name(path)} is missing {_name(key)}",
            path,
            "key",
            f"add {key} = … ({_describe(schema, key)})" if _describe(schema, key) else f"add '{key}'",
        )


def _describe(schema: dict, key: str) -> str:
    text = str(((schema.get("properties") or {}).get(key) or {}).get("description", ""))
    return text[:1].lower() + text[1:].rstrip(".")


# --- helpers --------------------------------------------------------------------------------


def _last_key(path: KeyPath) -> str:
    for part in reversed(path):
        if isinstance(part, str):
            return part
    return "value"


def _name(key: str) -> str:
    return "'" + "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in key) + "'"


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
