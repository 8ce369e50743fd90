"""Blueprints as a git revision has them, read through the `git` command.

`blueprint diff --rev REV [PATH …]` compares the working tree with REV. The revision's side
comes from `git ls-tree` (which blueprint files REV has below each PATH, chosen as a
directory search chooses them) and `git show REV:./PATH` (their bytes). Every failure is a
`GitError` that says what to do: git not installed, not inside a repository, an unknown
revision.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable

from ..discover import is_blueprint_name, is_skipped_directory

#: The longest a single git command may take (a huge repository, a network file system).
TIMEOUT = 120


class GitError(Exception):
    """git could not answer: the message says why, for a person."""


def _git(*args: str, cwd: str | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL, check=False
        )
    except FileNotFoundError:
        raise GitError("--rev reads revisions with git, which is not installed (or not on PATH)") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} did not answer within {TIMEOUT} seconds") from None
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from None


def _message(done: subprocess.CompletedProcess[bytes]) -> str:
    text = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return text[-1].removeprefix("fatal: ") if text else f"git exited with status {done.returncode}"


def check_revision(revision: str, cwd: str | None = None) -> str:
    """The commit `revision` names; `GitError` outside a repository or for an unknown revision."""
    inside = _git("rev-parse", "--is-inside-work-tree", cwd=cwd)
    if inside.returncode != 0 or inside.stdout.strip() != b"true":
        where = os.path.abspath(cwd or os.curdir)
        raise GitError(f"--rev needs a git working tree, and {where} is not inside one")
    if revision.startswith("-"):
        raise GitError(f"unknown revision {revision!r}")
    done = _git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}", cwd=cwd)
    if done.returncode != 0:
        raise GitError(f"unknown revision {revision!r} (try a branch, a tag, a commit or HEAD~1)")
    return done.stdout.decode("ascii").strip()


def blueprints_at(commit: str, paths: Iterable[str], cwd: str | None = None) -> list[str]:
    """Blueprint files `commit` has at or below each of `paths` (relative to the working
    directory, normalised). A path that names a file is kept whatever its name, as on the
    command line; inside a directory only `*.leviath` files outside hidden, vendored and build
    folders are, as `blueprint validate` searches."""
    found: list[str] = []
    seen: set[str] = set()
    for given in paths:
        given = os.path.normpath(given)
        done = _git("ls-tree", "-r", "-z", "--end-of-options", commit, "--", given, cwd=cwd)
        if done.returncode != 0:
            raise GitError(f"cannot list {given!r} at {commit[:12]}: {_message(done)}")
        names = []
        for record in done.stdout.split(b"\0"):
            if not record:
                continue
            meta, _, name = record.partition(b"\t")
            mode, kind = meta.split(b" ")[:2]
            if kind == b"blob" and mode in (b"100644", b"100755"):
                names.append(os.path.normpath(os.fsdecode(name)))
        for path in sorted(names):
            if path != given and not _searched(os.path.relpath(path, given)):
                continue
            if path not in seen:
                seen.add(path)
                found.append(path)
    return found


def _searched(relative: str) -> bool:
    parts = relative.split(os.sep)
    return is_blueprint_name(parts[-1]) and not any(is_skipped_directory(part) for part in parts[:-1])


def read_at(commit: str, path: str, cwd: str | None = None) -> bytes | None:
    """The bytes of `path` (relative to the working directory) at `commit`; None when it has no such file."""
    if os.path.isabs(path):
        path = os.path.relpath(path, cwd or os.curdir)
    relative = path if path.startswith(("./", "../")) else "./" + path
    done = _git("show", "--end-of-options", f"{commit}:{relative}", cwd=cwd)
    if done.returncode != 0:
        return None
    return done.stdout
