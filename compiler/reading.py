"""Reading input files with bounds: only regular files, never more than a limit.

A FIFO would block for ever, `/dev/zero` never ends, and a directory fails late; each is
refused up front with an `OSError`, like a missing or unreadable file. A path holding a NUL
character (which no file system allows) is an `OSError` too, not the `ValueError` the
operating system layer raises. Standard library only: the runner reads event streams with it.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO


def open_regular(path: "str | bytes | os.PathLike[str]") -> BinaryIO:
    """`path` opened for binary reading; `OSError` unless it is a regular file."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO must not block
    except ValueError:  # "embedded null byte"
        raise OSError(errno.EINVAL, "the path contains a NUL character", os.fsdecode(path)) from None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fsdecode(path))
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_limited(path: "str | bytes | os.PathLike[str]", limit: int) -> bytes:
    """The bytes of the regular file `path`, at most `limit + 1` of them: one byte more than
    allowed is how the caller learns the file is too large, without reading the rest."""
    with open_regular(path) as handle:
        return handle.read(limit + 1)


#: The cap on a file that is not a blueprint (configuration, ignore files, Leviath's files,
#: scenario files): larger than any such file written by hand.
MAX_SIDE_FILE_BYTES = 8 * 1024 * 1024


def read_capped(path: "str | bytes | os.PathLike[str]", limit: int = MAX_SIDE_FILE_BYTES) -> bytes:
    """The bytes of the regular file `path`; `OSError` (EFBIG) when it holds more than `limit`."""
    data = read_limited(path, limit)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit:,} bytes; not read", os.fsdecode(path))
    return data


__all__ = ["MAX_SIDE_FILE_BYTES", "open_regular", "read_capped", "read_limited"]
