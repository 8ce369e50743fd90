"""A stage is over: the end-of-stage holds, then choosing and taking the next edge.

`end_stage` runs the holds in the reference's order — children still running, required
regions still empty, a final output still owed, a fan-out never started, interaction points
not yet answered — and each may send the stage back to READY (progress kept) instead of
letting it go; once the interaction points are answered the holds run again, as in Leviath.
`resolve` then picks what comes next from the outcome (an error, the iteration cap, a stuck
interrupt, or none), and `take_edge` checks the edge's gate, applies its transform and
enters the target.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ir.model import Edge, InteractionPoint
from . import points, texts
from .actions import AskRoute, AwaitChildren, AwaitWorkers, Complete, Fail, TakeEdge, build
from .gates import BLOCK, FORCED, decide
from .policy import (
    DEFAULT_FAN_OUT_ATTEMPTS,
    DEFAULT_REQUIRED_REENTRIES,
    OUTPUT_REENTRY_CAP,
    can_write_context,
    required_regions,
)
from .state import EMPTY_REGION, Outcome, flags_report
from .transforms import transform_effect

if TYPE_CHECKING:
    from .run import Run


# --- the holds -----------------------------------------------------------------------------------


def end_stage(run: "Run", outcome: Outcome | None) -> None:
    stage = run.stage
    if stage.requires_children and run.state.children:
        run.set(status="waiting", phase="children", outcome=outcome)
        run.emit(AwaitChildren(stage.name, run.state.children))
        return
    after_children(run, outcome)


def after_children(run: "Run", outcome: Outcome | None) -> None:
    _prune_abandoned(run)
    if outcome is None and _hold_required_regions(run):
        return
    if _hold_required_output(run, outcome) or _hold_fan_out(run, outcome):
        return
    if points.due(run):
        if outcome is not None and outcome.kind == "error":
            # As in Leviath: the errored run is sent to its interaction point, which is never
            # opened for a run that is no longer active, so it ends in error there; the stage's
            # error edge is never consulted.
            fail(run, outcome.detail)
            return
        run.set(outcome=outcome)
        present(run)
        return
    resolve(run, outcome)


def _prune_abandoned(run: "Run") -> None:
    abandoned = run.state.flags.required_regions_abandoned
    still = tuple(name for name in abandoned if run.state.region(name).empty)
    if still != abandoned:
        run.flag(required_regions_abandoned=still)


def _hold_required_regions(run: "Run") -> bool:
    stage = run.stage
    if not can_write_context(stage):
        return False
    missing = [r for r in required_regions(run.ir, stage, caller_inputs=False) if run.state.region(r).empty]
    if not missing:
        return False
    cap = DEFAULT_REQUIRED_REENTRIES if stage.max_revisits is None else max(stage.max_revisits, 0)
    rounds = run.state.visit.required_rounds
    if rounds >= cap:
        abandoned = tuple(dict.fromkeys(run.state.flags.required_regions_abandoned + tuple(missing)))
        run.flag(required_regions_abandoned=abandoned)
        return False
    layout = run.ir.layout_for(stage)
    for name in missing:
        region = layout.get(name)
        run.system(texts.required_region(name, region.required_message if region else None), "required_region")
    run.visit(required_rounds=rounds + 1)
    run.ready()
    return True


def _hold_required_output(run: "Run", outcome: Outcome | None) -> bool:
    stage = run.stage
    if not stage.require_output or run.state.final_output == stage.name:
        return False
    rounds = run.state.visit.output_rounds
    if outcome is not None or rounds >= OUTPUT_REENTRY_CAP:
        run.flag(output_forced=run.state.flags.output_forced + 1)
        return False
    run.system(texts.required_output(stage.name), "required_output")
    run.visit(output_rounds=rounds + 1)
    run.ready()
    return True


def _hold_fan_out(run: "Run", outcome: Outcome | None) -> bool:
    stage = run.stage
    if stage.mode != "fan_out" or run.state.visit.fanned_out:
        return False
    degraded = run.state.flags.splits_degraded + 1
    if outcome is not None:
        run.flag(splits_degraded=degraded)
        return False
    configured = stage.fan_out.max_attempts if stage.fan_out is not None else None
    cap = DEFAULT_FAN_OUT_ATTEMPTS if configured is None else max(configured, 0)
    rounds = run.state.visit.fan_out_rounds
    if rounds >= cap:
        run.note("error_report", texts.split_note(stage.name), "split")
        run.flag(splits_degraded=degraded)
        return False
    run.system(texts.fan_out_missing(stage.name), "fan_out")
    run.visit(fan_out_rounds=rounds + 1)
    run.ready()
    return True


# --- resolution ----------------------------------------------------------------------------------


def resolve(run: "Run", outcome: Outcome | None) -> None:
    table, visits = run.table, run.state.visits
    stage = table.stage
    if outcome is not None and outcome.kind == "error":
        edge = table.first_edge(visits, "error") or table.first_edge(visits, "dead_end")
        if edge is None:
            fail(run, outcome.detail)
            return
        run.note("error_report", texts.error_note(stage.name, outcome.detail), "error")
        take_edge(run, edge, gated=False)
        return
    if outcome is not None and outcome.kind == "max_iterations":
        run.note("error_report", texts.cap_note(stage.name, table.cap_for(run.state.default_max_iterations)), "cap")
        edge = table.first_edge(visits, "max_iterations")
        if edge is not None:
            take_edge(run, edge, gated=False)
        else:
            _normal(run, gated=False, forced=("iteration_cap",))
        return
    if outcome is not None and outcome.kind == "stuck":
        edge = table.first_edge(visits, "stuck")
        if edge is not None:
            take_edge(run, edge, gated=False)
        else:  # the escape hatch ran out since detection: carry on, never stuck again this visit
            run.set(outcome=None)
            run.ready()
        return
    _normal(run, gated=True)


def _normal(run: "Run", *, gated: bool, forced: tuple[str, ...] = ()) -> None:
    """Fall-through, terminal, dead end, the single edge, or a routing call. `forced`: why
    nobody chose what follows (the stage was cut off by its iteration cap)."""
    ir, stage = run.ir, run.stage
    if stage.transitions is None:
        following = ir.next_stage(stage)
        if following is None:
            _terminal(run, forced)
        else:
            move(run, following.name, condition="fall_through", transform="direct", forced=forced)
        return
    visits = run.state.visits
    normal = run.table.normal
    choosable = [edge for edge, target, limit in normal if limit is None or visits.get(target, 0) <= limit]
    if not choosable:
        if run.table.has_normal:
            _dead_end(run)
        else:
            _terminal(run, forced)
        return
    if len(choosable) == 1 and not stage.allow_complete:
        if len(normal) > 1:  # the others' targets spent their revisits: nobody chose this one
            forced += ("revisits_spent",)
            run.flag(revisits_forced=run.state.flags.revisits_forced + 1)
        take_edge(run, choosable[0], gated=gated, forced=forced)
        return
    run.set(phase="route", offer=tuple(e.target for e in choosable), requests=run.state.requests + 1, outcome=None)
    run.emit(route_action(run))


def _dead_end(run: "Run") -> None:
    table, visits = run.table, run.state.visits
    message = texts.dead_end(table.stage.name)
    edge = table.first_edge(visits, "dead_end") or table.first_edge(visits, "error")
    if edge is None:
        fail(run, message)
        return
    run.note("error_report", texts.error_note(table.stage.name, message), "error")
    take_edge(run, edge, gated=False, forced=("dead_end",))


def _terminal(run: "Run", forced: tuple[str, ...] = ()) -> None:
    missing = run.tables.missing_output
    if missing is not None and run.state.final_output is None:
        fail(run, missing)
    else:
        complete(run, "terminal", forced)


# --- interaction points: the stage is held until each is answered --------------------------------


def present(run: "Run") -> None:
    point = points.current_point(run)
    if point is None:
        proceed(run)
        return
    if run.state.unattended and point.unattended == "auto_approve":
        approve(run, point, "")
        return
    run.set(phase="interact", status="waiting", requests=run.state.requests + 1)
    run.emit(points.interaction_action(run))


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


def proceed(run: "Run") -> None:
    """Every point is satisfied: the stage ends again with the ending it had, so the holds
    run once more before it resolves (as in Leviath)."""
    run.visit(point_cursor=len(run.stage.interaction_points))
    outcome = run.state.outcome
    run.set(outcome=None, body=None)
    end_stage(run, outcome)


def workers_action(run: "Run") -> AwaitWorkers:
    config = run.stage.fan_out
    return AwaitWorkers(run.state.stage, results_region=config.results_region if config is not None else None)


def route_action(run: "Run") -> AskRoute:
    table = run.table
    options, prompt = table.routing(run.state.offer)
    provider, model = table.model(run.state.visit.model_index)
    state = run.state
    return build(
        AskRoute,
        table.stage.name,
        state.requests,
        options,
        prompt,
        table.stage.allow_complete,
        state.inject,
        provider,
        model,
    )


def routed(run: "Run", target: str | None, *, fallback: bool = False) -> None:
    """The routing answer was read: DONE completes (no owed-output check), a target is taken.
    `fallback`: the reply named nothing offered, so the fallback decided."""
    forced: tuple[str, ...] = ()
    if fallback:
        forced = ("routing_fallback",)
        run.flag(routing_fallbacks=run.state.flags.routing_fallbacks + 1)
    if target is None:
        complete(run, "done", forced)
        return
    take_edge(run, run.table.edge_to[target], gated=True, forced=forced)


# --- taking an edge and ending the run ---------------------------------------------------------------


def take_edge(run: "Run", edge: Edge, *, gated: bool, forced: tuple[str, ...] = ()) -> None:
    verdict = None
    if gated and edge.gate is not None:
        decision = decide(run.ir, run.stage, run.state, edge.gate)
        if decision.verdict == BLOCK:
            run.system(decision.message or "", "gate")
            run.visit(gate_reentries=run.state.visit.gate_reentries + 1)
            run.set(outcome=None)
            run.ready()
            return
        verdict = "passed"
        if decision.verdict == FORCED:
            verdict = "forced"
            forced = ("gate_attempts", *forced)
            run.flag(gates_forced=run.state.flags.gates_forced + 1)
    clear, summarize = transform_effect(run.ir, run.stage, run.state, edge)
    move(
        run,
        edge.target,
        condition=edge.condition,
        transform=edge.transform,
        clear=clear,
        summarize=summarize,
        gate=verdict,
        forced=forced,
    )


def move(
    run: "Run",
    target: str,
    *,
    condition: str,
    transform: str,
    clear: tuple[str, ...] = (),
    summarize: tuple[str, ...] = (),
    gate: str | None = None,
    carry: tuple[str, ...] = (),
    forced: tuple[str, ...] = (),
) -> None:
    """Notes, then the transform, then entry (keeping the `carry` counters); the new stage
    starts at READY."""
    source = run.state.stage
    notes = run.take_injections()
    cleared = {name: EMPTY_REGION for name in clear if name in run.state.regions}
    if cleared:
        run.set(regions={**run.state.regions, **cleared})
    run.enter(target, carry)
    run.set(status="active", reason=None, compact=summarize)
    run.emit(
        build(
            TakeEdge,
            source,
            target,
            condition,
            transform,
            run.state.visits[target],
            clear,
            summarize,
            gate,
            notes,
            forced,
        )
    )
    run.ready()


def fail_stage(run: "Run", message: str) -> None:
    """An error inside the stage: the stage's own error edge may still catch it."""
    run.set(status="error", reason=message)
    end_stage(run, Outcome("error", message))


def complete(run: "Run", via: str, forced: tuple[str, ...] = ()) -> None:
    run.set(status="complete", phase="done", done_via=via, reason=None, offer=(), outcome=None)
    run.emit(Complete(run.state.stage, via, flags_report(run.state), run.take_injections(), forced))


def fail(run: "Run", reason: str, status: str = "error") -> None:
    run.set(status=status, phase="done", reason=reason, offer=(), outcome=None)
    run.emit(Fail(run.state.stage, status, reason, flags_report(run.state), run.take_injections()))
