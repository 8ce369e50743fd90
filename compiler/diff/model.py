"""What a semantic diff returns: typed change records, the run delta, and the two sides.

Every value here is frozen and JSON-compatible where it holds blueprint data (`old` and `new`
are IR values), so a runtime can inspect a `Diff` (refuse a hot reload on `diff.has("breaking")`)
and the reporters can render it without knowing how it was computed.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any, Literal

from compiler.records import record

from ..diagnostics import KeyPath, format_key_path

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from ..parse.source import SourceFile

ChangeClass = Literal["breaking", "risky", "info"]
#: Most serious first: the order reports use, and what `--fail-on` compares against.
CLASSES: tuple[ChangeClass, ...] = ("breaking", "risky", "info")
#: `--fail-on` thresholds → the classes that trip them.
THRESHOLDS: dict[str, frozenset[str]] = {
    "breaking": frozenset({"breaking"}),
    "risky": frozenset({"breaking", "risky"}),
    "any": frozenset(CLASSES),
}
#: `--fail-on` values that name change kinds rather than classes.
KIND_THRESHOLDS: dict[str, frozenset[str]] = {"cost": frozenset({"cost-raised"})}


@record(order=True)
class Location:
    """Where a change is written in one version of the blueprint (1-based line and column)."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@record
class Change:
    """One difference between two blueprints, classified.

    `kind` is a key of `compiler.diff.rules.RULES`, which fixes its `change_class`. `path` is
    where it is in the IR, stages and edges by name (`stages.implement.max_revisits`, the new
    name of a renamed stage). `old`/`new` are the IR values on each side (None for what one
    side lacks; an element's name rather than its whole body). `old_at`/`new_at` locate it in
    each file, when the side was read from one.
    """

    kind: str
    change_class: ChangeClass
    message: str
    path: KeyPath = ()
    stage: str | None = None
    old: Any = None
    new: Any = None
    #: A short word diff of a changed text (`[-old-]{+new+}`), for prompts and hints.
    detail: str | None = None
    old_at: Location | None = None
    new_at: Location | None = None

    @property
    def key_path(self) -> str:
        return format_key_path(self.path)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "class": self.change_class,
            "message": self.message,
            "path": self.key_path,
            "stage": self.stage,
            "old": self.old,
            "new": self.new,
            "detail": self.detail,
            "old_location": _location(self.old_at),
            "new_location": _location(self.new_at),
        }


def _location(at: Location | None) -> dict[str, Any] | None:
    return None if at is None else {"file": at.file, "line": at.line, "column": at.column}


@record
class StageCeilingDelta:
    """One stage's ceilings on each side (None: unbounded; `present` False: no such stage)."""

    stage: str
    old_visits: int | None
    new_visits: int | None
    old_inferences: int | None
    new_inferences: int | None
    old_present: bool = True
    new_present: bool = True


@record
class RunSide:
    """The run analysis of one side, as far as a diff needs it."""

    #: Every run state was explored; when False the ceilings below are None.
    complete: bool
    states: int
    visits: int | None
    inferences: int | None
    #: Some run ends by completing.
    can_complete: bool
    #: The most tokens and dollars one run spends (None: no bound, or not known).
    tokens: int | None = None
    cost_usd: float | None = None
    #: Why `tokens` / `cost_usd` is None ("" when it is not).
    tokens_why: str = ""
    cost_why: str = ""


@record
class RunDelta:
    """What the runs can do on each side: totals, the stages whose ceilings moved, notes."""

    old: RunSide
    new: RunSide
    stages: tuple[StageCeilingDelta, ...] = ()
    #: Why something was not compared (an analysis cut short), in words.
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        def side(run: RunSide) -> dict[str, Any]:
            return {
                "complete": run.complete,
                "run_states": run.states,
                "visits": run.visits,
                "inferences": run.inferences,
                "can_complete": run.can_complete,
                "tokens": run.tokens,
                "cost_usd": run.cost_usd,
            }

        return {
            "old": side(self.old),
            "new": side(self.new),
            "stages": [
                {
                    "stage": s.stage,
                    "old": {"visits": s.old_visits, "inferences": s.old_inferences} if s.old_present else None,
                    "new": {"visits": s.new_visits, "inferences": s.new_inferences} if s.new_present else None,
                }
                for s in self.stages
            ],
            "notes": list(self.notes),
        }


@record
class DiffSide:
    """One version of the blueprint: its display name and canonical digest (None when absent)."""

    path: str
    digest: str | None
    #: The git revision it was read from (None: a file, or the working tree).
    revision: str | None = None
    name: str | None = None

    @property
    def label(self) -> str:
        return f"{self.revision}:{self.path}" if self.revision else self.path


@record
class Diff:
    """The semantic difference between two versions of a blueprint.

    `changes` are in report order: blueprint changes first, then what the runs can do, each
    group most serious class first. `runs` is None when the runs were not compared (asked
    not to, identical digests, or a blueprint added or removed).
    """

    old: DiffSide
    new: DiffSide
    changes: tuple[Change, ...] = ()
    runs: RunDelta | None = None
    #: "changed", "unchanged", "added" or "removed".
    status: str = "changed"
    #: Changes per class (computed).
    counts: dict[str, int] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        counts = {name: 0 for name in CLASSES}
        for change in self.changes:
            counts[change.change_class] += 1
        object.__setattr__(self, "counts", counts)

    def has(self, threshold: str) -> bool:
        """Some change trips `threshold`: "breaking", "risky" (or breaking), "any", or "cost"
        (the most tokens or dollars of a run went up)."""
        kinds = KIND_THRESHOLDS.get(threshold)
        if kinds is not None:
            return any(change.kind in kinds for change in self.changes)
        classes = THRESHOLDS.get(threshold)
        if classes is None:
            known = ", ".join([*THRESHOLDS, *KIND_THRESHOLDS])
            raise ValueError(f"threshold must be one of {known}, not {threshold!r}")
        return any(change.change_class in classes for change in self.changes)

    def of_class(self, change_class: str) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.change_class == change_class)

    def to_dict(self) -> dict[str, Any]:
        def side(s: DiffSide) -> dict[str, Any]:
            return {"path": s.path, "revision": s.revision, "name": s.name, "digest": s.digest}

        return {
            "old": side(self.old),
            "new": side(self.new),
            "status": self.status,
            "counts": dict(self.counts),
            "changes": [change.to_dict() for change in self.changes],
            "runs": self.runs.to_dict() if self.runs is not None else None,
        }


@record
class Refused:
    """Two versions that were not compared because one of them has errors (shown instead)."""

    old: DiffSide
    new: DiffSide
    #: "old" or "new": the version with errors.
    side: str
    diagnostics: tuple["Diagnostic", ...]
    source: "SourceFile | None" = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "old": {"path": self.old.path, "revision": self.old.revision},
            "new": {"path": self.new.path, "revision": self.new.revision},
            "status": "refused",
            "refused_side": self.side,
            "diagnostics": [d.to_dict() for d in self.diagnostics if d.severity == "error"],
        }
