"""What the runner asks of a blueprint on every event, answered once per `Blueprint` object.

The IR is frozen, so everything a step reads from it that does not depend on the run — a
stage by name, its edges per condition with their targets' revisit budgets, the regions it
sees, its modifying tools, its nudge text, its models — is worked out the first time a stage
is looked at and kept for as long as the blueprint lives. The answers are those of `policy`
(which defines the rules); this module only remembers them.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from functools import partial

from ..ir.model import Blueprint, Edge, Stage
from .actions import OfferedTool, RouteOption, StageSpec
from .policy import (
    advertises_modifying,
    canonical_tool,
    modifying_tools,
    output_owed_anywhere,
    required_regions,
    resolved_nudge,
    stage_model,
    visible_regions,
)
from .routing import routing_prompt
from .stuck import Limits
from .stuck import limits as limits_of
from .texts import interpolate, missing_final_output

#: An edge with what deciding whether it may be taken needs: (edge, target name, the target's
#: `max_revisits`, None = unlimited). Edges whose target names no stage are left out: their
#: target is never within budget.
BudgetedEdge = tuple[Edge, str, "int | None"]


class StageTable:
    """One stage's fixed answers (see the module docstring)."""

    __slots__ = (
        "_ir",
        "_routes",
        "_spec",
        "advertises_modifying",
        "by_condition",
        "cap",
        "edge_to",
        "has_normal",
        "hints",
        "models",
        "modifying",
        "normal",
        "nudge",
        "nudge_text",
        "offered",
        "required",
        "stage",
        "stuck",
        "takes_default",
        "tools",
        "visible",
    )

    def __init__(self, ir: Blueprint, stage: Stage, limits: Mapping[str, int | None]) -> None:
        self.stage = stage
        #: The stage's own iteration cap (0: none; a fan-out stage is never capped), and
        #: whether the run's default cap applies instead (`cap_for`).
        self.cap = stage.iteration_cap(0)
        self.takes_default = stage.mode != "fan_out" and self.cap == 0
        grouped: dict[str, list[BudgetedEdge]] = {}
        for edge in stage.edges():
            if edge.target in limits:
                grouped.setdefault(edge.condition, []).append((edge, edge.target, limits[edge.target]))
        self.by_condition: dict[str, tuple[BudgetedEdge, ...]] = {c: tuple(e) for c, e in grouped.items()}
        #: The stuck edges as (target, its budget, `stuck.limits` of the edge, None when the edge
        #: has no threshold set).
        self.stuck = tuple(
            (target, limit, limits_of(edge.stuck) if edge.stuck is not None and edge.stuck.armed else None)
            for edge, target, limit in self.by_condition.get("stuck", ())
        )
        transitions = stage.transitions or ()
        #: Normal edges (always / llm_choice) in declaration order, and whether any exists at
        #: all (a normal edge to a missing stage still makes a stage a dead end, not terminal).
        self.normal = tuple(
            (edge, edge.target, limits[edge.target]) for edge in transitions if edge.is_normal and edge.target in limits
        )
        self.has_normal = any(edge.is_normal for edge in transitions)
        #: The tools offered, as the model is offered them: by canonical name (`bash` is
        #: `shell`), each once, in declaration order.
        self.tools = tuple(dict.fromkeys(canonical_tool(name) for name in stage.available_tools))
        self.offered = frozenset(self.tools)
        self.modifying = modifying_tools(stage)
        self.advertises_modifying = advertises_modifying(stage, self.modifying)
        self.visible = visible_regions(ir, stage)
        self.required = required_regions(ir, stage)
        self.nudge = resolved_nudge(ir, stage, None)
        #: The nudge text with its placeholders filled (for runs without a host nudge layer).
        self.nudge_text = interpolate(self.nudge.text, stage=stage.name, regions=self.required)
        self.models = tuple(stage_model(stage, i) for i in range(len(stage.model.entries))) or (stage_model(stage, 0),)
        self.hints = {e.target: e.hint for e in stage.edges()}
        #: Each edge by its target (a transitions table names each target once).
        self.edge_to: dict[str, Edge] = {}
        for edge in stage.edges():
            self.edge_to.setdefault(edge.target, edge)
        self._routes: dict[tuple[str, ...], tuple[tuple[RouteOption, ...], str]] = {}
        #: The blueprint, weakly (the tables must not keep it alive), for `spec`.
        self._ir = weakref.ref(ir)
        self._spec: StageSpec | None = None

    @property
    def spec(self) -> StageSpec:
        """`StageSpec` of the stage, built the first time an inference request asks for it."""
        spec = self._spec
        if spec is None:
            ir = self._ir()
            assert ir is not None  # a step holds the blueprint while it asks
            spec = self._spec = stage_spec(ir, self.stage, self.tools)
        return spec

    def cap_for(self, default: int) -> int:
        """`Stage.iteration_cap`: the cap READY enforces in a run whose default cap is `default`."""
        return default if self.takes_default else self.cap

    def model(self, index: int) -> tuple[str, str]:
        """`policy.stage_model`: (provider, model) of the stage's model number `index`."""
        models = self.models
        return models[min(max(index, 0), len(models) - 1)]

    def routing(self, offer: tuple[str, ...]) -> tuple[tuple[RouteOption, ...], str]:
        """The options and prompt of a routing request offering `offer` (few offers recur)."""
        found = self._routes.get(offer)
        if found is None:
            if len(self._routes) >= 64:  # a stage with many budgeted edges: keep it bounded
                self._routes.clear()
            options = tuple(RouteOption(target, self.hints.get(target)) for target in offer)
            found = self._routes[offer] = (options, routing_prompt(self.stage, options, self.stage.allow_complete))
        return found

    def stuck_limits(self, visits: Mapping[str, int]) -> Limits | None:
        """The limits of `stuck.stuck_edge` (the first stuck edge within budget, if armed)."""
        for target, limit, thresholds in self.stuck:
            if limit is None or visits.get(target, 0) <= limit:
                return thresholds
        return None

    def first_edge(self, visits: Mapping[str, int], condition: str) -> Edge | None:
        """`policy.first_edge`: the first edge of `condition` whose target is within budget."""
        for edge, target, limit in self.by_condition.get(condition, ()):
            if limit is None or visits.get(target, 0) <= limit:
                return edge
        return None


