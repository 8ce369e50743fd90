"""An output directory that commands create files in: nothing written outside it, nothing
written through a link (`docs -o DIR`, `check --emit-scenarios DIR`)."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat

from .errors import CliError, echo_problem


class OutputDirectory:
    """DIR, resolved once and opened: every file is created in that directory and nowhere
    else, whatever links appear in its path or at a file's name while files are written.

    A file is written to a new temporary file in DIR, then renamed over its name, so nothing
    is ever written *through* an existing entry: a planted hard link keeps the other file's
    content (the name now holds the new file), and a symbolic link at the name is refused.
    When DIR itself is reached through a symbolic link, stderr says where the files go.
    """

    def __init__(self, directory: str) -> None:
        self.shown = directory
        try:
            os.makedirs(directory, exist_ok=True)
            self.real = os.path.realpath(directory)
            self.fd = os.open(self.real, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)) if _AT else None
        except OSError as exc:
            raise CliError(f"cannot create '{directory}': {exc.strerror or exc}") from exc
        if self.real != os.path.abspath(directory):
            echo_problem(f"note: '{directory}' leads through a symbolic link; the files go to '{self.real}'")

    def __enter__(self) -> "OutputDirectory":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)

    def _at(self, name: str) -> str:
        """How to name `name` to the `*at` calls: itself (with `dir_fd`), or its full path."""
        return name if self.fd is not None else os.path.join(self.real, name)

    def path(self, name: str) -> str:
        """`name` in DIR, as the user named DIR (for messages)."""
        return os.path.join(self.shown, name)

    def write(self, name: str, text: str) -> None:
        temporary = self._at(f".{name}.{secrets.token_hex(6)}.tmp")
        target = self._at(name)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        try:
            if stat.S_ISLNK(_lstat(target, self.fd)):
                raise OSError(errno.ELOOP, "it is a symbolic link; refusing to write through it")
            descriptor = os.open(temporary, flags, 0o644, dir_fd=self.fd)
            try:
                with os.fdopen(descriptor, "wb") as handle:
                    handle.write(text.encode("utf-8"))
                os.replace(temporary, target, src_dir_fd=self.fd, dst_dir_fd=self.fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary, dir_fd=self.fd)
                raise
        except OSError as exc:
            raise CliError(f"cannot write '{self.path(name)}': {exc.strerror or exc}") from exc


#: Whether names can be opened relative to a directory descriptor here (not on Windows).
_AT = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd


def _lstat(name: str, directory: int | None) -> int:
    """The mode of `name` in `directory` without following a link (0 when there is none)."""
    try:
        return os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return 0


__all__ = ["OutputDirectory"]
