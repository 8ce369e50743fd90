"""Writing a fixed blueprint back: only over the bytes that were fixed, keeping what the file is.

`replace_checked(path, expected, data)` writes `data` to `path` only if the file still holds
`expected` (what was read and fixed); otherwise it raises `FileChanged` with what the file
holds now, and the caller fixes that instead. The comparison and the write happen under an
advisory lock on the file's directory, so two `--fix` runs on one file take turns rather
than one silently undoing the other.

How the bytes get there depends on what replacing the file would break:

- a read-only file (no write permission bit at all) is refused with `ReadOnlyFile`, even for
  root, who could write it anyway; one we may not write, with a `PermissionError`;
- normally a temporary file beside the target is written, given the target's mode and owner
  and renamed over it: atomic, a crash leaves the old or the new file;
- a file with other hard links, or whose owner or group the temporary file cannot take
  (another user's file in a shared directory), or in a directory we may not create files in,
  is rewritten in place instead, so its links, owner and group stay as they were.

A symbolic link is followed: the file it points to is written, the link stays a link.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator

from ..parse.source import read_blueprint

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; the comparison still catches most races
    fcntl = None  # type: ignore[assignment]  # None stands for the missing module


class FileChanged(Exception):
    """The file no longer holds the bytes that were fixed; `current` is what it holds now."""

    def __init__(self, current: bytes) -> None:
        super().__init__("the file changed while it was being fixed")
        self.current = current


class ReadOnlyFile(PermissionError):
    """The file is read-only: a fix never makes it writable."""


def replace_checked(path: str, expected: bytes, data: bytes) -> None:
    """Write `data` to `path` if it still holds `expected` (see the module docstring)."""
    _write(path, data, expected)


def write_atomically(path: str, data: bytes) -> None:
    """Write `data` to `path` as `replace_checked` does, whatever the file holds now, creating
    it when it does not exist: for files the tool writes whole (scenario files)."""
    _write(path, data, None)


def _write(path: str, data: bytes, expected: bytes | None) -> None:
    target = os.path.realpath(path)
    directory = os.path.dirname(target) or "."
    with _locked(directory):
        try:
            info = os.stat(target)
        except FileNotFoundError:
            if expected is not None:
                raise
            _replace(target, data, None)
            return
        if not info.st_mode & 0o222:
            mode = stat.S_IMODE(info.st_mode)
            raise ReadOnlyFile(errno.EACCES, f"the file is read-only (mode {mode:04o}); make it writable to fix it")
        if not os.access(target, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        if expected is not None:
            current = read_blueprint(target)
            if current != expected:
                raise FileChanged(current)
        if info.st_nlink > 1 or not os.access(directory, os.W_OK | os.X_OK) or not _replace(target, data, info):
            _write_in_place(target, data)


def _replace(target: str, data: bytes, info: os.stat_result | None) -> bool:
    """Write a temporary file with the target's mode and owner (a new file's defaults when
    `info` is None), then rename it over the target; False (nothing changed) when the owner
    or group cannot be kept."""
    temporary = os.path.join(os.path.dirname(target), f".blueprint-write-{secrets.token_hex(6)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            if info is not None:
                mine = os.fstat(handle.fileno())
                if (mine.st_uid, mine.st_gid) != (info.st_uid, info.st_gid) and hasattr(os, "fchown"):
                    try:
                        os.fchown(handle.fileno(), info.st_uid, info.st_gid)
                    except PermissionError:
                        os.unlink(temporary)
                        return False
                os.chmod(temporary, stat.S_IMODE(info.st_mode))
            handle.write(data)
        os.replace(temporary, target)
        return True
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _write_in_place(target: str, data: bytes) -> None:
    """Overwrite the file's own bytes: its inode, links, owner and mode stay. Not atomic, so
    the space is reserved first: a full disk or a file size limit fails before any byte changes."""
    with open(target, "r+b") as handle:
        if hasattr(os, "posix_fallocate") and data:
            try:
                os.posix_fallocate(handle.fileno(), 0, len(data))
            except OSError as exc:
                if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):  # no such support here
                    raise
        handle.write(data)
        handle.truncate()


@contextlib.contextmanager
def _locked(directory: str) -> Iterator[None]:
    """An exclusive advisory lock on `directory` while the block runs (where locks exist)."""
    if fcntl is None:
        yield
        return
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


__all__ = ["FileChanged", "ReadOnlyFile", "replace_checked", "write_atomically"]
