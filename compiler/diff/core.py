"""`diff(old, new)`: two versions of a blueprint compared on their compiled IR.

    import compiler

    result = compiler.diff("old/agent.leviath", "agent.leviath")
    if result.has("breaking"):
        ...                                  # refuse the hot reload
    for change in result.changes:            # compiler.diff.Change records
        print(change.change_class, change.kind, change.message, change.new_at)

The IRs are walked (`walk`), each difference classified (`classify`), located in both files
(`locate`) and, unless `runs=False`, the runs of both versions explored and compared
(`runs`). Equal digests end the comparison early: the two versions mean the same.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from compiler.records import record

from ..ir.digest import encoded_digest
from ..ir.model import DEFAULT_MAX_ITERATIONS
from ..ir.serialize import encode
from .classify import Classifier, Pending
from .locate import Locator
from .model import CLASSES, Change, Diff, DiffSide, Location
from .rules import RULES
from .walk import compare as walk

if TYPE_CHECKING:
    from ..config import Settings
    from ..ir.model import Blueprint
    from ..parse.source import SourceFile


@record
class Version:
    """One side of a comparison: a blueprint without errors and, when read from a file, its text."""

    label: str
    blueprint: "Blueprint"
    source: "SourceFile | None" = None
    revision: str | None = None
    #: The cap its runs give a stage without `max_iterations` (its settings' default-max-iterations).
    default_max_iterations: int = DEFAULT_MAX_ITERATIONS
    #: Its settings, for what each model carries and costs (the token and cost ceilings).
    settings: "Settings | None" = None

    @property
    def side(self) -> DiffSide:
        return DiffSide(self.label, encoded_digest(encode(self.blueprint)), self.revision, self.blueprint.name)


def read_version(label: str, data: bytes, settings: "Settings | None" = None, revision: str | None = None) -> Version:
    """Validate a blueprint's bytes; `compiler.BlueprintError` (with every finding) when it has errors."""
    from ..api import BlueprintError
    from ..config import DEFAULT_SETTINGS
    from ..pipeline import validate_bytes

    settings = settings or DEFAULT_SETTINGS
    result = validate_bytes(label, data, settings)
    if not result.ok or result.blueprint is None:
        raise BlueprintError(result)
    return Version(label, result.blueprint, result.source, revision, settings.default_max_iterations, settings)


def _version(value: Any, settings: "Settings | None", role: str) -> Version:
    from ..ir.model import Blueprint
    from ..ir.serialize import read_ir
    from ..parse.source import read_blueprint

    if isinstance(value, Version):
        return value
    cap = settings.default_max_iterations if settings is not None else DEFAULT_MAX_ITERATIONS
    if isinstance(value, Blueprint):
        return Version(f"<{role}>", value, default_max_iterations=cap, settings=settings)
    if isinstance(value, dict):
        document = read_ir(value)
        return Version(document.source.path, document.blueprint, default_max_iterations=cap, settings=settings)
    if isinstance(value, (str, os.PathLike)):
        from ..config import DEFAULT_SETTINGS

        path = os.fspath(value)  # a file on disk: the tool scripts beside it count
        return read_version(path, read_blueprint(path), (settings or DEFAULT_SETTINGS).for_file(path))
    raise TypeError(
        f"diff compares blueprint files (a path), typed models (compiler.load) or IR documents (dict), "
        f"not {type(value).__name__}"
    )


def diff(
    old: Any, new: Any, *, runs: bool = True, settings: "Settings | None" = None, max_states: int | None = None
) -> Diff:
    """The semantic difference between two versions of a blueprint.

    `old` and `new` are each a blueprint file's path, a typed model (`compiler.load`), an IR
    document (`compiler.compile`) or a `Version`. Changes are located in the files when
    paths were given. `runs=False` skips exploring the runs (faster; no run delta).
    `max_states` caps each exploration, as `blueprint check --max-states` does; `settings`
    (default: the defaults) validate the files and give the runs their default iteration cap.

    Raises `compiler.BlueprintError` when a blueprint has errors, `OSError` when a file cannot
    be read, `compiler.IRError` for an unreadable IR document, `TypeError` for anything else.
    """
    return compare(_version(old, settings, "old"), _version(new, settings, "new"), runs=runs, max_states=max_states)


