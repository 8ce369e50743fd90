"""The machine report: one JSON document for every file checked (schemas/report.schema.json).

    {"version": 1,
     "files": [{"path": "...", "blueprint": {"name", "version", "entry_stage", "stages"} | null,
                "diagnostics": [{**Diagnostic.to_dict(), "fixable", "fix_edits"}, ...]}],
     "summary": {"files", "errors", "warnings", "notes"}}

`fixable` says whether `--fix` fixes the finding; `fix_edits` are the text edits it makes
(`compiler.fix.edits`), empty when it is not fixable.

`version` changes only when a consumer would have to change; keys are always in this order,
indented by two spaces, ASCII-only (any terminal or pipe can carry it), newline-terminated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..diagnostics import Counts

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from ..fix.edits import Fix
    from ..ir.model import Blueprint
    from ..pipeline import FileResult
    from . import ReportOptions

#: The report format's version (the `version` key).
REPORT_VERSION = 1


def report_document(results: Sequence["FileResult"], fixes: "Mapping[Diagnostic, Fix] | None" = None) -> dict[str, Any]:
    """The report as plain data, before it is written as JSON. `fixes` are the fixable
    findings with their edits; without them, they are worked out with the default settings."""
    if fixes is None:
        fixes = _default_fixes(results)
    total = Counts()
    files = []
    for result in results:
        total = total + result.counts
        files.append(
            {
                "path": result.path,
                "blueprint": blueprint_summary(result.blueprint),
                "diagnostics": [finding(d, fixes.get(d), result.path) for d in result.diagnostics],
            }
        )
    return {
        "version": REPORT_VERSION,
        "files": files,
        "summary": {
            "files": len(results),
            "errors": total.errors,
            "warnings": total.warnings,
            "notes": total.notes,
        },
    }


def finding(d: "Diagnostic", fix: "Fix | None", path: str | None = None) -> dict[str, Any]:
    """One finding of the report: `Diagnostic.to_dict()`, whether `--fix` fixes it, and how;
    `file` when it is in another file than `path`, the file checked (a declared property)."""
    elsewhere = {"file": d.file} if path is not None and d.file not in (path, "<string>") else {}
    return {
        **d.to_dict(),
        **elsewhere,
        "fixable": fix is not None,
        "fix_edits": [edit.to_dict() for edit in fix.edits] if fix is not None else [],
    }


def _default_fixes(results: Sequence["FileResult"]) -> "dict[Diagnostic, Fix]":
    from ..fix.edits import fixes_for

    fixes: "dict[Diagnostic, Fix]" = {}
    for result in results:
        fixes.update(fixes_for(result))
    return fixes


def blueprint_summary(blueprint: "Blueprint | None") -> dict[str, Any] | None:
    """Name, version, the stage a run starts in, and the stages in declaration order."""
    if blueprint is None:
        return None
    stages = [str(stage.name) for stage in blueprint.stages]
    return {
        "name": str(blueprint.name),
        "version": str(blueprint.version),
        "entry_stage": blueprint.entry if stages else None,
        "stages": stages,
    }


def report(results: Sequence["FileResult"], options: "ReportOptions | None" = None) -> str:
    document = report_document(results, options.fixes if options is not None else None)
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"
