"""Places where Leviath's choice of edge is not determined by the file.

Leviath keeps a stage's transitions in a hash map whose order is drawn afresh in every
process, and takes "the first" edge in that order wherever several could serve: the first
error, dead-end, iteration-cap or stuck edge within budget, the first offered edge when a
routing answer names none, and the first target a routing word matches when two targets
differ only in letter case. Our runner takes the first in declaration order instead, so a
`blueprint run` replay is one of the runs Leviath may make, not the only one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...ir.model import Blueprint, Edge, Stage
from ...rulebook.registry import LINT
from ...rulebook.snippets import blueprint as _blueprint
from ...rulebook.snippets import stage as declared
from ..common import edge_path, quoted
from ..context import RuleContext
from .budgets import CONDITIONED

AMBIGUOUS_EDGE_ORDER = LINT.define(
    "ambiguous-edge-order",
    severity="warning",
    summary="Two edges of a stage compete where Leviath picks one in an order that changes from run to run.",
    rationale=(
        "Leviath keeps a stage's transitions in a hash map, whose order differs from one process "
        "to the next, and wherever several edges could serve it takes the first in that order. "
        "With two `error` (or `dead_end`, `max_iterations`, `stuck`) edges, which recovery a "
        "failing stage takes is a coin toss, and of two `stuck` edges only the thresholds of the "
        "one drawn first are watched. Two targets whose names differ only in letter case match "
        "the same routing answer, and the one drawn first wins. `blueprint run` and "
        "`blueprint check` take the first edge in declaration order, so they show one of the "
        "runs Leviath may make."
    ),
    example=_blueprint(
        declared("work"),
        "[stages.work.transitions.done]",
        '[stages.work.transitions.retry]\ncondition = "error"',
        '[stages.work.transitions.report]\ncondition = "error"',
        declared("retry", "max_revisits = 2"),
        "[stages.retry.transitions.work]",
        declared("report"),
        "[stages.report.transitions]",
        declared("done"),
        "[stages.done.transitions]",
    ),
    example_fixed=_blueprint(
        declared("work"),
        "[stages.work.transitions.done]",
        '[stages.work.transitions.retry]\ncondition = "error"',
        declared("retry", "max_revisits = 2"),
        '[stages.retry.transitions.work]\n[stages.retry.transitions.report]\ncondition = "dead_end"',
        declared("report"),
        "[stages.report.transitions]",
        declared("done"),
        "[stages.done.transitions]",
    ),
    fix="keep one edge per condition (chain a second recovery through the first one's stage)",
    differs=(
        "Leviath takes the first such edge in hash-map order, which changes from process to "
        "process; `blueprint run` and `blueprint check` take the first in declaration order."
    ),
)

UNORDERED_ROUTING_FALLBACK = LINT.define(
    "unordered-routing-fallback",
    severity="warning",
    summary="A routing target no answer can name is reached only by Leviath's fallback, picked in hash-map order.",
    rationale=(
        "A stage with two or more `always`/`llm_choice` edges asks the model which stage comes "
        "next, listing the targets by name, and reads the answer as words made of letters, "
        "digits and `_`. A target whose name has any other character (`code-review`, "
        "`step.2`) can never be named: the answer `code-review` reads as the words `code` and "
        "`review`. Its edge is taken only as the fallback for an answer that names no stage, "
        "and Leviath takes as fallback the first offered edge in the order of a hash map that "
        "changes from process to process, so whether a run ever gets there is a coin toss. "
        "That every branching stage has such a fallback is a fact of the runtime, not of the "
        'file (docs/leviath-mapping.md, "Edge order"); this rule reports only what a file can change.'
    ),
    example=_blueprint(
        declared("review"),
        '[stages.review.transitions.code-review]\nhint = "the code needs a closer look"',
        '[stages.review.transitions.publish]\nhint = "approved"',
        declared("code-review", "max_revisits = 3"),
        "[stages.code-review.transitions.review]",
        declared("publish"),
        "[stages.publish.transitions]",
    ),
    example_fixed=_blueprint(
        declared("review"),
        '[stages.review.transitions.code_review]\nhint = "the code needs a closer look"',
        '[stages.review.transitions.publish]\nhint = "approved"',
        declared("code_review", "max_revisits = 3"),
        "[stages.code_review.transitions.review]",
        declared("publish"),
        "[stages.publish.transitions]",
    ),
    fix="rename the stage with letters, digits and underscores only, so that an answer can name it",
    differs=(
        "Leviath's fallback edge varies between processes; `blueprint run` and `blueprint check` "
        "take the first declared."
    ),
)


def _live(blueprint: Blueprint, stage: Stage, condition: str) -> list[Edge]:
    """The stage's edges of `condition` that lead to a stage (an unknown target is unknown-stage)."""
    return [edge for edge in stage.edges(condition) if blueprint.stage(edge.target) is not None]


