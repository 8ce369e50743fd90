"""`Run`: one state being advanced by one event, and the actions that advance emits.

The machine's modules share this small working object instead of threading a state and an
action list through every call. The caller's state is never touched: the first change a
step makes copies it, and later changes in the same step update that private copy in place
(likewise its `visit` and `flags` records), so a step costs one copy of each record it
changes rather than one per change. What `step` returns is frozen from then on. Two
transitions live here because everything else ends in them: entering a stage, and READY
(the guards that run before every inference, then the inference request itself).
"""

from __future__ import annotations

from typing import Any, TypeVar

from ..ir.model import Blueprint, Stage
from . import ending, stuck, texts
from .actions import REQUESTS, Action, CancelRequest, RunInference, build
from .policy import holds, report_region
from .state import Injection, Outcome, RunState, Visit
from .tables import StageTable, Tables, tables

T = TypeVar("T")


def evolve(value: T, changes: dict[str, Any]) -> T:
    """`dataclasses.replace` for our frozen records, without re-running `__init__`.

    `replace` costs tens of microseconds on a record this wide, this a fraction of one. Only
    known field names are accepted, so a typo still fails loudly.
    """
    new = _copy(value)
    _update(new, changes)
    return new


def _copy(value: T) -> T:
    new = object.__new__(type(value))
    object.__setattr__(new, "__dict__", value.__dict__.copy())
    return new


def _update(record: Any, changes: dict[str, Any]) -> None:
    """Change fields of a record nobody else has seen yet (a copy this module just made)."""
    values = record.__dict__
    size = len(values)
    values.update(changes)
    if len(values) != size:  # a name that is not a field added an entry
        unknown = ", ".join(sorted(name for name in changes if name not in type(record).__dataclass_fields__))
        raise TypeError(f"{type(record).__name__} has no field {unknown}")


class RunnerError(ValueError):
    """The state does not belong to the blueprint it was stepped with."""


def missing_stage(name: str) -> RunnerError:
    return RunnerError(f"the run is in stage '{name}', which this blueprint does not have")


