"""`--shard K/N`: one of N stable, balanced parts of the files a search finds.

A CI matrix of N runners each checks one part; together they check every file once. The part
depends only on the paths (their order in the search, which sorts each directory's files by
path components), never on the machine, the file sizes or the clock, so every runner of the
same commit agrees on it. Files are dealt out in turn, so the parts differ by at most one file.
"""

from __future__ import annotations

import re

from .errors import CliError

_SPEC = re.compile(r"([0-9]{1,6})/([0-9]{1,6})")


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """`"2/5"` → `(2, 5)`; None when the option was not given. A malformed or impossible
    spec (`0/3`, `4/3`, `a/b`) is a `CliError` that says what is accepted."""
    if text is None:
        return None
    match = _SPEC.fullmatch(text.strip())
    if match is None:
        raise CliError(f"--shard takes K/N, as in 2/5 (part K of N parts), not {text!r}")
    part, parts = int(match[1]), int(match[2])
    if parts < 1 or not 1 <= part <= parts:
        raise CliError(f"--shard {part}/{parts}: K must be a whole number from 1 to N (here, 1 to {parts})")
    return part, parts


def shard_files(files: tuple[str, ...], shard: tuple[int, int] | None) -> tuple[str, ...]:
    """The files of part K of N: every N-th file of the search, starting with the K-th."""
    if shard is None:
        return files
    part, parts = shard
    return files[part - 1 :: parts]
