"""The JSON Schema of the IR (`schemas/ir.schema.json`), generated from the model's type hints.

Generated, not hand-written, so it cannot drift from what `compiler.ir.serialize` writes: the
same hints drive both, with the same choices (pairs as fixed-length arrays, non-finite floats
as named strings, opaque values unconstrained). Descriptions come from the model itself: a
class's docstring and the `#:` comment above a field. A test fails when the published file
is stale; regenerate it with

    python -m compiler.ir.ir_schema > schemas/ir.schema.json

The schema uses Draft-07 only (editors and most validators speak it) and closes every object
(`additionalProperties: false`, every key required), so a reader in any language learns the
exact shape of the version this compiler writes.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import re
import sys
import types
import typing
from functools import cache
from typing import Any, Literal, Union

from .codec import MINIMUMS
from .model import Blueprint
from .serialize import IR_VERSION, NON_FINITE

_FIELD = re.compile(r"^\s+(\w+)\s*:")
_NOTE = re.compile(r"^\s+#:\s?(.*)$")


def ir_schema() -> dict[str, Any]:
    """The Draft-07 schema of IR documents of version `IR_VERSION`."""
    definitions: dict[str, Any] = {
        "number": {
            "description": (
                "A float. JSON has no NaN or infinities, so those are written as the strings "
                + ", ".join(f'"{name}"' for name in NON_FINITE)
                + "."
            ),
            "anyOf": [{"type": "number"}, {"type": "string", "enum": list(NON_FINITE)}],
        }
    }
    blueprint = _Walker(definitions).schema(Blueprint)
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": f"urn:agent-blueprint-compiler:schema:ir:{IR_VERSION}",
        "title": f"blueprint IR, version {IR_VERSION}",
        "description": (
            "A compiled agent blueprint (blueprint-compiler's intermediate representation): every "
            "default resolved, aliases normalised, stages and edges in declaration order. Every key "
            "is always present; null means the model's 'unset'. See docs/ir.md."
        ),
        "type": "object",
        "properties": {
            "ir_version": {
                "description": "The IR format version; readers refuse versions newer than they know.",
                "const": IR_VERSION,
            },
            "source": {
                "description": "The blueprint file this IR was compiled from.",
                "type": "object",
                "properties": {
                    "path": {
                        "description": (
                            "The file's path with '/' separators: relative to the working directory "
                            "when the file lies below it, else as given."
                        ),
                        "type": "string",
                    },
                    "sha256": {
                        "description": "SHA-256 of the file's bytes, lower-case hexadecimal.",
                        "type": "string",
                        "pattern": "^[0-9a-f]{64}$",
                    },
                },
                "required": ["path", "sha256"],
                "additionalProperties": False,
            },
            "blueprint": blueprint,
        },
        "required": ["ir_version", "source", "blueprint"],
        "additionalProperties": False,
        "definitions": definitions,
    }


def schema_text() -> str:
    """The schema as published: 2-space indent, UTF-8, trailing newline."""
    return json.dumps(ir_schema(), indent=2, ensure_ascii=False) + "\n"


class _Walker:
    """Turns type hints into schemas, adding one definition per dataclass on first sight."""

    def __init__(self, definitions: dict[str, Any]) -> None:
        self.definitions = definitions

    def schema(self, hint: Any) -> dict[str, Any]:
        if hint is Any:
            return {}
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            if hint.__name__ not in self.definitions:
                self.definitions[hint.__name__] = {}  # reserve the slot: keeps walk order, ends recursion
                self.definitions[hint.__name__] = self._object(hint)
            return {"$ref": f"#/definitions/{hint.__name__}"}
        simple = {str: "string", bool: "boolean"}
        if hint in simple:
            return {"type": simple[hint]}
        if hint is int:  # a count, a size or a limit (see `MINIMUMS` for the larger bounds)
            return {"type": "integer", "minimum": 0}
        if hint is float:
            return {"$ref": "#/definitions/number"}
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is Literal:
            return {"type": _json_type_of(args), "enum": list(args)}
        if origin in (Union, types.UnionType) and type(None) in args:
            rest = [a for a in args if a is not type(None)]
            if len(rest) != 1:
                raise TypeError(f"no schema for the union {hint!r}")
            return _nullable(self.schema(rest[0]))
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": self.schema(args[0])}
        if origin is tuple and args:
            return {
                "type": "array",
                "items": [self.schema(a) for a in args],
                "minItems": len(args),
                "maxItems": len(args),
                "additionalItems": False,
            }
        if origin is dict and args == (str, Any):
            return {"type": "object", "additionalProperties": True}
        raise TypeError(f"no schema for the type {hint!r}")

    def _object(self, cls: type) -> dict[str, Any]:
        hints = typing.get_type_hints(cls)
        notes = _field_notes(cls)
        properties = {}
        for f in dataclasses.fields(cls):
            schema = _at_least(self.schema(hints[f.name]), MINIMUMS.get((cls.__name__, f.name)))
            note = notes.get(f.name) or _OPAQUE_NOTES.get(hints[f.name])
            properties[f.name] = _described(schema, note) if note else schema
        out: dict[str, Any] = {}
        doc = _class_doc(cls)
        if doc:
            out["description"] = doc
        out.update(
            type="object",
            properties=properties,
            required=list(properties),
            additionalProperties=False,
        )
        return out


_OPAQUE_NOTES: dict[Any, str] = {
    Any: (
        "Any JSON value, as written in the blueprint (TOML dates and times as ISO 8601 strings, "
        "non-finite floats as null)."
    ),
    dict[str, Any]: "A JSON object as written in the blueprint, key order kept.",
}


def _at_least(schema: dict[str, Any], minimum: int | None) -> dict[str, Any]:
    """An integer schema (or a nullable one) with its `minimum` raised to `minimum`."""
    if minimum is None:
        return schema
    if schema.get("minimum") is None:
        raise TypeError(f"MINIMUMS names a field that is not an integer: {schema}")
    return {**schema, "minimum": minimum}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if not schema:
        return schema  # already anything
    if set(schema) <= {"type", "minimum"} and isinstance(schema["type"], str):  # `minimum` ignores null
        return {**schema, "type": [schema["type"], "null"]}
    if set(schema) == {"type", "enum"} and isinstance(schema["type"], str):
        return {"type": [schema["type"], "null"], "enum": [*schema["enum"], None]}
    return {"anyOf": [schema, {"type": "null"}]}


def _described(schema: dict[str, Any], note: str) -> dict[str, Any]:
    if "$ref" in schema:  # Draft-07 ignores a $ref's siblings
        return {"description": note, "allOf": [schema]}
    return {"description": note, **schema}


def _json_type_of(values: tuple[Any, ...]) -> str:
    kinds = {type(v) for v in values}
    if kinds == {str}:
        return "string"
    raise TypeError(f"no schema for a Literal of {sorted(k.__name__ for k in kinds)}")


def _class_doc(cls: type) -> str | None:
    doc = cls.__doc__
    if not doc or doc.startswith(f"{cls.__name__}("):  # dataclass's generated signature
        return None
    return _as_json_words(" ".join(inspect.cleandoc(doc).split()))


@cache
def _class_sources(module_name: str) -> dict[str, list[str]]:
    """The source lines of each top-level class of a module (one parse for all its classes)."""
    try:
        source = inspect.getsource(sys.modules[module_name])
    except (KeyError, OSError, TypeError):
        return {}
    lines = source.splitlines()
    return {
        node.name: lines[node.lineno - 1 : node.end_lineno]
        for node in ast.parse(source).body
        if isinstance(node, ast.ClassDef)
    }


def _field_notes(cls: type) -> dict[str, str]:
    """The `#:` comments written directly above a class's fields, joined per field."""
    lines = _class_sources(cls.__module__).get(cls.__qualname__, [])
    notes: dict[str, str] = {}
    pending: list[str] = []
    for line in lines:
        note = _NOTE.match(line)
        if note:
            pending.append(note.group(1).strip())
            continue
        field = _FIELD.match(line)
        if field and pending:
            notes[field.group(1)] = _as_json_words(" ".join(pending))
        pending = []
    return notes


_PYTHON_WORDS = {"None": "null", "True": "true", "False": "false", "()": "[]"}


def _as_json_words(text: str) -> str:
    """Model comments speak Python; the schema's readers see JSON (`None` → `null`, `()` → `[]`)."""
    return re.sub(r"\b(?:None|True|False)\b|(?<!\w)\(\)", lambda m: _PYTHON_WORDS[m.group(0)], text)


def main() -> None:
    sys.stdout.buffer.write(schema_text().encode("utf-8"))


if __name__ == "__main__":
    main()
