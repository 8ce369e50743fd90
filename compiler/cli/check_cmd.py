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

import os
import sys
from dataclasses import dataclass, field, replace
from typing import Any

import click

from ..check import CheckResult, check_bytes, scenario_file_beside
from ..config import ConfigFinder, Overrides, Settings
from ..diagnostics import Counts
from ..reading import read_capped
from ..render import REPORTERS, ReportOptions, get_reporter
from ..render.check_report import ceilings_block, diagnostic_blocks, json_document, json_entry, text_tail
from .common import (
    find_blueprints,
    fixes_of,
    human_only,
    not_utf8,
    rule_docs_url,
    rule_overrides,
    settings_per_file,
    suggestion_fixes_of,
    use_color,
    with_installation,
)
from .errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, CliError, echo_problem, emit
from .files import FileLoop
from .options import (
    color_option,
    default_max_iterations_option,
    discovery_options,
    exit_zero_option,
    installation_options,
    jobs_option,
    rule_options,
    shard_option,
    summary_options,
    watch_option,
)
from .pool import CHECK_POOL_MIN, resolve_jobs


@click.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--format",
    "--output-format",
    "output_format",
    type=click.Choice(sorted(REPORTERS)),
    default="text",
    show_default=True,
    help="Output format (JSON adds an `analysis` object per file: ceilings and replayable traces).",
)
@rule_options
@discovery_options
@shard_option
@installation_options
@click.option(
    "--max-states",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Stop exploring a blueprint after N run states (default 200,000); what was found is still reported.",
)
@summary_options("the findings and ceilings")
@watch_option
@exit_zero_option
@click.option(
    "--emit-scenarios",
    "emit_dir",
    type=click.Path(file_okay=False, path_type=str),
    default=None,
    metavar="DIR",
    help="Write each counterexample as a scenario that fails until the defect is fixed (DIR/<name>.scenarios.toml).",
)
@jobs_option
@default_max_iterations_option
@color_option
def command(
    paths: tuple[str, ...],
    output_format: str,
    deny_warnings: bool | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    exclude: tuple[str, ...],
    respect_gitignore: bool | None,
    max_states: int | None,
    emit_dir: str | None,
    color: str,
    default_max_iterations: int | None = None,
    statistics: bool = False,
    quiet: bool = False,
    watch: bool = False,
    exit_zero: bool = False,
    extend_select: tuple[str, ...] = (),
    config_file: str | None = None,
    leviath_config: str | None = None,
    leviath_models: str | None = None,
    shard: str | None = None,
    jobs: int | None = None,
) -> None:
    """Validate blueprints, then explore every run each allows: counterexamples and cost ceilings."""
    human_only(REPORTERS[output_format], output_format, statistics=statistics, quiet=quiet)
    overrides = with_installation(
        rule_overrides(
            select,
            ignore,
            deny_warnings,
            default_max_iterations,
            exclude=exclude,
            respect_gitignore=respect_gitignore,
            extend_select=extend_select,
            config_file=config_file,
            shard=shard,
        ),
        leviath_config,
        leviath_models,
    )
    if "-" in paths and not os.path.lexists("-"):
        raise CliError(
            "'-' (standard input) is read by 'blueprint validate' only; 'blueprint check' takes files and directories"
        )
    paths = paths or (".",)
    options = ReportOptions(statistics=statistics, quiet=quiet)
    if watch:
        from .watch import watch as watch_paths

        def run_once() -> int:
            return _check(paths, overrides, output_format, options, color, max_states, emit_dir, jobs)

        watch_paths(paths, overrides, run_once)
    status = _check(paths, overrides, output_format, options, color, max_states, emit_dir, jobs)
    sys.exit(EXIT_OK if exit_zero and status == EXIT_FINDINGS else status)


