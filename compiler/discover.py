"""Which files `blueprint validate` checks, given the paths on its command line.

A file named on the command line is always checked, whatever its name (pre-commit passes
file names). A directory is searched for `*.leviath` files (`agent.leviath` among them),
skipping hidden folders, vendored and build folders, and virtual environments, and never
following a symbolic link out of the directory given. The order is deterministic: the
paths in command-line order, each directory's files sorted by their path components; a
file reached twice is checked once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Iterable

BLUEPRINT_NAME = "agent.leviath"
BLUEPRINT_SUFFIX = ".leviath"

#: Folders that hold other people's code or build output, never blueprints of the project.
SKIPPED_DIRECTORIES = frozenset(
    {
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
    }
)


@dataclass(frozen=True)
class Discovery:
    #: Paths to check, as they will be shown (normalised, relative when given relative).
    files: tuple[str, ...]
    #: Command-line paths that do not exist.
    missing: tuple[str, ...] = ()
    #: Directories that could not be listed (`path: reason`); the search went on without them.
    skipped: tuple[str, ...] = ()


def is_blueprint_name(name: str) -> bool:
    """`agent.leviath` or any visible `<something>.leviath`."""
    return name.endswith(BLUEPRINT_SUFFIX) and not name.startswith(".")


def is_skipped_directory(name: str) -> bool:
    return name.startswith(".") or name in SKIPPED_DIRECTORIES


def discover(paths: Iterable[str], match: Callable[[str], bool] = is_blueprint_name) -> Discovery:
    """The files to check; a directory is searched for names `match` accepts (blueprints)."""
    files: list[str] = []
    missing: list[str] = []
    skipped: list[str] = []
    seen: set[str] = set()

    def add(display: str, real: str) -> None:
        if real not in seen:
            seen.add(real)
            files.append(display)

    for given in paths:
        display = os.path.normpath(given)
        if os.path.isdir(given):
            for found in _search(given, skipped, match):
                add(os.path.normpath(os.path.join(given, found)), os.path.realpath(os.path.join(given, found)))
        elif os.path.lexists(given):
            add(display, os.path.realpath(given))
        else:
            missing.append(given)
    return Discovery(tuple(files), tuple(missing), tuple(skipped))


def _search(root: str, skipped: list[str], match: Callable[[str], bool] = is_blueprint_name) -> list[str]:
    """Files below `root` whose names `match` accepts, relative to it, sorted by path components."""
    real_root = os.path.realpath(root)
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
        for entry in listed:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not is_skipped_directory(entry.name):
                        pending.append((*parts, entry.name))
                elif match(entry.name) and _inside(entry, real_root):
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
