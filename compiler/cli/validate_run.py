"""What `blueprint validate [PATH …]` does: check blueprints and report every finding.
Click-free: the click command (`validate_cmd.py`) and the quick path (`quick.py`) call it.

Exit status: 0 when nothing fails, 1 when some file has an error (or a warning, with
--deny-warnings; never with --exit-zero), 2 when a path is missing, a file cannot be read, the configuration is
invalid or no blueprint was found. An unreadable file is reported on stderr and the other
files are still checked. The path `-` reads one blueprint from standard input (editors, pipes);
`--stdin-filename` names it in the report and for the settings lookup. With `--fix`, the fixed
blueprint goes to stdout and the report of what remains to stderr, as ruff does.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..config import ConfigFinder, Overrides, Settings
from ..display import plural
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
    suggestion_fixes_of,
    use_color,
    with_installation,
)
from .errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, CliError, OutputError, echo, echo_problem, emit
from .files import FileLoop
from .pool import VALIDATE_POOL_MIN, resolve_jobs

if TYPE_CHECKING:
    from ..fix import FixOutcome
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
    #: The findings only `--unsafe-fixes` fixes, with their edits (the text report marks them).
    unsafe_fixes: dict = field(default_factory=dict)
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
    extend_select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    config_file: str | None = None,
    exclude: tuple[str, ...] = (),
    respect_gitignore: bool | None = None,
    statistics: bool = False,
    quiet: bool = False,
    color: str = "auto",
    fix: bool = False,
    unsafe_fixes: bool | None = None,
    show_fixes: bool = False,
    diff: bool = False,
    stdin_filename: str | None = None,
    show_settings: bool = False,
    watch: bool = False,
    exit_zero: bool = False,
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
            extend_select=extend_select,
            config_file=config_file,
            shard=shard,
        ),
        leviath_config,
        leviath_models,
    )
    overrides = replace(overrides, unsafe_fixes=unsafe_fixes)
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
    status = _validate(
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
        show_fixes=show_fixes,
        jobs=jobs,
    )
    return EXIT_OK if exit_zero and status == EXIT_FINDINGS else status


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
    show_fixes: bool = False,
    jobs: int | None = None,
) -> int:
    """One run of `blueprint validate`: the report on stdout; the exit status returned."""
    spec = REPORTERS[output_format]
    finder = ConfigFinder(explicit=overrides.config_file)
    read: Callable[[str], bytes] = read_blueprint
    if stdin:
        files, read = _stdin_input(paths, stdin_filename)
    else:
        if stdin_filename is not None:
            raise CliError("--stdin-filename names standard input: pass '-' as the only path")
        paths = paths or (".",)
        files = find_blueprints(paths, overrides, finder)

    settings = settings_per_file(files, overrides, finder)
    if stdin and (fix or diff):
        fixed = _fix_stdin(files[0], read(files[0]), settings[files[0]], diff)
        if diff:
            return EXIT_FINDINGS if fixed.changed else EXIT_OK
        read = lambda _path: fixed.data  # noqa: E731 (standard input is read once)
    elif diff:
        return _diff(files, settings)
    unwritten = _fix(files, settings, show_fixes) if fix and not stdin else False
    progress = spec.human and len(files) >= PROGRESS_MIN_FILES and is_terminal(sys.stderr)
    workers = resolve_jobs(jobs, finder) if len(files) > 1 else 1
    to_stderr = stdin and fix  # stdout holds the fixed blueprint
    options = ReportOptions(
        color=spec.human and use_color(color, sys.stderr if to_stderr else None),
        statistics=statistics,
        quiet=quiet,
        rule_docs_url=rule_docs_url(finder),
        show_fixes=show_fixes and not fix,
    )

    def write(text: str) -> None:
        if to_stderr:
            echo(text, nl=False, err=True, color=options.color)
        else:
            emit(text, color=options.color)

    # The text report is written file by file (after the progress line, when one is shown),
    # so that of each file only its findings are kept, for the statistics and closing lines.
    shown: list[str] = []
    run = _check(
        files,
        settings,
        progress,
        read,
        workers,
        fixes=spec.shows_fixes,
        unsafe=spec.human and spec.shows_fixes,
        entries=output_format == "json",
        text=options if output_format == "text" else None,
        write=shown.append if progress else write,
    )
    options = replace(options, fixes=run.fixes, unsafe_fixes=run.unsafe_fixes)
    if output_format == "text":
        from ..render.text import report_tail

        write("".join(shown) + report_tail(run.results, options))
    elif output_format == "json":  # each file's entry was made as it was checked
        from ..diagnostics import Counts
        from ..render.check_report import json_document

        write(json_document(run.entries, sum((result.counts for result in run.results), Counts())))
    else:
        write(get_reporter(output_format)(run.results, options))
    if run.unchecked or unwritten:
        return EXIT_ERROR
    return EXIT_FINDINGS if run.failing else EXIT_OK


def _stdin_input(paths: tuple[str, ...], name: str | None) -> tuple[tuple[str, ...], Callable[[str], bytes]]:
    """The one-file input of `validate -`: its reported name and a reader of standard input."""
    if paths not in ((), (STDIN,)):
        raise CliError("'-' reads standard input and cannot be combined with other paths")
    if name == "":
        raise CliError("--stdin-filename must not be empty")

    # One byte past the limit is enough for the `file-too-large` diagnostic.
    return (name or STDIN_NAME,), lambda _path: read_stdin(MAX_FILE_BYTES + 1)


def _fix_stdin(name: str, data: bytes, settings: Settings, diff: bool) -> "FixOutcome":
    """`validate - --fix`, as ruff does it: the fixed blueprint (the input itself when nothing
    was fixed) on stdout; the caller reports what remains on stderr. With `diff`, the fixes
    as a unified diff on stdout instead."""
    from ..fix import fix_bytes
    from ..fix.files import unified_diff

    outcome = fix_bytes(name, data, settings)
    if outcome.problem is not None and outcome.problem.startswith("a fix"):
        echo_problem(f"error: '{name}': {outcome.problem}")
    if diff:
        emit(unified_diff(outcome))
        echo(f"{plural(len(outcome.fixed), 'fixable finding')}{_hidden(outcome.hidden)}", err=True)
        return outcome
    try:
        sys.stdout.buffer.write(outcome.data)
        sys.stdout.flush()
    except OSError as exc:
        raise OutputError(exc) from exc
    if outcome.fixed:
        echo(f"fixed {plural(len(outcome.fixed), 'finding')}{_hidden(outcome.hidden)}", err=True)
    return outcome


def _fix(files: tuple[str, ...], settings: dict[str, Settings], show_fixes: bool = False) -> bool:
    """--fix: write the fixes (the report then shows what remains); True when a file could not
    be written. With `show_fixes`, what was fixed in each file is listed."""
    from ..fix.files import fix_files

    run = fix_files(files, settings.__getitem__, write=True)
    for message in run.problems:
        echo_problem(f"error: {message}")
    if run.written:  # only what is on disk: a file that could not be written fixed nothing
        echo(
            f"fixed {plural(run.fixed_count, 'finding')} in {plural(len(run.written), 'file')}{_hidden(run.hidden_count)}",
            err=True,
        )
        if show_fixes:
            echo(_fixed_list(run.written), nl=False, err=True)
    return run.unwritten > 0


def _fixed_list(written: "list[FixOutcome]") -> str:
    """`--fix --show-fixes`: per file, how many findings of each rule were fixed (`[~]`: by an
    unsafe fix)."""
    from collections import Counter

    from ..display import visible
    from ..rulebook.registry import REGISTRY

    lines = []
    for outcome in written:
        lines.append(f"- {visible(outcome.path)}:")
        unsafe = Counter(d.code for d in outcome.unsafe)
        for code, count in sorted(Counter(d.code for d in outcome.fixed).items()):
            rule = REGISTRY.get(code)
            for n, mark in ((count - unsafe[code], ""), (unsafe[code], " [~]")):
                if n:
                    lines.append(f"    {n} × {code}{mark}" + (f" ({rule.summary})" if rule is not None else ""))
    return "".join(line + "\n" for line in lines)


def _hidden(count: int) -> str:
    return f" ({count} more fixable with --unsafe-fixes)" if count else ""


def _diff(files: tuple[str, ...], settings: dict[str, Settings]) -> int:
    """--diff: the fixes as one unified diff on stdout; nothing written."""
    from ..fix.files import fix_files, unified_diff

    run = fix_files(files, settings.__getitem__, write=False)
    for message in run.problems + run.unreadable:
        echo_problem(f"error: {message}")
    changed = run.changed
    emit("".join(unified_diff(outcome) for outcome in changed))
    echo(
        f"{plural(run.fixable_count, 'fixable finding')} in {plural(len(changed), 'file')}{_hidden(run.hidden_count)}",
        err=True,
    )
    return EXIT_ERROR if run.unreadable else EXIT_FINDINGS if changed else EXIT_OK


def _check(
    files: tuple[str, ...],
    settings: dict[str, Settings],
    progress: bool,
    read: Callable[[str], bytes] = read_blueprint,
    jobs: int = 1,
    *,
    fixes: bool = False,
    unsafe: bool = False,
    entries: bool = False,
    text: ReportOptions | None = None,
    write: Callable[[str], None] = emit,
) -> Run:
    """Each file validated (in `jobs` processes), with its fixes when `fixes` (and those only
    `--unsafe-fixes` makes, when `unsafe`). Of a result the report needs its findings and
    source; with `entries` its JSON entry is made at once, and with `text` its findings are
    rendered and handed to `write`; either way the source goes."""
    run = Run()
    task = _ValidateFile(settings, fixes, unsafe, entries, text)
    loop = FileLoop(files, task, read=read, progress=progress, jobs=jobs, pool_min=VALIDATE_POOL_MIN)
    for result, found, suggested, made in loop:
        run.results.append(result)
        run.fixes.update(found)
        run.unsafe_fixes.update(suggested)
        if isinstance(made, str):
            write(made)
        elif made is not None:
            run.entries.append(made)
        if result.counts.failing(settings[result.path].deny_warnings):
            run.failing = True
    run.unchecked = loop.unchecked
    return run


class _ValidateFile:
    """`validate_bytes` with each file's settings, then its fixes, and the result without what
    the report does not read (a class, so a worker process can take it; what it returns is
    all that comes back from the worker)."""

    def __init__(
        self, settings: dict[str, Settings], fixes: bool, unsafe: bool, entries: bool, text: ReportOptions | None
    ) -> None:
        self.settings, self.fixes, self.unsafe, self.entries, self.text = settings, fixes, unsafe, entries, text
        # Loaded here, before a pool forks: each worker then starts with the rules in memory
        # instead of importing them itself (some 120 ms of CPU per worker).
        from .. import pipeline  # noqa: F401

    def __call__(self, path: str, data: bytes) -> "tuple[FileResult, dict, dict, str | dict | None]":
        from ..pipeline import validate_bytes

        result = validate_bytes(path, data, self.settings[path])
        found = fixes_of([result], self.settings) if self.fixes else {}
        suggested = suggestion_fixes_of([result], self.settings, found) if self.unsafe else {}
        slim = replace(result, document=None, blueprint=None)
        if self.entries:
            from ..render.json import report_document

            return replace(slim, source=None), found, suggested, report_document([result], found)["files"][0]
        if self.text is not None:
            from ..render.text import finding_blocks

            blocks = finding_blocks(result, replace(self.text, fixes=found, unsafe_fixes=suggested))
            return replace(slim, source=None), found, suggested, blocks
        return slim, found, suggested, None