def stage_spec(ir: Blueprint, stage: Stage, tools: tuple[str, ...]) -> StageSpec:
    """What performing `stage`'s inferences needs (`actions.StageSpec`)."""
    from .tools import inline, resolve_permission  # `tools` reads the machine, which reads these tables

    layout = ir.layout_for(stage)
    names = layout.names
    pinned = next((r.name for r in layout.regions if r.kind == "pinned"), None)
    routing = stage.tool_routing
    required = {canonical_tool(name) for name in stage.required_tools}
    offered = []
    for name in tools:
        region: str | None = None
        cap: int | None = None
        persist = True
        if routing is not None:
            region, cap, persist = routing.default_region, routing.max_result_tokens, routing.persist
            for override in routing.overrides:
                if canonical_tool(override.tool) == name:
                    region = override.region or region
                    cap = override.max_result_tokens if override.max_result_tokens is not None else cap
            for tool, limit in routing.max_result_tokens_per_tool:
                if canonical_tool(tool) == name:
                    cap = limit
        if not persist and "scratch" in names:  # results kept for one turn go to the scratch region
            region = "scratch"
        policy = "allow" if inline(name) else resolve_permission(ir, stage, name)[0]
        offered.append(OfferedTool(name, policy, name in required, region or "conversation", cap, persist))
    model = stage.model
    return StageSpec(
        stage=stage.name,
        instructions=stage.system_prompt,
        instructions_region="stage_instructions" if "stage_instructions" in names else pinned or "conversation",
        output=stage.output if stage.output is not None else ir.output,
        regions=layout.regions,
        tools=tuple(offered),
        models=model.entries,
        parameters=dict(model.parameters),
        request_timeout_secs=model.request_timeout_secs,
        batch_tool_hint=stage.batch_tool_hint if stage.batch_tool_hint is not None else ir.batch_tool_hint,
        shell_hint=stage.shell_hint if stage.shell_hint is not None else ir.shell_hint,
    )


class Tables:
    """The stage tables of one blueprint and its run-wide facts.

    Holds no strong reference to the blueprint itself, so the cache below cannot keep it alive.
    """

    __slots__ = ("_digest", "limits", "missing_output", "owed", "stages")

    def __init__(self, ir: Blueprint) -> None:
        #: Stage name → `max_revisits` (None: unlimited); a name absent here is no stage.
        self.limits: dict[str, int | None] = {}
        found: dict[str, Stage] = {}
        for stage in ir.stages:
            resolved = ir.stage(stage.name)  # a repeated name resolves as the IR resolves it
            if resolved is not None:
                self.limits[stage.name] = resolved.max_revisits
                found[stage.name] = resolved
        #: Stages that owe a final output (`output_owed_anywhere`).
        self.owed = output_owed_anywhere(ir)
        #: Why a run that ends without its owed final output fails (None: nothing is owed),
        #: written once: it names every owing stage, and each such run's end reads it.
        self.missing_output = missing_final_output(self.owed) if self.owed else None
        self.stages: dict[str, StageTable] = {name: StageTable(ir, stage, self.limits) for name, stage in found.items()}
        self._digest: str | None = None

    def digest(self, ir: Blueprint) -> str:
        """`compiler.digest(ir)` (what a run state pins), worked out once per blueprint."""
        found = self._digest
        if found is None:
            from ..ir.digest import digest  # the IR's canonical form: standard library only

            found = self._digest = digest(ir)
        return found


def tables(ir: Blueprint) -> Tables:
    """The tables of `ir`, built on first use and dropped when the blueprint is."""
    key = id(ir)
    entry = _TABLES.get(key)
    if entry is not None and entry[0]() is ir:
        return entry[1]
    built = Tables(ir)
    _TABLES[key] = (weakref.ref(ir, partial(_forget, key)), built)
    return built


def _forget(key: int, _gone: object) -> None:
    _TABLES.pop(key, None)


#: id(blueprint) → (a weak reference to it, its tables). The reference's callback removes the
#: entry when the blueprint goes, before its id can be reused.
_TABLES: dict[int, tuple["weakref.ref[Blueprint]", Tables]] = {}
