"""Which paths a directory search leaves out: `exclude` patterns and `.gitignore` files.

Every pattern is read as git reads a `.gitignore` line (pathspec's implementation of it): one
without a `/` matches a name at any depth (`fixtures`, `*.draft.leviath`), one with a `/` is
anchored to the folder of the file that holds it (`/tests/`, `agents/old/`), a trailing `/`
matches folders only, `**` crosses folders, `!` re-includes and the last matching line wins.

Three sources decide, each on its own; a path any of them excludes is left out:

- the `exclude` and `extend-exclude` keys of the configuration that applies to the folder
  (relative to the configuration file's folder; `exclude` defaults to `DEFAULT_EXCLUDE`);
- `--exclude` on the command line (relative to the working directory);
- `.gitignore` files, unless switched off: those in the folders searched and in the folders
  above them up to the root of the git repository (the nearest folder with a `.git`), plus
  the repository's `.git/info/exclude`. A deeper `.gitignore` overrides a shallower one, as in
  git. Outside a repository, only the `.gitignore` files from the searched folder down count.

A folder named on the command line is searched even when a pattern excludes it: a pattern
that matches that folder is not applied inside it (other patterns still are). A file named on
the command line is never filtered at all (`discover` does not ask).
"""

from __future__ import annotations

import errno
import io
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .display import visible
from .reading import read_capped

if TYPE_CHECKING:
    from .config import ConfigFinder, FileConfig, Overrides

#: Folders a directory search leaves out unless `exclude` says otherwise: hidden ones, and
#: those that hold other people's code or build output, never blueprints of the project
#: (gitignore-style patterns; one without a `/` matches at any depth).
DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".*",
    "__pycache__",
    "__pypackages__",
    "_build",
    "bower_components",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "target",
    "vendor",
    "venv",
)

#: A pattern that is a plain name (no glob character, no slash, no negation, no escape).
_PLAIN = re.compile(r"[^*?\[\]\\/!#\s]+")
#: Plain names joined by slashes (`/tests/`, `agents/old/`): git reads every such line.
_PLAIN_PATH = re.compile(r"/*[^*?\[\]\\/!#\s]+(?:/+[^*?\[\]\\/!#\s]+)*/*")
#: Matches a folder or file name; built for plain names without importing pathspec.
Matcher = Callable[[str], bool]


def compile_patterns(lines: Iterable[str]) -> list[tuple[str, bool | None, Matcher]]:
    """Each line as (line, include, matcher): include is True for an excluding pattern, False
    for a `!` one, None for a blank or comment line. `ValueError` names a line git rejects."""
    lines = list(lines)
    if all(line == ".*" or _PLAIN.fullmatch(line) for line in lines):  # the defaults, and most configurations
        return [(line, True, _component_matcher(line)) for line in lines]
    from pathspec import GitIgnoreSpec

    compiled: list[tuple[str, bool | None, Matcher]] = []
    for line in lines:
        try:
            (pattern,) = GitIgnoreSpec.from_lines([line]).patterns or (None,)
        except re.error:  # a reversed range such as [z-a]: git accepts it, and it matches nothing
            compiled.append((line, None, lambda path: False))
            continue
        except ValueError as exc:
            raise ValueError(f"'{line}' is not a valid pattern: {exc}") from exc
        if pattern is None:  # an empty line
            compiled.append((line, None, lambda path: False))
            continue
        if pattern.include is None or pattern.regex is None:
            compiled.append((line, None, lambda path: False))
        else:
            compiled.append((line, pattern.include, _git_matcher(pattern.regex)))
    return compiled


def check_patterns(lines: Iterable[str]) -> None:
    """`ValueError` naming the first line git rejects. Lines of plain names and slashes are
    always read, so only the others are compiled (pathspec is slow to import)."""
    others = [line for line in lines if not _PLAIN_PATH.fullmatch(line)]
    if others:
        compile_patterns(others)


def _git_matcher(regex: "re.Pattern[str]") -> Matcher:
    """pathspec's regex for a line, read as git reads it on a walk. pathspec matches a path
    by prefix (a file inside a matched folder matches too); for a folder (a path ending in
    `/`), a match that only the line's own trailing `/` completes (`deep/**` against `deep/`)
    names what is inside the folder, not the folder, so git still enters it."""

    def matches(path: str) -> bool:
        found = regex.match(path)
        if found is None:
            return False
        if path.endswith("/") and found.end() == len(path):
            return found.groupdict().get("ps_d") is not None
        return True

    return matches


