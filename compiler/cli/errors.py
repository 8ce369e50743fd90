"""The CLI's own error (one line on stderr, exit status 2), and how commands print.

click's `ClickException` exits with 1, which is our "failing findings" status; a usage,
configuration or I/O problem must be told apart from findings, so it exits with 2.

Messages quote paths, names and arguments the user (or a file) supplied, so every message
is made visible (`compiler.display`) before it is printed: a newline in a file name cannot
start a line of its own on stderr, which CI services read for commands too.
"""

from __future__ import annotations

import errno
from typing import IO, Any

import click

from ..display import visible

#: Exit statuses of every `blueprint` command.
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class CliError(click.ClickException):
    """A usage, configuration or I/O error: `Error: <message>` on stderr, exit 2."""

    exit_code = EXIT_ERROR

    def __init__(self, message: str) -> None:
        super().__init__(visible(message))


class OutputError(CliError):
    """Standard output could not be written (a full disk, a closed pipe): exit 2, and no
    request for a bug report."""

    def __init__(self, exc: OSError) -> None:
        self.broken_pipe = exc.errno == errno.EPIPE
        super().__init__(f"cannot write to standard output: {exc.strerror or exc}")

    def show(self, file: IO[Any] | None = None) -> None:
        if not self.broken_pipe:  # whoever read the output has gone: nobody to tell
            super().show(file)


def echo_problem(message: str) -> None:
    """One line on stderr (`error: …`, `warning: …`), made visible."""
    click.echo(visible(message), err=True)


def emit(text: str, *, color: bool | None = None) -> None:
    """A report on standard output (as it is: reporters make their input visible); a write
    that fails is an `OutputError`, not an internal error."""
    try:
        click.echo(text, nl=False, color=color)
    except OSError as exc:
        raise OutputError(exc) from exc