def _check(
    paths: tuple[str, ...],
    overrides: Overrides,
    output_format: str,
    options: ReportOptions,
    color: str,
    max_states: int | None,
    emit_dir: str | None = None,
    jobs: int | None = None,
) -> int:
    """One run of `blueprint check`: the report on stdout; the exit status returned.
    Scenarios are written from each file's analysis, which stays in one process: no pool."""
    finder = ConfigFinder(explicit=overrides.config_file)
    files = find_blueprints(paths, overrides, finder)
    settings = settings_per_file(files, overrides, finder)

    spec = REPORTERS[output_format]
    options = replace(options, color=spec.human and use_color(color), rule_docs_url=rule_docs_url(finder))
    report = Report(output_format, options, settings)
    scenarios = ScenarioWriter(emit_dir, settings) if emit_dir is not None else None
    failing = False
    workers = resolve_jobs(jobs, finder) if len(files) > 1 and scenarios is None else 1
    task = _CheckFile(settings, max_states, report, keep=scenarios is not None)
    loop = FileLoop(files, task, jobs=workers, pool_min=CHECK_POOL_MIN)
    try:
        for piece, item in loop:
            failing = failing or piece.counts.failing(settings[piece.path].deny_warnings)
            report.take(piece)
            if scenarios is not None and item is not None:
                scenarios.add(item)
            del item  # the file's analysis goes now: the report kept what it shows
    finally:
        if scenarios is not None:
            scenarios.close()
    report.finish()
    if loop.unchecked:
        return EXIT_ERROR
    return EXIT_FINDINGS if failing else EXIT_OK


class _CheckFile:
    """`check_bytes` on one file, and what the report keeps of it (made in a worker process
    when there is a pool: only that piece comes back); the result too with `keep`."""

    def __init__(self, settings: dict[str, Settings], max_states: int | None, report: "Report", keep: bool) -> None:
        self.settings, self.max_states, self.report, self.keep = settings, max_states, report, keep
        # Loaded before a pool forks, so that no worker imports the analysis itself.
        from ..analysis import core  # noqa: F401

    def __call__(self, path: str, data: bytes) -> "tuple[Piece, CheckResult | None]":
        item = check_bytes(
            path, data, self.settings[path], max_states=self.max_states, properties=scenario_file_beside(path)
        )
        return self.report.prepare(item), item if self.keep else None


#: The longest counterexample written as a scenario (a scenario lists its steps one by one).
SCENARIO_EVENTS = 100_000


class ScenarioWriter:
    """`--emit-scenarios DIR`: each file's counterexamples written as scenarios as soon as the
    file is checked (see compiler.scenarios.emit), so that its analysis need not be kept."""

    def __init__(self, directory: str, settings: dict[str, Settings]) -> None:
        from .outdir import OutputDirectory

        self.directory, self.settings = directory, settings
        self.out = OutputDirectory(directory)  # nothing written outside DIR, nor through a link

    def add(self, item: CheckResult) -> None:
        from ..scenarios.emit import emit as scenarios_text
        from ..scenarios.emit import emitted_file

        analysis, ir = item.analysis, item.result.blueprint
        if analysis is None or ir is None:
            return
        shown = {(d.code, d.path) for d in item.result.diagnostics}
        findings = [f for f in analysis.findings if (f.code, tuple(f.path)) in shown]
        long = [f for f in findings if f.trace is not None and f.trace.events.total > SCENARIO_EVENTS]
        for finding in long:
            assert finding.trace is not None
            echo_problem(
                f"note: the {finding.code} run in '{item.result.path}' has {finding.trace.events.total:,} events "
                f"(a run of identical replies); a scenario holds at most {SCENARIO_EVENTS:,}, so none is written"
            )
        findings = [f for f in findings if f not in long]
        target = emitted_file(self.directory, item.result.path)
        try:
            existing = read_capped(target) if os.path.exists(target) else None
        except OSError as exc:
            raise CliError(f"cannot read '{target}': {exc.strerror or exc}") from exc
        cap = self.settings[item.result.path].default_max_iterations
        broken = [v for v in item.properties if v.code is not None and (v.code, tuple(v.path)) in shown]
        try:
            text, added = scenarios_text(ir, findings, item.result.path, target, existing, cap, broken)
        except UnicodeDecodeError as exc:
            raise CliError(f"cannot append to '{target}': {not_utf8(exc)}") from exc
        if added:
            self.out.write(os.path.basename(target), text)
            echo_problem(f"wrote {added} scenario{'s' if added != 1 else ''} to {target}")

    def close(self) -> None:
        self.out.__exit__(None, None, None)


