"""The canonical digest of a compiled blueprint: one value per meaning.

Two blueprints that compile to the same IR have the same digest, whatever their formatting,
comments, table style or the order of keys inside a table; the file's path and bytes (the
IR's `source` block) are left out. What is hashed is exactly this, so another language can
compute it (docs/ir.md, "The digest"):

    {"blueprint": <the IR's blueprint object>, "ir_version": <int>}

as JSON with keys sorted, no whitespace (`,` and `:` separators), non-ASCII characters
written as UTF-8, floats as the IR writes them; then SHA-256 of those bytes, in lower-case
hexadecimal. Arrays keep their order: the IR records the declaration order of stages, edges,
regions and the other lists, and a runner may depend on it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .model import Blueprint
from .serialize import IR_VERSION, encode, load_ir


def canonical_bytes(ir: dict[str, Any] | Blueprint) -> bytes:
    """The bytes the digest hashes: an IR document (or the typed model) minus its `source`.

    A document is read first (`IRError` when it cannot be), so one of an older `ir_version`
    hashes as its upgraded form."""
    if isinstance(ir, dict):
        ir = load_ir(ir)  # read strictly, and brought to the current version: the same meaning hashes alike
    if not isinstance(ir, Blueprint):
        raise TypeError(f"digest takes an IR document (dict) or a compiler.ir.model.Blueprint, not {type(ir).__name__}")
    return encoded_bytes(encode(ir))


def encoded_bytes(blueprint: dict[str, Any]) -> bytes:
    """`canonical_bytes` of a blueprint already encoded as the IR's `blueprint` object."""
    payload = {"blueprint": blueprint, "ir_version": IR_VERSION}
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode(
        "utf-8"
    )


def digest(ir: dict[str, Any] | Blueprint) -> str:
    """The SHA-256 (hexadecimal) of `canonical_bytes(ir)`: equal for blueprints that mean the same."""
    return hashlib.sha256(canonical_bytes(ir)).hexdigest()


def encoded_digest(blueprint: dict[str, Any]) -> str:
    """`digest` of a blueprint already encoded as the IR's `blueprint` object (saves encoding twice)."""
    return hashlib.sha256(encoded_bytes(blueprint)).hexdigest()


__all__ = ["canonical_bytes", "digest", "encoded_bytes", "encoded_digest"]
