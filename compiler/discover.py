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

import errno
import functools
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import PurePath
from typing import Literal

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


def blueprint_folder(blueprint: str) -> str | None:
    """The folder holding the blueprint file `blueprint`, as Leviath names it (the parent of
    the path as given, made absolute), or None when `blueprint` is not a file on disk."""
    try:
        if not os.path.isfile(blueprint):
            return None
        return os.path.join(os.getcwd(), os.path.dirname(blueprint))
    except (OSError, ValueError):
        return None


def lev_test_files(blueprint: str) -> tuple[str, ...]:
    """The files `lev test` runs for the blueprint file `blueprint`: `tests/*.toml` and
    `tests/*.rhai` beside an `agent.leviath` (Leviath's test command reads no other name),
    sorted; none when there are none or the folder cannot be listed."""
    if os.path.basename(blueprint) != "agent.leviath":
        return ()
    tests = os.path.join(os.path.dirname(blueprint), "tests")
    try:
        if not os.path.isfile(blueprint):
            return ()
        with os.scandir(tests) as entries:
            names = sorted(e.name for e in entries if e.name.endswith((".toml", ".rhai")) and e.is_file())
    except (OSError, ValueError):
        return ()
    return tuple(os.path.join(tests, name) for name in names)


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


#: What a custom region's `script` leads to: a file Leviath can load, or why not.
ScriptStatus = Literal["ok", "outside", "missing", "unreadable"]


@record
class RegionScript:
    """A custom region's `script`, resolved as Leviath resolves it when it loads the blueprint."""

    #: The path as the blueprint writes it (trimmed).
    declared: str
    status: ScriptStatus
    #: Why it cannot be loaded, in words that follow the path in a message ("does not exist").
    reason: str = ""


def region_scripts(folder: str, declared: Iterable[str]) -> dict[str, RegionScript]:
    """Each declared custom-region script (a path relative to the blueprint's `folder`, or an
    absolute one), resolved as `lev validate`, `lev test` and every spawn resolve it: joined
    to the folder, refused when it resolves outside the folder once symbolic links are
    followed, and refused when there is no readable file. Only file metadata is read (no
    script is opened), so a FIFO or a device cannot block. The one fact custom-region rules
    need from the disk: the pipeline asks for it when `Settings.blueprint_folder` is set."""
    if not os.path.isabs(folder):
        folder = os.path.join(os.getcwd(), folder)
    return {path: _region_script(folder, path) for path in dict.fromkeys(declared)}


def _region_script(folder: str, declared: str) -> RegionScript:
    full = os.path.join(folder, declared)  # an absolute `declared` replaces the folder, as in Leviath
    where = _containment(folder, full)
    if where == "unverifiable":
        reason = "goes up ('..') from a folder that cannot be followed (it does not exist), so where it leads cannot be checked"
        return RegionScript(declared, "outside", reason)
    if where == "outside":
        if os.path.isabs(declared):
            reason = "is an absolute path outside the blueprint's folder"
        elif _lexically_outside(folder, full):
            reason = "leads out of the blueprint's folder"
        else:
            reason = "leads out of the blueprint's folder through a symbolic link"
        return RegionScript(declared, "outside", reason)
    try:
        info = os.stat(full)
    except ValueError:  # a NUL character
        return RegionScript(declared, "unreadable", "cannot be read (the path contains a NUL character)")
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return RegionScript(declared, "missing", "does not exist")
        return RegionScript(declared, "unreadable", f"cannot be read ({exc.strerror or exc})")
    if stat.S_ISDIR(info.st_mode):
        return RegionScript(declared, "unreadable", "is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        return RegionScript(declared, "unreadable", "is not a regular file")
    if not os.access(full, os.R_OK):
        return RegionScript(declared, "unreadable", "cannot be read (permission denied)")
    return RegionScript(declared, "ok")


def _containment(folder: str, full: str) -> Literal["inside", "outside", "unverifiable"]:
    """Whether `full` lies inside `folder`, decided as Leviath's containment check decides.

    Leviath canonicalizes the deepest part of the path that exists, appends the rest as
    written, and compares path components with the canonical folder. Walking up to that part
    it gives up at a `..` (the path is then refused as unverifiable). Existence only shrinks
    as a path grows, so the part is found by bisection: a long path costs a few system calls,
    not one per component.
    """
    root = _canonical(folder)
    root_parts = PurePath(root if root is not None else folder).parts
    parts = PurePath(full).parts
    low, high, real = 1, len(parts), parts[0]  # parts[:1], the root of the file system, exists
    while low < high:
        middle = (low + high + 1) // 2
        found = _canonical(str(PurePath(*parts[:middle])))
        if found is not None:
            low, real = middle, found
        else:
            high = middle - 1
    tail = parts[low:]
    if ".." in tail:
        return "unverifiable"
    return "inside" if PurePath(real, *tail).parts[: len(root_parts)] == root_parts else "outside"


def _canonical(path: str) -> str | None:
    """The path with every symbolic link resolved, if the operating system can resolve all of
    it (what Rust's `fs::canonicalize` returns); None when it cannot."""
    try:
        os.stat(path)  # the kernel's walk: `file/..` fails here, as in Leviath
        return os.path.realpath(path, strict=True)
    except (OSError, ValueError):
        return None


def _lexically_outside(folder: str, full: str) -> bool:
    base = os.path.normpath(folder)
    return os.path.commonpath([base, os.path.normpath(full)]) != base
