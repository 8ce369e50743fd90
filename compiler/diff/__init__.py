"""Semantic diff of two blueprints: what changed in the agent, and what its runs can now do.

    import compiler

    result = compiler.diff("before.leviath", "agent.leviath")   # a compiler.diff.Diff
    result.has("breaking")                                      # refuse a hot reload?
    [change.kind for change in result.changes]                  # typed Change records

`compiler.diff` is this package, and calling it calls `diff` (so `compiler.diff(old, new)`
works however the package was imported); `from compiler.diff import diff` is the same
function. docs/diff.md lists every change kind and its class (`RULES`).
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .core import Version, compare, diff, read_version
    from .model import (
        CLASSES,
        THRESHOLDS,
        Change,
        ChangeClass,
        Diff,
        DiffSide,
        Location,
        Refused,
        RunDelta,
        RunSide,
        StageCeilingDelta,
    )
    from .rules import RULES, ChangeRule

#: Names are imported on first use (the CLI's start-up stays lean).
_LAZY = {
    **dict.fromkeys(("diff", "compare", "read_version", "Version"), "core"),
    **dict.fromkeys(
        (
            "CLASSES",
            "THRESHOLDS",
            "Change",
            "ChangeClass",
            "Diff",
            "DiffSide",
            "Location",
            "Refused",
            "RunDelta",
            "RunSide",
            "StageCeilingDelta",
        ),
        "model",
    ),
    **dict.fromkeys(("RULES", "ChangeRule"), "rules"),
}


__getattr__, __dir__ = lazy_exports(globals(), _LAZY)


class _CallableModule(types.ModuleType):
    """The package, callable as `diff`: `compiler.diff(old, new, …)`."""

    def __call__(self, old: Any, new: Any, **options: Any) -> "Diff":
        from .core import diff

        return diff(old, new, **options)


sys.modules[__name__].__class__ = _CallableModule

__all__ = sorted(_LAZY)
