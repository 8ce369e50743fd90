"""What `blueprint validate [PATH …]` does: check blueprints and report every finding.
Click-free: the click command (`validate_cmd.py`) and the quick path (`quick.py`) call it.

Exit status: 0 when nothing fails, 1 when some file has an error (or a warning, with
--deny-warnings), 2 when a path is missing, a file cannot be read, the configuration is
invalid or no blueprint was found. An unreadable file is reported on stderr and the other
files are still checked. The path `-` reads one blueprint from standard input (editors, pipes);
`--stdin-filename` names it in the report and for the settings lookup.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..config import ConfigFinder, Overrides, Settings
from ..parse.source import MAX_FILE_BYTES, read_blueprint
from ..render import REPORTERS, ReportOptions, get_reporter
from .common import (
    find_blueprints,
    fixes_of,
    human_only,
    is_terminal,
    read_stdin,
    rule_docs_url,
    rule_overrides,
    settings_per_file,
    use_color,
    with_installation,
)
from .errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, CliError, echo, echo_problem, emit
from .files import FileLoop
from .pool import VALIDATE_POOL_MIN, resolve_jobs

if TYPE_CHECKING:
    from ..pipeline import FileResult

#: Below this many files a run is quick enough that progress would only flicker.
PROGRESS_MIN_FILES = 20
#: The path that means standard input, and the name it is reported under by default.
STDIN = "-"
STDIN_NAME = "<stdin>"


@dataclass
class Run:
    """What checking the files produced."""

    results: list["FileResult"] = field(default_factory=list)
    #: The fixable findings' edits, when the report shows them.
    fixes: dict = field(default_factory=dict)
    #: With the JSON format: each file's entry.
    entries: list[dict] = field(default_factory=list)
    failing: bool = False
    #: Files that could not be read, or crashed the checker: the run exits with 2.
    unchecked: int = 0


def run_validate(
    paths: tuple[str, ...] = (),
    *,
    output_format: str = "text",
    deny_warnings: bool | None = None,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
    respect_gitignore: bool | None = None,
    statistics: bool = False,
    quiet: bool = False,
    color: str = "auto",
    fix: bool = False,
    diff: bool = False,
    stdin_filename: str | None = None,
    show_settings: bool = False,
    watch: bool = False,
    default_max_iterations: int | None = None,
    leviath_config: str | None = None,
    leviath_models: str | None = None,
    shard: str | None = None,
    jobs: int | None = None,
) -> int:
    """One `blueprint validate`, its options as click parses them (the defaults are the
    options' defaults: `tests/test_quick_cli.py` holds them to it); returns the exit status."""
    spec = REPORTERS[output_format]
    human_only(spec, output_format, statistics=statistics, quiet=quiet)
    overrides = with_installation(
        rule_overrides(
            select,
            ignore,
            deny_warnings,
            default_max_iterations,
            exclude=exclude,
            respect_gitignore=respect_gitignore,
            shard=shard,
        ),
        leviath_config,
        leviath_models,
    )
    if show_settings:
        from .show_settings import show_settings as render_settings

        if len(paths) != 1 or paths == (STDIN,):
            raise CliError("--show-settings takes exactly one PATH (a file or a directory)")
        emit(render_settings(paths[0], overrides))
        return EXIT_OK
    stdin = STDIN in paths or (stdin_filename is not None and not paths)
    if watch:
        if fix or diff or stdin:
            raise CliError("--watch checks files as they change; it cannot be combined with --fix, --diff or '-'")
        from .watch import watch as watch_paths

        paths = paths or (".",)
        watch_paths(
            paths, overrides, lambda: _validate(paths, overrides, output_format, statistics, quiet, color, jobs=jobs)
        )
    if fix and diff:
        raise CliError("--fix and --diff cannot be combined: --diff shows what --fix would write")
    return _validate(
        paths,
        overrides,
        output_format,
        statistics,
        quiet,
        color,
        fix=fix,
        diff=diff,
        stdin=stdin,
        stdin_filename=stdin_filename,
        jobs=jobs,
    )


def _validate(
    paths: tuple[str, ...],
    overrides: Overrides,
    output_format: str,
    statistics: bool,
    quiet: bool,
    color: str,
    *,
    fix: bool = False,
    diff: bool = False,
    stdin: bool = False,
    stdin_filename: str | None = None,
    jobs: int | None = None,
) -> int:
    """One run of `blueprint validate`: the report on stdout; the exit status returned."""
    spec = REPORTERS[output_format]
    finder = ConfigFinder()
    read: Callable[[str], bytes] = read_blueprint
    if stdin:
        files, read = _stdin_input(paths, stdin_filename, fix or diff)
    else:
        if stdin_filename is not None:
            raise CliError("--stdin-filename names standard input: pass '-' as the only path")
        paths = paths or (".",)
        files = find_blueprints(paths, overrides, finder)

    settings = settings_per_file(files, overrides, finder)
    if diff:
        return _diff(files, settings)
    unwritten = _fix(files, settings) if fix else False
    progress = spec.human and len(files) >= PROGRESS_MIN_FILES and is_terminal(sys.stderr)
    workers = resolve_jobs(jobs, finder) if len(files) > 1 else 1
    options = ReportOptions(
        color=spec.human and use_color(color), statistics=statistics, quiet=quiet, rule_docs_url=rule_docs_url(finder)
    )
    # The text report is written file by file (after the progress line, when one is shown),
    # so of each file only its findings are kept, for the statistics and the closing lines.
    shown: list[str] = []
    text = options if output_format == "text" else None
    write = shown.append if progress else (lambda block: emit(block, color=options.color))
    run = _check(
        files,
        settings,
        progress,
        read,
        workers,
        fixes=spec.shows_fixes,
        entries=output_format == "json",
        text=text,
        write=write,
    )
    options = replace(options, fixes=run.fixes)
    if text is not None:
        emit("".join(shown) + _text_tail(run, options), color=options.color)
    elif output_format == "json":
        from ..diagnostics import Counts
        from ..render.check_report import json_document

        emit(json_document(run.entries, sum((result.counts for result in run.results), Counts())))
    else:
        emit(get_reporter(output_format)(run.results, options), color=options.color)
    if run.unchecked or unwritten:
        return EXIT_ERROR
    return EXIT_FINDINGS if run.failing else EXIT_OK


def _stdin_input(
    paths: tuple[str, ...], name: str | None, fixing: bool
) -> tuple[tuple[str, ...], Callable[[str], bytes]]:
    """The one-file input of `validate -`: its reported name and a reader of standard input."""
    if paths not in ((), (STDIN,)):
        raise CliError("'-' reads standard input and cannot be combined with other paths")
    if fixing:
        raise CliError("--fix and --diff rewrite files; they cannot work on standard input")
    if name == "":
        raise CliError("--stdin-filename must not be empty")

    # One byte past the limit is enough for the `file-too-large` diagnostic.
    return (name or STDIN_NAME,), lambda _path: read_stdin(MAX_FILE_BYTES + 1)


def _fix(files: tuple[str, ...], settings: dict[str, Settings]) -> bool:
    """--fix: write the fixes (the report then shows what remains); True when a file could not
    be written."""
    from ..fix.files import fix_files

    run = fix_files(files, settings.__getitem__, write=True)
    for message in run.problems:
        echo_problem(f"error: {message}")
    if run.written:  # only what is on disk: a file that could not be written fixed nothing
        echo(f"fixed {run.fixed_count} finding(s) in {len(run.written)} file(s)", err=True)
    return run.unwritten > 0


def _diff(files: tuple[str, ...], settings: dict[str, Settings]) -> int:
    """--diff: the fixes as one unified diff on stdout; nothing written."""
    from ..fix.files import fix_files, unified_diff

    run = fix_files(files, settings.__getitem__, write=False)
    for message in run.problems + run.unreadable:
        echo_problem(f"error: {message}")
    changed = run.changed
    emit("".join(unified_diff(outcome) for outcome in changed))
    echo(f"{run.fixable_count} fixable finding(s) in {len(changed)} file(s)", err=True)
    return EXIT_ERROR if run.unreadable else EXIT_FINDINGS if changed else EXIT_OK


def _check(
    files: tuple[str, ...],
    settings: dict[str, Settings],
    progress: bool,
    read: Callable[[str], bytes] = read_blueprint,
    jobs: int = 1,
    *,
    fixes: bool = False,
    entries: bool = False,
    text: ReportOptions | None = None,
    write: Callable[[str], None] = emit,
) -> Run:
    """Each file validated (in `jobs` processes), with its fixes when `fixes`. Of a result the
    report needs its findings and source; with `entries` its JSON entry is made at once, and
    with `text` its findings are rendered and handed to `write`, and the source goes."""
    run = Run()
    task = _ValidateFile(settings, fixes, entries, text)
    loop = FileLoop(files, task, read=read, progress=progress, jobs=jobs, pool_min=VALIDATE_POOL_MIN)
    for result, found, rendered in loop:
        run.results.append(result)
        run.fixes.update(found)
        if isinstance(rendered, str):
            write(rendered)
        elif rendered is not None:
            run.entries.append(rendered)
        if result.counts.failing(settings[result.path].deny_warnings):
            run.failing = True
    run.unchecked = loop.unchecked
    return run


class _ValidateFile:
    """`validate_bytes` with each file's settings, then its fixes, and the result without what
    the report does not read (a class, so a worker process can take it; what it returns is
    all that comes back from the worker)."""

    def __init__(
        self, settings: dict[str, Settings], fixes: bool, entries: bool, text: ReportOptions | None = None
    ) -> None:
        self.settings, self.fixes, self.entries, self.text = settings, fixes, entries, text
        # Loaded here, before a pool forks: each worker then starts with the rules in memory
        # instead of importing them itself (some 120 ms of CPU per worker).
        from .. import pipeline  # noqa: F401

    def __call__(self, path: str, data: bytes) -> "tuple[FileResult, dict, str | dict | None]":
        from ..pipeline import LARGE_INPUT_BYTES, validate_bytes

        large = len(data) >= LARGE_INPUT_BYTES
        result = (_validate_large if large else validate_bytes)(path, data, self.settings[path])
        found = fixes_of([result], self.settings) if self.fixes else {}
        slim = replace(result, document=None, blueprint=None)
        if self.entries:
            from ..render.json import report_document

            return replace(slim, source=None), found, report_document([result], found)["files"][0]
        if self.text is None:
            return slim, found, None
        rendered = "" if self.text.quiet else _findings_text(result, replace(self.text, fixes=found))
        return replace(slim, source=None), found, rendered


def _findings_text(result: "FileResult", options: ReportOptions) -> str:
    """A file's findings as the text report shows them, each followed by a blank line."""
    from ..render.text import render_diagnostic

    return "".join(
        render_diagnostic(d, result.source, color=options.color, fixable=d in options.fixes) + "\n\n"
        for d in result.diagnostics
    )


def _text_tail(run: Run, options: ReportOptions) -> str:
    """The end of the text report: the statistics when asked, then the closing lines."""
    from ..diagnostics import Counts
    from ..render.check_report import text_tail

    diagnostics = [d for result in run.results for d in result.diagnostics]
    total = sum((result.counts for result in run.results), Counts())
    return text_tail([], diagnostics, total, len(run.results), options)


def _validate_large(path: str, data: bytes, settings: Settings) -> "FileResult":
    """`validate_bytes` on a large file, then its objects are hidden from the collector.

    They live in the run's results until exit anyway. Re-enabling the collector as the library
    does would make its next pass traverse all of them (a fifth of a second at 10,000
    stages); `gc.freeze` moves them out of its sight in constant time instead.
    """
    from ..pipeline import validate_bytes

    if not gc.isenabled():
        return validate_bytes(path, data, settings)
    gc.disable()
    try:
        return validate_bytes(path, data, settings)
    finally:
        gc.freeze()
        gc.enable()
