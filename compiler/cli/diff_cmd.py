"""`blueprint diff OLD NEW` and `blueprint diff --rev REV [PATH …]`: what changed in the agent.

Both versions are compiled and compared on their IR (formatting and comments never count),
each change classified as breaking, risky or info (`--explain`, docs/diff.md), and the runs
of both explored as `blueprint check` explores them, to report what the runs can now do.

Exit status: 0 when the diff was shown (whatever it holds) unless `--fail-on` trips; 1 when
`--fail-on CLASS` finds such a change (`cost`: a run's most tokens or dollars went up), or a version has errors (its errors are shown and that
pair is not compared); 2 for a usage or I/O error (a missing file, git missing, not a
repository, an unknown revision).
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

import click

from ..config import Overrides
from .common import use_color
from .errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, CliError, echo_problem, emit
from .options import color_option, default_max_iterations_option

if TYPE_CHECKING:
    from ..config import ConfigFinder, Settings
    from ..diff.core import Version
    from ..diff.model import DiffSide, Refused
    from ..diff.render import Outcome

FORMATS = ("text", "markdown", "json")


@click.command("diff")
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--rev",
    metavar="REV",
    help="Compare the working tree with git revision REV (PATHs: files or directories, default '.').",
)
@click.option(
    "--format",
    "--output-format",
    "output_format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Output format: text for a terminal, markdown for a pull-request comment, json for scripts.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["breaking", "risky", "any", "cost"]),
    default=None,
    help="Exit 1 when a change of this class (risky: or breaking; any: any change) is found; "
    "cost: when the most tokens or dollars of a run went up.",
)
@click.option("--no-runs", is_flag=True, help="Compare the blueprints only; do not explore their runs (faster).")
@click.option(
    "--max-states",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Stop exploring each version's runs after N run states (default 200,000).",
)
@default_max_iterations_option
@click.option("--explain", is_flag=True, help="List every kind of change with its class and why, then exit.")
@color_option
def command(
    paths: tuple[str, ...],
    rev: str | None,
    output_format: str,
    fail_on: str | None,
    no_runs: bool,
    max_states: int | None,
    default_max_iterations: int | None,
    explain: bool,
    color: str,
) -> None:
    """Compare two versions of a blueprint: what changed in the agent, and what its runs can now do."""
    if explain:
        from ..diff.rules import explain_text

        emit(explain_text())
        sys.exit(EXIT_OK)
    options = {"runs": not no_runs, "max_states": max_states}
    overrides = Overrides(default_max_iterations=default_max_iterations)
    if rev is None:
        if len(paths) != 2:
            raise click.UsageError("give two blueprint files (OLD NEW), or --rev REV to compare with a git revision")
        outcomes, unreadable = [_pair_files(paths[0], paths[1], options, overrides)], False
    else:
        outcomes, unreadable = _pairs_at_revision(rev, paths or (".",), options, overrides)

    from ..diff.model import Diff, Refused
    from ..diff.render import render_json, render_markdown, render_text

    if output_format == "json":
        emit(render_json(outcomes))
    elif output_format == "markdown":
        emit(render_markdown(outcomes))
    else:
        paint = use_color(color)
        emit(render_text(outcomes, color=paint), color=paint)
    if unreadable:
        sys.exit(EXIT_ERROR)
    refused = any(isinstance(o, Refused) for o in outcomes)
    tripped = fail_on is not None and any(isinstance(o, Diff) and o.has(fail_on) for o in outcomes)
    sys.exit(EXIT_FINDINGS if refused or tripped else EXIT_OK)


def _settings(path: str, finder: "ConfigFinder", overrides: Overrides) -> "Settings":
    from ..config import ConfigError, settings_for

    try:
        return settings_for(finder.for_file(path), overrides, path).for_file(path)
    except ConfigError as exc:
        raise CliError(str(exc)) from exc


def _read(data: bytes, settings: "Settings", side: str, old: "DiffSide", new: "DiffSide") -> "Version | Refused":
    """The `side` version of a pair, or the pair `Refused` when that version has errors."""
    from ..api import BlueprintError
    from ..diff.core import read_version
    from ..diff.model import Refused

    mine = old if side == "old" else new
    try:
        return read_version(mine.path, data, settings, mine.revision)
    except BlueprintError as exc:
        return Refused(old, new, side, exc.result.diagnostics, exc.result.source)


def _outcome(old: "Version | Refused | None", new: "Version | Refused | None", options: dict) -> "Outcome":
    from ..diff.core import added, compare, removed
    from ..diff.model import Refused

    if isinstance(old, Refused):
        return old
    if isinstance(new, Refused):
        return new
    if old is None:
        assert new is not None
        return added(new)
    if new is None:
        return removed(old)
    return compare(old, new, **options)


def _pair_files(old_path: str, new_path: str, options: dict, overrides: Overrides) -> "Outcome":
    from ..diff.model import DiffSide
    from .common import read_with_settings

    old_data, old_settings = read_with_settings(old_path, overrides)
    new_data, new_settings = read_with_settings(new_path, overrides)
    old, new = DiffSide(old_path, None), DiffSide(new_path, None)
    before = _read(old_data, old_settings, "old", old, new)
    after = _read(new_data, new_settings, "new", old, new)
    return _outcome(before, after, options)


def _pairs_at_revision(
    rev: str, given: tuple[str, ...], options: dict, overrides: Overrides
) -> tuple[list["Outcome"], bool]:
    """Each blueprint below `given` in the working tree or at `rev`, compared; and whether a
    working-tree file could not be read."""
    from ..config import ConfigFinder
    from ..diff.git import GitError, blueprints_at, check_revision, read_at
    from ..diff.model import DiffSide
    from ..discover import discover
    from ..parse.source import read_blueprint

    paths = tuple(_relative(path) for path in given)
    try:
        commit = check_revision(rev)
        then = blueprints_at(commit, paths)
    except GitError as exc:
        raise CliError(str(exc)) from exc
    now = discover(paths)
    for path in now.missing:
        if not any(p == path or p.startswith(path.rstrip("/") + "/") for p in then):
            shown = dict(zip(paths, given)).get(path, path)
            raise CliError(f"path '{shown}' exists neither in the working tree nor at {rev}")
    for problem in now.skipped:
        echo_problem(f"warning: cannot read directory {problem}; skipped")
    current, earlier = set(now.files), set(then)
    ordered = [*now.files, *sorted(earlier - current)]
    if not ordered:
        where = ", ".join(f"'{p}'" for p in paths)
        raise CliError(f"no blueprints found in {where}, in the working tree or at {rev}")
    outcomes: list["Outcome"] = []
    unreadable = False
    finder = ConfigFinder()
    for path in ordered:
        settings = _settings(path, finder, overrides)
        old_side, new_side = DiffSide(path, None, rev), DiffSide(path, None)
        new = old = None
        if path in current:
            try:
                new = _read(read_blueprint(path), settings, "new", old_side, new_side)
            except OSError as exc:
                echo_problem(f"error: cannot read '{path}': {exc.strerror or exc}")
                unreadable = True
                continue
        if path in earlier:
            try:
                data = read_at(commit, path)
            except GitError as exc:
                raise CliError(str(exc)) from exc
            # A past revision's custom-region scripts are not judged by what is on disk today.
            then_settings = replace(settings, blueprint_folder=None)
            old = _read(data, then_settings, "old", old_side, new_side) if data is not None else None
        outcomes.append(_outcome(old, new, options))
    return outcomes, unreadable


def _relative(path: str) -> str:
    """A path below the working directory as a relative one (git and the discovery agree on it)."""
    if os.path.isabs(path):
        relative = os.path.relpath(path)
        if not relative.startswith(os.pardir):
            return relative
    return os.path.normpath(path)
