"""The blueprint schema validator, built once per process.

Two things differ from a stock Draft-07 validator, both because TOML has types JSON lacks:

- `integer` is a TOML integer only. python-jsonschema counts `10.0` (and, via `bool`'s
  subclassing, `true`) as integers; the reference reads `max_iterations = 10.0` as "absent",
  so for us it is a wrong type. `number` still accepts integers (so `minimum` keeps checking
  them) but never booleans.
- `x-toml-type: "float"` marks keys the reference reads only as a TOML float
  (`compaction.temperature = 1` is ignored there). Draft-07 cannot say "a float, not an
  integer" portably, so this annotation is enforced here and ignored by other tools.

TOML dates and times are none of the JSON types, so they simply fail every `type` check.
jsonschema is imported inside the builder: it costs start-up time that `--help` and the
runner never need.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from ..resources import load_schema


def _is_integer(checker: Any, value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(checker: Any, value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@cache
def blueprint_validator() -> Any:
    """A Draft-07 validator for `schemas/blueprint.schema.json` with TOML's types.

    Built directly (never through `jsonschema.validate`, which re-checks the metaschema on
    every call); the schema itself is checked once, by the test suite.
    """
    from jsonschema import Draft7Validator, validators
    from jsonschema.exceptions import ValidationError

    def toml_type(validator: Any, expected: str, instance: Any, schema: dict) -> Iterator[ValidationError]:
        if expected == "float" and _is_integer(None, instance):
            yield ValidationError(f"{instance!r} is an integer, not a float")

    type_checker = Draft7Validator.TYPE_CHECKER.redefine_many({"integer": _is_integer, "number": _is_number})
    cls = validators.extend(Draft7Validator, validators={"x-toml-type": toml_type}, type_checker=type_checker)
    return cls(inline_refs(load_schema("blueprint")))


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of `schema` with every local `#/definitions/…` reference replaced by its target.

    Resolving a `$ref` costs more than checking what it points to; inlined, validation takes
    about half the time. Draft-07 ignores the siblings of a `$ref` (our descriptions), so
    dropping them changes nothing. A recursive reference would be left as it is.
    """
    definitions = schema.get("definitions", {})
    prefix = "#/definitions/"

    def walk(node: Any, inlining: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(item, inlining) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(prefix):
            name = ref[len(prefix) :]
            if name in definitions and name not in inlining:
                return walk(definitions[name], inlining + (name,))
            return node
        return {key: value if key in _LITERAL_KEYWORDS else walk(value, inlining) for key, value in node.items()}

    return walk(schema, ())


#: Keywords whose values are data, not subschemas (never searched for `$ref`).
_LITERAL_KEYWORDS = frozenset({"enum", "const", "default", "examples", "required", "x-values", "x-hints"})


def iter_schema_errors(document: dict[str, Any]) -> Iterator[Any]:
    """Every jsonschema `ValidationError` of a parsed blueprint document."""
    return blueprint_validator().iter_errors(document)
