"""Interaction points, as asked: which point is due, how its question is put, and how an
answer is matched against its option lists (exactly, then with dashes and whitespace
normalised). What an answer does is `interaction`; presenting the point, approving it and
proceeding belong to the stage's ending (`ending`), which holds the stage until its points
are answered.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..ir.model import InteractionPoint
from .actions import AskInteraction

if TYPE_CHECKING:
    from .run import Run

_DASHES = str.maketrans({"\u2014": "-", "\u2013": "-", "\u2212": "-", "\u2015": "-"})


def normalize(label: str) -> str:
    return " ".join(label.translate(_DASHES).split())


def matches(options: Iterable[str], answer: str) -> bool:
    options = list(options)
    return answer in options or normalize(answer) in {normalize(o) for o in options}


def directive_for(point: InteractionPoint, answer: str) -> str | None:
    for label, directive in point.directives:
        if label == answer:
            return directive
    wanted = normalize(answer)
    for label, directive in point.directives:
        if normalize(label) == wanted:
            return directive
    return None


def due(run: "Run") -> bool:
    """A reviewed stage still has a point to ask (whatever the stage's ending)."""
    stage = run.stage
    return stage.is_reviewed and run.state.visit.point_cursor < len(stage.interaction_points)


def current_point(run: "Run") -> InteractionPoint | None:
    points = run.stage.interaction_points
    cursor = run.state.visit.point_cursor
    return points[cursor] if 0 <= cursor < len(points) else None


def interaction_action(run: "Run") -> AskInteraction:
    """The point due, asked about the document under review: a person's edit from the round
    before (shown this once), else the stage's latest reply, as Leviath presents it."""
    point = current_point(run) or InteractionPoint()
    state = run.state
    edited = state.body
    return AskInteraction(
        stage=state.stage,
        request=state.requests,
        point=point.name,
        prompt=point.prompt,
        style=point.style,
        options=tuple(point.options),
        round=state.visit.point_rounds,
        body=edited if edited is not None else state.reply,
        document_region=point.document_region,
        inject=state.inject,
        revised=edited is not None,
        dispatched=state.dispatched,
        id=state.action_id,
    )
