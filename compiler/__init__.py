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

from typing import TYPE_CHECKING

from .lazy import lazy_exports

__version__ = "0.1.0"
#: The name to install: `pip install agent-blueprint-compiler` (`blueprint-compiler` on PyPI
#: is an unrelated project). The command stays `blueprint`, the package `compiler`.
DISTRIBUTION = "agent-blueprint-compiler"

#: public name → module that defines it
_EXPORTS = {
    "Blueprint": "ir.model",
    "BlueprintError": "api",
    "CheckResult": "check",
    "Diagnostic": "diagnostics",
    "FileResult": "pipeline",
    "IRError": "api",
    "Related": "diagnostics",
    "Settings": "config",
    "Span": "diagnostics",
    "check_bytes": "check",
    "check_file": "check",
    "check_text": "check",
    "compile": "api",
    "diff": "diff",
    "digest": "ir.digest",
    "load": "api",
    "load_ir": "api",
    "validate_bytes": "pipeline",
    "validate_file": "pipeline",
    "validate_text": "pipeline",
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


__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
