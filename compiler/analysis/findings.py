"""What exhaustive exploration reveals, as findings with replayable counterexample traces.

Each finding names where it is written (a key path), the stage it concerns, and — for the
"a run can …" findings — the shortest run that does it, replayed through the runner and
checked (`Trace.verified`). A finding whose run could not be reproduced is not reported.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from compiler.records import record

from ..graph import StageGraph, run_edge
from ..rules.common import edge_path, quoted, stage_path
from ..runtime.words import words
from . import traces
from .rules import (
    ANALYSIS_INCOMPLETE,
    EDGE_NEVER_TAKEN,
    OUTPUT_CAN_BE_SKIPPED,
    RUN_CAN_LOOP_FOREVER,
    RUN_CAN_STRAND,
    STAGE_NEVER_ENTERED,
)
from .traces import Trace

if TYPE_CHECKING:
    from ..diagnostics import KeyPath
    from ..ir.model import Edge, Stage
    from ..rulebook.registry import Rule
    from .runs import RunGraph

#: Edge conditions whose edges are reported when no run takes them. A dead_end edge is a
#: safety net that is rightly never needed in a blueprint whose targets never run out.
WATCHED_CONDITIONS = ("always", "llm_choice", "error", "max_iterations", "stuck")
#: Exit conditions of a stage that ended on its own (not by an error or an interrupt).
NORMAL_ENDS = frozenset({"always", "llm_choice", "fall_through", "merge"})


@record
class Finding:
    rule: "Rule"
    message: str
    #: Where the finding is written in the blueprint.
    path: "KeyPath"
    stage: str | None
    #: The rule's own fix hint unless given.
    fix: str | None = None
    trace: Trace | None = None
    #: Other places that explain it: (message, key path).
    related: tuple[tuple[str, "KeyPath"], ...] = ()

    def __post_init__(self) -> None:
        if self.fix is None:
            object.__setattr__(self, "fix", self.rule.fix)

    @property
    def code(self) -> str:
        return self.rule.code


def find_all(graph: "RunGraph", cycle_sets: list[list[int]], *, complete: bool = True) -> list[Finding]:
    """Every finding. When the exploration was cut short, only runs actually found (and
    replayed) are reported — nothing that claims "no run …"."""
    out: list[Finding] = []
    out.extend(_strands(graph))
    out.extend(_loops(graph, cycle_sets))
    out.extend(_skipped_outputs(graph))
    from .dataflow import find as data_flow  # imports this module: loaded here, once

    out.extend(data_flow(graph))
    if not complete:
        out.append(
            Finding(
                ANALYSIS_INCOMPLETE,
                f"the analysis stopped at its limit of {graph.limit:,} run states, so it cannot say what no run "
                "does: stages never entered, edges never taken and the cost ceiling are not reported",
                (),
                None,
            )
        )
        return out
    never = list(_never_entered(graph))
    out.extend(never)
    out.extend(_edges_never_taken(graph, {f.stage for f in never}))
    return out


# --- paths through the run graph ---------------------------------------------------------------------


#: How a run state was reached: (parent node, visit key, exit number).
Hop = tuple[int, tuple, int]


def _path_to(
    graph: "RunGraph", node: int, parents: "Mapping[int, Hop | None] | Sequence[Hop | None] | None" = None
) -> list[Hop]:
    """The hops from the start to `node` (the first way it was found: fewest visits), along
    `parents` (node → its hop, None for the start) when a search keeps its own tree."""
    parents = graph.parents if parents is None else parents
    hops: list[Hop] = []
    hop = parents[node]
    while hop is not None:
        hops.append(hop)
        hop = parents[hop[0]]
    return hops[::-1]


def _trace(graph: "RunGraph", hops, **kwargs) -> Trace | None:
    trace = traces.build(graph, hops, **kwargs)
    return trace if trace is not None and trace.verified else None


def trace_path(step: traces.TraceStep) -> "KeyPath":
    """Where a trace step is written: the transition taken, else the stage."""
    if step.exit[0] == "edge":
        if step.exit[2] == "merge":
            return ("stages", step.stage, "merge_stage")
        if step.exit[2] != "fall_through":
            return edge_path(step.stage, step.exit[1])
    return stage_path(step.stage)


# --- a run can strand ------------------------------------------------------------------------------------


def _first_nodes(graph: "RunGraph", wanted) -> Iterator[tuple[int, tuple, int, object]]:
    """(node, visit key, exit number, exit) for the exits `wanted` accepts, each from the first
    run state (fewest visits) whose visit has it."""
    keys = {key for key, result in graph.visits.items() if any(wanted(e) for e in result.exits)}
    if not keys:
        return
    first: dict[tuple, int] = {}
    for node, key in enumerate(graph.visit_keys):
        if key in keys and key not in first:
            first[key] = node
    for key, node in sorted(first.items(), key=lambda item: item[1]):
        for number, exit in enumerate(graph.visits[key].exits):
            if wanted(exit):
                yield node, key, number, exit


def _strands(graph: "RunGraph") -> Iterator[Finding]:
    seen: set[str] = set()
    for node, key, number, _ in _first_nodes(graph, lambda e: e.key[:2] == ("fail", "dead_end")):
        stage = key[0]
        if stage in seen:
            continue
        trace = _trace(graph, _path_to(graph, node) + [(node, key, number)])
        if trace is None:
            continue
        seen.add(stage)
        ir_stage = graph.ir.stage(stage)
        spent = [e.target for e in ir_stage.normal_edges] if ir_stage is not None else []
        yield Finding(
            RUN_CAN_STRAND,
            f"a run can strand in stage '{stage}': once {quoted(spent)} "
            f"{'has' if len(spent) == 1 else 'have'} used up {'its' if len(spent) == 1 else 'their'} "
            f"max_revisits, the stage ends with no normal edge left and no dead_end or error edge to take, "
            f"so the run fails ({len(trace.steps)} stage visit{'s' if len(trace.steps) != 1 else ''}, "
            "traced below)",
            stage_path(stage),
            stage,
            trace=trace,
        )


# --- a run can loop for ever -------------------------------------------------------------------------------


def _loops(graph: "RunGraph", cycle_sets: list[list[int]]) -> Iterator[Finding]:
    reported: set[frozenset[str]] = set()
    for component in sorted(cycle_sets, key=lambda c: min(c)):
        members = set(component)
        start = min(component)  # discovered first: the shortest way in
        cycle = _cycle_from(graph, start, members)
        if cycle is None:
            continue
        stages = frozenset(graph.nodes[n][0] for n in members)
        if stages in reported:
            continue
        prefix = _path_to(graph, start)
        trace = _trace(graph, prefix + cycle, loop_from=len(prefix))
        if trace is None:
            continue
        reported.add(stages)
        loop = trace.steps[len(prefix) :]
        names = " → ".join(f"'{s.stage}'" for s in loop) + f" → '{loop[0].stage}'"
        conditions = sorted({s.exit[2] for s in loop if s.exit[0] == "edge"})
        yield Finding(
            RUN_CAN_LOOP_FOREVER,
            f"a run can loop for ever: {names} brings it back to the same state (every revisit budget "
            f"it reads answers the same), so it can go round without end; it moves by "
            f"{', '.join(conditions)} edges",
            stage_path(loop[0].stage),
            loop[0].stage,
            trace=trace,
        )


def _cycle_from(graph: "RunGraph", start: int, members: set[int]) -> list[tuple[int, tuple, int]] | None:
    """The shortest hops from `start` back to itself inside `members` (breadth first)."""
    previous: dict[int, tuple[int, tuple, int]] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            key = graph.visit_keys[node]
            for number, target in graph.out[node]:
                if type(target) is not int or target not in members:
                    continue
                if target == start:
                    hops = [(node, key, number)]
                    while node != start:
                        hops.append(previous[node])
                        node = previous[node][0]
                    return hops[::-1]
                if target not in previous:
                    previous[target] = (node, key, number)
                    following.append(target)
        frontier = following
    return None


# --- stages no run enters ------------------------------------------------------------------------------------


def _never_entered(graph: "RunGraph") -> Iterator[Finding]:
    ir = graph.ir
    if graph.start_state.terminal:
        return
    static = StageGraph.from_blueprint(ir)
    # Runs start at the first declared stage; others: unreachable from it, or worker runs only.
    movable = set(static.reachable(ir.start_stage, where=run_edge))
    entered = {node[0] for node in graph.nodes}
    for stage in ir.stages:
        if stage.name in entered or stage.name not in movable:
            continue
        ways = [edge for edge in static.in_edges(stage.name, run_edge) if edge.source != stage.name]
        related = [(f"{edge.describe()} is never taken", edge.path) for edge in ways]
        why = "given the edges' conditions and the revisit budgets, none of the ways in is ever taken"
        fix = None
        if any(edge.edge is not None and _unroutable(edge.edge) for edge in ways):
            why += (
                "; no routing answer can name it (an answer is read as words of letters, digits and _ "
                "only, as Leviath reads it), so a routed edge reaches it only as the fallback"
            )
            fix = "rename the stage with letters, digits and underscores only"
        yield Finding(
            STAGE_NEVER_ENTERED,
            f"no run can enter stage '{stage.name}': the stage graph leads to it, but {why}",
            stage_path(stage.name),
            stage.name,
            fix=fix,
            related=tuple(related),
        )


# --- a run can skip the output stage -------------------------------------------------------------------------


def _skipped_outputs(graph: "RunGraph") -> Iterator[Finding]:
    ir = graph.ir
    outputs = [s.name for s in ir.stages if s.mode == "output"]
    if not outputs or not graph.nodes or graph.nodes[0][0] in outputs:
        return
    output_set = set(outputs)
    if not any(
        key[0] not in output_set and (e.kind == "complete" or e.key[1] == "no_output")
        for key, result in graph.visits.items()
        for e in result.exits
    ):
        return  # only output stages end runs
    # The search keeps its own tree: the run graph's first way to a run state may pass through
    # an output stage (whose visits need not change the state), and the trace must not.
    parents: dict[int, tuple[int, tuple, int] | None] = {0: None}
    frontier = [0]
    reported: set[tuple[str, str]] = set()
    while frontier:
        following = []
        for node in frontier:
            key = graph.visit_keys[node]
            result = graph.visits.get(key)
            if result is None:
                continue
            for number, target in graph.out[node]:
                exit = result.exits[number]
                if type(target) is int:
                    if graph.nodes[target][0] not in output_set and target not in parents:
                        parents[target] = (node, key, number)
                        following.append(target)
                    continue
                how = exit.key[1]
                if exit.kind == "complete" or how == "no_output":
                    finding = _skip_finding(graph, parents, node, key, number, exit, outputs, reported)
                    if finding is not None:
                        yield finding
        frontier = sorted(following)


def _skip_finding(graph, parents, node, key, number, exit, outputs, reported) -> Finding | None:
    stage = key[0]
    ending = (stage, exit.key[1])
    if ending in reported:
        return None
    trace = _trace(graph, _path_to(graph, node, parents) + [(node, key, number)])
    if trace is None:
        return None
    reported.add(ending)
    names = quoted(outputs)
    noun = "output stage" if len(outputs) == 1 else "output stages"
    path: KeyPath
    if exit.key[1] == "done":
        message = (
            f"a run can end with DONE in stage '{stage}' (allow_complete) without ever entering {noun} {names}, "
            "so it completes with no answer"
        )
        path, fix = ("stages", stage, "allow_complete"), "drop allow_complete here and route to the output stage"
    elif exit.kind == "complete":
        message = f"a run can complete at stage '{stage}' without ever entering {noun} {names}"
        path, fix = stage_path(stage), "route this stage to the output stage instead of ending the run"
    else:
        message = (
            f"a run can end at stage '{stage}' without ever entering {noun} {names}, and then fails: "
            "no final output was submitted"
        )
        path, fix = stage_path(stage), _fix_for_a_stranded_end(graph.ir.stage(stage))
    return Finding(OUTPUT_CAN_BE_SKIPPED, message, path, stage, fix=fix, trace=trace)


def _fix_for_a_stranded_end(stage: "Stage | None") -> str:
    """A fan-out stage that never fans out is let through to its own transitions, not to its
    merge stage: a normal edge to the merge stage keeps what the run gathered on the way."""
    merge = stage.fan_out.merge_stage if stage is not None and stage.mode == "fan_out" and stage.fan_out else None
    if stage is None or merge is None:
        return "give this stage an edge to the output stage"
    name = stage.name
    return (
        f"give fan-out stage '{name}' a normal edge to its merge_stage '{merge}' "
        f"([stages.{name}.transitions.{merge}]), so a split that never calls fan_out still reaches it"
    )


# --- edges no run takes -----------------------------------------------------------------------------------


def _edges_never_taken(graph: "RunGraph", never_entered: set[str | None]) -> Iterator[Finding]:
    ir = graph.ir
    taken: set[tuple[str, str, str]] = set()
    available: dict[str, set[str]] = {}
    visited: set[str] = set()
    ends_normally: set[str] = set()
    for key, result in graph.visits.items():  # every explored visit belongs to a reachable run state
        stage = key[0]
        visited.add(stage)
        for exit in result.exits:
            if exit.kind == "edge":
                taken.add((stage, exit.key[1], exit.key[2]))
            if exit.condition in NORMAL_ENDS or exit.kind == "complete" or exit.key[1] in ("dead_end", "no_output"):
                ends_normally.add(stage)
        stage_ir = ir.stage(stage)
        assert stage_ir is not None, "a visit explores a declared stage"
        targets = [t for t in dict.fromkeys(e.target for e in stage_ir.edges()) if ir.stage(t) is not None]
        available.setdefault(stage, set()).update(t for t, open_ in zip(targets, key[1]) if open_)
    default = graph.start_state.default_max_iterations
    for stage in ir.stages:
        if stage.name not in visited:
            continue
        for edge in stage.edges():
            if edge.condition not in WATCHED_CONDITIONS or edge.target in never_entered:
                continue
            if ir.stage(edge.target) is None or (stage.name, edge.target, edge.condition) in taken:
                continue
            yield Finding(
                EDGE_NEVER_TAKEN,
                f"no run takes transition '{stage.name}' → '{edge.target}' ({edge.condition}): "
                + _why_not_taken(stage, edge, available.get(stage.name, set()), stage.name in ends_normally, default),
                edge_path(stage.name, edge.target),
                stage.name,
                fix=_fix_not_taken(edge),
            )


def _why_not_taken(stage: "Stage", edge: "Edge", available: set[str], ends_normally: bool, default: int) -> str:
    if edge.target not in available:
        return f"'{edge.target}' has always used up its max_revisits whenever '{stage.name}' runs"
    rivals = stage.edges(edge.condition) if edge.condition != "always" and not edge.is_normal else ()
    if rivals and rivals[0] is not edge and edge.condition in ("error", "max_iterations", "stuck"):
        return (
            f"a {edge.condition} edge declared earlier always takes the {edge.condition} (the order blueprint check "
            "follows; Leviath's order changes from process to process, see ambiguous-edge-order)"
        )
    if edge.condition == "max_iterations":
        if not stage.iteration_cap(default):
            return f"'{stage.name}' has no iteration cap to hit"
        return f"'{stage.name}' is always interrupted or left before it hits its iteration cap"
    if edge.condition == "stuck":
        return f"its thresholds never trip before '{stage.name}' ends some other way"
    if edge.condition == "error":
        return "an error never reaches it"
    if not ends_normally:
        return (
            f"'{stage.name}' never ends normally: its iteration cap, a stuck interrupt or an error always ends it first"
        )
    if _unroutable(edge):
        return (
            f"no routing answer can name '{edge.target}': an answer is read as words of letters, digits "
            "and _ only (as Leviath reads it), so the edge is taken only as the fallback, the first one "
            "offered, and here another edge always comes first"
        )
    return f"whenever '{stage.name}' ends normally, the runner takes another way"


def _unroutable(edge: "Edge") -> bool:
    """A normal edge whose target's name is not one routing word, so no answer matches it."""
    return edge.is_normal and words(edge.target) != [edge.target]


def _fix_not_taken(edge: "Edge") -> str:
    if _unroutable(edge):
        return "rename the stage with letters, digits and underscores only"
    if edge.condition == "max_iterations":
        return "set a max_iterations the stage can reach, or drop the edge"
    if edge.condition == "stuck":
        return "lower the stuck thresholds below what ends the stage, or drop the edge"
    return "check the edge's target budget and the stage's other edges, or drop the edge"
