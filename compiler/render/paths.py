"""File paths the way CI services want them in machine reports.

GitHub code scanning and workflow annotations match a finding to a file of the repository by
its path relative to the checkout root, with forward slashes; CI runs the tool from that root.
A file outside the working directory cannot be matched to anything, so it keeps the path the
user gave (an absolute path stays absolute).
"""

from __future__ import annotations

import os


def repository_path(path: str, cwd: str | None = None) -> str:
    """`path` relative to `cwd` (default: the working directory), with forward slashes.

    `a/./b.leviath` → `a/b.leviath`; `/work/repo/a.leviath` run from `/work/repo` →
    `a.leviath`; `../other/a.leviath` and `/elsewhere/a.leviath` stay as given (normalised).
    """
    if os.path.isabs(path):
        base = os.path.abspath(cwd if cwd is not None else os.getcwd())
        try:
            relative = os.path.relpath(path, base)
        except ValueError:  # another drive (Windows)
            return _forward(os.path.normpath(path))
        if relative == os.pardir or relative.startswith(os.pardir + os.sep) or os.path.isabs(relative):
            return _forward(os.path.normpath(path))
        return _forward(relative)
    return _forward(os.path.normpath(path)) if path else path


def _forward(path: str) -> str:
    for separator in (os.sep, os.altsep):
        if separator and separator != "/":
            path = path.replace(separator, "/")
    return path


__all__ = ["repository_path"]
