"""`RunState`: everything that decides a run's future, as one plain, versioned value.

The reference keeps most per-visit counters in memory and refunds them on a restart; here
they all live in the state, so a run saved after any step and resumed elsewhere behaves as
if it had never stopped. The dataclasses are frozen and their dict fields are never mutated
in place (the machine copies on write), so a state can be shared and compared freely.
`to_json()` / `from_json()` round-trip exactly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..ir.model import DEFAULT_MAX_ITERATIONS, NudgeConfig
from .events import Event

STATE_VERSION = 2
#: Versions `from_json` reads. Version 1 predates `default_max_iterations`: its runs had no
#: default cap, and read back they keep none.
READABLE_STATE_VERSIONS: tuple[int, ...] = (1, 2)

STATUSES: tuple[str, ...] = ("active", "waiting", "paused", "complete", "error", "cancelled")
TERMINAL_STATUSES: frozenset[str] = frozenset({"complete", "error", "cancelled"})
#: ready: guards then an inference are due · infer/route/interact: a request is outstanding ·
#: children/workers: waiting on other runs · done: terminal.
PHASES: tuple[str, ...] = ("ready", "infer", "route", "interact", "children", "workers", "done")


class StateError(ValueError):
    """A serialized state that cannot be read back."""


@dataclass(frozen=True)
class RegionSnapshot:
    """A region as the host last reported it; only emptiness and the hash matter here."""

    hash: str = ""
    entries: int = 0
    open_items: tuple[tuple[str, str], ...] = ()

    @property
    def empty(self) -> bool:
        return self.entries <= 0

    @property
    def digest(self) -> str:
        """What "unchanged" compares: every empty region digests alike, whatever the host hashed."""
        return self.hash if self.entries > 0 else ""


EMPTY_REGION = RegionSnapshot()


@dataclass(frozen=True)
class Injection:
    """Text for the host to append to a region before it acts on the action carrying it.

    `kind` says why: nudge, gate, required_region, required_output, fan_out, stuck, error,
    cap, split, interaction.
    """

    region: str
    text: str
    kind: str


@dataclass(frozen=True)
class Outcome:
    """Why a stage ended abnormally: `error` (detail = message), `max_iterations`, `stuck`."""

    kind: str
    detail: str = ""


@dataclass(frozen=True)
class Visit:
    """Per-visit progress, replaced by a fresh one on every stage entry."""

    iterations: int = 0
    tool_calls: int = 0
    edits: dict[str, int] = field(default_factory=dict)
    nudges: int = 0
    modifications: int = 0
    blocked_modifications: int = 0
    gate_reentries: int = 0
    #: region → digest at entry, for gates with `require_region_updated`.
    entry_digests: dict[str, str] = field(default_factory=dict)
    #: The stuck clock: stamped the first time stuck detection looks at this visit.
    stuck_since: float | None = None
    stuck_fired: bool = False
    required_rounds: int = 0
    output_rounds: int = 0
    fan_out_rounds: int = 0
    fanned_out: bool = False
    point_cursor: int = 0
    point_rounds: int = 0
    #: Which of the stage's models is in use (provider fallback).
    model_index: int = 0


@dataclass(frozen=True)
class Flags:
    """Run-level outcome flags; never reset by a transition."""

    max_iterations_hit: int = 0
    gates_forced: int = 0
    output_forced: int = 0
    required_regions_abandoned: tuple[str, ...] = ()
    splits_degraded: int = 0
    workspace_lost: bool = False
    modified_files: tuple[str, ...] = ()
    modified_file_count: int = 0
    searches_run: int = 0
    searches_empty: int = 0
    no_output_tools: bool = False


@dataclass(frozen=True)
class RunState:
    stage: str
    status: str = "active"
    phase: str = "ready"
    #: The latest `now` seen.
    clock: float = 0
    #: Successful stage inferences over the whole run (routing calls excluded).
    iteration: int = 0
    #: Requests issued so far; the outstanding one carries this number.
    requests: int = 0
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
    #: The text an interaction point presents again after an edit.
    body: str | None = None
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

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def region(self, name: str) -> RegionSnapshot:
        return self.regions.get(name, EMPTY_REGION)

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


def flags_report(state: RunState) -> dict[str, Any]:
    """The flags as a host records them, with the two computed at the end of a run."""
    flags = state.flags
    produced = state.final_output is not None
    out: dict[str, Any] = _encode(flags)
    out["produced_output"] = produced
    out["empty_output"] = (
        state.terminal and flags.modified_file_count == 0 and not produced and not flags.no_output_tools
    )
    return out


# The JSON codec reads the records above; it is imported last because it imports them.
from .statejson import encode as _encode  # noqa: E402
from .statejson import read_state as _read_state  # noqa: E402
from .statejson import state_dict as _state_dict  # noqa: E402
from .statejson import state_json as _state_json  # noqa: E402
