"""The file names of a docs site's pages: made from each blueprint's path, not its name.

Real projects reuse agent names (a dozen blueprints called `coder` in one tree), so a page
named after `[agent] name` needs numbering, and the numbers move whenever a file is added.
A path is unique where a name is not, so the page of `agents/coder/agent.leviath` is
`agents.coder`: the directories joined with `.`, the file name too unless it is the
conventional `agent.leviath`, the `.leviath` suffix dropped, each part reduced to a plain
file name (`file_stem`). Two paths can still meet (`a.b/x.leviath` and `a/b/x.leviath`, or
names that differ only in case, which macOS and Windows file systems do not tell apart);
those pages, and one that would take a name the site keeps for itself, get a suffix made
from a hash of the path, so they too keep their name from one run to the next.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
_WINDOWS_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"com{i}" for i in range(1, 10)] + [f"lpt{i}" for i in range(1, 10)]
)
#: File names the site keeps for itself.
INDEX_STEM = "index"
#: The file name that lets its directory name the blueprint.
CONVENTIONAL_FILE = "agent.leviath"
SUFFIX = ".leviath"
#: Longest page name before its `.md` / `.html` (file systems allow 255 bytes).
MAX_STEM = 120


def file_stem(name: str, limit: int = 80) -> str:
    """A file name for a name: letters, digits, `.`, `_`, `-` only, never hidden, never a
    path, never a reserved device name."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")  # ü → u
    stem = _UNSAFE_NAME.sub("-", ascii_name).strip("-.")[:limit].strip("-.")
    if not stem or stem.lower() in _WINDOWS_RESERVED:
        stem = f"blueprint-{stem}" if stem else "blueprint"
    return stem


def path_stem(source: str) -> str:
    """The page name of the blueprint at `source` (a `/`-separated path, as the page shows
    it): `agents/coder/agent.leviath` → `agents.coder`, `review-loop.leviath` → `review-loop`."""
    parts = [part for part in source.split("/") if part not in ("", ".", "..")]
    if len(parts) > 1 and parts[-1] == CONVENTIONAL_FILE:
        parts.pop()
    if parts and parts[-1].endswith(SUFFIX) and len(parts[-1]) > len(SUFFIX):
        parts[-1] = parts[-1][: -len(SUFFIX)]
    joined = ".".join(_UNSAFE_NAME.sub("-", part).strip("-.") for part in parts)
    return file_stem(joined, MAX_STEM)


def page_stems(sources: list[str], reserved: tuple[str, ...] = (INDEX_STEM,)) -> list[str]:
    """`path_stem` of each source; where two would meet (ignoring case), or one would take a
    `reserved` name, each of them gets `-` and eight hex digits of its path's SHA-256."""
    stems = [path_stem(source) for source in sources]
    seen: dict[str, int] = {}
    for stem in stems:
        seen[stem.lower()] = seen.get(stem.lower(), 0) + 1
    reserved_names = {stem.lower() for stem in reserved}
    taken = {stem.lower() for stem in stems if seen[stem.lower()] == 1} | reserved_names
    out = []
    for source, stem in zip(sources, stems, strict=True):
        if seen[stem.lower()] > 1 or stem.lower() in reserved_names:
            digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
            length = 8
            while f"{stem}-{digest[:length]}".lower() in taken:  # the same path twice, or a freak match
                length += 8
            stem = f"{stem}-{digest[:length]}"
            taken.add(stem.lower())
        out.append(stem)
    return out


__all__ = ["CONVENTIONAL_FILE", "INDEX_STEM", "file_stem", "page_stems", "path_stem"]
