"""The file loop `validate` and `check` share: read each file, check it, contain its failures.

A file that cannot be read, or whose checking raises (a bug), is reported on stderr and
counted in `unchecked` (the command then exits with 2); the other files are still checked.
`BLUEPRINT_DEBUG=1` lets the exception through, with its traceback.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from ..parse.source import read_blueprint
from .errors import echo, echo_problem

T = TypeVar("T")

_CLEAR_LINE = "\r\x1b[K"


class FileLoop(Generic[T]):
    """Iterating gives `check(path, data)` for each file of `files` that could be read and checked."""

    def __init__(
        self,
        files: tuple[str, ...],
        check: Callable[[str, bytes], T],
        *,
        read: Callable[[str], bytes] = read_blueprint,
        progress: bool = False,
    ) -> None:
        self.files, self.check, self.read, self.progress = files, check, read, progress
        #: Files that could not be read, or crashed the checker.
        self.unchecked = 0

    def __iter__(self) -> Iterator[T]:
        for number, path in enumerate(self.files, 1):
            if self.progress:
                echo(f"\rchecking {number}/{len(self.files)} files", nl=False, err=True)
            try:
                data = self.read(path)
            except OSError as exc:
                self._problem(f"error: cannot read '{path}': {exc.strerror or exc}")
                continue
            try:
                item = self.check(path, data)
            except Exception as exc:  # a bug on one file must not hide the findings of the others
                if os.environ.get("BLUEPRINT_DEBUG"):
                    raise
                self._problem(f"error: internal error while checking '{path}': {type(exc).__name__}: {exc}")
                continue
            yield item
            del item  # the caller may release a file's results before the next file is checked
        if self.progress:
            echo(_CLEAR_LINE, nl=False, err=True)

    def _problem(self, message: str) -> None:
        """One line on stderr, on a line of its own even while progress is shown."""
        self.unchecked += 1
        if self.progress:
            echo(_CLEAR_LINE, nl=False, err=True)
        echo_problem(message)
