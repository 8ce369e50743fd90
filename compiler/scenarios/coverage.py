"""`blueprint test --coverage`: the stages and edges of a blueprint that no scenario exercises.

Like branch coverage for code: every stage should be entered by some scenario, and every
edge taken, each edge with its condition (a `stuck` or `error` edge is a branch of its own).
A stage without transitions counts its fall-through to the next stage as an edge, and a
fan-out stage its hand-off to the merge stage. A stage only fan-out workers run (no edge of the
run leads to it) is not counted.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from compiler.records import record

from ..display import visible_lines
from ..runtime.actions import TakeEdge

if TYPE_CHECKING:
    from ..ir.model import Blueprint
    from .runner import FileOutcome

#: (source, target, condition): one branch of the stage graph.
Branch = tuple[str, str, str]


@record
class Coverage:
    blueprint: str
    stages: tuple[str, ...]
    branches: tuple[Branch, ...]
    entered: frozenset[str]
    taken: frozenset[Branch]

    @property
    def missed_stages(self) -> list[str]:
        return [s for s in self.stages if s not in self.entered]

    @property
    def missed_branches(self) -> list[Branch]:
        return [b for b in self.branches if b not in self.taken]

    def to_dict(self) -> dict[str, Any]:
        return {
            "blueprint": self.blueprint,
            "stages": {
                "total": len(self.stages),
                "entered": len(self.stages) - len(self.missed_stages),
                "missed": self.missed_stages,
            },
            "edges": {
                "total": len(self.branches),
                "taken": len(self.branches) - len(self.missed_branches),
                "missed": [{"source": s, "target": t, "condition": c} for s, t, c in self.missed_branches],
            },
        }


def branches(ir: "Blueprint") -> list[Branch]:
    out: list[Branch] = []
    for stage in ir.stages:
        if stage.transitions is None:
            following = ir.next_stage(stage)
            if following is not None:
                out.append((stage.name, following.name, "fall_through"))
        else:
            out.extend((stage.name, edge.target, edge.condition) for edge in stage.edges())
        if stage.mode == "fan_out" and stage.fan_out is not None and stage.fan_out.merge_stage:
            out.append((stage.name, stage.fan_out.merge_stage, "merge"))
    return list(dict.fromkeys(out))


def coverage(blueprint_path: str, ir: "Blueprint", outcomes: Iterable["FileOutcome"]) -> Coverage:
    entered: set[str] = set()
    taken: set[Branch] = set()
    for outcome in outcomes:
        for result in outcome.results:
            if result.played is None:
                continue
            for visit in result.played.visits:
                entered.add(visit.stage)
                for action in visit.actions:
                    if isinstance(action, TakeEdge):
                        taken.add((action.source, action.target, action.condition))
    return Coverage(blueprint_path, run_stages(ir), tuple(branches(ir)), frozenset(entered), frozenset(taken))


def run_stages(ir: "Blueprint") -> tuple[str, ...]:
    """The stages a run can move to from its start (a worker-only stage runs in worker runs)."""
    from ..graph import StageGraph, run_edge

    movable = set(StageGraph.from_blueprint(ir).reachable(where=run_edge))
    return tuple(name for name in ir.stage_names if name in movable)


def render_coverage(reports: Iterable[Coverage]) -> str:
    lines: list[str] = []
    for report in reports:
        stages, edges = report.to_dict()["stages"], report.to_dict()["edges"]
        lines.append(
            f"coverage of {report.blueprint}: {stages['entered']}/{stages['total']} stages entered, "
            f"{edges['taken']}/{edges['total']} edges taken"
        )
        lines.extend(f"  stage never entered: {name}" for name in report.missed_stages)
        lines.extend(f"  edge never taken: {s} → {t} ({c.replace('_', '-')})" for s, t, c in report.missed_branches)
    return visible_lines(lines) + ("\n" if lines else "")
