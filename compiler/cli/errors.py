"""The CLI's own error: printed as one line on stderr, exit status 2.

click's `ClickException` exits with 1, which is our "failing findings" status; a usage,
configuration or I/O problem must be told apart from findings, so it exits with 2.
"""

from __future__ import annotations

import click

#: Exit statuses of every `blueprint` command.
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class CliError(click.ClickException):
    """A usage, configuration or I/O error: `Error: <message>` on stderr, exit 2."""

    exit_code = EXIT_ERROR
