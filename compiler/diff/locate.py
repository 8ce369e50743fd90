"""Where an IR path is written in a blueprint file: IR path → TOML key path → line and column.

The IR names most things as the file does (`stages.plan.transitions.review.gate`), with a
few exceptions this module undoes: the `[agent]` keys sit at the IR's top level, regions
under `layout` are `[context.regions]`, model entries are `models`, stuck thresholds are
`stuck_after_*`, a custom transform is `transform_config`, fan-out keys sit on the stage, and
interaction points are an array (found by name). A path with no text of its own (a default,
a key that was removed) is located at its nearest written ancestor, as findings are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..diagnostics import KeyPath
from ..parse.positions import PositionIndex
from .model import Location

if TYPE_CHECKING:
    from ..ir.model import Blueprint
    from ..parse.source import SourceFile

#: IR top-level keys that the file writes in `[agent]`.
AGENT_KEYS = frozenset(
    {
        "name",
        "version",
        "description",
        "entry_stage",
        "max_child_depth",
        "dynamic_tools",
        "batch_tool_hint",
        "shell_hint",
        "nudge",
        "output",
    }
)
#: Region keys the file spells differently.
REGION_KEYS: dict[str | int, str] = {"budget_percent": "budget", "compact_at_percent": "compact_at"}


def toml_path(path: KeyPath, blueprint: "Blueprint | None") -> KeyPath:
    """The key path in the file of the IR path `path` (stages and edges by name)."""
    if not path:
        return ()
    head, rest = path[0], path[1:]
    if head in AGENT_KEYS:
        return ("agent", head, *rest)
    if head == "layout":
        return ("context", *_regions(rest))
    if head == "file_tracking":
        return ("context", "file_tracking", *rest)
    if head != "stages" or not rest:
        return tuple(path)
    name, inner = rest[0], rest[1:]
    return ("stages", name, *_stage(name, inner, blueprint))


def _stage(name: Any, path: KeyPath, blueprint: "Blueprint | None") -> KeyPath:
    if not path:
        return ()
    key, rest = path[0], path[1:]
    if key == "layout":
        return ("context", *_regions(rest))
    if key == "fan_out":
        return rest[:1]
    if key == "model":
        return ("model", *(("models", *rest[1:]) if rest[:1] == ("entries",) else rest))
    if key == "interaction_points" and rest:
        stage = blueprint.stage(name) if blueprint is not None else None
        names = [point.name for point in stage.interaction_points] if stage is not None else []
        index = names.index(rest[0]) if rest[0] in names else None
        return ("interaction_points",) if index is None else ("interaction_points", index, *rest[1:])
    if key == "transitions" and len(rest) >= 3 and rest[1] == "stuck":
        return ("transitions", rest[0], f"stuck_after_{rest[2]}")
    if key == "transitions" and len(rest) >= 2 and rest[1] == "custom":
        return ("transitions", rest[0], "transform_config", *rest[2:])
    return tuple(path)


def _regions(path: KeyPath) -> KeyPath:
    if len(path) >= 3 and path[0] == "regions":
        return ("regions", path[1], REGION_KEYS.get(path[2], path[2]), *path[3:])
    return tuple(path)


class Locator:
    """Locations in one side's file (nothing when the side was not read from a file)."""

    def __init__(self, label: str, source: "SourceFile | None", blueprint: "Blueprint | None") -> None:
        self.label = label
        self.blueprint = blueprint
        self.index = PositionIndex(source.text, source.lines) if source is not None else None

    def at(self, path: KeyPath | None, *, ir: bool = True) -> Location | None:
        """Where the IR path (`ir=False`: the file's key path) is written, or None."""
        if path is None or self.index is None:
            return None
        keys = toml_path(path, self.blueprint) if ir else tuple(path)
        span, _ = self.index.locate(keys, prefer="value")
        return None if span is None else Location(self.label, span.line, span.column)
