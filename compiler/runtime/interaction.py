"""Interaction points: a person reviews an `interactive_points` stage's output before it moves on.

Points are asked in order. An answer is matched against the point's option lists (exactly,
then with dashes and whitespace normalised): an abort option cancels the run, an edit
option adopts the person's text and asks again, a directive option re-runs the stage with
the directive, anything else approves. Directive and edit rounds at one point are bounded
(4); past that the stage proceeds. Proceeding ends the stage again, so its holds (children,
required regions, the owed output) run once more before it resolves. An error that ends the
stage before its points are answered ends the run (see `ending.after_children`). A blank
answer approves, unless the point declared `unattended = "ask"`, which then stops the run as
unanswered; a confirm-style yes or no (`approved`) is an answer, and approves, as in
Leviath. An unattended run (a host option) approves `auto_approve` points without asking.

The document a round shows is a person's edit once, at the round after the edit, and
otherwise the stage's latest reply: answering a round consumes the edit it showed.

This module is what an answer does; `points` finds the point due and matches answers, and the
stage's ending (`ending.present`, `approve`, `proceed`) asks it and moves on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import ending, texts
from .events import InteractionAnswered
from .points import current_point, directive_for, matches
from .policy import MAX_REVISION_ROUNDS

if TYPE_CHECKING:
    from ..ir.model import InteractionPoint
    from .run import Run


def answered(run: "Run", event: InteractionAnswered) -> None:
    point = current_point(run)
    run.set(inject=(), status="active", body=None)  # the edit this round showed is used up
    if point is None:
        ending.proceed(run)
        return
    answer = event.answer or ""
    if event.choice is not None and 0 <= event.choice < len(point.options):
        answer = point.options[event.choice]
    if not answer.strip() and event.approved is None and point.unattended == "ask":
        ending.fail(run, texts.unanswered(point.name))
    elif matches(point.abort_options, answer):
        ending.fail(run, f"cancelled at checkpoint '{point.name}' (answer '{answer}')", status="cancelled")
    elif matches(point.edit_options, answer):
        _edit(run, point, answer, event.edited)
    elif (directive := directive_for(point, answer)) is not None:
        _directive(run, point, answer, directive)
    else:
        ending.approve(run, point, answer)


def _directive(run: "Run", point: InteractionPoint, answer: str, directive: str) -> None:
    run.inject("conversation", texts.user_line(point.name, answer), "interaction")
    rounds = run.state.visit.point_rounds
    if rounds + 1 >= MAX_REVISION_ROUNDS:
        ending.proceed(run)
        return
    run.inject("conversation", texts.user_line(point.name, directive, "directive: "), "interaction")
    run.visit(point_rounds=rounds + 1)
    run.set(outcome=None)
    run.ready()


def _edit(run: "Run", point: InteractionPoint, answer: str, edited: str | None) -> None:
    run.inject("conversation", texts.user_line(point.name, answer), "interaction")
    rounds = run.state.visit.point_rounds
    if rounds + 1 >= MAX_REVISION_ROUNDS:
        ending.proceed(run)
        return
    if edited:
        run.inject("conversation", texts.user_line(point.name, texts.adopt_edit(edited)), "interaction")
        run.set(body=edited)
    run.visit(point_rounds=rounds + 1)
    ending.present(run)
