"""The file loop `validate` and `check` share: read each file, check it, contain its failures.

A file that cannot be read, or whose checking raises (a bug), is reported on stderr and
counted in `unchecked` (the command then exits with 2); the other files are still checked.
`BLUEPRINT_DEBUG=1` lets the exception through, with its traceback. With `jobs` above one
the files are read and checked in worker processes (`pool.py`), reported in the same order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from ..parse.source import read_blueprint
from .errors import echo, echo_problem
from .pool import in_order

T = TypeVar("T")

_CLEAR_LINE = "\r\x1b[K"


class FileTask(Generic[T]):
    """One file read and checked: (the result, None), or (None, the problem to report)."""

    def __init__(self, check: Callable[[str, bytes], T], read: Callable[[str], bytes]) -> None:
        self.check, self.read = check, read

    def __call__(self, path: str) -> tuple[T | None, str | None]:
        try:
            data = self.read(path)
        except OSError as exc:
            return None, f"error: cannot read '{path}': {exc.strerror or exc}"
        try:
            return self.check(path, data), None
        except Exception as exc:  # a bug on one file must not hide the findings of the others
            if os.environ.get("BLUEPRINT_DEBUG"):
                raise
            return None, f"error: internal error while checking '{path}': {type(exc).__name__}: {exc}"


class FileLoop(Generic[T]):
    """Iterating gives `check(path, data)` for each file of `files` that could be read and checked."""

    def __init__(
        self,
        files: tuple[str, ...],
        check: Callable[[str, bytes], T],
        *,
        read: Callable[[str], bytes] = read_blueprint,
        progress: bool = False,
        jobs: int = 1,
        pool_min: int = 2,
    ) -> None:
        self.files, self.check, self.read, self.progress = files, check, read, progress
        self.jobs, self.pool_min = jobs, pool_min
        #: Files that could not be read, or crashed the checker.
        self.unchecked = 0

    def __iter__(self) -> Iterator[T]:
        outcomes = in_order(FileTask(self.check, self.read), self.files, self.jobs, self.pool_min)
        for number, (item, problem) in enumerate(outcomes, 1):
            if self.progress:
                echo(f"\rchecking {number}/{len(self.files)} files", nl=False, err=True)
            if problem is not None or item is None:
                self._problem(problem or "")
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
