"""The routing call: the prompt that offers edges, and reading the model's answer.

Matching follows the reference rule exactly for ordinary stage names: look at the first
non-blank line, then at the last one if it is short (≤ 3 words); scan words left to right;
`DONE` completes (when allowed), a whole-word, case-insensitive stage name picks its edge;
nothing found falls back to DONE (when allowed) or the first offered edge. A "word" is a run
of letters, digits and `_`. One deviation: a stage name that itself contains other
characters (`deep-dive`) matches when its words appear in sequence, where the reference can
never match it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from ..ir.model import Stage
from .actions import RouteOption

#: `match_reply`'s answer when the model ended the run.
DONE = None
#: A last line longer than this many words is prose, not a decision.
SHORT_LAST_LINE = 3

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def routing_prompt(stage: Stage, options: Sequence[RouteOption], allow_done: bool) -> str:
    if stage.transition_prompt:
        head = [stage.transition_prompt.rstrip(), "", "Available transitions:"]
    else:
        head = [f"Stage '{stage.name}' is complete. Choose the next stage:"]
    offered = [f"- {o.target}" + (f": {o.hint}" if o.hint else "") for o in options]
    closing = "Answer with only the name of the next stage."
    if allow_done:
        closing += " Answer DONE instead if the whole task is finished; that ends the run."
    return "\n".join([*head, *offered, "", closing])


def words(text: str) -> list[str]:
    """Split on every character that is not alphanumeric and not `_`.

    `\\w` is exactly "`str.isalnum()` or `_`" (both use the Unicode alphanumeric test).
    """
    return _WORD.findall(text)


_WORD = re.compile(r"\w+")


def _lower(text: str) -> str:
    return text.translate(_ASCII_LOWER)


def candidate_lines(reply: str) -> list[str]:
    lines = [line.strip() for line in reply.splitlines() if line.strip()]
    if not lines:
        return []
    candidates = [lines[0]]
    if len(lines) >= 2 and len(lines[-1].split()) <= SHORT_LAST_LINE:
        candidates.append(lines[-1])
    return candidates


@lru_cache(maxsize=256)
def _targets(offered: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """Each target with its lower-cased words, longest name first at a position (so `plan-b`
    wins over `plan`), stable otherwise. Read-only: the same few offers recur."""
    return sorted(((t, [_lower(w) for w in words(t)]) for t in offered), key=lambda item: -len(item[1]))


def match_reply(reply: str, offered: Sequence[str], allow_done: bool) -> str | None:
    """The chosen target, or `DONE` (None) when the run should complete."""
    if not offered:
        return DONE
    targets = _targets(tuple(offered))
    for line in candidate_lines(reply):
        said = words(_lower(line))  # ASCII lower-casing moves no word boundary
        for i, word in enumerate(said):
            if allow_done and word == "done":
                return DONE
            for target, target_words in targets:
                if target_words and said[i : i + len(target_words)] == target_words:
                    return target
    return DONE if allow_done else offered[0]
