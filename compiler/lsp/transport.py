"""The language server's input, bounded: no header line or message can fill the memory.

pygls reads a header line to its end and then as many bytes as `Content-Length` says, so a
client (or anything writing to the server's stdin) could make it allocate without limit, or
end it with an `OverflowError`. Here a header line longer than `MAX_HEADER_LINE` bytes or a
message longer than `MAX_MESSAGE_BYTES` is a `TransportError`: the frames can no longer be
told apart, so the server stops, and the command says why.
"""

from __future__ import annotations

import re
from typing import BinaryIO

#: Far more than any header LSP defines (`Content-Length`, `Content-Type`).
MAX_HEADER_LINE = 4096
#: A blueprint at the size limit (8 MiB), escaped as JSON and sent whole, fits several times.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024

_CONTENT_LENGTH = re.compile(rb"Content-Length: (\d+)\r\n")


class TransportError(Exception):
    """The client sent what cannot be read as LSP frames within the limits."""


class BoundedInput:
    """A binary stream that reads as pygls asks, within the limits above."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def readline(self) -> bytes:
        line = self._stream.readline(MAX_HEADER_LINE + 1)
        if len(line) > MAX_HEADER_LINE:
            raise TransportError(f"a header line longer than {MAX_HEADER_LINE:,} bytes")
        match = _CONTENT_LENGTH.fullmatch(line)
        if match is not None and (len(match.group(1)) > 12 or int(match.group(1)) > MAX_MESSAGE_BYTES):
            shown = match.group(1).decode("ascii")
            shown = shown if len(shown) <= 24 else shown[:24] + "…"
            raise TransportError(f"a message of {shown} bytes; the limit is {MAX_MESSAGE_BYTES:,}")
        return line

    def read(self, size: int) -> bytes:
        if size > MAX_MESSAGE_BYTES:  # readline refuses such a header first; kept as a guard
            raise TransportError(f"a message of {size:,} bytes; the limit is {MAX_MESSAGE_BYTES:,}")
        return self._stream.read(size)


__all__ = ["MAX_HEADER_LINE", "MAX_MESSAGE_BYTES", "BoundedInput", "TransportError"]
