"""Go to definition, find references, document highlights and the outline.

Every name that points at something is an `Occurrence` of the document's `NameIndex`: going to
its definition lands on the stage's or region's table key (or opens the `tools/<name>.rhai` or
hook script it names), and references are every occurrence of the same kind and name.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..diagnostics import KeyPath, Span
from .names import LAYOUTS, Occurrence, matches
from .ranges import span_point, to_range

if TYPE_CHECKING:
    from .documents import Analysis, Document
    from .server import BlueprintServer


def occurrence_at(analysis: "Analysis", position: types.Position) -> Occurrence | None:
    """The name under the cursor, in a version that parsed."""
    if not analysis.parsed:
        return None
    line, column = span_point(analysis.lines, position)
    return analysis.names.at(line, column)


def _location(uri: str, analysis: "Analysis", span: Span) -> types.Location:
    return types.Location(uri=uri, range=to_range(analysis.lines, span))


def definition(ls: "BlueprintServer", document: "Document", analysis: "Analysis", params: Any) -> Any:
    occurrence = occurrence_at(analysis, params.position)
    if occurrence is None:
        return None
    names = analysis.names
    if occurrence.kind in ("tool", "script"):
        target = names.script_file(occurrence)
        if target is None:
            return None
        start = types.Position(line=0, character=0)
        return types.Location(uri=Path(target).as_uri(), range=types.Range(start=start, end=start))
    declared = names.declarations(occurrence.kind, occurrence.name)
    if occurrence.kind == "stage":
        declared = declared[:1]  # the stage's first table key: where it is declared
    return [_location(document.uri, analysis, o.span) for o in declared] or None


def references(ls: "BlueprintServer", document: "Document", analysis: "Analysis", params: Any) -> Any:
    occurrence = occurrence_at(analysis, params.position)
    if occurrence is None:
        return None
    include = params.context.include_declaration if params.context is not None else True
    return [
        _location(document.uri, analysis, o.span)
        for o in analysis.names.of(occurrence.kind, occurrence.name)
        if include or not o.declaration
    ]


def highlights(ls: "BlueprintServer", document: "Document", analysis: "Analysis", params: Any) -> Any:
    occurrence = occurrence_at(analysis, params.position)
    if occurrence is None:
        return None
    return [
        types.DocumentHighlight(
            range=to_range(analysis.lines, o.span),
            kind=types.DocumentHighlightKind.Write if o.declaration else types.DocumentHighlightKind.Read,
        )
        for o in analysis.names.of(occurrence.kind, occurrence.name)
    ]


# --- outline -------------------------------------------------------------------------------


def symbols(ls: "BlueprintServer", document: "Document", analysis: "Analysis", params: Any) -> Any:
    """Stages (with their edges and own regions), the global regions and `[agent]`."""
    if not analysis.parsed:
        return None  # an older version's positions would point at the wrong lines
    blueprint = analysis.result.blueprint
    assert blueprint is not None
    extents = _extents(analysis)
    lines = analysis.lines
    index = analysis.index

    def symbol(
        name: str,
        detail: str | None,
        kind: types.SymbolKind,
        path: KeyPath,
        children: list[types.DocumentSymbol | None],
    ) -> types.DocumentSymbol | None:
        key = index.key_span(path)
        extent = extents.get(path)
        if key is None or extent is None:
            return None
        start = min(extent[0], (key.line, key.column))
        end = max(extent[1], (key.end_line, key.end_column))
        return types.DocumentSymbol(
            name=name or '""',
            detail=detail,
            kind=kind,
            range=to_range(lines, Span(*start, *end)),
            selection_range=to_range(lines, key),
            children=[c for c in children if c is not None] or None,
        )

    out: list[types.DocumentSymbol | None] = []
    if "agent" in (analysis.result.document or {}):
        out.append(symbol("agent", blueprint.name, types.SymbolKind.Module, ("agent",), []))
    if not blueprint.layout.fallback:
        prefix: KeyPath = ("context", "regions")
        out.append(
            symbol("regions", None, types.SymbolKind.Namespace, prefix, _regions(symbol, prefix, blueprint.layout))
        )
    stage_names = set() if blueprint.default_stage else set(blueprint.stage_names)
    for stage in blueprint.stages:
        if stage.name not in stage_names:
            continue
        path: KeyPath = ("stages", stage.name)
        children = [
            symbol(f"→ {edge.target}", edge.condition, types.SymbolKind.Event, path + ("transitions", edge.target), [])
            for edge in stage.transitions or ()
        ]
        if stage.layout is not None:
            children += _regions(symbol, path + ("context", "regions"), stage.layout)
        detail = stage.mode + (" (entry)" if stage.name == blueprint.entry else "")
        out.append(symbol(stage.name, detail, types.SymbolKind.Class, path, children))
    return [s for s in out if s is not None]


def _regions(symbol: Any, prefix: KeyPath, layout: Any) -> list[Any]:
    return [symbol(r.name, r.kind, types.SymbolKind.Field, prefix + (r.name,), []) for r in layout.regions]


def _extents(analysis: "Analysis") -> dict[KeyPath, tuple[tuple[int, int], tuple[int, int]]]:
    """For each stage, edge, region and top table: the first and last position any of its
    keys, values or headers takes, in one pass over the index's offsets."""
    offsets: dict[KeyPath, tuple[int, int]] = {}
    for path, entry in analysis.index.entries.items():
        owners = _owners(path)
        if not owners:
            continue
        for pair in (entry.header, entry.key, entry.value):
            if pair is None:
                continue
            for owner in owners:
                known = offsets.get(owner)
                offsets[owner] = pair if known is None else (min(known[0], pair[0]), max(known[1], pair[1]))
    lines = analysis.source.lines
    out = {}
    for owner, (start, end) in offsets.items():
        span = lines.span(start, end)
        out[owner] = (span.line, span.column), (span.end_line, span.end_column)
    return out


def _owners(path: KeyPath) -> list[KeyPath]:
    """The outline entries a path lies within."""
    owners: list[KeyPath] = []
    if path and path[0] == "agent":
        owners.append(("agent",))
    if len(path) >= 2 and path[0] == "stages":
        owners.append(path[:2])
        if len(path) >= 4 and path[2] == "transitions":
            owners.append(path[:4])
    for layout in LAYOUTS:
        table = layout[:-1]  # the regions table; a region is one key deeper
        n = len(table)
        if len(path) >= n and matches(path[:n], table):
            owners.append(path[:n])
            if len(path) > n:
                owners.append(path[: n + 1])
    return owners
