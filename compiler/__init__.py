"""blueprint-compiler: parse, validate, compile and run TOML agent blueprints.

The library never prints and never exits. Start with `validate_file` (every finding of one
blueprint, positioned), `check_file` (those and what exploring every run finds), `load` (the
typed model, or `BlueprintError` with the findings), `compile` (the versioned IR), `load_ir` (the IR back into the model the stage-runner
drives), `digest` (one value per meaning) and `diff` (what changed between two versions). `compiler.runtime` is the stage-runner that drives it (docs/runner.md) and
`compiler.analysis` explores every run it allows. Names are imported on first use, so
`import compiler` stays cheap for the CLI and for runtimes that only need `compiler.runtime`.

Wrong inputs raise, never print: `OSError` for a file that cannot be read, `BlueprintError`
for a blueprint with errors, `IRError` for an IR document that cannot be read, `TypeError`
for an argument of the wrong kind.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
#: The name to install: `pip install agent-blueprint-compiler` (`blueprint-compiler` on PyPI
#: is an unrelated project). The command stays `blueprint`, the package `compiler`.
DISTRIBUTION = "agent-blueprint-compiler"

#: public name → module that defines it
_EXPORTS = {
    "Blueprint": "compiler.ir.model",
    "BlueprintError": "compiler.api",
    "CheckResult": "compiler.check",
    "Diagnostic": "compiler.diagnostics",
    "FileResult": "compiler.pipeline",
    "IRError": "compiler.api",
    "Related": "compiler.diagnostics",
    "Settings": "compiler.config",
    "Span": "compiler.diagnostics",
    "check_bytes": "compiler.check",
    "check_file": "compiler.check",
    "check_text": "compiler.check",
    "compile": "compiler.api",
    "diff": "compiler.diff",
    "digest": "compiler.ir.digest",
    "load": "compiler.api",
    "load_ir": "compiler.api",
    "validate_bytes": "compiler.pipeline",
    "validate_file": "compiler.pipeline",
    "validate_text": "compiler.pipeline",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from .api import BlueprintError, IRError, compile, load, load_ir
    from .check import CheckResult, check_bytes, check_file, check_text
    from .config import Settings
    from .diagnostics import Diagnostic, Related, Span
    from .diff import diff
    from .ir.digest import digest
    from .ir.model import Blueprint
    from .pipeline import FileResult, validate_bytes, validate_file, validate_text


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'compiler' has no attribute {name!r}")
    if module == f"{__name__}.{name}":  # a subpackage that is also callable: compiler.diff
        value = importlib.import_module(module)
    else:
        value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
