"""The "did you mean" guess for a misspelt name, at a bounded cost whatever the input.

`difflib`'s similarity is quadratic in the length of the two names, and a guess compares the
name with every candidate, so a file of long or many misspelt names could take minutes. Here a
name longer than `MAX_LENGTH` gets no guess (it is not a name anyone retypes), and a name is
compared with at most `MAX_COMPARED` candidates. Among more candidates than that (the stages of
a very large file), only those one edit away are compared: they are found in an index of every
candidate with one character deleted, built once per list of candidates.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

MAX_LENGTH = 80
MAX_COMPARED = 64
MAX_INDEXED = 50_000
CUTOFF = 0.6


def closest(word: str, candidates: Iterable[str], cutoff: float = CUTOFF) -> str | None:
    """The candidate most similar to `word` (difflib's ratio at least `cutoff`), or None."""
    size = len(word)
    if size == 0 or size > MAX_LENGTH:
        return None
    listed = tuple(candidates)
    if len(listed) <= MAX_COMPARED:
        # ratio = 2·matches / (len a + len b) and matches <= the shorter length: a candidate
        # whose length alone keeps it under the cutoff is never compared (difflib's own bound).
        near = [c for c in listed if 2.0 * min(size, len(c)) / (size + len(c) or 1) >= cutoff and c != word]
    elif len(listed) <= MAX_INDEXED:
        index = _one_edit_index(listed)
        found = {c for key in _deletions(word) for c in index.get(key, ())}
        found.discard(word)
        near = sorted(found)[:MAX_COMPARED]
    else:
        return None
    import difflib  # only for a name that is not known

    matches = difflib.get_close_matches(word, near, n=1, cutoff=cutoff)
    return matches[0] if matches else None


def _deletions(word: str) -> set[str]:
    """`word` and every string `word` becomes with one character deleted."""
    return {word, *(word[:i] + word[i + 1 :] for i in range(len(word)))}


@lru_cache(maxsize=4)
def _one_edit_index(candidates: tuple[str, ...]) -> dict[str, list[str]]:
    """Each deletion of each candidate (up to `MAX_LENGTH` long) → the candidates giving it.

    Two names one insertion, deletion, substitution or swap of neighbours apart share a key.
    """
    index: dict[str, list[str]] = {}
    for candidate in dict.fromkeys(candidates):
        if len(candidate) <= MAX_LENGTH:
            for key in _deletions(candidate):
                index.setdefault(key, []).append(candidate)
    return index


__all__ = ["CUTOFF", "MAX_COMPARED", "MAX_LENGTH", "closest"]
