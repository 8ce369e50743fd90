"""What one visit of a stage can do, fixed when the visit begins (`StageFacts`).

The moves (`moves`) and the key of a visit's states (`visit.visit_key`) read these: which tool
is a plain call and which one modifies, the stuck thresholds watched, the regions a decision
reads, the budgets of the stage's gates, and whether tool calls are counted exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compiler.records import record

from ..ir.model import FAN_OUT_TOOL, SUBMIT_OUTPUT_TOOL
from ..runtime.policy import can_write_context, canonical_tool, modifying_tools, required_regions
from ..runtime.stuck import stuck_edge

if TYPE_CHECKING:
    from ..ir.model import Blueprint, Stage, StuckThresholds
    from ..runtime.state import RegionSnapshot, RunState, Visit

#: Tools a plain call must not be: they count as work, outputs, splits or searches.
SPECIAL_TOOLS = frozenset({SUBMIT_OUTPUT_TOOL, FAN_OUT_TOOL, "web_search"})
#: Tool calls and iterations this far from every threshold that reads them are no longer
#: keyed exactly, only how far the iterations are ahead (`StageFacts.counting`).
FAR = 8


@record
class StageFacts:
    """What one visit of a stage can do, fixed when the visit begins."""

    plain_tool: str
    #: An offered tool whose successful call counts as a modification, if a gate wants one.
    modifying_tool: str | None
    #: The stuck thresholds watched during this visit (the first stuck edge within budget).
    stuck: "StuckThresholds | None"
    #: Regions a gate of the stage names, and its required regions when it can write them.
    regions: tuple[str, ...]
    #: A normal end reads regions: the stage has required regions it can write.
    holds_regions: bool
    #: Normal edges whose gate reads a region.
    gated_targets: frozenset[str]
    #: Regions some gate wants free of open items.
    checklists: frozenset[str]
    #: Regions some gate wants revised since the stage began.
    revised: frozenset[str]
    #: Each region as it was when the visit began (what "unchanged" restores).
    at_entry: dict[str, "RegionSnapshot"]
    #: The largest gate block budget of the stage (blocks beyond it are all alike).
    gate_budget: int
    tracks_modifications: bool
    #: Tool calls are counted exactly: a watched tool-call threshold the cap does not pre-empt.
    counts_tool_calls: bool
    #: The fewest iterations at which READY interrupts a visit (its cap, when it binds, or a
    #: stuck threshold on iterations); None when nothing does.
    iteration_limit: int | None = None

    def counting(self, visit: "Visit") -> bool:
        """Whether this visit's tool calls and iterations are keyed exactly. They are where a
        watched tool-call threshold is armed and it, or the iteration limit, is within FAR
        steps. Farther from both, only their difference decides which one plain work reaches
        first (and at which iteration): the key keeps the difference (`visit.visit_key`), and
        plain work is padded, not counted up to."""
        if not self.counts_tool_calls or visit.stuck_fired:
            return False
        if visit.tool_calls == 0 or self.stuck is None or not self.stuck.tool_calls:
            return True
        if self.stuck.tool_calls - visit.tool_calls <= FAR:
            return True
        return self.iteration_limit is not None and self.iteration_limit - visit.iterations <= FAR

    def iterations_ahead(self, visit: "Visit") -> int:
        """Where tool calls are not counted exactly, what is left of them: how far iterations
        are ahead of tool calls. Plain work (one call a turn) reaches the tool-call threshold
        first while that is below the iteration limit minus the threshold, and the iteration
        limit first (at that limit, whatever the difference) from there on."""
        ahead = visit.iterations - visit.tool_calls
        if self.iteration_limit is None or self.stuck is None or not self.stuck.tool_calls:
            return ahead
        return min(ahead, max(self.iteration_limit - self.stuck.tool_calls, 0))

    @classmethod
    def of(cls, ir: "Blueprint", stage: "Stage", state: "RunState") -> "StageFacts":
        modifying = modifying_tools(stage)
        gates = [e.gate for e in stage.edges() if e.is_normal and e.gate is not None]
        wants_modifications = any(g.require_modifications for g in gates)
        modifying_tool = next(
            (t for t in stage.available_tools if canonical_tool(t) in modifying and t not in SPECIAL_TOOLS), None
        )
        plain = next((t for t in stage.available_tools if canonical_tool(t) not in modifying | SPECIAL_TOOLS), None)
        if plain is None:
            plain = next(n for n in ("read_file", "list_dir", "analysis_probe") if n not in modifying)
        edge = None if state.visit.stuck_fired else stuck_edge(ir, stage, state.visits)
        stuck = edge.stuck if edge is not None else None
        regions: dict[str, None] = {}
        for gate in gates:
            regions.update((name, None) for _, name in gate.regions_named)
        required = required_regions(ir, stage, caller_inputs=False) if can_write_context(stage) else ()
        regions.update((name, None) for name in required)
        cap = stage.iteration_cap(state.default_max_iterations)
        tool_limit = stuck.tool_calls if stuck is not None else None
        limits = [stuck.iterations] if stuck is not None and stuck.iterations and stuck.iterations > 0 else []
        if cap > 0:
            limits.append(cap)
        return cls(
            plain_tool=plain,
            modifying_tool=modifying_tool if wants_modifications else None,
            stuck=stuck,
            regions=tuple(regions),
            holds_regions=bool(required),
            gated_targets=frozenset(
                e.target for e in stage.normal_edges if e.gate is not None and e.gate.regions_named
            ),
            checklists=frozenset(g.require_no_open_items for g in gates if g.require_no_open_items),
            revised=frozenset(g.require_region_updated for g in gates if g.require_region_updated),
            at_entry={name: state.region(name) for name in regions},
            gate_budget=max((max(g.max_attempts, 0) for g in gates), default=0),
            tracks_modifications=wants_modifications and modifying_tool is not None,
            counts_tool_calls=bool(tool_limit and (cap <= 0 or tool_limit <= cap)),
            iteration_limit=min(limits, default=None),
        )
