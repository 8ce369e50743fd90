"""Helpers every rule family shares: key paths, raw tables and lists, name lists, suggestions."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..diagnostics import KeyPath, format_key_path
from ..suggestions import closest

if TYPE_CHECKING:
    from ..ir.model import Edge, Layout, Stage
    from .context import RuleContext


def stage_path(stage: str) -> KeyPath:
    return ("stages", stage)


def edge_path(source: str, target: str) -> KeyPath:
    return ("stages", source, "transitions", target)


def header(path: KeyPath) -> str:
    """How a TOML header names a table: `[stages.plan]`, `[stages."two words"]`."""
    return f"[{format_key_path(path)}]"


def raw_table(ctx: "RuleContext", path: KeyPath) -> dict[str, Any]:
    """The table the document holds at `path`, or an empty one."""
    value = ctx.raw(path, None)
    return value if isinstance(value, dict) else {}


def edges(ctx: "RuleContext") -> Iterator[tuple["Stage", "Edge"]]:
    found = ctx.memo.get("edges")  # a dozen rules walk every edge; the pairs are listed once
    if found is None:
        found = ctx.memo["edges"] = [
            (stage, edge) for stage in ctx.blueprint.stages for edge in stage.transitions or ()
        ]
    return iter(found)


def reached_stages(ctx: "RuleContext") -> frozenset[str]:
    """Stages a run can reach from the entry (`StageGraph.reachable`), found once per file."""
    found = ctx.memo.get("reached")
    if found is None:
        found = ctx.memo["reached"] = frozenset(ctx.graph.reachable())
    return found


def layouts(ctx: "RuleContext") -> Iterator[tuple[KeyPath, "Layout", str | None]]:
    """(regions table path, layout, stage name or None) for every layout the file declares."""
    blueprint = ctx.blueprint
    if not blueprint.layout.fallback:
        yield ("context", "regions"), blueprint.layout, None
    for stage in blueprint.stages:
        if stage.layout is not None:
            yield ("stages", stage.name, "context", "regions"), stage.layout, stage.name


def raw_region_tables(ctx: "RuleContext") -> Iterator[tuple[KeyPath, dict[str, Any]]]:
    """(regions table path, raw regions table) for the global and every stage layout written."""
    # Several rules walk these; the list is built once per file (a walk of every stage each).
    found = ctx.memo.get("raw_region_tables")
    if found is None:
        found = ctx.memo["raw_region_tables"] = list(_raw_region_tables(ctx))
    return iter(found)


def _raw_region_tables(ctx: "RuleContext") -> Iterator[tuple[KeyPath, dict[str, Any]]]:
    yield ("context", "regions"), raw_table(ctx, ("context", "regions"))
    for name, stage in raw_table(ctx, ("stages",)).items():
        if isinstance(stage, dict):
            context = stage.get("context")
            regions = context.get("regions") if isinstance(context, dict) else None
            yield ("stages", name, "context", "regions"), regions if isinstance(regions, dict) else {}


def raw_seeds(ctx: "RuleContext") -> Iterator[tuple[KeyPath, str, dict[str, Any]]]:
    """(seed path, region name, raw seed table) for every region whose `seed` is a table."""
    found = ctx.memo.get("raw_seeds")  # built once per file, like raw_region_tables
    if found is None:
        found = ctx.memo["raw_seeds"] = list(_raw_seeds(ctx))
    return iter(found)


def _raw_seeds(ctx: "RuleContext") -> Iterator[tuple[KeyPath, str, dict[str, Any]]]:
    for prefix, regions in raw_region_tables(ctx):
        for region, raw in regions.items():
            seed = raw.get("seed") if isinstance(raw, dict) else None
            if isinstance(seed, dict):
                yield prefix + (region, "seed"), region, seed


def string_entries(value: object) -> Iterator[tuple[int, str]]:
    """(index, name) of every string in a list value (other types are the schema's)."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, str):
                yield index, item


def quoted(names: Iterable[str], limit: int = 6) -> str:
    """'a', 'b' and 'c' (at most `limit` names, then a count of the rest)."""
    names = list(names)
    shown = [f"'{n}'" for n in names[:limit]]
    if len(names) > limit:
        shown.append(f"{len(names) - limit} more")
    if len(shown) <= 1:
        return "".join(shown)
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def suggest(name: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate to a misspelt `name`, if one is close enough."""
    return closest(name, candidates)


def did_you_mean(name: str, candidates: Iterable[str], otherwise: str) -> str:
    """A fix hint: "did you mean 'x'?" when a candidate is close, else `otherwise`."""
    match = suggest(name, candidates)
    return f"did you mean '{match}'?" if match is not None else otherwise
