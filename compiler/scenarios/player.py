"""Playing a scenario on the real stage-runner, and what the run did.

`play` starts a run, then feeds the script's steps as runner events one by one. Before each
step it checks that the step still fits the run: the run is in the visit the script says,
waits for that kind of step, and offers the edge a routing answer names. The first step that
does not fit stops the run there, and becomes the scenario's failure, positioned at that
step. `Played` records every event with the actions it caused, grouped by stage visit, and
answers what expectations ask: the status, the path, the holds that fired, the notes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from compiler.records import record

from ..ir.model import DEFAULT_MAX_ITERATIONS
from ..runtime.actions import AskInteraction, AskRoute, Complete, Fail, RunInference, TakeEdge
from ..runtime.events import Event, RegionChanged
from ..runtime.machine import replay_step as step
from ..runtime.machine import start
from ..runtime.points import matches
from ..runtime.state import Injection, RunState
from .model import Action, Scenario, Where
from .vocabulary import EVENT_PHASES, PHASES, STEPS_FOR, WAITING, phases, to_event

if TYPE_CHECKING:
    from ..ir.model import Blueprint

#: Injection kind → the name of the hold that wrote it (`expect.holds`).
HOLD_OF_KIND = {
    "nudge": "nudge",
    "gate": "gate_held",
    "stuck": "stuck",
    "cap": "cap",
    "required_region": "required_region",
    "required_output": "required_output",
    "fan_out": "fan_out",
    "split": "split",
    "error": "error",
}
HOLDS = (*HOLD_OF_KIND.values(), "gate_forced")


@record
class Mismatch:
    """The script no longer fits the blueprint here."""

    message: str
    where: Where


@dataclass
class Fed:
    """One event fed to the runner, the step it came from, and what it caused."""

    event: Event
    step: Action | None
    before: RunState
    after: RunState
    actions: tuple


@dataclass
class VisitRun:
    """One stage visit of the run: how it began, what was fed during it, how it ended."""

    stage: str
    number: int
    entry: RunState
    fed: list[Fed] = field(default_factory=list)
    #: Runner actions emitted while the run was in this visit (its exit last).
    actions: list = field(default_factory=list)
    exit: TakeEdge | Complete | Fail | None = None

    @property
    def key(self) -> tuple[str, int]:
        return (self.stage, self.number)


@dataclass
class Played:
    """A scenario's run: its visits, its final state, and the mismatch that stopped it, if any."""

    ir: "Blueprint"
    visits: list[VisitRun]
    state: RunState
    mismatch: Mismatch | None = None

    # --- recording ----------------------------------------------------------------------------

    def record(self, fed: Fed) -> None:
        visit = self.visits[-1]
        visit.fed.append(fed)
        self._actions(fed.actions, fed.after)
        self.state = fed.after

    def _actions(self, actions: Iterable, after: RunState) -> None:
        for action in actions:
            visit = self.visits[-1]
            visit.actions.append(action)
            if isinstance(action, (Complete, Fail)):
                visit.exit = action
            elif isinstance(action, TakeEdge):
                visit.exit = action
                self.visits.append(VisitRun(action.target, action.visit, after))

    # --- what the run did ---------------------------------------------------------------------

    @property
    def status(self) -> str:
        """complete, error, cancelled, paused, or unfinished (the script ran out first)."""
        state = self.state
        return state.status if state.terminal or state.status == "paused" else "unfinished"

    @property
    def path(self) -> list[str]:
        return [visit.stage for visit in self.visits]

    def injections(self, visit: VisitRun | None = None) -> list[Injection]:
        """Every text the runner asked the host to write, once per request (in order)."""
        out: list[Injection] = []
        seen: set[int] = set()
        for item in [visit] if visit is not None else self.visits:
            for action in item.actions:
                if isinstance(action, (RunInference, AskRoute, AskInteraction)):
                    if action.request in seen:
                        continue
                    seen.add(action.request)
                    out.extend(action.inject)
                elif isinstance(action, (TakeEdge, Complete, Fail)):
                    out.extend(action.notes)
        return out

    def shown(self) -> list[str]:
        """The document each interaction round showed, in order (`AskInteraction.body`)."""
        out: list[str] = []
        seen: set[str] = set()
        for visit in self.visits:
            for action in visit.actions:
                if isinstance(action, AskInteraction) and action.id not in seen:
                    seen.add(action.id)
                    out.append(action.body or "")
        return out

    def holds(self, visit: VisitRun | None = None) -> dict[str, int]:
        """How often each hold fired: nudges, gates held and forced, stuck interrupts, caps …"""
        counts = dict.fromkeys(HOLDS, 0)
        for item in self.injections(visit):
            name = HOLD_OF_KIND.get(item.kind)
            if name is not None:
                counts[name] += 1
        for each in [visit] if visit is not None else self.visits:
            counts["gate_forced"] += sum(1 for a in each.actions if isinstance(a, TakeEdge) and a.gate == "forced")
        return counts

    def budgets(self) -> dict[str, int | str]:
        """How many more times each stage may be entered (`max_revisits` + 1 − visits)."""
        out: dict[str, int | str] = {}
        for stage in self.ir.stages:
            if stage.max_revisits is None:
                out[stage.name] = "unlimited"
            else:
                out[stage.name] = max(stage.max_revisits + 1 - self.state.visits.get(stage.name, 0), 0)
        return out

    def repeated_entry(self) -> tuple[VisitRun, VisitRun] | None:
        """Two stage entries in the same run state (same stage, every revisit budget it reads
        the same, the same final output where one is owed): the run could go round for ever."""
        from ..analysis.runs import budgeted_counts
        from ..runtime.policy import output_owed_anywhere

        owed = output_owed_anywhere(self.ir)
        seen: dict[tuple, VisitRun] = {}
        for visit in self.visits:
            entry = visit.entry
            key = (
                visit.stage,
                budgeted_counts(self.ir, visit.stage, entry.visits),
                entry.final_output if owed else None,
            )
            if key in seen:
                return seen[key], visit
            seen[key] = visit
        return None


