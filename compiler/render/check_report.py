"""`blueprint check`'s reports: what `validate` shows for each file, then its run analysis (the
cost ceilings in text, an `analysis` object per file in JSON). The command streams them file
by file (`compiler.cli.check_cmd.Report`); `text_report` renders a list of `CheckResult`s at
once."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..check import CheckResult
from ..diagnostics import Counts
from . import ReportOptions

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from ..fix.edits import Fix


def diagnostic_blocks(item: CheckResult, options: ReportOptions) -> list[str]:
    """A file's findings as `validate` shows them."""
    from .text import render_diagnostic

    result = item.result
    return [
        render_diagnostic(
            d, _source_of(item, d), color=options.color, fixable=d in options.fixes, unsafe=d in options.unsafe_fixes
        )
        for d in result.diagnostics
    ]


def _source_of(item: CheckResult, diagnostic: "Diagnostic"):
    """The text a finding points into: the blueprint's, or its scenario file's (a property's)."""
    if diagnostic.file != item.result.path and item.properties_source is not None:
        return item.properties_source if diagnostic.file == item.properties_source.path else None
    return item.result.source


def ceilings_block(item: CheckResult) -> str:
    """A file's ceilings (or why it was not analysed)."""
    from ..analysis.report import ceilings_text
    from ..display import visible

    if item.analysis is None:
        from ..parse.other_files import refusal

        return f"{visible(item.result.path)}: not analysed: it {refusal(item.result.diagnostics)}"
    return ceilings_text(item.result.path, item.analysis, item.tokens) + properties_line(item)


def properties_line(item: CheckResult) -> str:
    """How the declared properties fared (none declared: nothing), as the last line of the block."""
    if not item.properties:
        return ""
    held = sum(1 for v in item.properties if v.passed)
    counts: dict[str, int] = {}
    for verdict in item.properties:
        if not verdict.passed:
            counts[verdict.status] = counts.get(verdict.status, 0) + 1
    rest = "; " + ", ".join(f"{n} {status}" for status, n in counts.items()) if counts else ""
    return f"\n  properties: {held} of {len(item.properties)} hold on every run{rest}"


def text_report(checked: list[CheckResult], options: ReportOptions) -> str:
    """Findings as `validate` shows them, then each file's ceilings (or why it was not
    analysed), the statistics when asked, the closing lines. Quiet leaves out the findings
    and the ceilings; the statistics alone leave out everything but their table."""
    shown = options.shows_findings
    findings = [block for item in checked for block in diagnostic_blocks(item, options)] if shown else []
    ceilings = [ceilings_block(item) for item in checked] if shown else []
    diagnostics = [d for item in checked for d in item.result.diagnostics]
    total = sum((item.result.counts for item in checked), Counts())
    return "".join(block + "\n\n" for block in findings) + text_tail(
        ceilings, diagnostics, total, len(checked), options
    )


def text_tail(
    ceilings: list[str], diagnostics: "list[Diagnostic]", total: Counts, files: int, options: ReportOptions
) -> str:
    """What the text report shows after every finding: the ceilings, the statistics when asked,
    the closing lines."""
    from .text import render_closing, render_statistics

    blocks = list(ceilings)
    if options.statistics and diagnostics:
        blocks.append(render_statistics(diagnostics).rstrip("\n"))
    if options.shows_closing:
        blocks.append(render_closing(total, files, diagnostics, options, hint=options.shows_findings))
    return "\n\n".join(blocks) + "\n" if blocks else ""


def json_entry(item: CheckResult, fixes: "dict[Diagnostic, Fix] | None") -> dict[str, Any]:
    """A file's entry in the JSON report: the `validate` entry with an `analysis` object
    (`fixes`: its fixable findings; None works them out with the default settings)."""
    from ..analysis.report import analysis_json
    from .json import report_document

    entry: dict[str, Any] = report_document([item.result], fixes)["files"][0]
    entry["analysis"] = analysis_json(item.analysis, item.result.diagnostics, item.tokens, item.properties)
    return entry


def json_document(entries: list[dict[str, Any]], total: Counts) -> str:
    """The `validate` JSON report of these file entries."""
    from .json import report_document

    document = report_document([], {})
    document["files"] = entries
    document["summary"].update(files=len(entries), errors=total.errors, warnings=total.warnings, notes=total.notes)
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"
