"""`blueprint test [PATH …]`: play scenario files on the stage-runner and check what each run does.

A directory is searched for `*.scenarios.toml` files; a blueprint named on the command line
brings the scenario file beside it. Each failing expectation is reported at its line and
column, with the script beside the actual run. Exit status: 0 every scenario passed, 1 a
scenario failed or a scenario file has a problem, 2 a usage or I/O error (a missing path, no
scenario file found, `-k` selecting nothing, an unreadable file).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from ..config import ConfigError, ConfigFinder, Settings, settings_for
from ..discover import discover, is_blueprint_name
from .common import use_color
from .errors import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, CliError, echo, echo_problem, emit
from .files import FileLoop
from .options import color_option

if TYPE_CHECKING:
    from ..ir.model import Blueprint
    from ..pipeline import FileResult
    from ..scenarios.coverage import Coverage
    from ..scenarios.runner import FileOutcome


@click.command("test")
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--format",
    "--output-format",
    "output_format",
    type=click.Choice(["text", "json", "junit"]),
    default="text",
    show_default=True,
    help="Output format (junit: JUnit XML, which CI systems show in their test tabs).",
)
@click.option(
    "-k",
    "pattern",
    metavar="PATTERN",
    help="Run only the scenarios whose name contains PATTERN (any case), or matches it as a glob.",
)
@click.option(
    "--update", is_flag=True, help="Rewrite failing expectations to what the run did, keeping comments and layout."
)
@click.option("--coverage", is_flag=True, help="Also list the stages and edges no scenario exercises.")
@click.option("-v", "--verbose", is_flag=True, help="List the scenarios that passed too.")
@color_option
def command(
    paths: tuple[str, ...],
    output_format: str,
    pattern: str | None,
    update: bool,
    coverage: bool,
    verbose: bool,
    color: str,
) -> None:
    """Play scenario files on the stage-runner and check each run's expectations."""
    from ..fix.writes import write_atomically
    from ..scenarios.runner import run_file
    from ..scenarios.update import update_text

    loader = _Loader()

    def play(path: str, data: bytes) -> tuple[str, FileOutcome]:
        return path, run_file(path, data, pattern=pattern, loader=loader, settings_of=loader.settings)

    files = FileLoop(scenario_files(paths or (".",)), play)
    outcomes: list[FileOutcome] = []
    for path, outcome in files:
        if update and any(f.updatable for r in outcome.results for f in r.failures):
            text, changed = update_text(outcome.file.source.text, outcome.results)
            try:
                write_atomically(path, text.encode("utf-8"))
            except OSError as exc:
                raise CliError(f"cannot write '{path}': {exc.strerror or exc}") from exc
            echo_problem(f"updated {changed} expectation{'s' if changed != 1 else ''} in {path}")
            outcome = run_file(path, text.encode("utf-8"), pattern=pattern, loader=loader, settings_of=loader.settings)
        outcomes.append(outcome)
    if pattern and not any(o.results or o.problems for o in outcomes):
        raise CliError(f"no scenario matches -k '{pattern}'")

    reports = _coverage(outcomes) if coverage else None
    if output_format == "json":
        from ..scenarios.report import render_json

        emit(render_json(outcomes, [c.to_dict() for c in reports] if reports is not None else None))
    elif output_format == "junit":
        from ..scenarios.junit import render_junit

        emit(render_junit(outcomes))
        if reports is not None:
            from ..scenarios.coverage import render_coverage

            echo(render_coverage(reports), nl=False, err=True)
    else:
        from ..scenarios.coverage import render_coverage
        from ..scenarios.report import render_text

        paint = use_color(color)
        text = render_text(outcomes, color=paint, verbose=verbose)
        if reports is not None:
            text += "\n" + render_coverage(reports)
        emit(text, color=paint)
    if files.unchecked:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_OK if all(o.ok for o in outcomes) else EXIT_FINDINGS)


def scenario_files(paths: tuple[str, ...]) -> tuple[str, ...]:
    """The scenario files to run: `*.scenarios.toml` below each directory, each file named,
    and the scenario file beside each blueprint named. `CliError` when none is found."""
    from ..scenarios.model import is_scenario_name, scenario_file_for

    files: list[str] = []
    for given in paths:
        if os.path.isdir(given):
            found = discover([given], match=is_scenario_name)
            for problem in found.skipped:
                echo_problem(f"warning: cannot read directory {problem}; skipped")
            files.extend(found.files)
        elif not os.path.lexists(given):
            raise CliError(f"path '{given}' does not exist")
        elif is_blueprint_name(os.path.basename(given)):
            beside = scenario_file_for(os.path.normpath(given))
            if os.path.isfile(beside):
                files.append(beside)
        else:
            files.append(os.path.normpath(given))
    files = list(dict.fromkeys(files))
    if not files:
        where = ", ".join(f"'{p}'" for p in paths)
        raise CliError(f"no scenario files found in {where} (looked for *.scenarios.toml files){_lev_tests(paths)}")
    return tuple(files)


def _lev_tests(paths: tuple[str, ...]) -> str:
    """A word about the `lev test` files found instead, when there are any: they are not ours to run."""
    from ..discover import lev_test_files

    blueprints: list[str] = []
    for given in paths:
        if not os.path.isdir(given):
            blueprints.append(os.path.normpath(given))
            continue
        blueprints.extend(discover([given]).files)
        if os.path.basename(os.path.abspath(given)) == "tests":  # the tests/ folder itself
            blueprints.append(os.path.normpath(os.path.join(given, os.pardir, "agent.leviath")))
    found = [test for blueprint in blueprints for test in lev_test_files(blueprint)]
    if not found:
        return ""
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return (
        f"; {found[0]}{more} {'are' if more else 'is a'} `lev test` file{'s' if more else ''}, which "
        "`lev test` runs and blueprint test does not (docs/testing.md#lev-test-files)"
    )


class _Loader:
    """Reads and validates each blueprint once, with its own settings."""

    def __init__(self) -> None:
        self.cache: dict[str, FileResult] = {}
        self.found: dict[str, Settings] = {}
        self.finder = ConfigFinder()

    def settings(self, path: str) -> Settings:
        key = os.path.realpath(path)
        if key not in self.found:
            try:
                self.found[key] = settings_for(self.finder.for_file(path), path=path).for_file(path)
            except ConfigError as exc:
                raise CliError(str(exc)) from exc
        return self.found[key]

    def __call__(self, path: str) -> "FileResult":
        from ..parse.source import read_blueprint
        from ..pipeline import validate_bytes

        key = os.path.realpath(path)
        if key not in self.cache:
            data = read_blueprint(path)
            self.cache[key] = validate_bytes(path, data, self.settings(path))
        return self.cache[key]


def _coverage(outcomes: list["FileOutcome"]) -> list["Coverage"]:
    from ..scenarios.coverage import coverage

    grouped: dict[str, tuple[Blueprint, list[FileOutcome]]] = {}
    for outcome in outcomes:
        ir = outcome.blueprint
        if ir is not None and outcome.file.blueprint is not None:
            grouped.setdefault(os.path.normpath(outcome.file.blueprint), (ir, []))[1].append(outcome)
    return [coverage(path, ir, group) for path, (ir, group) in grouped.items()]