def play(
    ir: "Blueprint",
    scenario: Scenario,
    events: list[Event] | None = None,
    default_max_iterations: int = DEFAULT_MAX_ITERATIONS,
) -> Played:
    """Run `scenario` (or, for an NDJSON script, `events`) on the runner; a stage without
    `max_iterations` gets the scenario's own `default_max_iterations`, else the one given."""
    seeded = [RegionChanged(name, hash=f"seed:{name}", entries=n) for name, n in scenario.regions.items()]
    # A recorded stream keeps its own clock: the run starts at its first event's time.
    origin = next((now for e in events or () if (now := getattr(e, "now", None)) is not None), 0)
    cap = scenario.default_max_iterations
    state, actions = start(
        ir,
        origin,
        regions=seeded or None,
        unattended=scenario.unattended,
        default_max_iterations=default_max_iterations if cap is None else cap,
    )
    played = Played(ir, [VisitRun(state.stage, 1, state)], state)
    played._actions(actions, state)
    if events is not None:
        for event in events:
            if played.state.terminal:
                break
            after, caused = step(ir, played.state, event)
            played.record(Fed(event, None, played.state, after, caused))
        return played
    _play_visits(ir, scenario, played)
    return played


def _play_visits(ir: "Blueprint", scenario: Scenario, played: Played) -> None:
    clock, serial = 0.0, 0
    previous: tuple[str, int] | None = None
    for visit in scenario.visits or ():
        problem = _boundary(played, visit.stage, previous)
        if problem is not None:
            played.mismatch = Mismatch(problem, visit.where)
            return
        current = played.visits[-1].key
        for action in visit.actions:
            for _ in range(action.repeat):
                problem = _misfit(ir, played, action, current)
                if problem is not None:
                    played.mismatch = Mismatch(problem, action.where)
                    return
                clock += action.after + action.data.get("seconds", 0)
                serial += 1
                region = played.state.region(action.data["region"]) if action.verb == "close" else None
                event = to_event(action, clock, serial, region)
                clock = max(clock, getattr(event, "now", None) or clock)
                before = played.state
                after, caused = step(ir, before, event)
                played.record(Fed(event, action, before, after, caused))
                if _ignored(before, after, caused, action):
                    played.mismatch = Mismatch(f"the runner ignored '{action.source}' here", action.where)
                    return
        previous = current


def _where_now(played: Played) -> str:
    state = played.state
    return f"'{state.stage}' (visit {state.visits.get(state.stage, 0)})"


def _ended(state: RunState) -> str:
    what = f"{state.status} in '{state.stage}'"
    return what + (f": {state.reason}" if state.reason else "")


def _boundary(played: Played, stage: str, previous: tuple[str, int] | None) -> str | None:
    """Why a script visit of `stage` cannot begin here, or None."""
    state = played.state
    if state.terminal:
        return f"the run has already ended ({_ended(state)}) before this visit of '{stage}'"
    now = played.visits[-1].key
    if previous is None:
        return None if now[0] == stage else f"the run starts in '{now[0]}', not in '{stage}'"
    if now == previous:
        return (
            f"the run is still in {_where_now(played)}, waiting for {WAITING.get(state.phase, state.phase)}; "
            f"the script moves on to a visit of '{stage}'"
        )
    if now[0] != stage:
        return f"the run went on to {_where_now(played)}{_how(played)}, not to '{stage}'"
    return None


