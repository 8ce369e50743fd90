"""A short word diff of two texts, for a changed prompt: `… the plan [-first-]{+now+} …`.

Words are compared (whitespace only separates them), each changed run is shown as
`[-removed-]{+added+}` with a few words of context, distant changes are joined by ` … `,
and the whole stays short enough for one line of a report.
"""

from __future__ import annotations

from difflib import SequenceMatcher

#: Words of unchanged context kept on each side of a change.
CONTEXT = 3
#: The longest word diff shown; longer ones end in `…`.
LIMIT = 160


def word_diff(old: str | None, new: str | None, *, limit: int = LIMIT) -> str:
    """`[-old-]{+new+}` marks over the words of `old` and `new` (None: no text on that side)."""
    before, after = (old or "").split(), (new or "").split()
    if not before and not after:
        return ""
    pieces: list[str] = []
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    opcodes = matcher.get_opcodes()
    for number, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            words = before[i1:i2]
            first, last = number == 0, number == len(opcodes) - 1
            if len(words) > 2 * CONTEXT or (first and len(words) > CONTEXT) or (last and len(words) > CONTEXT):
                head = [] if first else words[:CONTEXT]
                tail = [] if last else words[-CONTEXT:]
                pieces.append(" ".join([*head, "…", *tail]))
            else:
                pieces.append(" ".join(words))
            continue
        change = ""
        if i2 > i1:
            change += "[-" + " ".join(before[i1:i2]) + "-]"
        if j2 > j1:
            change += "{+" + " ".join(after[j1:j2]) + "+}"
        pieces.append(change)
    text = " ".join(piece for piece in pieces if piece)
    return text if len(text) <= limit else text[: limit - 1] + "…"
