"""`blueprint check [PATH …]`: everything `validate` reports, then every run explored.

Per file, the `validate` checks run first. A file with errors is not analysed: its findings
are shown and the exit status is 1. Otherwise the `analysis` family runs too — runs that
strand, loop for ever or skip the output stage, stages and edges no run uses — each finding
with the run that shows it, and the report adds the cost ceiling (text) or an `analysis`
object per file (JSON). Where the analysis answers a lint's question exactly
(`dead-end-possible`, `cycle-without-max-revisits`, `allow-complete-skips-output`), only
the analysis is reported. Exit status: 0 nothing failing, 1 failing findings or a file
refused, 2 usage or I/O error.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import click

from ..parse.source import read_blueprint
from ..config import Settings
from ..discover import discover
from ..render import REPORTERS, ReportOptions, get_reporter
from .common import (
    blueprint_files,
    color_option,
    default_max_iterations_option,
    installation_options,
    rule_options,
    rule_overrides,
    settings_per_file,
    use_color,
    with_installation,
)
from .errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, CliError, echo_problem, emit

if TYPE_CHECKING:
    from ..analysis.core import Analysis
    from ..pipeline import FileResult

#: Lint codes that explain an edge no run takes: such an edge is not reported twice.
EDGE_EXPLAINED_BY = frozenset(
    {"edge-target-always-spent", "stuck-threshold-after-cap", "max-iterations-edge-without-cap", "shadowed-edge"}
)


@dataclass
class Checked:
    result: "FileResult"
    #: None when the file was not analysed (it has errors, or could not be parsed).
    analysis: "Analysis | None"


@click.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(sorted(REPORTERS)),
    default="text",
    show_default=True,
    help="Output format (JSON adds an `analysis` object per file: ceilings and replayable traces).",
)
@rule_options
@installation_options
@click.option(
    "--max-states",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Stop exploring a blueprint after N run states (default 200,000); what was found is still reported.",
)
@click.option(
    "--emit-scenarios",
    "emit_dir",
    type=click.Path(file_okay=False, path_type=str),
    default=None,
    metavar="DIR",
    help="Write each counterexample as a scenario that fails until the defect is fixed (DIR/<name>.scenarios.toml).",
)
@default_max_iterations_option
@color_option
def command(
    paths: tuple[str, ...],
    output_format: str,
    deny_warnings: bool | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    max_states: int | None,
    emit_dir: str | None,
    color: str,
    default_max_iterations: int | None = None,
    leviath_config: str | None = None,
    leviath_models: str | None = None,
) -> None:
    """Validate blueprints, then explore every run each allows: counterexamples and cost ceilings."""
    overrides = with_installation(
        rule_overrides(select, ignore, deny_warnings, default_max_iterations), leviath_config, leviath_models
    )
    if "-" in paths and not os.path.lexists("-"):
        raise CliError("'-' (standard input) is read by 'blueprint validate' only; 'blueprint check' takes files and directories")
    paths = paths or (".",)
    files = blueprint_files(discover(paths), paths)
    settings = settings_per_file(files, overrides)

    checked: list[Checked] = []
    failing = unreadable = False
    for path in files:
        try:
            data = read_blueprint(path)
        except OSError as exc:
            echo_problem(f"error: cannot read '{path}': {exc.strerror or exc}")
            unreadable = True
            continue
        item = check_bytes(path, data, settings[path], max_states=max_states)
        checked.append(item)
        failing = failing or item.result.counts.failing(settings[path].deny_warnings)

    spec = REPORTERS[output_format]
    options = ReportOptions(color=spec.human and use_color(color))
    results = [item.result for item in checked]
    if output_format == "json":
        emit(json_report(checked))
    elif output_format == "text":
        emit(text_report(checked, options), color=options.color)
    else:
        emit(get_reporter(output_format)(results, options))
    if emit_dir is not None:
        emit_scenarios(checked, emit_dir, settings)
    if unreadable:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if failing else EXIT_OK)


def emit_scenarios(checked: list[Checked], directory: str, settings: dict[str, Settings]) -> None:
    """Write each file's counterexamples as scenarios in `directory` (see compiler.scenarios.emit)."""
    from ..scenarios.emit import emit, emitted_file
    from .outdir import OutputDirectory

    with OutputDirectory(directory) as out:  # nothing written outside DIR, nor through a link
        for item in checked:
            analysis, ir = item.analysis, item.result.blueprint
            if analysis is None or ir is None:
                continue
            shown = {(d.code, d.path) for d in item.result.diagnostics}
            findings = [f for f in analysis.findings if (f.code, tuple(f.path)) in shown]
            target = emitted_file(directory, item.result.path)
            try:
                existing = read_blueprint(target) if os.path.exists(target) else None
            except OSError as exc:
                raise CliError(f"cannot read '{target}': {exc.strerror or exc}") from exc
            cap = settings[item.result.path].default_max_iterations
            text, added = emit(ir, findings, item.result.path, target, existing, cap)
            if added:
                out.write(os.path.basename(target), text)
                echo_problem(f"wrote {added} scenario{'s' if added != 1 else ''} to {target}")


