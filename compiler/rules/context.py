"""What a check sees: the source, the raw document, the typed model, positions, settings.

Checks are pure: they read the context and return diagnostics made with `ctx.report`,
which fills in the rule's severity, the position of the key path and the stage it concerns.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from ..diagnostics import Diagnostic, KeyPath, Related
from ..parse.positions import PositionIndex
from ..rulebook.registry import DEFAULT, Rule

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..config import Settings
    from ..discover import RegionScript
    from ..ir.model import Blueprint
    from ..parse.source import SourceFile

#: Sentinel for "not present in the document" (None is a legitimate TOML-less value here).
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING", "__bool__": lambda self: False})()

Anchor = Literal["key", "value"]


class RuleContext:
    def __init__(
        self,
        source: "SourceFile",
        document: dict[str, Any],
        blueprint: "Blueprint",
        settings: "Settings",
        region_scripts: "Mapping[str, RegionScript] | None" = None,
    ) -> None:
        self.source = source
        self.file = source.path
        self.document = document
        self.blueprint = blueprint
        self.settings = settings
        #: Each custom region's declared script, resolved beside the blueprint; None when the
        #: blueprint is not a file on disk (`Settings.blueprint_folder`), so none was looked up.
        self.region_scripts = region_scripts
        #: What several rules derive from the document, computed once per file (rules/common.py).
        self.memo: dict[str, Any] = {}

    @cached_property
    def index(self) -> PositionIndex:
        return PositionIndex(self.source.text, self.source.lines)

    @cached_property
    def graph(self):  # -> compiler.graph.StageGraph (standard library only; never networkx)
        from ..graph.model import StageGraph

        return StageGraph.from_blueprint(self.blueprint)

    def raw(self, path: KeyPath, default: Any = MISSING) -> Any:
        """The value the document holds at `path`, or `default` when it has none."""
        node: Any = self.document
        for part in path:
            if type(node) is dict and type(part) is str:  # the common step, without isinstance calls
                node = node.get(part, MISSING)
                if node is MISSING:
                    return default
                continue
            if isinstance(part, int):
                if not isinstance(node, list) or not -len(node) <= part < len(node):
                    return default
            elif not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    def report(
        self,
        rule: Rule,
        message: str,
        path: KeyPath = (),
        *,
        anchor: Anchor = "key",
        stage: str | Any | None = MISSING,
        fix: str | Any | None = DEFAULT,
        related: Iterable[tuple[str, KeyPath]] = (),
    ) -> Diagnostic:
        """A finding of `rule` located at `path`.

        `anchor="value"` points at the value (wrong type, bad enum), `"key"` at the key that
        names the path. `stage` defaults to the stage the path lies under; `fix` to the
        rule's own fix hint. `related` lists (message, path) pairs, located the same way.
        """
        path = tuple(path)
        span, _ = self.index.locate(path, prefer=anchor)
        if stage is MISSING:
            stage = path[1] if len(path) >= 2 and path[0] == "stages" and isinstance(path[1], str) else None
        return rule.diagnostic(
            message,
            file=self.file,
            path=path,
            span=span,
            stage=stage,
            fix=fix,
            related=tuple(Related(text, tuple(p), self.index.locate(tuple(p), prefer="key")[0]) for text, p in related),
        )