@LINT.check(AMBIGUOUS_EDGE_ORDER)
def check_competing_edges(ctx: RuleContext) -> Iterator[Diagnostic]:
    blueprint = ctx.blueprint
    for stage in blueprint.stages:
        for condition in CONDITIONED:
            rivals = _live(blueprint, stage, condition)
            if len(rivals) < 2:
                continue
            watched = ", and only the drawn edge's thresholds are watched" if condition == "stuck" else ""
            yield ctx.report(
                AMBIGUOUS_EDGE_ORDER,
                f"stage '{stage.name}' has {len(rivals)} {condition} transitions ({quoted(e.target for e in rivals)}): "
                f"Leviath takes whichever its hash map yields first, which changes from process to process"
                f"{watched}; blueprint run takes the first declared, '{rivals[0].target}'",
                edge_path(stage.name, rivals[1].target),
                related=[(f"{condition} transition to '{e.target}'", edge_path(stage.name, e.target)) for e in rivals],
            )
        by_folded: dict[str, list[Edge]] = {}
        for edge in stage.normal_edges:
            if blueprint.stage(edge.target) is not None:
                by_folded.setdefault(_ascii_fold(edge.target), []).append(edge)
        for rivals in by_folded.values():
            if len(rivals) < 2:
                continue
            yield ctx.report(
                AMBIGUOUS_EDGE_ORDER,
                f"stage '{stage.name}' offers {quoted(e.target for e in rivals)}, which differ only in letter case: "
                "a routing answer naming one matches all of them, and Leviath follows whichever its hash map "
                "yields first; blueprint run takes the first declared",
                edge_path(stage.name, rivals[1].target),
                fix="rename one of the stages so that their names differ in more than letter case",
                related=[(f"transition to '{e.target}'", edge_path(stage.name, e.target)) for e in rivals],
            )


@LINT.check(UNORDERED_ROUTING_FALLBACK)
def check_routing_fallback(ctx: RuleContext) -> Iterator[Diagnostic]:
    blueprint = ctx.blueprint
    for stage in blueprint.stages:
        if stage.allow_complete:
            continue  # an answer naming no stage ends the run there: no edge is picked
        offered = [e for e in stage.normal_edges if blueprint.stage(e.target) is not None]
        if len(offered) < 2:
            continue  # a single edge is followed without asking
        for edge in offered:
            if _routable(edge.target):
                continue
            first = "this edge" if edge is offered[0] else f"'{offered[0].target}'"
            yield ctx.report(
                UNORDERED_ROUTING_FALLBACK,
                f"stage '{stage.name}' offers '{edge.target}', which no routing answer can name (an answer is "
                "read as words of letters, digits and _): Leviath takes this edge only when it is the fallback "
                "for an answer naming no stage, and picks that fallback in hash-map order, which changes from "
                f"process to process (blueprint run falls back to {first}, the first declared)",
                edge_path(stage.name, edge.target),
            )


def _routable(name: str) -> bool:
    """Whether `name` is one routing word, so that an answer can pick it."""
    if name.isascii():
        return _ASCII_WORD.fullmatch(name) is not None
    from ...runtime.words import words  # rare: a name beyond ASCII needs Unicode's tables

    return words(name) == [name]


def _ascii_fold(name: str) -> str:
    """Leviath matches routing words to targets ignoring ASCII case only."""
    return name.translate(_ASCII_LOWER)


_ASCII_WORD = re.compile(r"[A-Za-z0-9_]+")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