class Run:
    def __init__(self, ir: Blueprint, state: RunState, known: Tables | None = None) -> None:
        self.ir = ir
        self.state = state
        self.actions: list[Action] = []
        self.tables = tables(ir) if known is None else known
        #: The fixed answers about the run's current stage (None: the blueprint has no such
        #: stage, which `table` reports). `enter` keeps it current.
        self._table: StageTable | None = self.tables.stages.get(state.stage)
        #: The private copies this step may change in place (see the module docstring).
        self._own: RunState | None = None
        self._own_visit: Visit | None = None
        self._own_flags: Any = None

    # --- reading and writing the state ---------------------------------------------------

    @property
    def table(self) -> StageTable:
        """The fixed answers about the current stage; `RunnerError` when the blueprint has no such stage."""
        table = self._table
        if table is None:
            raise missing_stage(self.state.stage)
        return table

    @property
    def stage(self) -> Stage:
        return self.table.stage

    def set(self, **changes: Any) -> None:
        state = self.state
        if state is not self._own:
            state = self.state = self._own = _copy(state)
        _update(state, changes)

    def visit(self, **changes: Any) -> None:
        state = self.state
        if state is not self._own:
            state = self.state = self._own = _copy(state)
        visit = state.visit
        if visit is not self._own_visit:
            visit = self._own_visit = _copy(visit)
            state.__dict__["visit"] = visit
        _update(visit, changes)

    def flag(self, **changes: Any) -> None:
        state = self.state
        if state is not self._own:
            state = self.state = self._own = _copy(state)
        flags = state.flags
        if flags is not self._own_flags:
            flags = self._own_flags = _copy(flags)
            state.__dict__["flags"] = flags
        _update(flags, changes)

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
        if taken:
            self.set(inject=())
        return taken

    def emit(self, action: Action) -> None:
        """Emit a fresh action as the run's next one: it takes the next number and its id (a
        new request is not dispatched yet)."""
        state = self.state
        if state is not self._own:
            state = self.state = self._own = _copy(state)
        fields = state.__dict__  # this step's own copy (see the module docstring)
        seq = fields["seq"] = fields["seq"] + 1
        values = action.__dict__  # a record just built for this step: nobody else holds it
        if type(action) in REQUESTS:
            fields["dispatched"] = values["dispatched"] = False
        values["id"] = f"{fields['run_id']}:{seq}"
        self.actions.append(action)

    def cancel_outstanding(self, reason: str) -> None:
        """Withdraw the outstanding request or wait (the run stops waiting on it): `CancelRequest`."""
        state = self.state
        if state.phase in ("infer", "route", "interact"):
            self.emit(CancelRequest(state.stage, state.requests, state.action_id, reason))
        elif state.phase in ("children", "workers"):
            self.emit(CancelRequest(state.stage, None, state.action_id, reason))

    # --- stage entry ------------------------------------------------------------------------

    def entry_digests(self, stage: Stage) -> dict[str, str]:
        """Baselines for every outgoing gate that wants a region revised during the visit."""
        digests: dict[str, str] = {}
        for edge in stage.edges():
            region = edge.gate.require_region_updated if edge.gate is not None else None
            if region is not None and holds(self.ir, stage, self.state, region):
                digests[region] = self.state.region(region).digest
        return digests

    def enter(self, target: str, carry: tuple[str, ...] = ()) -> None:
        """Fresh per-visit progress, one more visit, entry digests (the new stage's view);
        `carry` names counters of the visit being left that the new one keeps."""
        table = self.tables.stages.get(target)
        if table is None:
            raise RunnerError(f"stage '{target}' does not exist")
        kept = {name: getattr(self.state.visit, name) for name in carry}
        visits = {**self.state.visits, target: self.state.visits.get(target, 0) + 1}
        self.set(stage=target, visits=visits, outcome=None, offer=(), body=None, reply=None)
        self._table = table
        self.set(visit=Visit(entry_digests=self.entry_digests(table.stage)))
        if kept:
            self.visit(**kept)

    # --- READY ----------------------------------------------------------------------------------

    def ready(self) -> None:
        """The iteration cap, then stuck detection, then an inference request."""
        state = self.state
        if state.status != "active":
            self.set(phase="ready")
            return
        table = self.table
        cap = table.cap_for(state.default_max_iterations)
        if cap and state.visit.iterations >= cap:
            self.flag(max_iterations_hit=state.flags.max_iterations_hit + 1)
            ending.end_stage(self, Outcome("max_iterations"))
            return
        if self.check_stuck():
            return
        self.set(phase="infer", requests=state.requests + 1)
        self.emit(self.inference_action())

    def check_stuck(self) -> bool:
        """Interrupt the stage if its stuck edge's thresholds trip (once per visit)."""
        reason = self.stuck_reason()
        if reason is None:
            return False
        self.interrupt_stuck(reason)
        return True

    def stuck_reason(self) -> str | None:
        """Start the stuck clock if it has not started; why the stage is stuck, if it is."""
        state = self.state
        if state.visit.stuck_fired:
            return None
        limits = self.table.stuck_limits(state.visits)
        if limits is None:
            return None
        if state.visit.stuck_since is None:
            self.visit(stuck_since=state.clock)
        return stuck.reason(limits, self.state.visit, self.state.clock)

    def interrupt_stuck(self, reason: str) -> None:
        self.visit(stuck_fired=True)
        self.note("stuck_report", texts.stuck_note(self.state.stage, reason), "stuck")
        ending.end_stage(self, Outcome("stuck", reason))

    def inference_action(self) -> RunInference:
        state, table = self.state, self.table
        provider, model = table.model(state.visit.model_index)
        visit, deadline = state.visit, None
        if table.stuck and not visit.stuck_fired and visit.stuck_since is not None:
            limits = table.stuck_limits(state.visits)
            if limits is not None and limits[3] is not None:
                deadline = visit.stuck_since + limits[3] * 60
        return build(
            RunInference,
            table.stage.name,
            state.requests,
            state.visits.get(table.stage.name, 0),
            state.visit.iterations + 1,
            provider,
            model,
            table.tools,
            state.inject,
            state.compact,
            table.spec,
            state.dispatched,
            deadline,
            state.action_id,
        )
