"""`RunState`: everything that decides a run's future, as one plain, versioned value.

The reference keeps most per-visit counters in memory and refunds them on a restart; here
they all live in the state, so a run saved after any step and resumed elsewhere behaves as
if it had never stopped. The dataclasses are frozen and their dict fields are never mutated
in place (the machine copies on write), so a state can be shared and compared freely.
`to_json()` / `from_json()` round-trip exactly.
"""

from __future__ import annotations

import json
from dataclasses import field
from typing import Any

from compiler.records import record

from ..ir.model import DEFAULT_MAX_ITERATIONS, NudgeConfig
from .events import Event
from .records import (
    EMPTY_REGION,
    PHASES,
    READABLE_STATE_VERSIONS,
    STATE_VERSION,
    STATUSES,
    TERMINAL_STATUSES,
    Flags,
    Injection,
    Outcome,
    RegionSnapshot,
    StateError,
    Visit,
)
from .statejson import encode as _encode
from .statejson import host_copy as _host_copy
from .statejson import state_dict as _state_dict
from .statejson import state_json as _state_json
from .statejson import state_reader

__all__ = [
    "EMPTY_REGION",
    "PHASES",
    "READABLE_STATE_VERSIONS",
    "STATE_VERSION",
    "STATUSES",
    "TERMINAL_STATUSES",
    "Flags",
    "Injection",
    "Outcome",
    "RegionSnapshot",
    "RunState",
    "StateError",
    "Visit",
    "flags_report",
]


@record
class RunState:
    stage: str
    #: The host's name for this run (`start(..., run_id=…)`); action ids begin with it.
    run_id: str = "run"
    #: The digest of the blueprint the run belongs to (`compiler.digest`): `step` refuses
    #: another. Empty in a state written before version 3, until its next step pins it.
    blueprint: str = ""
    status: str = "active"
    phase: str = "ready"
    #: The latest `now` seen.
    clock: float = 0
    #: Successful stage inferences over the whole run (routing calls excluded).
    iteration: int = 0
    #: Requests issued so far; the outstanding one carries this number.
    requests: int = 0
    #: Actions emitted so far; the latest (the outstanding request or wait, or the ending) is
    #: number `seq`, and its id is `"<run_id>:<seq>"`.
    seq: int = 0
    #: The host reported (`Dispatched`) that it sent the outstanding request.
    dispatched: bool = False
    visits: dict[str, int] = field(default_factory=dict)
    visit: Visit = Visit()
    flags: Flags = Flags()
    #: The stage whose `submit_output` was last accepted.
    final_output: str | None = None
    regions: dict[str, RegionSnapshot] = field(default_factory=dict)
    #: Child runs started and not yet finished.
    children: tuple[str, ...] = ()
    #: The abnormal ending being carried across a wait (children, interaction point).
    outcome: Outcome | None = None
    #: Targets offered by the outstanding routing request, in order.
    offer: tuple[str, ...] = ()
    #: Injections for the next action (kept with the outstanding request until it is answered).
    inject: tuple[Injection, ...] = ()
    #: Regions to summarize before the next inference (a compacting edge was taken).
    compact: tuple[str, ...] = ()
    #: A person's edited text, shown once as the document at the next round of the point.
    body: str | None = None
    #: The latest reply of a reviewed stage's visit: the document its points show otherwise.
    reply: str | None = None
    #: Answers that landed while paused, replayed on resume.
    parked: tuple[Event, ...] = ()
    #: The status to restore on resume.
    resume_status: str | None = None
    #: Why the run failed, for terminal statuses other than complete.
    reason: str | None = None
    #: How a complete run ended: `terminal` (no edge left) or `done` (the model said DONE).
    done_via: str | None = None
    #: Host options fixed at start.
    unattended: bool = False
    global_nudge: NudgeConfig | None = None
    #: The iteration cap of a stage whose `max_iterations` is unset or 0 (0: none).
    default_max_iterations: int = DEFAULT_MAX_ITERATIONS
    #: The host's own data (any JSON value), carried from step to step and never read here.
    host: Any = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def region(self, name: str) -> RegionSnapshot:
        return self.regions.get(name, EMPTY_REGION)

    @property
    def action_id(self) -> str:
        """The id of the latest action: the outstanding request or wait, or the run's ending."""
        return f"{self.run_id}:{self.seq}"

    def with_host(self, data: Any) -> "RunState":
        """This state carrying `data` as the host's own (a JSON value, copied; `TypeError` or
        `ValueError` when it is not one). The runner keeps it through every step."""
        return _with_host(self, data)

    def to_dict(self) -> dict[str, Any]:
        """The state as plain JSON values, `state_version` first (what `to_json` writes)."""
        return _state_dict(self)

    def to_json(self) -> str:
        """The state as JSON text, to persist between two steps; `from_json` reads it back."""
        return _state_json(self)

    @classmethod
    def from_dict(cls, data: Any) -> "RunState":
        """The state `to_dict` wrote; `StateError` naming the field when `data` is not one."""
        return _read_state(data)

    @classmethod
    def from_json(cls, text: str | bytes) -> "RunState":
        """The state `to_json` wrote; `StateError` when `text` is not one (not JSON, another
        `state_version`, a field of the wrong type). Whether it belongs to the blueprint it
        is stepped with is checked by `step` (`RunnerError`)."""
        try:
            data = json.loads(text)
        except (ValueError, TypeError, RecursionError) as exc:
            raise StateError(f"a run state must be JSON: {exc}") from exc
        return _read_state(data)


def _with_host(state: RunState, data: Any) -> RunState:
    new: RunState = object.__new__(RunState)
    object.__setattr__(new, "__dict__", {**state.__dict__, "host": _host_copy(data)})
    return new


#: Forced moves as `flags_report` lists them, with the counter that records each.
FORCED_MOVES: tuple[tuple[str, str], ...] = (
    ("gate_attempts", "gates_forced"),
    ("revisits_spent", "revisits_forced"),
    ("iteration_cap", "max_iterations_hit"),
    ("routing_fallback", "routing_fallbacks"),
    ("output_owed", "output_forced"),
    ("fan_out_skipped", "splits_degraded"),
)


def flags_report(state: RunState) -> dict[str, Any]:
    """The flags as a host records them, with the three computed when they are reported."""
    flags = state.flags
    produced = state.final_output is not None
    out: dict[str, Any] = _encode(flags)
    out["produced_output"] = produced
    out["empty_output"] = (
        state.terminal and flags.modified_file_count == 0 and not produced and not flags.no_output_tools
    )
    out["forced_moves"] = [name for name, counter in FORCED_MOVES if getattr(flags, counter)]
    return out


#: `RunState.from_dict`: the strict reader, built once for this class.
_read_state = state_reader(RunState)
