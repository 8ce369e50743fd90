"""What the one schema says about a key: its type, default, allowed values and meaning.

Hover and completion read `schemas/blueprint.schema.json` — the file `validate`'s schema layer
checks against and `docs/format.md` describes — through `load_schema`, never a copy. A
`$ref`'s own `description` (what this key is for) wins over the shared definition's.
"""

from __future__ import annotations

import json
from typing import Any

from compiler.records import record

from ..diagnostics import KeyPath, format_key_path
from ..resources import load_schema
from ..schema.describe import expected_type

_PREFIX = "#/definitions/"


def _resolved(node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith(_PREFIX):
        return node
    target = load_schema("blueprint").get("definitions", {}).get(ref[len(_PREFIX) :], {})
    return {**_resolved(target), **{k: v for k, v in node.items() if k != "$ref"}}


def schema_at(path: KeyPath) -> dict[str, Any] | None:
    """The schema of the value at `path` (array positions as any integer), or None when the
    schema does not describe it."""
    node: dict[str, Any] = _resolved(load_schema("blueprint"))
    for part in path:
        if isinstance(part, int):
            items = node.get("items")
            if not isinstance(items, dict):
                return None
            node = _resolved(items)
            continue
        properties = node.get("properties", {})
        if part in properties:
            node = _resolved(properties[part])
        elif isinstance(node.get("additionalProperties"), dict):
            node = _resolved(node["additionalProperties"])
        else:
            return None
    return node


def child_keys(path: KeyPath) -> dict[str, dict[str, Any]]:
    """The named keys the table at `path` accepts, in schema order."""
    node = schema_at(path)
    if node is None:
        return {}
    return {name: _resolved(sub) for name, sub in node.get("properties", {}).items() if name != "$schema"}


def allowed_values(node: dict[str, Any]) -> list[Any]:
    """The values a key takes from a fixed set: its enumeration, or `true`/`false`."""
    values = node.get("enum") or node.get("x-values")
    if values:
        return list(values)
    types = node.get("type")
    if types == "boolean":
        return [True, False]
    return []


def toml_value(value: Any) -> str:
    """A value as TOML spells it (strings quoted)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, dict)) and not value:
        return "[]" if isinstance(value, list) else "{}"
    return json.dumps(value)


@record
class KeyDoc:
    """A key's documentation, as hover shows it."""

    path: KeyPath
    node: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.path[-1]) if self.path else "(top level)"

    @property
    def kind(self) -> str:
        """What the key takes, in words: 'an integer', 'a table'."""
        return expected_type(self.node)

    def markdown(self) -> str:
        node = self.node
        kind = self.kind
        limits = []
        if "minimum" in node:
            limits.append(f"≥ {node['minimum']}")
        if "maximum" in node:
            limits.append(f"≤ {node['maximum']}")
        head = f"**`{format_key_path(self.path) or self.name}`** — {kind}" + (
            f" ({', '.join(limits)})" if limits else ""
        )
        lines = [head, ""]
        if node.get("description"):
            lines += [str(node["description"]), ""]
        values = node.get("enum") or node.get("x-values")
        if values:
            note = f" ({node['x-values-note']})" if node.get("x-values-note") else ""
            lines.append("Values: " + ", ".join(f"`{toml_value(v)}`" for v in values) + note)
        if "default" in node:
            lines.append(f"Default: `{toml_value(node['default'])}`")
        if node.get("x-strict"):
            lines.append("Unknown keys in this table are refused (`rejected-key`).")
        return "\n".join(lines).rstrip() + "\n"


def key_doc(path: KeyPath) -> KeyDoc | None:
    node = schema_at(path)
    return KeyDoc(tuple(path), node) if node is not None else None
