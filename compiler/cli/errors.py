"""The CLI's own error (one line on stderr, exit status 2), and how commands print.

click's `ClickException` exits with 1, which is our "failing findings" status; a usage,
configuration or I/O problem must be told apart from findings, so it exits with 2.

Nothing here imports click: `blueprint validate FILE` runs without it (`compiler.cli.quick`).
Under click, the command group turns a `CliError` into a click exception that shows and exits
the same way (`compiler.cli.app`).

Messages quote paths, names and arguments the user (or a file) supplied, so every message
is made visible (`compiler.display`) before it is printed: a newline in a file name cannot
start a line of its own on stderr, which CI services read for commands too.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from typing import IO, Any

from ..display import visible

#: Exit statuses of every `blueprint` command.
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
#: Interrupted (Ctrl-C): the shell's convention, where click would exit with 1 ("findings").
EXIT_INTERRUPTED = 130


class CliError(Exception):
    """A usage, configuration or I/O error: `Error: <message>` on stderr, exit 2."""

    exit_code = EXIT_ERROR

    def __init__(self, message: str) -> None:
        self.message = visible(message)
        super().__init__(self.message)

    def show(self, file: IO[Any] | None = None) -> None:
        echo(f"Error: {self.message}", file=file if file is not None else sys.stderr)


class OutputError(CliError):
    """Standard output could not be written (a full disk, a closed pipe): exit 2, and no
    request for a bug report."""

    def __init__(self, exc: OSError) -> None:
        self.broken_pipe = exc.errno == errno.EPIPE
        super().__init__(f"cannot write to standard output: {exc.strerror or exc}")

    def show(self, file: IO[Any] | None = None) -> None:
        if not self.broken_pipe:  # whoever read the output has gone: nobody to tell
            super().show(file)


def internal_error(exc: Exception) -> CliError:
    """The one line an unexpected crash is reported as (exit 2). With `BLUEPRINT_DEBUG` set,
    the crash goes on instead, with its traceback."""
    if os.environ.get("BLUEPRINT_DEBUG"):
        raise exc
    return CliError(f"internal error: {type(exc).__name__}: {exc} (set BLUEPRINT_DEBUG=1 for the traceback)")


#: A terminal style (colour, bold): what is left out of text for a stream that is not coloured.
_STYLE = re.compile(r"\x1b\[[;?0-9]*[A-Za-z]")


def echo(
    text: str, *, err: bool = False, nl: bool = True, color: bool | None = None, file: IO[Any] | None = None
) -> None:
    """Write `text` to standard output (standard error with `err`, or `file`) and flush it.

    Styles are kept when `color` is true, left out when it is false, and kept only for a
    terminal when it is None, as `click.echo` does. A stream that does not exist (a process
    started without one) takes nothing.
    """
    stream = file if file is not None else sys.stderr if err else sys.stdout
    if stream is None:
        return
    if nl:
        text += "\n"
    if "\x1b" in text and not (color if color is not None else is_terminal(stream)):
        text = _STYLE.sub("", text)
    stream.write(text)
    stream.flush()


def is_terminal(stream: IO[Any]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


def echo_problem(message: str) -> None:
    """One line on stderr (`error: …`, `warning: …`), made visible."""
    echo(visible(message), err=True)


def emit(text: str, *, color: bool | None = None) -> None:
    """A report on standard output (as it is: reporters make their input visible); a write
    that fails is an `OutputError`, not an internal error."""
    try:
        echo(text, nl=False, color=color)
    except OSError as exc:
        raise OutputError(exc) from exc
