"""The click options several commands share. Their values are read by `common.py`
(`rule_overrides`, `with_installation`, `use_color`), which does not need click."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

format_option = click.option(
    "--format",
    "--output-format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)

color_option = click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the output; 'auto' colours a terminal unless NO_COLOR is set (FORCE_COLOR forces it).",
)


_deny_warnings_option = click.option(
    "--deny-warnings/--no-deny-warnings",
    default=None,
    help="Fail (exit 1) on warnings too, or not, whatever the configuration says.",
)
_select_option = click.option(
    "--select",
    multiple=True,
    metavar="RULES",
    help="Run only these rule codes or families (comma-separated, repeatable; 'all' for every rule).",
)
_extend_select_option = click.option(
    "--extend-select",
    multiple=True,
    metavar="RULES",
    help="Run these rules too, on top of the select in effect (comma-separated, repeatable).",
)
_config_option = click.option(
    "--config",
    "config_file",
    metavar="FILE",
    help="Read the settings from this configuration file, for every blueprint, instead of looking for one.",
)
_ignore_option = click.option(
    "--ignore",
    multiple=True,
    metavar="RULES",
    help="Drop these rule codes or families (comma-separated, repeatable; wins over --select).",
)


default_max_iterations_option = click.option(
    "--default-max-iterations",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help=(
        "The iteration cap of a stage without max_iterations (or with 0), as your Leviath "
        "configuration sets it ([limits] default_max_iterations; default 50, 0 for none)."
    ),
)


def summary_options(left_out: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--statistics` and `-q/--quiet` (which leaves out `left_out`), shared by `validate` and `check`."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        command = click.option(
            "-q", "--quiet", is_flag=True, help=f"Leave out {left_out}: only the summary (text and concise formats)."
        )(command)
        return click.option(
            "--statistics",
            is_flag=True,
            help="Print only a count of findings per code, in place of the report (with -q: and the summary).",
        )(command)

    return decorate


def rule_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`--config`, `--deny-warnings`, `--select`, `--extend-select` and `--ignore`, read with
    `rule_overrides`."""
    return _config_option(_deny_warnings_option(_select_option(_extend_select_option(_ignore_option(command)))))


_exclude_option = click.option(
    "--exclude",
    multiple=True,
    metavar="PATTERN",
    help="Leave out paths matching this gitignore-style pattern when searching directories "
    "(repeatable; adds to the configuration's).",
)
_gitignore_option = click.option(
    "--respect-gitignore/--no-respect-gitignore",
    default=None,
    help="Leave out what .gitignore files ignore when searching directories (default: on).",
)


def discovery_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`--exclude` and `--respect-gitignore`, passed on to `rule_overrides`."""
    return _exclude_option(_gitignore_option(command))


def installation_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`--leviath-config` and `--leviath-models`: the user's Leviath files, for the checks that
    need the installation (read with `with_installation`)."""
    command = click.option(
        "--leviath-config",
        metavar="PATH",
        help="Your Leviath config.toml: runs read-paths-not-granted, read-paths-grant-invalid, no-reachable-provider.",
    )(command)
    return click.option(
        "--leviath-models",
        metavar="PATH",
        help="What `lev models list` prints, saved to a file: runs unknown-model, unbounded-percentage-budget.",
    )(command)


exit_zero_option = click.option(
    "--exit-zero",
    is_flag=True,
    help="Exit 0 even when findings fail the run (usage and I/O errors still exit 2).",
)

watch_option = click.option(
    "--watch",
    is_flag=True,
    help="Keep running: check again whenever a blueprint, a tools/*.rhai script or a configuration file changes.",
)


shard_option = click.option(
    "--shard",
    metavar="K/N",
    default=None,
    help="Check only part K of N of the files found (stable and balanced, for a CI matrix; "
    "merge the parts' reports with 'blueprint merge-reports').",
)
