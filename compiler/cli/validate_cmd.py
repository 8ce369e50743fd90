"""`blueprint validate [PATH …]`: check blueprints and report every finding.

Exit status: 0 when nothing fails, 1 when some file has an error (or a warning, with
--deny-warnings), 2 when a path is missing, a file cannot be read, the configuration is
invalid or no blueprint was found. An unreadable file is reported on stderr and the other
files are still checked. The path `-` reads one blueprint from standard input (editors, pipes);
`--stdin-filename` names it in the report and for the settings lookup.
"""

from __future__ import annotations

import gc
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import click

from ..parse.source import MAX_FILE_BYTES, read_blueprint
from ..config import Settings
from ..discover import discover
from ..render import REPORTERS, ReportOptions, get_reporter
from .common import (
    blueprint_files,
    color_option,
    default_max_iterations_option,
    installation_options,
    is_terminal,
    read_stdin,
    rule_options,
    rule_overrides,
    settings_per_file,
    use_color,
    with_installation,
)
from .errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, CliError, echo_problem, emit

if TYPE_CHECKING:
    from ..pipeline import FileResult

#: Below this many files a run is quick enough that progress would only flicker.
PROGRESS_MIN_FILES = 20
_CLEAR_LINE = "\r\x1b[K"
#: The path that means standard input, and the name it is reported under by default.
STDIN = "-"
STDIN_NAME = "<stdin>"


@dataclass
class Run:
    """What checking the files produced."""

    results: list["FileResult"] = field(default_factory=list)
    failing: bool = False
    #: Files that could not be read, or crashed the checker: the run exits with 2.
    unchecked: int = 0


@click.command("validate")
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(sorted(REPORTERS)),
    default="text",
    show_default=True,
    help="Output format.",
)
@rule_options
@installation_options
@click.option("--statistics", is_flag=True, help="Add a count of findings per code (text format).")
@click.option("-q", "--quiet", is_flag=True, help="Print only the summary line (text format).")
@click.option(
    "--fix",
    is_flag=True,
    help=(
        "Rewrite fixable findings in place (fixes that cannot change a run, and old spellings moved "
        "where Leviath reads them), then report the rest."
    ),
)
@click.option("--diff", is_flag=True, help="Print the fixes --fix would make as a unified diff; write nothing (exit 1 if any).")
@click.option(
    "--stdin-filename",
    metavar="PATH",
    help="Report standard input ('-') under this path, and take its settings from the pyproject.toml above it.",
)
@default_max_iterations_option
@color_option
def command(
    paths: tuple[str, ...],
    output_format: str,
    deny_warnings: bool | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    statistics: bool,
    quiet: bool,
    color: str,
    fix: bool = False,
    diff: bool = False,
    stdin_filename: str | None = None,
    default_max_iterations: int | None = None,
    leviath_config: str | None = None,
    leviath_models: str | None = None,
) -> None:
    """Check blueprint files, and the *.leviath files below directories (default: '.').

    Settings come from [tool.blueprint] in the nearest pyproject.toml above each file;
    flags replace the keys they name.
    """
    spec = REPORTERS[output_format]
    if (statistics or quiet) and not spec.human:
        flag = "--statistics" if statistics else "--quiet"
        raise CliError(f"{flag} applies to human formats only, not '{output_format}'")
    overrides = with_installation(
        rule_overrides(select, ignore, deny_warnings, default_max_iterations), leviath_config, leviath_models
    )
    read: Callable[[str], bytes] = read_blueprint
    if STDIN in paths or (stdin_filename is not None and not paths):
        files, read = _stdin_input(paths, stdin_filename, fix or diff)
    else:
        if stdin_filename is not None:
            raise CliError("--stdin-filename names standard input: pass '-' as the only path")
        paths = paths or (".",)
        files = blueprint_files(discover(paths), paths)

    settings = settings_per_file(files, overrides)
    unwritten = _fix(files, settings, fix=fix, diff=diff) if fix or diff else False
    progress = spec.human and len(files) >= PROGRESS_MIN_FILES and is_terminal(sys.stderr)
    run = _check(files, settings, progress, read)

    options = ReportOptions(
        color=spec.human and use_color(color),
        statistics=statistics,
        quiet=quiet,
    )
    emit(get_reporter(output_format)(run.results, options), color=options.color)
    if run.unchecked or unwritten:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if run.failing else EXIT_OK)


def _stdin_input(paths: tuple[str, ...], name: str | None, fixing: bool) -> tuple[tuple[str, ...], Callable[[str], bytes]]:
    """The one-file input of `validate -`: its reported name and a reader of standard input."""
    if paths not in ((), (STDIN,)):
        raise CliError("'-' reads standard input and cannot be combined with other paths")
    if fixing:
        raise CliError("--fix and --diff rewrite files; they cannot work on standard input")
    if name == "":
        raise CliError("--stdin-filename must not be empty")

    # One byte past the limit is enough for the `file-too-large` diagnostic.
    return (name or STDIN_NAME,), lambda _path: read_stdin(MAX_FILE_BYTES + 1)


def _fix(files: tuple[str, ...], settings: dict[str, Settings], *, fix: bool, diff: bool) -> bool:
    """--fix: write the fixes (the report then shows what remains); True when a file could not
    be written. --diff: print the fixes as a unified diff and exit."""
    from ..fix.files import fix_files, unified_diff

    if fix and diff:
        raise CliError("--fix and --diff cannot be combined: --diff shows what --fix would write")
    run = fix_files(files, settings.__getitem__, write=fix)
    for message in run.problems + (run.unreadable if diff else []):
        echo_problem(f"error: {message}")
    changed = run.changed
    if diff:
        emit("".join(unified_diff(outcome) for outcome in changed))
        click.echo(f"{run.fixable_count} fixable finding(s) in {len(changed)} file(s)", err=True)
        sys.exit(EXIT_ERROR if run.unreadable else EXIT_FINDINGS if changed else EXIT_OK)
    if run.written:  # only what is on disk: a file that could not be written fixed nothing
        click.echo(f"fixed {run.fixed_count} finding(s) in {len(run.written)} file(s)", err=True)
    return run.unwritten > 0


def _check(
    files: tuple[str, ...], settings: dict[str, Settings], progress: bool, read: Callable[[str], bytes] = read_blueprint
) -> Run:
    from ..pipeline import LARGE_INPUT_BYTES, validate_bytes

    run = Run()
    for number, path in enumerate(files, 1):
        if progress:
            click.echo(f"\rchecking {number}/{len(files)} files", nl=False, err=True)
        try:
            data = read(path)
        except OSError as exc:
            _problem(f"error: cannot read '{path}': {exc.strerror or exc}", progress)
            run.unchecked += 1
            continue
        try:
            large = len(data) >= LARGE_INPUT_BYTES
            result = (_validate_large if large else validate_bytes)(path, data, settings[path])
        except Exception as exc:  # a bug on one file must not hide the findings of the others
            if os.environ.get("BLUEPRINT_DEBUG"):
                raise
            _problem(f"error: internal error while checking '{path}': {type(exc).__name__}: {exc}", progress)
            run.unchecked += 1
            continue
        run.results.append(result)
        if result.counts.failing(settings[path].deny_warnings):
            run.failing = True
    if progress:
        click.echo(_CLEAR_LINE, nl=False, err=True)
    return run


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


def _problem(message: str, progress: bool) -> None:
    """One line on stderr, on a line of its own even while progress is shown."""
    if progress:
        click.echo(_CLEAR_LINE, nl=False, err=True)
    echo_problem(message)
