"""`blueprint new NAME [--template T]`: start an agent from a template.

Writes `NAME/agent.leviath` (and the `NAME/tools/*.rhai` scripts the template grants); the
agent is called after the last part of NAME, so `blueprint new agents/reviewer` makes
`agents/reviewer/agent.leviath` for an agent named `reviewer`. Nothing that exists is ever
overwritten: when any file it would write is there already, nothing is written (exit 2).
`--list` prints the templates.

Exit status: 0 written (or listed), 2 a usage or I/O error, or a file that exists.
"""

from __future__ import annotations

import os
import sys

import click

from ..scaffold import DEFAULT_TEMPLATE, TEMPLATES, render_template
from .errors import EXIT_OK, CliError, echo_problem, emit


@click.command("new")
@click.argument("name", required=False, type=click.Path(path_type=str))
@click.option(
    "-t",
    "--template",
    type=click.Choice(list(TEMPLATES)),
    default=DEFAULT_TEMPLATE,
    show_default=True,
    help="The blueprint to start from (--list describes them).",
)
@click.option("--list", "list_templates", is_flag=True, help="List the templates and exit.")
def command(name: str | None, template: str, list_templates: bool) -> None:
    """Write NAME/agent.leviath from a template, with the tools/ scripts it uses.

    The blueprint is commented and passes `blueprint validate` and `blueprint check` with no
    error and no warning.
    Existing files are never overwritten.
    """
    if list_templates:
        width = max(map(len, TEMPLATES))
        emit("".join(f"{key:<{width}}  {summary}\n" for key, summary in TEMPLATES.items()))
        sys.exit(EXIT_OK)
    if not name:
        raise CliError("give the new agent's NAME (a folder to create), or --list to see the templates")
    folder = os.path.normpath(name)
    try:
        files = render_template(template, os.path.basename(folder))
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    targets = {os.path.join(folder, *relative.split("/")): text for relative, text in files.items()}
    present = [path for path in targets if os.path.lexists(path)]
    if present:
        raise CliError(f"'{present[0]}' exists; refusing to overwrite it (nothing was written)")
    linked = [inner for path in targets for inner in _folders_inside(folder, path) if os.path.islink(inner)]
    if linked:  # a link there would send the files outside NAME
        raise CliError(f"'{linked[0]}' is a symbolic link; refusing to write through it (nothing was written)")
    for path, text in targets.items():
        _create(path, text)
    for path in targets:
        echo_problem(f"created {path}")
    echo_problem(f"next: blueprint validate {folder} && blueprint check {folder}")
    sys.exit(EXIT_OK)


def _folders_inside(folder: str, path: str) -> list[str]:
    """The folders between `folder` (not included) and the file `path` inside it."""
    parts = os.path.relpath(os.path.dirname(path), folder).split(os.sep)
    return [os.path.join(folder, *parts[: i + 1]) for i in range(len(parts)) if parts[: i + 1] != ["."]]


def _create(path: str, text: str) -> None:
    """Write a new file; one that appeared meanwhile is left alone (`O_EXCL`)."""
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o644)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(text.encode("utf-8"))
    except FileExistsError:
        raise CliError(f"'{path}' exists; refusing to overwrite it") from None
    except OSError as exc:
        raise CliError(f"cannot write '{path}': {exc.strerror or exc}") from exc
