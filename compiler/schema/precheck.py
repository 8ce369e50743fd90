"""A fast yes/no answer to "does this document satisfy the blueprint schema?".

jsonschema explains a failure well, but it walks the schema slowly (a validator object per
subschema visited) and costs tens of milliseconds to import: on a valid blueprint it took
longer than reading the TOML. Most files are valid, so the schema is compiled once into
plain closures that only answer yes or no, and jsonschema runs only when the answer is no,
to say what is wrong.

The answer is sound, not complete: `True` means jsonschema would report nothing. A keyword
this module does not implement (or cannot decide soundly, like `oneOf` and `not`) compiles
to "cannot tell", which is `False` and sends the document to jsonschema; being too strict
only costs time. Types are TOML's, as in `validator.py`: a boolean is never an integer or a
number, and `x-toml-type: "float"` refuses integers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from ..resources import load_schema
from .validator import inline_refs

Check = Callable[[Any], bool]


def _integer(v: Any) -> bool:  # validator._is_integer, without the unused checker argument
    return isinstance(v, int) and not isinstance(v, bool)


def _number(v: Any) -> bool:  # validator._is_number
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_TYPES: dict[str, Check] = {
    "string": lambda v: isinstance(v, str),
    "integer": _integer,
    "number": _number,
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}

#: Keywords that never make a document invalid (Draft-07 annotations and `x-` extensions).
_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "title",
        "description",
        "default",
        "examples",
        "definitions",
        "readOnly",
        "writeOnly",
        "contentMediaType",
        "contentEncoding",
    }
)
#: Keywords the object check handles together.
_OBJECT_KEYWORDS = ("properties", "additionalProperties", "required", "minProperties")


def _yes(value: Any) -> bool:
    return True


def _no(value: Any) -> bool:
    return False


@cache
def document_check() -> Check:
    """The compiled blueprint schema (built once per process)."""
    return compile_document(load_schema("blueprint"))


#: While `compile_document` runs: the definitions a `#/definitions/…` reference may name, the
#: check of each one compiled so far, and those being compiled (a reference back to one of
#: them is a cycle).
_refs: dict[str, Any] | None = None


class _Cycle(Exception):
    pass


def compile_document(schema: dict[str, Any]) -> Check:
    """`compile_schema(inline_refs(schema))`, with each definition compiled once where a
    reference names it instead of copied into every place first (the first call of a run
    pays for this). A schema whose references form a cycle takes the inlined way, which
    leaves the reference back as it is."""
    global _refs
    _refs = {"definitions": schema.get("definitions", {}), "compiled": {}, "open": set()}
    try:
        return compile_schema(schema)
    except _Cycle:
        _refs = None
        return compile_schema(inline_refs(schema))
    finally:
        _refs = None


def _reference(node: dict[str, Any]) -> Check | None:
    """The check of the definition `node` refers to, or None when it is no local reference."""
    ref = node.get("$ref")
    if _refs is None or not isinstance(ref, str) or not ref.startswith("#/definitions/"):
        return None
    name = ref[len("#/definitions/") :]
    definitions, compiled, open_ = _refs["definitions"], _refs["compiled"], _refs["open"]
    if name not in definitions:
        return None
    if name in open_:
        raise _Cycle(name)
    if name not in compiled:
        open_.add(name)
        compiled[name] = compile_schema(definitions[name])
        open_.discard(name)
    return compiled[name]


def is_valid(document: Any) -> bool:
    """True when the blueprint schema certainly accepts `document`; False when it may not."""
    return document_check()(document)


def compile_schema(node: Any) -> Check:
    """A check for one (sub)schema; unknown or undecidable keywords compile to `_no`."""
    if node is True:
        return _yes
    if node is False or not isinstance(node, dict):
        return _no
    if "$ref" in node:  # Draft-07 ignores a reference's siblings, as `inline_refs` drops them
        referred = _reference(node)
        if referred is not None:
            return referred
    checks: list[Check] = []
    is_object = any(key in node for key in _OBJECT_KEYWORDS)
    kind = node.get("type")
    # Checks that test the type themselves make a separate `type` check redundant: the object
    # check refuses non-tables, a string enumeration non-strings, a typed minimum other types.
    typed_by_other = (
        (kind == "object" and is_object)
        or (kind == "string" and isinstance(node.get("enum"), list))
        or (kind in ("integer", "number") and "minimum" in node)
    )
    for key, value in node.items():
        if key in _ANNOTATIONS or key in _OBJECT_KEYWORDS or (key == "type" and typed_by_other):
            continue
        if key.startswith("x-"):
            if key == "x-toml-type" and value == "float":
                checks.append(lambda v: not _integer(v))
            continue
        if key == "minimum" and kind in ("integer", "number"):
            checks.append(_typed_minimum(value, _TYPES[kind]))
            continue
        build = _KEYWORDS.get(key)
        if build is None:
            return _no
        checks.append(build(value))
    if is_object:
        checks.append(_object(node, only_tables=node.get("type") == "object"))
    if _no in checks:
        return _no
    if not checks:
        return _yes
    if len(checks) == 1:
        return checks[0]
    return _every(checks)


def _every(checks: list[Check]) -> Check:
    """True when every check accepts (a plain loop: no generator per value checked)."""
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)

    def every(value: Any) -> bool:  # a plain loop: no generator per value checked
        for check in checks:  # noqa: SIM110
            if not check(value):
                return False
        return True

    return every


def _type(expected: Any) -> Check:
    names = [expected] if isinstance(expected, str) else expected
    if not isinstance(names, list) or not all(name in _TYPES for name in names):
        return _no
    predicates = [_TYPES[name] for name in names]
    if len(predicates) == 1:
        return predicates[0]
    return lambda v: any(p(v) for p in predicates)


def _enum(values: Any) -> Check:
    # jsonschema compares a string only with strings; other values would need its `equal`.
    allowed = frozenset(v for v in values if isinstance(v, str)) if isinstance(values, list) else frozenset()
    return lambda v: isinstance(v, str) and v in allowed


def _minimum(bound: Any) -> Check:
    if not _number(bound):
        return _no
    return lambda v: not _number(v) or not v < bound


def _typed_minimum(bound: Any, of_type: Check) -> Check:
    """`type` and `minimum` together: a value of the type, not below the bound."""
    if not _number(bound):
        return _no
    return lambda v: of_type(v) and not v < bound


def _maximum(bound: Any) -> Check:
    if not _number(bound):
        return _no
    return lambda v: not _number(v) or not v > bound


def _pattern(pattern: Any) -> Check:
    try:
        search = re.compile(pattern).search
    except (re.error, TypeError):
        return _no
    return lambda v: not isinstance(v, str) or search(v) is not None


def _items(schema: Any) -> Check:
    if isinstance(schema, list):  # the tuple form: not used by our schema
        return _no
    item = compile_schema(schema)
    if item is _yes:
        return _yes

    def items(value: Any) -> bool:  # a plain loop: no generator per list checked
        if isinstance(value, list):
            for element in value:
                if not item(element):
                    return False
        return True

    return items


def _any_of(branches: Any) -> Check:
    if not isinstance(branches, list) or not branches:
        return _no
    checks = [compile_schema(b) for b in branches]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) or second(v)

    def some(value: Any) -> bool:  # a plain loop: no generator per value checked
        for check in checks:  # noqa: SIM110
            if check(value):
                return True
        return False

    return some


def _all_of(branches: Any) -> Check:
    if not isinstance(branches, list) or not branches:
        return _no
    return _every([compile_schema(b) for b in branches]) if len(branches) > 1 else compile_schema(branches[0])


def _object(node: dict, only_tables: bool) -> Check:
    """`properties`, `additionalProperties`, `required` and `minProperties` in one pass
    (and `type: object` when `only_tables`)."""
    properties = node.get("properties", {})
    required = node.get("required", [])
    least = node.get("minProperties", 0)
    if not isinstance(properties, dict) or not isinstance(required, list) or not _integer(least):
        return _no
    known = {name: compile_schema(sub) for name, sub in properties.items()}
    extra = compile_schema(node.get("additionalProperties", True))
    needed = tuple(required)

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return not only_tables
        lookup = known.get
        for key, item in value.items():
            if not lookup(key, extra)(item):
                return False
        if needed:
            return len(value) >= least and all(name in value for name in needed)
        return len(value) >= least

    return check


_KEYWORDS: dict[str, Callable[[Any], Check]] = {
    "type": _type,
    "enum": _enum,
    "minimum": _minimum,
    "maximum": _maximum,
    "pattern": _pattern,
    "items": _items,
    "anyOf": _any_of,
    "allOf": _all_of,
}
