"""Hypothesis strategies for random typed blueprints, shared by the property tests of the
stage-runner and of the run analysis.

The shapes are shared; the spread is each suite's own (the analysis explores every run of a
blueprint, so its blueprints stay smaller than the runner's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from compiler.ir.model import Edge, InteractionPoint, Layout, Region, StuckThresholds

#: Stage names; a blueprint uses the first one to four. Edges may also target `ghost`, which
#: no blueprint declares.
NAMES = ["s0", "s1", "s2", "s3"]
LAYOUT = Layout(
    regions=(
        Region(name="conversation", kind="sliding_window"),
        Region(name="plan", kind="pinned", required=True),
        Region(name="todos", kind="checklist"),
        Region(name="notes", kind="temporary"),
    )
)


def review_point(unattended: str) -> InteractionPoint:
    """The one interaction point of an `interactive_points` stage: approve, revise, edit, abort."""
    return InteractionPoint(
        name="check",
        options=("Approve", "Revise", "Edit", "Abort"),
        directives=(("Revise", "do it again"),),
        edit_options=("Edit",),
        abort_options=("Abort",),
        unattended=unattended,
    )


@st.composite
def edges(
    draw: Any,
    names: list[str],
    *,
    gates: st.SearchStrategy,
    spread: int,
    conditions: Sequence[str],
    stuck_iterations: Sequence[int | None],
    stuck_fallback: int,
    transforms: Sequence[str],
    hints: bool = False,
) -> tuple[Edge, ...]:
    """One to four edges to distinct targets (`spread` weighs real stages against `ghost`).
    A stuck edge always has a threshold armed; only normal edges get a gate."""
    targets = draw(st.lists(st.sampled_from(names * spread + ["ghost"]), unique=True, min_size=1, max_size=4))
    out = []
    for target in targets:
        condition = draw(st.sampled_from(conditions))
        stuck = None
        if condition == "stuck":
            stuck = StuckThresholds(
                iterations=draw(st.sampled_from(stuck_iterations)),
                minutes=draw(st.sampled_from([None, 1])),
                same_file_edits=draw(st.sampled_from([None, 2])),
                tool_calls=draw(st.sampled_from([None, 3])),
            )
            if not stuck.armed:
                stuck = StuckThresholds(iterations=stuck_fallback)
        out.append(
            Edge(
                target=target,
                condition=condition,
                hint=draw(st.sampled_from([None, "go"])) if hints else None,
                transform=draw(st.sampled_from(transforms)),
                gate=draw(gates) if condition in ("always", "llm_choice") else None,
                stuck=stuck,
            )
        )
    return tuple(out)
