"""Which files `blueprint validate` checks, given the paths on its command line.

A file named on the command line is always checked, whatever its name (pre-commit passes
file names). A directory is searched for `*.leviath` files (`agent.leviath` among them),
leaving out what a `PathFilter` excludes (hidden, vendored and build folders by default,
configured patterns, `.gitignore`; see `compiler.ignore`) and virtual environments, and never
following a symbolic link out of the directory given. The order is deterministic: the
paths in command-line order, each directory's files sorted by their path components; a
file reached twice is checked once.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable

from compiler.records import record

from .ignore import DEFAULT_EXCLUDE, PathFilter

BLUEPRINT_SUFFIX = ".leviath"


@record
class Discovery:
    #: Paths to check, as they will be shown (normalised, relative when given relative).
    files: tuple[str, ...]
    #: Command-line paths that do not exist.
    missing: tuple[str, ...] = ()
    #: Directories that could not be listed (`path: reason`); the search went on without them.
    skipped: tuple[str, ...] = ()
    #: Folders and blueprint files a search left out (`path: the pattern and where it is from`).
    excluded: tuple[str, ...] = ()
    #: Every folder the search listed, in the order listed (`--watch` watches them).
    folders: tuple[str, ...] = ()


#: Folder names the default `exclude` leaves out besides hidden ones (`.*`).
_DEFAULT_FOLDER_NAMES = frozenset(name for name in DEFAULT_EXCLUDE if name != ".*")


def is_skipped_directory(name: str) -> bool:
    """A folder name the default `exclude` leaves out: hidden, vendored or build output."""
    return name.startswith(".") or name in _DEFAULT_FOLDER_NAMES


def is_blueprint_name(name: str) -> bool:
    """`agent.leviath` or any visible `<something>.leviath`."""
    return name.endswith(BLUEPRINT_SUFFIX) and not name.startswith(".")


def discover(
    paths: Iterable[str], path_filter: PathFilter | None = None, match: Callable[[str], bool] = is_blueprint_name
) -> Discovery:
    """The files `paths` name or hold: a directory is searched for names `match` accepts
    (blueprints); `path_filter` decides what the search leaves out (default: the default
    exclude patterns and `.gitignore` files)."""
    path_filter = path_filter or PathFilter()
    files: list[str] = []
    missing: list[str] = []
    skipped: list[str] = []
    excluded: list[str] = []
    folders: list[str] = []
    seen: set[str] = set()

    def add(display: str, real: str) -> None:
        if real not in seen:
            seen.add(real)
            files.append(display)

    for given in paths:
        display = os.path.normpath(given)
        if os.path.isdir(given):
            for found in _search(given, skipped, excluded, folders, path_filter, match):
                add(os.path.normpath(os.path.join(given, found)), os.path.realpath(os.path.join(given, found)))
        elif os.path.lexists(given):
            add(display, os.path.realpath(given))
        else:
            missing.append(given)
    return Discovery(tuple(files), tuple(missing), tuple(skipped), tuple(excluded), tuple(folders))


def _search(
    root: str,
    skipped: list[str],
    excluded: list[str],
    folders: list[str],
    path_filter: PathFilter,
    match: Callable[[str], bool] = is_blueprint_name,
) -> list[str]:
    """Files below `root` whose names `match` accepts, relative to it, sorted by path components."""
    real_root = os.path.realpath(root)
    absolute_root = os.path.abspath(root)
    path_filter.start(absolute_root)
    found: list[tuple[str, ...]] = []
    pending: list[tuple[str, ...]] = [()]
    while pending:
        parts = pending.pop()
        directory = os.path.join(root, *parts)
        try:
            with os.scandir(directory) as entries:
                listed = list(entries)
        except OSError as exc:
            skipped.append(f"{os.path.normpath(directory)}: {exc.strerror or exc}")
            continue
        if parts and any(entry.name == "pyvenv.cfg" for entry in listed):
            continue  # a virtual environment, whatever its name
        folders.append(os.path.normpath(directory))
        folder = os.path.join(absolute_root, *parts)
        for entry in listed:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                if not is_dir and not (match(entry.name) and _inside(entry, real_root)):
                    continue
                why = path_filter.excluded(folder, entry.name, is_dir)
                if why is not None:
                    excluded.append(f"{os.path.normpath(os.path.join(directory, entry.name))}: {why}")
                elif is_dir:
                    pending.append((*parts, entry.name))
                else:
                    found.append((*parts, entry.name))
            except OSError:
                continue  # vanished or unreadable entry: nothing to check there
    return [os.path.join(*parts) for parts in sorted(found)]


def _inside(entry: os.DirEntry, real_root: str) -> bool:
    """A regular file, or a symbolic link to one that stays inside the searched directory."""
    if not entry.is_symlink():
        return entry.is_file()
    target = os.path.realpath(entry.path)
    return os.path.isfile(target) and os.path.commonpath([target, real_root]) == real_root


def local_tools(blueprint: str) -> tuple[str, ...]:
    """Names of the `tools/*.rhai` scripts beside the blueprint file `blueprint`, sorted (none
    when it is not a file on disk). The one fact a rule needs from beside a blueprint: drivers
    (`validate_file`, the CLI, the language server) read it and pass it in `Settings.local_tools`."""
    try:
        if not os.path.isfile(blueprint):
            return ()
        tools = os.path.join(os.path.dirname(blueprint), "tools")
        stamp = os.stat(tools).st_mtime_ns  # a changed directory is read again
    except (OSError, ValueError):
        return ()
    return _scripts_in(tools, stamp)


@functools.lru_cache(maxsize=128)
def _scripts_in(directory: str, _stamp: int) -> tuple[str, ...]:
    try:
        return tuple(
            sorted(
                entry.name[: -len(".rhai")]
                for entry in os.scandir(directory)
                if entry.name.endswith(".rhai") and entry.is_file()
            )
        )
    except OSError:
        return ()