def check_bytes(path: str, data: bytes, settings: Settings, *, max_states: int | None = None) -> Checked:
    """Validate one file and, when that finds no error, explore its runs (the analysis family)."""
    from ..analysis.core import STATE_LIMIT, analyze_cached, state_limit
    from ..pipeline import ANALYSIS_FAMILIES, validate_bytes

    token = state_limit.set(max_states or STATE_LIMIT)
    try:
        result = validate_bytes(path, data, settings, when_clean=ANALYSIS_FAMILIES)
        if result.blueprint is None or ANALYSIS_FAMILIES[0] not in result.families:
            return Checked(result, None)
        analysis = analyze_cached(result.blueprint, settings.default_max_iterations)
    finally:
        state_limit.reset(token)
    kept = _without_repeats(result.diagnostics, analysis, settings)
    return Checked(replace(result, diagnostics=kept), analysis)


def _without_repeats(diagnostics, analysis: "Analysis", settings: Settings) -> tuple:
    """Drop lint findings the analysis answers exactly, and edges a lint already explains."""
    from ..analysis.rules import SUPERSEDES

    superseded = {
        lint for lint, code in SUPERSEDES.items() if analysis.complete and settings.enabled(code, "analysis")
    }
    explained = [d.path for d in diagnostics if d.code in EDGE_EXPLAINED_BY]
    kept = []
    for d in diagnostics:
        if d.code in superseded:
            continue
        if d.code == "edge-never-taken" and any(tuple(p[: len(d.path)]) == tuple(d.path) for p in explained):
            continue
        kept.append(d)
    return tuple(kept)


# --- reports ---------------------------------------------------------------------------------------


def text_report(checked: list[Checked], options: ReportOptions) -> str:
    """Findings as `validate` shows them, then each file's ceilings (or why it was not analysed)."""
    from ..analysis.report import ceilings_text
    from ..diagnostics import Counts
    from ..display import visible
    from ..render.text import render_diagnostic, render_summary

    blocks: list[str] = []
    total = Counts()
    for item in checked:
        result = item.result
        total = total + result.counts
        blocks.extend(render_diagnostic(d, result.source, color=options.color) for d in result.diagnostics)
    for item in checked:
        if item.analysis is not None:
            blocks.append(ceilings_text(item.result.path, item.analysis))
        else:
            blocks.append(f"{visible(item.result.path)}: not analysed: it has errors")
    blocks.append(render_summary(total, len(checked), color=options.color))
    return "\n\n".join(blocks) + "\n"


def json_report(checked: list[Checked]) -> str:
    """The `validate` JSON report with an `analysis` object per file."""
    from ..analysis.report import analysis_json
    from ..render.json import report_document

    document = report_document([item.result for item in checked])
    for entry, item in zip(document["files"], checked):
        entry["analysis"] = analysis_json(item.analysis, item.result.diagnostics)
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"

