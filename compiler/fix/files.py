"""`--fix` and `--diff` over files: fix each one, write back only what changed, or show it.

Writes are atomic (a temporary file beside the target, then a rename), keep the file's
permissions, and go to the file a symbolic link points at rather than replacing the link.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass, field
from typing import Callable

from ..parse.source import read_blueprint
from ..config import Settings
from . import FixOutcome, fix_bytes


@dataclass
class FixRun:
    outcomes: list[FixOutcome] = field(default_factory=list)
    #: Messages about files that could not be written, or a fix that was dropped as unsafe.
    problems: list[str] = field(default_factory=list)
    #: Messages about files that could not be read (the report lists them too).
    unreadable: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[FixOutcome]:
        return [o for o in self.outcomes if o.changed]

    @property
    def fixed_count(self) -> int:
        return sum(len(o.fixed) for o in self.changed)


def fix_files(files: tuple[str, ...], settings_for: Callable[[str], Settings], *, write: bool) -> FixRun:
    """Fix every file; with `write`, save the ones that changed."""
    run = FixRun()
    for path in files:
        try:
            data = read_blueprint(path)
        except OSError as exc:
            run.unreadable.append(f"cannot read '{path}': {exc.strerror or exc}")
            continue
        outcome = fix_bytes(path, data, settings_for(path))
        run.outcomes.append(outcome)
        if outcome.problem and outcome.problem.startswith("a fix"):
            run.problems.append(f"'{path}': {outcome.problem}")
        if write and outcome.changed:
            try:
                write_atomically(path, outcome.data)
            except OSError as exc:
                run.problems.append(f"cannot write '{path}': {exc.strerror or exc}")
    return run


def write_atomically(path: str, data: bytes) -> None:
    target = os.path.realpath(path)
    directory = os.path.dirname(target) or "."
    descriptor, temporary = tempfile.mkstemp(prefix=".blueprint-fix-", dir=directory)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        try:
            os.chmod(temporary, os.stat(target).st_mode & 0o7777)
        except OSError:
            pass
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def unified_diff(outcome: FixOutcome) -> str:
    """The change as a unified diff (`a/PATH` → `b/PATH` for a relative path, as `git apply`
    and `patch -p1` expect), empty when nothing changed."""
    if not outcome.changed:
        return ""
    before = outcome.original.decode("utf-8", errors="replace").splitlines(keepends=True)
    after = outcome.data.decode("utf-8", errors="replace").splitlines(keepends=True)
    absolute = os.path.isabs(outcome.path)
    old, new = (outcome.path, outcome.path) if absolute else (f"a/{outcome.path}", f"b/{outcome.path}")
    lines = list(difflib.unified_diff(before, after, old, new))
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


__all__ = ["FixRun", "fix_files", "unified_diff", "write_atomically"]
