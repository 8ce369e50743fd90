"""The runner's API: `start`, `step` and `next_actions`. Sans-I/O: no clock, no threads, no files.

    state, actions = start(ir, now=0.0)
    state, actions = step(ir, state, InferenceFinished(text="done", now=3.5))

`step` never mutates its arguments and never raises on an odd event: an event of the wrong
kind for the current phase, or an answer that names another request or none, is ignored (no
action is emitted, and nothing changes but the clock, which a later `now` moves on). A state
pins the digest of its blueprint: stepping it with another blueprint raises
`BlueprintMismatch` (`rebind` moves a run to an edited blueprint on purpose), and a state
that names a stage the blueprint lacks raises `RunnerError`; an `ir` that is not a
`Blueprint` (an IR document still a dict, say) or a `state` that is not a `RunState` raises
`TypeError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar, assert_never

from ..ir.model import DEFAULT_MAX_ITERATIONS, Blueprint, NudgeConfig
from . import ending, interaction, points, replies, texts
from .actions import REQUESTS, Action, AwaitChildren, Complete, Fail
from .events import (
    Cancel,
    ChildFinished,
    ChildStarted,
    Dispatched,
    Event,
    InferenceFailed,
    InferenceFinished,
    InteractionAnswered,
    Paused,
    RegionChanged,
    Resumed,
    RoutingAnswer,
    Tick,
    WorkersFinished,
    WorkspaceLost,
    number,
    sanitize,
)
from .policy import MERGE_CARRIES, no_output_tools
from .routing import read_reply
from .run import Run, RunnerError, missing_stage
from .state import TERMINAL_STATUSES, Flags, RegionSnapshot, RunState, flags_report
from .tables import tables

#: Answers that wait while a run is paused, and are replayed on resume.
PARKED_EVENTS = (InferenceFinished, InferenceFailed, RoutingAnswer, InteractionAnswered, WorkersFinished)
#: Events that answer a request, and must name it.
ANSWERS = (InferenceFinished, InferenceFailed, RoutingAnswer, InteractionAnswered)


class BlueprintMismatch(RunnerError):
    """The state belongs to another blueprint (its pinned digest differs)."""


Regions = Mapping[str, RegionSnapshot] | Iterable[RegionChanged]


def start(
    ir: Blueprint,
    now: float = 0,
    *,
    regions: Regions | None = None,
    global_nudge: NudgeConfig | None = None,
    unattended: bool = False,
    default_max_iterations: int = DEFAULT_MAX_ITERATIONS,
    run_id: str = "run",
) -> tuple[RunState, tuple[Action, ...]]:
    """A new run in the first declared stage, asking for its first inference.

    As in Leviath, a run starts at the first declared stage whatever `entry_stage` says, and
    that first visit takes no revision baselines (a `require_region_updated` gate passes on
    it). `regions`: the context as the host seeded it. `global_nudge`: the host's own nudge
    layer, below the stage's and the agent's. `unattended`: approve `auto_approve`
    interaction points without asking. `default_max_iterations`: the cap of a stage whose
    `max_iterations` is unset or 0 (Leviath's daemon default, 50; 0 for none); it is kept in
    the state, so a resumed run keeps it. `run_id`: the host's name for the run, which every
    action id begins with (give each run its own). The state pins the blueprint's digest.
    """
    _check_types(ir)
    if type(default_max_iterations) is not int or default_max_iterations < 0:
        raise ValueError(f"default_max_iterations must be an integer of 0 or more, not {default_max_iterations!r}")
    if type(run_id) is not str or not run_id:
        raise TypeError(f"run_id must be a non-empty string, not {run_id!r}")
    clock = number(now)
    clock = 0 if clock is None else clock
    pinned = tables(ir).digest(ir)
    if not ir.stages:
        reason = "the blueprint has no stages"
        state = RunState(
            stage="", run_id=run_id, blueprint=pinned, status="error", phase="done", clock=clock, seq=1, reason=reason
        )
        return state, (Fail("", "error", reason, flags_report(state), id=state.action_id),)
    entry = ir.start_stage
    state = RunState(
        stage=entry,
        run_id=run_id,
        blueprint=pinned,
        clock=clock,
        visits={entry: 1},
        flags=Flags(no_output_tools=no_output_tools(ir)),
        regions=_snapshots(regions),
        unattended=bool(unattended),
        global_nudge=global_nudge if isinstance(global_nudge, NudgeConfig) else None,
        default_max_iterations=default_max_iterations,
    )
    run = Run(ir, state)
    run.ready()
    return run.state, tuple(run.actions)


def step(ir: Blueprint, state: RunState, event: Event) -> tuple[RunState, tuple[Action, ...]]:
    """Apply one event; return the new state and the actions it calls for, in order."""
    _check_types(ir, state)
    known = tables(ir)
    pinned = known.digest(ir)
    if state.blueprint != pinned and state.blueprint:
        _check_pinned(ir, state)  # raises, naming both digests
    clean = sanitize(event)
    if clean is None or state.status in TERMINAL_STATUSES:
        return state, ()
    run = Run(ir, state, known)
    _check_belongs(run)
    if not state.blueprint:  # a state written before digests were pinned: pinned from now on
        run.set(blueprint=pinned)
    if clean.now is not None and clean.now > state.clock:
        run.set(clock=clean.now)
    _dispatch(run, clean)
    return run.state, tuple(run.actions)


def next_actions(ir: Blueprint, state: RunState) -> tuple[Action, ...]:
    """What the run is waiting on now (the outstanding request or wait), or how it ended: the
    same action, with the same id, as when it was first emitted."""
    _check_types(ir, state)
    _check_pinned(ir, state)
    return tuple(_stamped(action, state) for action in _outstanding(ir, state))


def _outstanding(ir: Blueprint, state: RunState) -> tuple[Action, ...]:
    if state.status == "complete":
        return (Complete(state.stage, state.done_via or "terminal", flags_report(state)),)
    if state.terminal:
        return (Fail(state.stage, state.status, state.reason or state.status, flags_report(state)),)
    if state.status == "paused":
        return ()
    run = Run(ir, state)
    if state.phase in ("infer", "route", "interact"):
        _check_belongs(run)
    if state.phase == "infer":
        return (run.inference_action(),)
    if state.phase == "route":
        return (ending.route_action(run),)
    if state.phase == "interact":
        return (points.interaction_action(run),)
    if state.phase == "children":
        return (AwaitChildren(state.stage, state.children),)
    if state.phase == "workers":
        return (ending.workers_action(run),)
    return ()


_A = TypeVar("_A")


def _stamped(action: _A, state: RunState) -> _A:
    """The outstanding action as it was emitted: the latest id, and the dispatched mark."""
    values = action.__dict__  # built by `_outstanding` for this call: nobody else holds it
    values["id"] = state.action_id
    if type(action) in REQUESTS:
        values["dispatched"] = state.dispatched
    return action


def check_run(ir: Blueprint, state: RunState) -> None:
    """`TypeError`, `BlueprintMismatch` or `RunnerError` unless `state` is a run of `ir`."""
    _check_types(ir, state)
    _check_pinned(ir, state)
    _check_belongs(Run(ir, state))


def rebind(ir: Blueprint, state: RunState) -> RunState:
    """The run moved to another blueprint on purpose (an edited one): pinned to `ir` from now on.

    Counters and budgets keep their values, stage by stage name, so the edit should keep the
    names of the stages the run has visited; a stage it is in or has visited that `ir` lacks
    raises `RunnerError`. Whatever is outstanding is asked again as `ir` now says
    (`next_actions`); an injection already handed out is not repeated.
    """
    _check_types(ir, state)
    moved = RunState.from_dict({**state.to_dict(), "blueprint": tables(ir).digest(ir)})
    if not moved.terminal:
        _check_belongs(Run(ir, moved))
    return moved


def answering(state: RunState, event: _A) -> _A:
    """`event` addressed to the outstanding request when it is an answer that names none.

    For replaying a recording, which has no request numbers: a host answering its own
    requests names them itself, and `step` ignores an answer that names none.
    """
    if type(event) in _ANSWER_TYPES and event.request is None and state.phase in _REQUEST_PHASES:  # type: ignore[attr-defined]
        values = event.__dict__.copy()
        values["request"] = state.requests
        addressed: _A = object.__new__(type(event))  # as `evolve` does: the fields as they are
        object.__setattr__(addressed, "__dict__", values)
        return addressed
    return event


def replay_step(ir: Blueprint, state: RunState, event: Event) -> tuple[RunState, tuple[Action, ...]]:
    """`step` with `event` addressed to the outstanding request (`answering`): how a recorded
    run, a scenario or the run analysis feeds events that name no request."""
    return step(ir, state, answering(state, event))


_ANSWER_TYPES = frozenset(ANSWERS)
_REQUEST_PHASES = frozenset({"infer", "route", "interact"})


_NO_STATE = object()


def _check_types(ir: object, state: object = _NO_STATE) -> None:
    """A clear error for the likeliest mix-ups (the IR dict for the model, a state's JSON)."""
    if not isinstance(ir, Blueprint):
        raise TypeError(
            f"the runner drives a compiler.ir.model.Blueprint, not {type(ir).__name__}: get one with "
            "compiler.load(path), or compiler.load_ir(document) for a compiled IR"
        )
    if state is not _NO_STATE and not isinstance(state, RunState):
        raise TypeError(
            f"expected a RunState, not {type(state).__name__}: read a saved state with "
            "RunState.from_json(text) or RunState.from_dict(data)"
        )


def _check_pinned(ir: Blueprint, state: RunState) -> str:
    """The blueprint's digest; `BlueprintMismatch` when the state pins another one."""
    pinned = tables(ir).digest(ir)
    if state.blueprint and state.blueprint != pinned:
        raise BlueprintMismatch(
            f"this run belongs to blueprint {state.blueprint[:12]}…, not {pinned[:12]}… (the blueprint changed "
            "since the run started); compiler.runtime.rebind(ir, state) moves it to the new one on purpose"
        )
    return pinned


def _check_belongs(run: Run) -> None:
    """`RunnerError` for a state this blueprint cannot have produced: its stage, or a stage it
    visited, is not in the blueprint (a state from another blueprint)."""
    stages = run.tables.stages
    if run.state.stage not in stages:
        raise missing_stage(run.state.stage)
    if not stages.keys() >= run.state.visits.keys():
        name = next(name for name in run.state.visits if name not in stages)
        raise RunnerError(f"the run has visited stage '{name}', which this blueprint does not have")


# --- events ---------------------------------------------------------------------------------------


def _dispatch(run: Run, event: Event) -> None:
    state = run.state
    if state.status == "paused" and isinstance(event, PARKED_EVENTS):
        run.set(parked=state.parked + (event,))
        return
    # One case per member of `Event`: `assert_never` makes the type checker report a new event
    # that has no handler.
    match event:
        case InferenceFinished():
            _on_inference(run, event)
        case InferenceFailed():
            _on_failure(run, event)
        case RoutingAnswer():
            _on_routing(run, event)
        case RegionChanged():
            _on_region(run, event)
        case Tick():
            _on_tick(run, event)
        case ChildStarted():
            _on_child_started(run, event)
        case ChildFinished():
            _on_child_finished(run, event)
        case WorkersFinished():
            _on_workers(run, event)
        case InteractionAnswered():
            _on_interaction(run, event)
        case Dispatched():
            _on_dispatched(run, event)
        case Paused():
            _on_pause(run, event)
        case Resumed():
            _on_resume(run, event)
        case Cancel():
            _on_cancel(run, event)
        case WorkspaceLost():
            _on_workspace_lost(run, event)
        case _:
            assert_never(event)


def _stale(run: Run, request: int | None) -> bool:
    """An answer that names no request, or another one than the outstanding request."""
    return request != run.state.requests


def _on_inference(run: Run, event: InferenceFinished) -> None:
    if run.state.phase == "route":  # a plain agent stream answers a routing request as a reply
        _on_routing(run, RoutingAnswer(reply=event.text, now=event.now, request=event.request))
    elif run.state.phase == "infer" and not _stale(run, event.request):
        replies.finished(run, event)


def _on_failure(run: Run, event: InferenceFailed) -> None:
    if _stale(run, event.request):
        return
    if run.state.phase == "route":
        run.set(inject=(), offer=())
        ending.fail_stage(run, event.message)
    elif run.state.phase == "infer":
        replies.failed(run, event)


def _on_routing(run: Run, event: RoutingAnswer) -> None:
    if run.state.phase != "route" or _stale(run, event.request):
        return
    target, fell_back = read_reply(event.reply, run.state.offer, run.stage.allow_complete)
    run.set(inject=(), offer=())
    ending.routed(run, target, fallback=fell_back)


def _on_region(run: Run, event: RegionChanged) -> None:
    snapshot = RegionSnapshot(hash=event.hash, entries=event.entries, open_items=event.open_items)
    run.set(regions={**run.state.regions, event.region: snapshot})


def _on_tick(run: Run, event: Tick) -> None:
    """Only the stuck clock can change with time alone, and only while an inference waits."""
    if run.state.status == "active" and run.state.phase == "infer":
        reason = run.stuck_reason()
        if reason is not None:  # the waiting request is withdrawn with what it carried
            run.cancel_outstanding("stuck")
            run.set(inject=(), compact=())
            run.interrupt_stuck(reason)


def _on_child_started(run: Run, event: ChildStarted) -> None:
    if event.child not in run.state.children:
        run.set(children=run.state.children + (event.child,))


def _on_child_finished(run: Run, event: ChildFinished) -> None:
    run.set(children=tuple(c for c in run.state.children if c != event.child))
    _children_done(run)


def _children_done(run: Run) -> None:
    state = run.state
    if state.phase == "children" and state.status == "waiting" and not state.children:
        outcome = state.outcome
        run.set(status="active", outcome=None)
        ending.after_children(run, outcome)


def _on_workers(run: Run, event: WorkersFinished) -> None:
    if run.state.phase != "workers":
        return
    run.set(status="active")
    stage = run.stage
    config = stage.fan_out
    if event.failed > 0 and config is not None and config.on_worker_failure == "fail_all":
        ending.fail_stage(run, texts.workers_failed(event.failed))
    elif stage.mode != "fan_out":  # a fan_out tool call from an ordinary stage: the stage goes on
        run.ready()
    elif config is not None and config.merge_stage and run.ir.stage(config.merge_stage) is not None:
        ending.move(run, config.merge_stage, condition="merge", transform="direct", carry=MERGE_CARRIES)
    else:
        ending.end_stage(run, None)


def _on_interaction(run: Run, event: InteractionAnswered) -> None:
    if run.state.phase == "interact" and not _stale(run, event.request):
        interaction.answered(run, event)


def _on_dispatched(run: Run, event: Dispatched) -> None:
    if run.state.phase in ("infer", "route", "interact") and not _stale(run, event.request):
        run.set(dispatched=True)


def _on_pause(run: Run, event: Paused) -> None:
    if run.state.status in ("active", "waiting"):
        run.set(resume_status=run.state.status, status="paused")


def _on_resume(run: Run, event: Resumed) -> None:
    state = run.state
    if state.status != "paused":
        return
    parked_events = state.parked
    run.set(status=state.resume_status or "active", resume_status=None, parked=())
    for parked in parked_events:
        if run.state.terminal or run.state.status == "paused":
            run.set(parked=run.state.parked + (parked,))
            continue
        _dispatch(run, parked)
    if run.actions or run.state.terminal or run.state.status == "paused":
        return
    if run.state.phase == "ready":
        run.ready()
    elif run.state.phase == "children" and not run.state.children:
        _children_done(run)
    else:
        run.actions.extend(next_actions(run.ir, run.state))


def _on_cancel(run: Run, event: Cancel) -> None:
    run.cancel_outstanding("cancelled")
    ending.fail(run, "cancelled", status="cancelled")


def _on_workspace_lost(run: Run, event: WorkspaceLost) -> None:
    run.flag(workspace_lost=True)
    if run.state.status == "active" and run.state.phase == "infer":
        run.cancel_outstanding("workspace_lost")
        run.set(inject=(), compact=())
        ending.fail_stage(run, texts.workspace_lost())


def _snapshots(regions: Regions | None) -> dict[str, RegionSnapshot]:
    if regions is None:
        return {}
    if isinstance(regions, Mapping):
        return {k: v for k, v in regions.items() if isinstance(k, str) and isinstance(v, RegionSnapshot)}
    out: dict[str, RegionSnapshot] = {}
    for item in regions:
        event = sanitize(item)
        if isinstance(event, RegionChanged):
            out[event.region] = RegionSnapshot(event.hash, event.entries, event.open_items)
    return out


__all__ = [
    "BlueprintMismatch",
    "RunnerError",
    "answering",
    "check_run",
    "next_actions",
    "rebind",
    "replay_step",
    "start",
    "step",
]
