"""blueprint-compiler: parse, validate, compile and run TOML agent blueprints.

The library never prints and never exits. Start with `validate_file` (every finding of one
blueprint, positioned) or `load` (the typed model, or `BlueprintError` with the findings).
"""

from __future__ import annotations

from .api import IRError, compile, load_ir
from .config import Settings
from .diagnostics import Diagnostic, Related, Span
from .ir.model import Blueprint
from .pipeline import FileResult, validate_bytes, validate_file, validate_text

__version__ = "0.1.0"


class BlueprintError(Exception):
    """A blueprint has errors; `diagnostics` holds every finding."""

    def __init__(self, result: FileResult) -> None:
        self.result = result
        self.diagnostics = result.diagnostics
        errors = [d for d in result.diagnostics if d.severity == "error"]
        first = errors[0] if errors else None
        where = f"{first.file}:{first.line}:{first.column}: " if first and first.span else ""
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(f"{where}{first.message if first else 'invalid blueprint'}{more}")


def load(path, settings: Settings | None = None) -> Blueprint:
    """The typed model of a blueprint file; raises `BlueprintError` when it has errors."""
    result = validate_file(path, settings or Settings())
    if not result.ok or result.blueprint is None:
        raise BlueprintError(result)
    return result.blueprint


__all__ = [
    "Blueprint",
    "BlueprintError",
    "Diagnostic",
    "FileResult",
    "IRError",
    "Related",
    "Settings",
    "Span",
    "compile",
    "load",
    "load_ir",
    "validate_bytes",
    "validate_file",
    "validate_text",
]
