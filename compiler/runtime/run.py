"""`Run`: one state being advanced by one event, and the actions that advance emits.

The machine's modules share this small working object instead of threading a state and an
action list through every call. It holds a frozen `RunState` that is replaced, never
mutated, so the caller's state is untouched whatever happens. Two transitions live here
because everything else ends in them: entering a stage, and READY (the guards that run
before every inference, then the inference request itself).
"""

from __future__ import annotations

from typing import Any, TypeVar

from ..ir.model import Blueprint, Stage
from . import ending, texts
from .actions import Action, RunInference
from .policy import holds, report_region, stage_model
from .state import Injection, Outcome, RunState, Visit
from .stuck import stuck_edge, stuck_reason


T = TypeVar("T")


def evolve(value: T, changes: dict[str, Any]) -> T:
    """`dataclasses.replace` for our frozen records, without re-running `__init__`.

    The runner replaces its state a dozen times per event; `replace` costs tens of
    microseconds on a record this wide, this a fraction of one. Only known field names are
    accepted, so a typo still fails loudly.
    """
    merged = {**value.__dict__, **changes}
    if len(merged) != len(value.__dict__):  # a name that is not a field added an entry
        unknown = ", ".join(sorted(changes.keys() - value.__dict__.keys()))
        raise TypeError(f"{type(value).__name__} has no field {unknown}")
    new = object.__new__(type(value))
    object.__setattr__(new, "__dict__", merged)
    return new


class RunnerError(ValueError):
    """The state does not belong to the blueprint it was stepped with."""


class Run:
    def __init__(self, ir: Blueprint, state: RunState, stage: Stage | None = None) -> None:
        """`stage`: the state's stage, when the caller has looked it up already."""
        self.ir = ir
        self.state = state
        self.actions: list[Action] = []
        #: The stage last looked up, by name (read a few times per event, changed rarely).
        self._stage = stage
        self._stage_name = state.stage if stage is not None else None

    # --- reading and writing the state ---------------------------------------------------

    @property
    def stage(self) -> Stage:
        name = self.state.stage
        if name != self._stage_name or self._stage is None:
            stage = self.ir.stage(name)
            if stage is None:
                raise RunnerError(f"the run is in stage '{name}', which this blueprint does not have")
            self._stage, self._stage_name = stage, name
        return self._stage

    def set(self, **changes: Any) -> None:
        self.state = evolve(self.state, changes)

    def visit(self, **changes: Any) -> None:
        self.state = evolve(self.state, {"visit": evolve(self.state.visit, changes)})

    def flag(self, **changes: Any) -> None:
        self.state = evolve(self.state, {"flags": evolve(self.state.flags, changes)})

    def inject(self, region: str, text: str, kind: str) -> None:
        self.set(inject=self.state.inject + (Injection(region, text, kind),))

    def system(self, text: str, kind: str) -> None:
        """A `[System]` message in `conversation` before the next inference."""
        self.inject("conversation", texts.system(text), kind)

    def note(self, preferred_region: str, text: str, kind: str) -> None:
        """A report in its own region when the window holds it, else in `conversation`."""
        self.inject(report_region(self.ir, self.stage, self.state, preferred_region), text, kind)

    def take_injections(self) -> tuple[Injection, ...]:
        taken = self.state.inject
        self.set(inject=())
        return taken

    def emit(self, action: Action) -> None:
        self.actions.append(action)

    # --- stage entry ------------------------------------------------------------------------

    def entry_digests(self, stage: Stage) -> dict[str, str]:
        """Baselines for every outgoing gate that wants a region revised during the visit."""
        digests: dict[str, str] = {}
        for edge in stage.edges():
            region = edge.gate.require_region_updated if edge.gate is not None else None
            if region is not None and holds(self.ir, stage, self.state, region):
                digests[region] = self.state.region(region).digest
        return digests

    def enter(self, target: str) -> None:
        """Fresh per-visit progress, one more visit, entry digests (the new stage's view)."""
        stage = self.ir.stage(target)
        if stage is None:
            raise RunnerError(f"stage '{target}' does not exist")
        visits = {**self.state.visits, target: self.state.visits.get(target, 0) + 1}
        self.set(stage=target, visits=visits, outcome=None, offer=(), body=None)
        self.set(visit=Visit(entry_digests=self.entry_digests(stage)))

    # --- READY ----------------------------------------------------------------------------------

    def ready(self) -> None:
        """The iteration cap, then stuck detection, then an inference request."""
        state = self.state
        if state.status != "active":
            self.set(phase="ready")
            return
        stage = self.stage
        cap = stage.max_iterations or 0
        if stage.mode != "fan_out" and cap > 0 and state.visit.iterations >= cap:
            self.flag(max_iterations_hit=state.flags.max_iterations_hit + 1)
            ending.end_stage(self, Outcome("max_iterations"))
            return
        if self.check_stuck():
            return
        self.set(phase="infer", requests=state.requests + 1)
        self.emit(self.inference_action())

    def check_stuck(self) -> bool:
        """Interrupt the stage if its stuck edge's thresholds trip (once per visit)."""
        state = self.state
        if state.visit.stuck_fired:
            return False
        edge = stuck_edge(self.ir, self.stage, state.visits)
        if edge is None:
            return False
        if state.visit.stuck_since is None:
            self.visit(stuck_since=state.clock)
        reason = stuck_reason(edge.stuck, self.state.visit, self.state.clock)
        if reason is None:
            return False
        self.visit(stuck_fired=True)
        self.note("stuck_report", texts.stuck_note(self.state.stage, reason), "stuck")
        ending.end_stage(self, Outcome("stuck", reason))
        return True

    def inference_action(self) -> RunInference:
        state, stage = self.state, self.stage
        provider, model = stage_model(stage, state.visit.model_index)
        return RunInference(
            stage=stage.name,
            request=state.requests,
            visit=state.visits.get(stage.name, 0),
            turn=state.visit.iterations + 1,
            provider=provider,
            model=model,
            tools=tuple(stage.available_tools),
            inject=state.inject,
            summarize=state.compact,
        )
