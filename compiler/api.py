"""Compile a blueprint to its IR, and read an IR back: the public entry points.

`compile(path)` validates the file and, when nothing is an error, returns the IR document
(a dict; `compiler.ir.serialize.dumps` gives its canonical text). Warnings never block
compilation. `load_ir(...)` turns an IR document, of this or any older `ir_version`, back
into the typed model the stage-runner drives.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from .config import DEFAULT_SETTINGS, Settings
from .ir.serialize import IRDocument, IRError, IRSource, dumps, load_ir, read_ir, to_ir
from .parse.source import read_blueprint

if TYPE_CHECKING:
    from .ir.model import Blueprint
    from .pipeline import FileResult


class BlueprintError(Exception):
    """A blueprint has errors; `diagnostics` holds every finding."""

    def __init__(self, result: "FileResult") -> None:
        self.result = result
        self.diagnostics = result.diagnostics
        errors = [d for d in result.diagnostics if d.severity == "error"]
        first = errors[0] if errors else None
        where = f"{first.file}:{first.line}:{first.column}: " if first and first.span else ""
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(f"{where}{first.message if first else 'invalid blueprint'}{more}")


def load(path: str | os.PathLike[str], settings: Settings | None = None) -> "Blueprint":
    """The typed model of a blueprint file; raises `BlueprintError` when it has errors."""
    from .pipeline import validate_file

    result = validate_file(path, settings or DEFAULT_SETTINGS)
    if not result.ok or result.blueprint is None:
        raise BlueprintError(result)
    return result.blueprint


def compile(path: str | os.PathLike[str], settings: Settings | None = None) -> dict[str, Any]:
    """The IR document of the blueprint file `path`.

    Raises `compiler.BlueprintError` (with every finding) when the blueprint has errors, and
    `OSError` when the file cannot be read. `source.path` in the IR is `ir_source_path(path)`.
    """
    settings = (settings or DEFAULT_SETTINGS).for_file(path)
    ir, result = compile_with_findings(read_blueprint(path), ir_source_path(path), settings)
    if ir is None:
        raise BlueprintError(result)
    return ir


def compile_bytes(data: bytes, path: str = "<string>", settings: Settings | None = None) -> dict[str, Any]:
    """The IR document of a blueprint given as bytes; `path` is recorded as its source."""
    ir, result = compile_with_findings(data, path, settings)
    if ir is None:
        raise BlueprintError(result)
    return ir


def compile_with_findings(
    data: bytes, path: str, settings: Settings | None = None
) -> tuple[dict[str, Any] | None, FileResult]:
    """(the IR document, or None when the blueprint has errors; every finding).

    For callers that show warnings next to a successful compilation (the CLI).
    """
    from .pipeline import validate_bytes

    result = validate_bytes(path, data, settings or DEFAULT_SETTINGS)
    if not result.ok or result.blueprint is None:
        return None, result
    return to_ir(result.blueprint, path=path, sha256=hashlib.sha256(data).hexdigest()), result


def ir_source_path(path: str | os.PathLike[str]) -> str:
    """How the IR names its source file: stable across machines and checkouts.

    Relative to the working directory when the file lies below it (so a committed IR does
    not embed anyone's home directory), else the path as given; normalised (`./a/../b` →
    `b`) and always with `/` separators. Symbolic links are not resolved.
    """
    given = os.path.normpath(os.fspath(path))
    try:
        relative = os.path.relpath(os.path.abspath(given), os.getcwd())
    except (ValueError, OSError):  # another drive on Windows, or the working directory is gone
        relative = None
    if relative is not None and relative != os.pardir and not relative.startswith(os.pardir + os.sep):
        given = relative
    return PurePath(given).as_posix()


__all__ = [
    "BlueprintError",
    "IRDocument",
    "IRError",
    "IRSource",
    "compile",
    "compile_bytes",
    "compile_with_findings",
    "dumps",
    "ir_source_path",
    "load",
    "load_ir",
    "read_ir",
]
