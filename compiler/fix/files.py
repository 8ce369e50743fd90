"""`--fix` and `--diff` over files: fix each one, write back only what changed, or show it.

Writes go through `writes.replace_checked`: read-only files are refused, mode, owner and hard
links are kept, a symbolic link is written through, and a file that changed after it was
read (another `--fix`, an editor) is fixed again from its new content rather than
overwritten. Only writes that happened are counted as fixed.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..config import Settings
from ..display import UNSAFE
from ..parse.source import read_blueprint
from . import FixOutcome, fix_bytes
from .writes import FileChanged, replace_checked

#: Times a file that keeps changing under us is fixed again before it is left alone.
MAX_REFIXES = 3


@dataclass
class FixRun:
    outcomes: list[FixOutcome] = field(default_factory=list)
    #: The outcomes whose new content is on disk (`--fix`).
    written: list[FixOutcome] = field(default_factory=list)
    #: Messages about files that could not be written, or a fix that was dropped as unsafe.
    problems: list[str] = field(default_factory=list)
    #: Files that had fixes but could not be written.
    unwritten: int = 0
    #: Messages about files that could not be read (the report lists them too).
    unreadable: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[FixOutcome]:
        return [o for o in self.outcomes if o.changed]

    @property
    def fixed_count(self) -> int:
        """Findings fixed in the files written (`--fix`)."""
        return sum(len(o.fixed) for o in self.written)

    @property
    def hidden_count(self) -> int:
        """Findings only `--unsafe-fixes` would fix, in files checked without it."""
        return sum(o.hidden for o in self.outcomes)

    @property
    def fixable_count(self) -> int:
        """Findings the changed files would have fixed (`--diff`)."""
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
                saved = save(outcome, settings_for(path))
            except (OSError, FileChanged) as exc:
                run.unwritten += 1
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                run.problems.append(f"cannot write '{path}': {reason}")
            else:
                if saved.changed:
                    run.written.append(saved)
    return run


def save(outcome: FixOutcome, settings: Settings) -> FixOutcome:
    """Write `outcome` to its file; when the file changed since it was read, fix its new
    content instead (up to `MAX_REFIXES` times). Returns what was written: an outcome that
    changes nothing when the new content needed no fix."""
    for _ in range(MAX_REFIXES):
        try:
            replace_checked(outcome.path, outcome.original, outcome.data)
            return outcome
        except FileChanged as changed:
            outcome = fix_bytes(outcome.path, changed.current, settings)
            if not outcome.changed:
                return outcome
    raise FileChanged(outcome.original)


#: Where a line ends in a unified diff: only `\n`, as `git apply` and `patch` split lines.
_LINES = re.compile(rb"[^\n]*\n|[^\n]+\Z")


def unified_diff(outcome: FixOutcome) -> str:
    """The change as a unified diff (`a/PATH` → `b/PATH` for a relative path, as `git apply`
    and `patch -p1` expect), empty when nothing changed. Lines end at `\\n` only (U+2028 or a
    lone CR inside a line is the line's own), and a path `git` would quote is quoted."""
    if not outcome.changed:
        return ""
    # A fixed file is valid UTF-8 (one that is not is never fixed).
    before = [line.decode("utf-8") for line in _LINES.findall(outcome.original)]
    after = [line.decode("utf-8") for line in _LINES.findall(outcome.data)]
    absolute = os.path.isabs(outcome.path)
    old, new = (outcome.path, outcome.path) if absolute else (f"a/{outcome.path}", f"b/{outcome.path}")
    lines = list(difflib.unified_diff(before, after, diff_path(old), diff_path(new)))
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}


def diff_path(path: str) -> str:
    """`path` as a diff header names it: as it is, or C-quoted as git quotes a name (`\\n`,
    `\\"`, octal UTF-8 bytes for other controls, separators and bidi characters), which
    `git apply` and GNU `patch` both read back. Nothing in a header can end its line."""
    if not UNSAFE.search(path) and '"' not in path and "\\" not in path:
        return path
    out = []
    for char in path:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif UNSAFE.match(char):
            out.extend(f"\\{byte:03o}" for byte in char.encode("utf-8"))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


__all__ = ["MAX_REFIXES", "FixRun", "diff_path", "fix_files", "save", "unified_diff"]
