"""The routing call: the prompt that offers edges, and reading the model's answer.

Matching is Leviath's rule, exactly: take the answer's first non-blank line, then its last
one if that has at most 3 words; scan their words left to right; `done` (any ASCII case)
completes the run when DONE is allowed, and a word equal to an offered stage name (ASCII
case-insensitive) picks that edge; with no match, DONE when allowed, else the first offered
edge. A word is a run of letters, digits and `_` as `words` defines them, so a stage name
with any other character (`deep-dive`) is never matched.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ir.model import Stage
from .actions import RouteOption
from .words import lines, words

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


def _lower(text: str) -> str:
    return text.translate(_ASCII_LOWER)


def candidate_lines(reply: str) -> list[str]:
    """The lines a decision is read from: the first, then the last when it is short."""
    found = lines(reply)
    if len(found) >= 2 and len(words(found[-1])) <= SHORT_LAST_LINE:
        return [found[0], found[-1]]
    return found[:1]


def match_reply(reply: str, offered: Sequence[str], allow_done: bool) -> str | None:
    """The chosen target, or `DONE` (None) when the run should complete."""
    return read_reply(reply, offered, allow_done)[0]


def read_reply(reply: str, offered: Sequence[str], allow_done: bool) -> tuple[str | None, bool]:
    """`match_reply`, and whether the reply named nothing offered (the fallback decided)."""
    if not offered:
        return DONE, False
    targets = _by_lowered(offered if type(offered) is tuple else tuple(offered))
    for line in candidate_lines(reply):
        for word in words(_lower(line)):  # ASCII lower-casing moves no word boundary
            if allow_done and word == "done":
                return DONE, False
            target = targets.get(word)
            if target is not None:
                return target, False
    return (DONE if allow_done else offered[0]), True


def _by_lowered(offered: tuple[str, ...]) -> dict[str, str]:
    """Offered targets by their ASCII-lower-cased name, the first of a name winning: a word is
    looked up at once, however many edges are offered. Remembered per offer tuple (a run's
    state hands the same tuple to every answer of one routing request), by identity: hashing
    a long offer would cost as much as the scan this replaces."""
    cached = _LOWERED.get(id(offered))
    if cached is not None and cached[0] is offered:
        return cached[1]
    table: dict[str, str] = {}
    for target in offered:
        table.setdefault(_lower(target), target)
    if len(_LOWERED) >= 256:
        _LOWERED.clear()
    _LOWERED[id(offered)] = (offered, table)  # the entry keeps the tuple alive: its id stays its own
    return table


_LOWERED: dict[int, tuple[tuple[str, ...], dict[str, str]]] = {}
