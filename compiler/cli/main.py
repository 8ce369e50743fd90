"""The `blueprint` console script (and `python -m compiler`).

The commonest `validate` command lines run without importing click (`quick.py`); every
other line goes to the click command group (`app.py`). Exit codes are the group's: 0 nothing
failing, 1 failing findings, 2 usage, configuration or I/O error (and any unexpected crash),
130 interrupted.
"""

from __future__ import annotations

import errno
import gc
import os
import sys

from . import quick
from .errors import OutputError


def main(argv: list[str] | None = None) -> None:
    """The console-script entry point (`blueprint`, `python -m compiler`)."""
    # The one place the tool tunes the cyclic collector (the library leaves it alone). A
    # short-lived process: collect cycles rarely. Importing the rules and checking a file
    # allocate many objects that live until exit; the default threshold (700) spends about a
    # tenth of start-up, and a fifth of a 10,000-stage file's check, in the collector
    # (docs/performance.md, "The CLI collects cycles rarely").
    gc.set_threshold(100_000, 50, 50)
    for stream in (sys.stdout, sys.stderr):
        # A message quoting an odd file name must not crash on a narrow terminal encoding.
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass
    if sys.stdout is None:  # started with standard output closed (`>&-`): nowhere to report
        closed = OutputError(OSError(errno.EBADF, os.strerror(errno.EBADF)))
        closed.show()
        sys.exit(closed.exit_code)
    try:
        quick_options = quick.options(sys.argv[1:] if argv is None else argv)
        if quick_options is not None:
            sys.exit(quick.run(quick_options))
        from .app import cli

        cli.main(args=argv, prog_name="blueprint")
    finally:
        # The process is about to end and free everything anyway: hiding the objects from the
        # collector skips the full collection the interpreter runs at exit (5 % of a run).
        gc.freeze()
        _let_stdout_go()


def _let_stdout_go() -> None:
    """After a failed write to stdout (reported as an `OutputError`), the interpreter would
    try to flush it again at exit and print a second, raw complaint: point it at nothing."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
