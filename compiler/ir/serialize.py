"""The IR document: the typed model as versioned JSON, written and read back.

    {"ir_version": 2, "source": {"path": …, "sha256": …}, "blueprint": {…}}

`blueprint` is the model field by field, converted by `compiler.ir.codec` from the
dataclass type hints, so a field added to the model is written and read without code here
(and the IR schema test then demands a new `ir_version` and a migration; see docs/ir.md).

Bytes out are deterministic (`dumps`): key order is field order, 2-space indent, UTF-8 text
(`ensure_ascii=False`), a trailing newline. Reading (`load_ir`) is strict: an unknown or
missing key, a wrong type, a value outside an enum or a stage reference that leads nowhere
is an `IRError` naming where it is. Older `ir_version`s are upgraded step by step through
`MIGRATIONS` before reading.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from typing import Any

from compiler.records import record

from ..display import json_visible
from ..reading import read_limited
from .codec import NON_FINITE, Invalid, codec_for, json_type
from .model import Blueprint

#: The version this compiler writes. Bump it on any change to the IR's shape or meaning,
#: and add the step from the previous version to `MIGRATIONS`.
IR_VERSION = 2


def _v1_to_v2(document: dict[str, Any]) -> dict[str, Any]:
    """v2 drops the gate key `require_region_entries`: Leviath refuses a gate that writes it,
    so no blueprint it runs can mean it. An unset one (`null`, every IR compiled from a file
    Leviath loads) goes; a set one had a meaning v2 cannot hold, and is refused by name."""
    stages = document.get("blueprint", {}).get("stages") if isinstance(document.get("blueprint"), dict) else None
    for s, stage in enumerate(stages if isinstance(stages, list) else ()):
        edges = stage.get("transitions") if isinstance(stage, dict) else None
        for e, edge in enumerate(edges if isinstance(edges, list) else ()):
            gate = edge.get("gate") if isinstance(edge, dict) else None
            if not isinstance(gate, dict) or "require_region_entries" not in gate:
                continue
            if gate.pop("require_region_entries") is not None:
                raise IRError(
                    f"blueprint.stages[{s}].transitions[{e}].gate.require_region_entries: this ir_version 1 "
                    "document sets a gate key Leviath refuses, which ir_version 2 dropped; compile the "
                    "blueprint again (it reports the key as rejected-key)"
                )
    document["ir_version"] = 2
    return document


#: version N → a function turning an IR document of version N into one of version N + 1.
#: `load_ir` applies them in order (to a copy of the caller's document), so every version
#: ever written stays readable.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2}

_SHA256_HEX = frozenset("0123456789abcdef")
#: IR files larger than this are not read (the IR of a 10,000-stage blueprint is about 21 MB).
MAX_IR_BYTES = 256 * 1024 * 1024


class IRError(ValueError):
    """An IR document that cannot be read: malformed, or of a version we do not know."""


@record
class IRSource:
    """Where a compiled blueprint came from: its path and the SHA-256 of its bytes."""

    path: str
    sha256: str


@record
class IRDocument:
    """A whole IR document read back: the model, its source, and the version it was written in."""

    blueprint: Blueprint
    source: IRSource
    ir_version: int


# --- writing ------------------------------------------------------------------------------


def to_ir(blueprint: Blueprint, *, path: str, sha256: str) -> dict[str, Any]:
    """The IR document of `blueprint`, compiled from the file `path` whose bytes hash to `sha256`."""
    return {
        "ir_version": IR_VERSION,
        "source": {"path": path, "sha256": sha256},
        "blueprint": encode(blueprint),
    }


def encode(value: Any, hint: Any = Blueprint) -> Any:
    """`value` (of type `hint`, a model dataclass by default) as a JSON-compatible value.

    Raises `TypeError` when the value does not match its type: that is a bug in whatever
    built the model, never something a blueprint author can cause.
    """
    try:
        return codec_for(hint).encode(value)
    except Invalid as exc:
        raise TypeError(f"cannot write the IR: {exc.where()}: {exc.reason}") from None


def dumps(ir: dict[str, Any]) -> str:
    """The canonical text of an IR document: same document, same bytes. Text is UTF-8, with
    control, separator and bidi characters escaped (`\\u0085`) like the C0 controls."""
    return json_visible(json.dumps(ir, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"


# --- reading ------------------------------------------------------------------------------


def load_ir(source: str | bytes | os.PathLike[str] | dict[str, Any]) -> Blueprint:
    """The model an IR document describes.

    `source` is a parsed document (dict), JSON text (str or bytes; a str that does not start
    with `{` is taken as a file path), or a path. Every `ir_version` this compiler has ever
    written is accepted; anything else raises `IRError` with the reason. I/O problems raise
    `OSError` as usual.
    """
    return read_ir(source).blueprint


def read_ir(source: str | bytes | os.PathLike[str] | dict[str, Any]) -> IRDocument:
    """Like `load_ir`, also returning the source path, its hash and the version read."""
    document = _parse(source)
    if not isinstance(document, dict):
        raise IRError(f"an IR document is a JSON object, not {json_type(document)}")
    version = document.get("ir_version")
    if "ir_version" not in document:
        raise IRError("not an IR document: it has no 'ir_version'")
    if type(version) is not int:
        raise IRError(f"ir_version must be an integer, not {json_type(version)}")
    if version > IR_VERSION:
        raise IRError(
            f"ir_version {version} is newer than this blueprint-compiler reads (up to {IR_VERSION}); "
            "upgrade agent-blueprint-compiler, or recompile the blueprint with this version"
        )
    if version < 1:
        raise IRError(f"ir_version {version} does not exist (versions start at 1)")
    current = upgrade(document)
    unknown = [key for key in current if key not in ("ir_version", "source", "blueprint")]
    if unknown:
        raise IRError(f"unknown top-level key {unknown[0]!r}")
    for key in ("source", "blueprint"):
        if key not in current:
            raise IRError(f"missing top-level key {key!r}")
    origin = _read_source(current["source"])
    blueprint = decode(current["blueprint"], Blueprint, "blueprint")
    _check_references(blueprint)
    return IRDocument(blueprint=blueprint, source=origin, ir_version=version)


def upgrade(document: dict[str, Any]) -> dict[str, Any]:
    """`document` brought to `IR_VERSION` by the migrations, one version at a time."""
    version = document["ir_version"]
    if version < IR_VERSION:
        document = copy.deepcopy(document)
    while version < IR_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise IRError(f"no migration from ir_version {version} to {version + 1}")
        document = step(document)
        if document.get("ir_version") != version + 1:
            raise IRError(f"the migration from ir_version {version} did not produce version {version + 1}")
        version += 1
    return document


def decode(value: Any, hint: Any = Blueprint, where: str = "blueprint") -> Any:
    """The model value of type `hint` that the JSON value `value` describes; `IRError` if none."""
    try:
        return codec_for(hint).decode(value)
    except Invalid as exc:
        raise IRError(f"{exc.where(where)}: {exc.reason}") from None
    except RecursionError:
        raise IRError(f"{where}: nested too deeply") from None


def _check_references(blueprint: Blueprint) -> None:
    """What a runner relies on and `compile` guarantees, but a schema cannot say."""
    if not blueprint.stages:
        raise IRError("blueprint.stages: a blueprint has at least one stage")
    seen: set[str] = set()
    for index, stage in enumerate(blueprint.stages):
        if stage.name in seen:
            raise IRError(f"blueprint.stages[{index}].name: stage {stage.name!r} appears twice")
        seen.add(stage.name)
    if blueprint.entry_stage is not None and blueprint.entry_stage not in seen:
        raise IRError(f"blueprint.entry_stage: {blueprint.entry_stage!r} names no stage")
    for index, stage in enumerate(blueprint.stages):
        where = f"blueprint.stages[{index}]"
        for number, edge in enumerate(stage.transitions or ()):
            if edge.target not in seen:
                raise IRError(f"{where}.transitions[{number}].target: {edge.target!r} names no stage")
        if stage.fan_out is not None:
            for key in ("worker_stage", "merge_stage"):
                name = getattr(stage.fan_out, key)
                if name is not None and name not in seen:
                    raise IRError(f"{where}.fan_out.{key}: {name!r} names no stage")


def _parse(source: Any) -> Any:
    if isinstance(source, dict):
        return source
    if isinstance(source, str) and not source.strip():  # no path, and no document either
        raise IRError("not an IR document: the text is empty")
    if isinstance(source, os.PathLike) or (isinstance(source, str) and not source.lstrip().startswith("{")):
        source = read_limited(source, MAX_IR_BYTES)
        if len(source) > MAX_IR_BYTES:
            raise IRError(f"not read: the file is larger than {MAX_IR_BYTES:,} bytes")
    if isinstance(source, (bytes, bytearray)):
        try:
            source = bytes(source).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise IRError(f"an IR document is UTF-8 text; byte {exc.start} is not valid UTF-8") from None
    if not isinstance(source, str):
        raise TypeError(f"load_ir reads a dict, JSON text or a path, not {type(source).__name__}")
    try:
        return json.loads(source, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except IRError:
        raise
    except json.JSONDecodeError as exc:
        raise IRError(f"not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:  # e.g. an integer literal beyond Python's digit limit
        raise IRError(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise IRError("not an IR document: nested too deeply") from None


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise IRError(f"not a valid IR document: key {key!r} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise IRError(f"not valid JSON: {name} is not a JSON value")


def _read_source(value: Any) -> IRSource:
    if not isinstance(value, dict):
        raise IRError(f"source: expected an object, got {json_type(value)}")
    extra = [key for key in value if key not in ("path", "sha256")]
    if extra:
        raise IRError(f"source: unknown key {extra[0]!r}")
    path, digest = value.get("path"), value.get("sha256")
    if not isinstance(path, str):
        raise IRError(f"source.path: expected a string, got {json_type(path)}")
    if not isinstance(digest, str) or len(digest) != 64 or not set(digest) <= _SHA256_HEX:
        raise IRError("source.sha256: expected 64 lower-case hexadecimal digits")
    return IRSource(path, digest)


__all__ = [
    "IR_VERSION",
    "MIGRATIONS",
    "NON_FINITE",
    "IRDocument",
    "IRError",
    "IRSource",
    "decode",
    "dumps",
    "encode",
    "load_ir",
    "read_ir",
    "to_ir",
    "upgrade",
]