def _component_matcher(line: str) -> Matcher:
    """What pathspec matches for a plain name: any component of the path equal to it (`.*`:
    any component starting with a dot)."""
    if line == ".*":
        return lambda path: any(part.startswith(".") for part in path.split("/") if part)
    return lambda path: line in path.split("/")


@dataclass
class PatternSet:
    """The patterns of one source, relative to the folder `base` (an absolute path)."""

    base: str
    source: str
    lines: tuple[str, ...]
    _compiled: list[tuple[str, bool | None, Matcher]] | None = field(default=None, repr=False)

    @property
    def compiled(self) -> list[tuple[str, bool | None, Matcher]]:
        if self._compiled is None:
            self._compiled = compile_patterns(self.lines)
        return self._compiled

    def decide(self, relative: str, disabled: frozenset[tuple[int, int]] = frozenset()) -> tuple[bool, str] | None:
        """(excluded, the deciding line) by the last line matching `relative` (a folder ends
        with `/`), or None when no line matches."""
        decision = None
        for index, (line, include, matches) in enumerate(self.compiled):
            if include is not None and (id(self), index) not in disabled and matches(relative):
                decision = (include, line)
        return decision

    def matching(self, relative: str) -> set[tuple[int, int]]:
        """The lines that match `relative`, as keys for `decide(disabled=...)`."""
        return {
            (id(self), index)
            for index, (_, include, matches) in enumerate(self.compiled)
            if include is not None and matches(relative)
        }


class PathFilter:
    """Decides, entry by entry, what a directory search leaves out, and why.

    `start(root)` before searching a folder named on the command line; `excluded(folder,
    name, is_dir)` for each entry of a folder below it (absolute folder paths).
    """

    def __init__(
        self,
        finder: "ConfigFinder | None" = None,
        overrides: "Overrides | None" = None,
        cwd: str | None = None,
    ) -> None:
        self._finder = finder
        self._cwd = os.path.abspath(cwd or os.getcwd())
        self._respect_gitignore = overrides.respect_gitignore if overrides else None
        extra = overrides.exclude if overrides and overrides.exclude else ()
        self._command_line = PatternSet(self._cwd, "--exclude", tuple(extra)) if extra else None
        self._defaults = PatternSet(self._cwd, "the default exclude", DEFAULT_EXCLUDE)
        self._by_config: dict[int, list[PatternSet]] = {}
        self._gitignores: dict[str, tuple[PatternSet, ...]] = {}
        self._root = self._cwd
        self._stop = self._cwd
        self._disabled: frozenset[tuple[int, int]] = frozenset()

    def start(self, root: str) -> None:
        """Begin the search of `root`: patterns that exclude `root` itself are not applied below it."""
        self._root = os.path.abspath(root)
        repository = _repository_root(self._root)
        if repository is None or repository != self._stop:
            self._gitignores.clear()
        self._stop = repository or self._root
        disabled: set[tuple[int, int]] = set()
        for patterns in self._sets(self._root):
            relative = self._relative(patterns.base, self._root)
            if relative:
                disabled |= patterns.matching(relative + "/")
        self._disabled = frozenset(disabled)

    def excluded(self, folder: str, name: str, is_dir: bool) -> str | None:
        """Why the entry `name` of `folder` is left out, or None when it is searched."""
        path = os.path.join(folder, name)
        suffix = "/" if is_dir else ""
        config = self._config(folder)
        for patterns in self._pattern_sets(config):
            decision = patterns.decide(self._relative(patterns.base, path) + suffix, self._disabled)
            if decision is not None and decision[0]:
                return f"'{decision[1]}' in {patterns.source}"
        if self._gitignore_on(config):
            for patterns in reversed(self._gitignore_chain(folder)):
                decision = patterns.decide(self._relative(patterns.base, path) + suffix, self._disabled)
                if decision is not None:
                    return f"'{decision[1]}' in {patterns.source}" if decision[0] else None
        return None

    def explain(self, path: str, root: str) -> str | None:
        """Why a search of the folder `root` would leave out `path` (a file or folder below
        it), or None when it would reach it."""
        self.start(root)
        absolute = os.path.abspath(path)
        relative = os.path.relpath(absolute, self._root).split(os.sep)
        folder = self._root
        for depth, name in enumerate(relative):
            is_dir = depth < len(relative) - 1 or os.path.isdir(absolute)
            why = self.excluded(folder, name, is_dir)
            if why is not None:
                shown = os.path.relpath(os.path.join(folder, name), self._cwd)
                return why if depth == len(relative) - 1 else f"its folder {shown} matches {why}"
            folder = os.path.join(folder, name)
        return None

    # --- where the patterns come from ---------------------------------------------------------

    def _sets(self, folder: str) -> list[PatternSet]:
        config = self._config(folder)
        sets = list(self._pattern_sets(config))
        if self._gitignore_on(config):
            sets.extend(self._gitignore_chain(folder))
        return sets

    def _config(self, folder: str) -> "FileConfig | None":
        return self._finder.for_directory(folder) if self._finder is not None else None

    def _pattern_sets(self, config: "FileConfig | None") -> list[PatternSet]:
        if config is None:
            sets = [self._defaults]
        else:
            cached = self._by_config.get(id(config))
            if cached is None:
                cached = self._by_config[id(config)] = _config_sets(config)
            sets = cached
        return sets + [self._command_line] if self._command_line is not None else sets

    def _gitignore_on(self, config: "FileConfig | None") -> bool:
        if self._respect_gitignore is not None:
            return self._respect_gitignore
        return config is None or config.respect_gitignore is not False

    def _gitignore_chain(self, folder: str) -> tuple[PatternSet, ...]:
        """The `.gitignore` files that apply in `folder`, shallowest first."""
        chain = self._gitignores.get(folder)
        if chain is not None:
            return chain
        parent = os.path.dirname(folder)
        if folder == self._stop or parent == folder or not _is_below(folder, self._stop):
            chain = _info_exclude(folder, self._warn) if folder == self._stop else ()
        else:
            chain = self._gitignore_chain(parent)
        own = _read_gitignore(folder, self._cwd, self._warn)
        chain = chain + (own,) if own is not None else chain
        self._gitignores[folder] = chain
        return chain

    def _warn(self, message: str) -> None:
        """Said with the configuration's warnings (the command prints them on stderr)."""
        if self._finder is not None:
            self._finder.warnings.append(message)

    def _relative(self, base: str, path: str) -> str:
        """`path` relative to `base` with `/` separators; relative to the searched folder when
        it lies outside `base` (a path the patterns were not written for)."""
        if not _is_below(path, base):
            base = self._root if _is_below(path, self._root) else os.path.dirname(path)
        relative = os.path.relpath(path, base)
        return "" if relative == os.curdir else relative.replace(os.sep, "/")


