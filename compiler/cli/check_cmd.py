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
from dataclasses import replace

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
    rule_options,
    shard_option,
    summary_options,
    watch_option,
)


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
            return _check(paths, overrides, output_format, options, color, max_states, emit_dir)

        watch_paths(paths, overrides, run_once)
    status = _check(paths, overrides, output_format, options, color, max_states, emit_dir)
    sys.exit(EXIT_OK if exit_zero and status == EXIT_FINDINGS else status)


def _check(
    paths: tuple[str, ...],
    overrides: Overrides,
    output_format: str,
    options: ReportOptions,
    color: str,
    max_states: int | None,
    emit_dir: str | None = None,
) -> int:
    """One run of `blueprint check`: the report on stdout; the exit status returned."""
    finder = ConfigFinder(explicit=overrides.config_file)
    files = find_blueprints(paths, overrides, finder)
    settings = settings_per_file(files, overrides, finder)

    spec = REPORTERS[output_format]
    options = replace(options, color=spec.human and use_color(color), rule_docs_url=rule_docs_url(finder))
    report = Report(output_format, options, settings)
    scenarios = ScenarioWriter(emit_dir, settings) if emit_dir is not None else None
    failing = False
    loop = FileLoop(
        files,
        lambda path, data: check_bytes(
            path, data, settings[path], max_states=max_states, properties=scenario_file_beside(path)
        ),
    )
    try:
        for item in loop:
            failing = failing or item.result.counts.failing(settings[item.result.path].deny_warnings)
            report.add(item)
            if scenarios is not None:
                scenarios.add(item)
            del item  # the file's analysis goes now: the report kept what it shows
    finally:
        if scenarios is not None:
            scenarios.close()
    report.finish()
    if loop.unchecked:
        return EXIT_ERROR
    return EXIT_FINDINGS if failing else EXIT_OK


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
        result = item.result
        self.total = self.total + result.counts
        fixes = fixes_of([result], self.settings) if self.shows_fixes else {}
        if self.format == "text":
            unsafe = suggestion_fixes_of([result], self.settings, fixes)
            self.diagnostics.extend(result.diagnostics)
            self.fixes.update(fixes)
            self.unsafe_fixes.update(unsafe)
            if self.options.shows_findings:
                options = replace(self.options, fixes=fixes, unsafe_fixes=unsafe)
                emit("".join(block + "\n\n" for block in diagnostic_blocks(item, options)), color=self.options.color)
                self.kept.append(ceilings_block(item))
            else:
                self.kept.append(None)
        elif self.format == "json":
            self.kept.append(json_entry(item, fixes))
        else:
            slim = replace(result, blueprint=None, source=None, document=None)
            if self.format == "github":
                emit(get_reporter("github")([slim], self.options), color=self.options.color)
            self.fixes.update(fixes)
            self.kept.append(slim)

    def finish(self) -> None:
        options = replace(self.options, fixes=self.fixes, unsafe_fixes=self.unsafe_fixes)
        if self.format == "text":
            ceilings = [block for block in self.kept if block is not None]
            emit(text_tail(ceilings, self.diagnostics, self.total, len(self.kept), options), color=options.color)
        elif self.format == "json":
            emit(json_document(self.kept, self.total))
        elif self.format != "github":
            emit(get_reporter(self.format)(self.kept, options), color=options.color)