def _how(played: Played) -> str:
    if len(played.visits) < 2:
        return ""
    exit = played.visits[-2].exit
    return f" by its {exit.condition.replace('_', '-')} edge" if isinstance(exit, TakeEdge) else ""


def _misfit(ir: "Blueprint", played: Played, action: Action, current: tuple[str, int]) -> str | None:
    """Why `action` does not fit the run as it is now, or None."""
    state = played.state
    if state.terminal:
        return f"the run has already ended ({_ended(state)}); nothing is left for '{action.source}'"
    if played.visits[-1].key != current:
        return (
            f"the run has already left '{current[0]}' for {_where_now(played)}{_how(played)}; "
            f"'{action.source}' would happen in a new visit"
        )
    allowed = phases(action)
    if allowed is not None and state.phase not in allowed and state.status != "paused":
        steps = STEPS_FOR.get(state.phase)
        return f"the run waits for {WAITING.get(state.phase, state.phase)} here{f' ({steps})' if steps else ''}, not '{action.source}'"
    if action.verb == "route" and state.phase == "route":
        return _route_misfit(ir, state, action)
    if action.verb == "answer" and state.phase == "interact":
        return _answer_misfit(ir, state, action)
    if action.verb == "confirm" and state.phase == "interact":
        return _confirm_misfit(ir, state, action)
    if action.verb in ("fill", "close"):
        return _checklist_misfit(ir, state, action)
    return None


def _checklist_misfit(ir: "Blueprint", state: RunState, action: Action) -> str | None:
    """`fill` on a checklist would leave it with no open item by accident; `close` needs one open."""
    name = action.data["region"]
    stage = ir.stage(state.stage)
    region = ir.layout_for(stage).get(name) if stage is not None else None
    checklist = region is not None and region.kind == "checklist"
    if action.verb == "fill":
        if not checklist:
            return None
        return (
            f"'{name}' is a checklist, whose entries are open or done: 'open {name} 2' gives it open items, "
            f"'close {name} 1' marks one done, not '{action.source}'"
        )
    if not checklist:
        return f"'close' marks checklist items done, and '{name}' is not a checklist region of '{state.stage}'"
    open_ids = [item for item, _ in state.region(name).open_items]
    closing = action.data["items"] or ()
    missing = [item for item in closing if item not in open_ids]
    if missing or not open_ids:
        listed = ", ".join(open_ids) or "none"
        return f"'{name}' has no open item {', '.join(missing) or 'to close'} (open: {listed}) for '{action.source}'"
    return None


def _route_misfit(ir: "Blueprint", state: RunState, action: Action) -> str | None:
    stage = ir.stage(state.stage)
    assert stage is not None
    offered = ", ".join(state.offer) + (", or DONE" if stage.allow_complete else "")
    target = action.data.get("target")
    if action.data.get("done") and (stage.allow_complete or target is None):
        return (
            None
            if stage.allow_complete
            else f"'{stage.name}' has no allow_complete, so DONE is not offered (offered: {offered})"
        )
    if target is None or target in state.offer:
        return None
    edges = [e for e in stage.edges() if e.target == target]
    if not edges:
        return f"'{stage.name}' has no edge to '{target}' (offered: {offered})"
    if not any(e.is_normal for e in edges):
        return f"'{stage.name}' → '{target}' is a {edges[0].condition} edge, never offered to the model (offered: {offered})"
    return f"'{target}' is not offered: it has used up its max_revisits (offered: {offered})"


def _point_due(ir: "Blueprint", state: RunState):
    stage = ir.stage(state.stage)
    points = stage.interaction_points if stage is not None else ()
    cursor = state.visit.point_cursor
    return points[cursor] if 0 <= cursor < len(points) else None


def _confirm_misfit(ir: "Blueprint", state: RunState, action: Action) -> str | None:
    point = _point_due(ir, state)
    if point is None or point.style == "confirm":
        return None
    return f"interaction point '{point.name}' asks in the {point.style} style, not for a yes or no ('{action.source}')"


def _answer_misfit(ir: "Blueprint", state: RunState, action: Action) -> str | None:
    point = _point_due(ir, state)
    answer = action.data.get("answer")
    if point is None or not point.options or answer is None or matches(point.options, answer):
        return None
    return f"'{answer}' is not an option of interaction point '{point.name}' ({', '.join(point.options)})"


def _ignored(before: RunState, after: RunState, caused: tuple, action: Action) -> bool:
    """An answer the runner dropped: nothing changed but the clock."""
    answers = action.verb in PHASES or (action.verb == "event" and type(action.data["event"]) in EVENT_PHASES)
    return answers and not caused and replace(after, clock=before.clock) == before
