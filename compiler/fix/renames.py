"""Renaming a table key everywhere it is written, in the text itself.

tomlkit renders a table header from the text it read, so renaming `tool_result_routing` to
`tool_routing` through it leaves `[stages.a.tool_result_routing.overrides]` behind. The
position index knows every header and key; the rename edits exactly those tokens (bare keys
only) and leaves every other byte alone.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..rulebook.fixers import Unfixable

if TYPE_CHECKING:
    from ..diagnostics import KeyPath


def rename_key(text: str, path: "KeyPath", new: str) -> str:
    """`text` with the last segment of `path` renamed to `new` in its key and in every header
    below it. `Unfixable` when a spelling is quoted or the key is written more than once."""
    from ..parse.positions import PositionIndex

    entries = PositionIndex(text).entries
    old = path[-1]
    own = entries.get(tuple(path))
    if own is None or own.key is None or text[own.key[0] : own.key[1]] != old:
        raise Unfixable("the key is quoted or not where the index puts it")
    edits = {own.key}
    segment = re.compile(rf"(?<=[.\[\s]){re.escape(old)}(?=\s*[.\]])")
    for sub, entry in entries.items():
        if len(sub) <= len(path) or tuple(sub[: len(path)]) != tuple(path) or entry.header is None:
            continue
        start, end = entry.header
        match = segment.search(text, start, end)
        if match is None:
            raise Unfixable("a header below the key spells it another way")
        edits.add((match.start(), match.end()))
    if len(text.split(f"{old}")) - 1 != len(edits):
        raise Unfixable("the key is written in more places than headers")
    for start, end in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text
