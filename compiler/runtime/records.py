"""The records a `RunState` is made of, and its version: plain frozen values, standard library only.

`compiler.runtime.state` builds the state from them and `statejson` reads and writes them; both
import this module, and it imports neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field

STATE_VERSION = 3
#: Versions `from_json` reads. Version 1 predates `default_max_iterations`: its runs had no
#: default cap, and read back they keep none. Version 2 predates the durability fields (the
#: run id, the pinned blueprint digest, action numbering, the dispatched mark, host data):
#: read back, such a state is pinned to the blueprint it is next stepped with.
READABLE_STATE_VERSIONS: tuple[int, ...] = (1, 2, 3)

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
    #: Edges taken without the model's choice because every other normal edge's target had
    #: spent its revisits (the review loop that reaches `publish` unapproved).
    revisits_forced: int = 0
    #: Routing replies that named no offered stage: the first offered edge was taken (or, with
    #: `allow_complete`, the run completed).
    routing_fallbacks: int = 0
