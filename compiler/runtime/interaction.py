"""Interaction points: a person reviews an `interactive_points` stage's output before it moves on.

Points are asked in order. An answer is matched against the point's option lists (exactly,
then with dashes and whitespace normalised): an abort option cancels the run, an edit
option adopts the person's text and asks again, a directive option re-runs the stage with
the directive, anything else approves. Directive and edit rounds at one point are bounded
(4); past that the stage proceeds. Proceeding ends the stage again, so its holds (children,
required regions, the owed output) run once more before it resolves. An error that ends the
stage before its points are answered ends the run (see `ending.after_children`). A blank
answer approves, unless the point declared `unattended = "ask"`, which then stops the run as
unanswered. An unattended run (a host option) approves `auto_approve` points without asking.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..ir.model import InteractionPoint
from . import ending, texts
from .actions import AskInteraction
from .events import InteractionAnswered
from .policy import MAX_REVISION_ROUNDS

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


def present(run: "Run") -> None:
    point = current_point(run)
    if point is None:
        proceed(run)
        return
    if run.state.unattended and point.unattended == "auto_approve":
        approve(run, point, "")
        return
    run.set(phase="interact", status="waiting", requests=run.state.requests + 1)
    run.emit(interaction_action(run))


def interaction_action(run: "Run") -> AskInteraction:
    point = current_point(run) or InteractionPoint()
    return AskInteraction(
        stage=run.state.stage,
        request=run.state.requests,
        point=point.name,
        prompt=point.prompt,
        style=point.style,
        options=tuple(point.options),
        round=run.state.visit.point_rounds,
        body=run.state.body,
        document_region=point.document_region,
        inject=run.state.inject,
    )


def answered(run: "Run", event: InteractionAnswered) -> None:
    point = current_point(run)
    run.set(inject=(), status="active")
    if point is None:
        proceed(run)
        return
    answer = event.answer or ""
    if event.choice is not None and 0 <= event.choice < len(point.options):
        answer = point.options[event.choice]
    if not answer.strip() and point.unattended == "ask":
        ending.fail(run, texts.unanswered(point.name))
    elif matches(point.abort_options, answer):
        ending.fail(run, f"cancelled at checkpoint '{point.name}' (answer '{answer}')", status="cancelled")
    elif matches(point.edit_options, answer):
        _edit(run, point, answer, event.edited)
    elif (directive := directive_for(point, answer)) is not None:
        _directive(run, point, answer, directive)
    else:
        approve(run, point, answer)


def approve(run: "Run", point: InteractionPoint, answer: str) -> None:
    if answer:
        run.inject("conversation", texts.user_line(point.name, answer), "interaction")
    if run.state.visit.point_rounds > 0:
        run.inject("conversation", texts.user_line(point.name, texts.revised_before_approval()), "interaction")
    cursor = run.state.visit.point_cursor + 1
    run.visit(point_cursor=cursor, point_rounds=0)
    run.set(body=None)
    if cursor >= len(run.stage.interaction_points):
        proceed(run)
    else:
        present(run)


def _directive(run: "Run", point: InteractionPoint, answer: str, directive: str) -> None:
    run.inject("conversation", texts.user_line(point.name, answer), "interaction")
    rounds = run.state.visit.point_rounds
    if rounds + 1 >= MAX_REVISION_ROUNDS:
        proceed(run)
        return
    run.inject("conversation", texts.user_line(point.name, directive, "directive: "), "interaction")
    run.visit(point_rounds=rounds + 1)
    run.set(outcome=None)
    run.ready()


def _edit(run: "Run", point: InteractionPoint, answer: str, edited: str | None) -> None:
    run.inject("conversation", texts.user_line(point.name, answer), "interaction")
    rounds = run.state.visit.point_rounds
    if rounds + 1 >= MAX_REVISION_ROUNDS:
        proceed(run)
        return
    if edited:
        run.inject("conversation", texts.user_line(point.name, texts.adopt_edit(edited)), "interaction")
        run.set(body=edited)
    run.visit(point_rounds=rounds + 1)
    present(run)


def proceed(run: "Run") -> None:
    """Every point is satisfied: the stage ends again with the ending it had, so the holds
    run once more before it resolves (as in Leviath)."""
    run.visit(point_cursor=len(run.stage.interaction_points))
    outcome = run.state.outcome
    run.set(outcome=None, body=None)
    ending.end_stage(run, outcome)