# --- reports ---------------------------------------------------------------------------------------


@dataclass
class Piece:
    """What the report keeps of one file's check."""

    path: str
    counts: Counts
    fixes: dict
    #: Written as soon as the file's turn comes (text findings, `github` lines).
    shown: str | None
    #: Shown at the end: the text ceilings, the JSON entry, or the findings.
    kept: Any
    #: The findings the text statistics and closing lines count.
    diagnostics: tuple = ()
    #: The fixes only `--unsafe-fixes` makes (the text marks them).
    unsafe_fixes: dict = field(default_factory=dict)


class Report:
    """The report, written as the files are checked. Of each file only what the report still
    has to show is kept: text and `github` output is written at once (the text ceilings, the
    statistics and the closing lines at the end, after every finding, as `validate` orders
    them); JSON keeps a file's entry; SARIF and concise its findings. A file's analysis is
    never kept: a tree of thousands of blueprints is checked in the memory of its largest."""

    def __init__(self, output_format: str, options: ReportOptions, settings: dict[str, Settings]) -> None:
        self.format, self.options, self.settings = output_format, options, settings
        self.shows_fixes = REPORTERS[output_format].shows_fixes
        #: Per file, what the end of the report shows: ceilings text, JSON entry, or findings.
        self.kept: list = []
        #: Every finding and the fixable ones (the text statistics and closing lines read them).
        self.diagnostics: list = []
        self.fixes: dict = {}
        self.unsafe_fixes: dict = {}
        self.total = Counts()

    def add(self, item: CheckResult) -> None:
        self.take(self.prepare(item))

    def prepare(self, item: CheckResult) -> "Piece":
        """What the report shows of one file; reads nothing the report gathers, so a worker
        process can make it."""
        result = item.result
        fixes = fixes_of([result], self.settings) if self.shows_fixes else {}
        if self.format == "text":
            unsafe = suggestion_fixes_of([result], self.settings, fixes)
            if not self.options.shows_findings:
                return Piece(result.path, result.counts, fixes, None, None, result.diagnostics, unsafe)
            options = replace(self.options, fixes=fixes, unsafe_fixes=unsafe)
            text = "".join(block + "\n\n" for block in diagnostic_blocks(item, options))
            return Piece(result.path, result.counts, fixes, text, ceilings_block(item), result.diagnostics, unsafe)
        if self.format == "json":
            return Piece(result.path, result.counts, {}, None, json_entry(item, fixes))
        slim = replace(result, blueprint=None, source=None, document=None)
        shown = get_reporter("github")([slim], self.options) if self.format == "github" else None
        return Piece(result.path, result.counts, fixes, shown, slim)

    def take(self, piece: "Piece") -> None:
        """One file's piece, in the order of the files: written at once or kept for the end."""
        self.total = self.total + piece.counts
        self.diagnostics.extend(piece.diagnostics)
        self.fixes.update(piece.fixes)
        self.unsafe_fixes.update(piece.unsafe_fixes)
        if piece.shown is not None:
            emit(piece.shown, color=self.options.color)
        self.kept.append(piece.kept)

    def finish(self) -> None:
        options = replace(self.options, fixes=self.fixes, unsafe_fixes=self.unsafe_fixes)
        if self.format == "text":
            ceilings = [block for block in self.kept if block is not None]
            emit(text_tail(ceilings, self.diagnostics, self.total, len(self.kept), options), color=options.color)
        elif self.format == "json":
            emit(json_document(self.kept, self.total))
        elif self.format != "github":
            emit(get_reporter(self.format)(self.kept, options), color=options.color)
