"""The machine report: one JSON document for every file checked (schemas/report.schema.json).

    {"version": 1,
     "files": [{"path": "...", "blueprint": {"name", "version", "entry_stage", "stages"} | null,
                "diagnostics": [Diagnostic.to_dict(), ...]}],
     "summary": {"files", "errors", "warnings", "notes"}}

`version` changes only when a consumer would have to change; keys are always in this order,
indented by two spaces, ASCII-only (any terminal or pipe can carry it), newline-terminated.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Sequence

from ..diagnostics import Counts

if TYPE_CHECKING:
    from ..ir.model import Blueprint
    from ..pipeline import FileResult
    from . import ReportOptions

#: The report format's version (the `version` key).
REPORT_VERSION = 1


def report_document(results: Sequence["FileResult"]) -> dict[str, Any]:
    """The report as plain data, before it is written as JSON."""
    total = Counts()
    files = []
    for result in results:
        total = total + result.counts
        files.append(
            {
                "path": result.path,
                "blueprint": blueprint_summary(result.blueprint),
                "diagnostics": [d.to_dict() for d in result.diagnostics],
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
    return json.dumps(report_document(results), indent=2, ensure_ascii=True) + "\n"