def compare(old: Version, new: Version, *, runs: bool = True, max_states: int | None = None) -> Diff:
    """`diff` of two versions already read."""
    old_json, new_json = encode(old.blueprint), encode(new.blueprint)
    before = DiffSide(old.label, encoded_digest(old_json), old.revision, old.blueprint.name)
    after = DiffSide(new.label, encoded_digest(new_json), new.revision, new.blueprint.name)
    if before.digest == after.digest:
        return Diff(before, after, status="unchanged")
    deltas, renames, renamed_old = walk(old_json, new_json)
    classifier = Classifier(renamed_old, new_json, renames, _starts(old.blueprint, new.blueprint, renames))
    pending = classifier.structural(_falls(old.blueprint, new.blueprint, renames)) + classifier.classify(deltas)
    delta = None
    if runs:
        from .runs import run_delta

        found, delta = run_delta(
            _analyze(old, max_states), _analyze(new, max_states), renames, old.settings, new.settings
        )
        pending += found
    return Diff(before, after, _located(pending, old, new), delta)


def added(new: Version) -> Diff:
    """A blueprint that only the new side has."""
    change = Change(
        "blueprint-added",
        RULES["blueprint-added"].change_class,
        f"new blueprint '{new.blueprint.name}'",
        new=new.blueprint.name,
        new_at=Location(new.label, 1, 1),
    )
    return Diff(DiffSide(new.label, None, None), new.side, (change,), status="added")


def removed(old: Version) -> Diff:
    """A blueprint that only the old side has."""
    message = f"blueprint '{old.blueprint.name}' removed: the file is gone"
    change = Change(
        "blueprint-removed",
        RULES["blueprint-removed"].change_class,
        message,
        old=old.blueprint.name,
        old_at=Location(old.label, 1, 1),
    )
    return Diff(old.side, DiffSide(old.label, None, None), (change,), status="removed")


def _analyze(version: Version, max_states: int | None):
    from ..analysis.core import analyze
    from ..analysis.runs import STATE_LIMIT

    return analyze(
        version.blueprint, limit=max_states or STATE_LIMIT, default_max_iterations=version.default_max_iterations
    )


def _starts(old: "Blueprint", new: "Blueprint", renames: dict[str, str]) -> tuple[str, str]:
    """The stage a run starts in on each side, as the stage-runner decides it (old in new naming)."""
    from ..runtime.machine import start

    first = start(old)[0].stage
    return renames.get(first, first), start(new)[0].stage


def _falls(old: "Blueprint", new: "Blueprint", renames: dict[str, str]) -> dict[str, tuple[str | None, str | None]]:
    """Stages without transitions on both sides → the stage each falls through to (new naming)."""
    back = {to: name for name, to in renames.items()}
    out: dict[str, tuple[str | None, str | None]] = {}
    for stage in new.stages:
        before = old.stage(back.get(stage.name, stage.name))
        if stage.transitions is None and before is not None and before.transitions is None:
            was, now = old.next_stage(before), new.next_stage(stage)
            out[stage.name] = (renames.get(was.name, was.name) if was else None, now.name if now else None)
    return out


def _located(pending: list[Pending], old: Version, new: Version) -> tuple[Change, ...]:
    """The changes with their places in both files, in report order (blueprint, then runs; by class)."""
    at_old = Locator(old.label, old.source, old.blueprint)
    at_new = Locator(new.label, new.source, new.blueprint)
    changes = [
        replace(p.change, old_at=at_old.at(p.old_path, ir=p.ir), new_at=at_new.at(p.new_path, ir=p.ir)) for p in pending
    ]
    rank = {name: number for number, name in enumerate(CLASSES)}
    groups = {"blueprint": 0, "runs": 1}

    def key(i: int) -> tuple[int, int, int]:
        return groups[RULES[changes[i].kind].group], rank[changes[i].change_class], i

    return tuple(changes[i] for i in sorted(range(len(changes)), key=key))
