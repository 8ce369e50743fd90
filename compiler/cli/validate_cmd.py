"""`blueprint validate [PATH …]` as a click command: its options and help. What it does,
and its exit statuses, are `validate_run.run_validate`, which `quick.py` calls without click."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..render import REPORTERS
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
from .validate_run import run_validate


@click.command("validate")
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--format",
    "--output-format",
    "output_format",
    type=click.Choice(sorted(REPORTERS)),
    default="text",
    show_default=True,
    help="Output format.",
)
@rule_options
@discovery_options
@shard_option
@installation_options
@summary_options("the findings")
@click.option(
    "--fix",
    is_flag=True,
    help=(
        "Rewrite fixable findings in place (fixes that cannot change a run, and old spellings moved "
        "where Leviath reads them), then report the rest."
    ),
)
@click.option(
    "--unsafe-fixes/--no-unsafe-fixes",
    default=None,
    help=(
        "Let --fix and --diff also write the names findings suggest ('did you mean …'), which change "
        "what the file means; or not, whatever the configuration says."
    ),
)
@click.option(
    "--show-fixes",
    is_flag=True,
    help="With --fix, list what was fixed in each file; otherwise show each fixable finding's edit in the report.",
)
@click.option(
    "--diff", is_flag=True, help="Print the fixes --fix would make as a unified diff; write nothing (exit 1 if any)."
)
@click.option(
    "--stdin-filename",
    metavar="PATH",
    help="Report standard input ('-') under this path, and take its settings from the configuration above it.",
)
@click.option(
    "--show-settings",
    is_flag=True,
    help="Print the settings that apply to the one PATH given, and where each comes from; check nothing.",
)
@watch_option
@exit_zero_option
@default_max_iterations_option
@color_option
def command(**options: Any) -> None:
    """Check blueprint files, and the *.leviath files below directories (default: '.').

    Settings come from the nearest blueprint.toml, .blueprint.toml or pyproject.toml
    [tool.blueprint] above each file, or from --config FILE; flags replace the keys they
    name. '-' reads standard input (with --fix: the fixed blueprint goes to stdout).
    """
    sys.exit(run_validate(**options))