def _config_sets(config: "FileConfig") -> list[PatternSet]:
    where = config.label
    source = f"{where} exclude" if config.exclude is not None else "the default exclude"
    sets = [PatternSet(str(config.directory), source, tuple(config.value("exclude")))]
    if config.extend_exclude:
        sets.append(PatternSet(str(config.directory), f"{where} extend-exclude", config.extend_exclude))
    return sets


def _read_gitignore(folder: str, cwd: str, warn: Callable[[str], None]) -> PatternSet | None:
    return _read_patterns(os.path.join(folder, ".gitignore"), folder, cwd, warn)


def _info_exclude(root: str, warn: Callable[[str], None]) -> tuple[PatternSet, ...]:
    found = _read_patterns(os.path.join(root, ".git", "info", "exclude"), root, root, warn)
    return (found,) if found is not None else ()


def _read_patterns(path: str, base: str, cwd: str, warn: Callable[[str], None]) -> PatternSet | None:
    shown = os.path.relpath(path, cwd) if _is_below(path, cwd) else path
    try:
        # Bounded, and a regular file only: a FIFO or a link to /dev/zero is skipped at once.
        data = read_capped(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:  # a folder, a special file, too large or unreadable: nothing to apply
        if exc.errno in (errno.EINVAL, errno.EFBIG):
            warn(f"{visible(shown)} is not applied: {exc.strerror}")
        return None
    with io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace") as handle:
        lines = tuple(line.rstrip("\n").rstrip("\r") for line in handle)
    patterns = PatternSet(base, shown, lines)
    try:
        patterns.compiled  # noqa: B018 - compiled now, so that a bad line is found here
    except ValueError:  # git skips a line it cannot read; so do we, by dropping the bad ones
        patterns = PatternSet(base, shown, tuple(line for line in lines if _valid(line)))
    return patterns


def _valid(line: str) -> bool:
    try:
        compile_patterns([line])
    except ValueError:
        return False
    return True


def _repository_root(folder: str) -> str | None:
    current = folder
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _is_below(path: str, folder: str) -> bool:
    """`path` is `folder` or lies inside it (both absolute and normalised)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


__all__ = ["PathFilter", "PatternSet", "check_patterns", "compile_patterns"]
