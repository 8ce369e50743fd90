"""Values written in a form the runtime accepts but reads as another one: an alias
(`transform = "summarize"`, region `kind = "hash_map"`, seed `refresh = "stage"`), a letter
case it ignores (`"ALLOW"`), or a value of another type where a table belongs that it reads as
that table with every key at its default (`[stages.a.transitions]` `b = "true"` is an edge to
`b`). Each reads exactly like its canonical form, so `blueprint validate --fix` rewrites it
without changing what a run does.

`canonical_values(document)` and `tables_written_as_values(document)` are the one list of
such values; the check reports them and the fixer below rewrites them, so the two
cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...diagnostics import Diagnostic, KeyPath, format_key_path
from ...ir.build_edges import TRANSFORM_ALIASES
from ...ir.build_regions import REGION_KIND_ALIASES
from ...ir.build_sections import POLICIES
from ...ir.build_values import Table, ascii_lower, table
from ...rulebook.fixers import KeyEdits, KeyFix, Unfixable
from ...rulebook.registry import LINT
from ...rulebook.snippets import stage as stage_example
from ...schema.describe import dotted, preview, toml_type
from ..context import RuleContext

#: Seed `refresh` spellings (after trimming and ASCII lower-casing) and what they mean.
REFRESH_SPELLINGS = {"once": "once", "spawn": "once", "each_stage": "each_stage", "stage": "each_stage"}


def write_canonical(edits: KeyEdits, finding: Diagnostic) -> None:
    """The fixer: `{}` for a value where a table belongs, else the canonical spelling."""
    path = tuple(finding.path)
    if path in edits.derived(_tables_written_as_values):
        edits.replace_with_table(path)
        return
    canonical = edits.derived(_canonical_spellings).get(path)
    if canonical is None:
        raise Unfixable("the value is already canonical")
    edits.replace_string(path, canonical)


NON_CANONICAL_VALUE = LINT.define(
    "non-canonical-value",
    severity="warning",
    summary=(
        'A value is written in a form the runtime reads as another (`summarize`, `"ALLOW"`, `b = "true"` as an edge).'
    ),
    rationale=(
        'The runtime reads `transform = "summarize"` as `compact`, region `kind = "hash_map"` as '
        '`hashmap`, a seed\'s `refresh = "stage"` as `each_stage` (and `"spawn"` as `once`, '
        "ignoring case and surrounding spaces), and tool policies whatever their case. Where a "
        "table belongs, it reads any other value as that table with every key at its default: "
        '`b = "true"` (or `b = false`) under `[stages.a.transitions]` is an `always` edge to '
        "`b`, `solo = 5` under `[stages]` a stage, `r = 5` under `[context.regions]` a temporary "
        'region, a number in `interaction_points` a blank checkpoint, `agent = "x"` an agent '
        "with every setting at its default. The file works, but it does not say what it does: "
        '`b = false` reads as "no edge" and is one. `blueprint validate --fix` writes the '
        "canonical form (`b = {}`), which runs exactly the same; remove the line instead if no "
        "edge, stage or region was meant."
    ),
    example=stage_example("work", '[stages.work.transitions.done]\ntransform = "summarize"')
    + "\n\n"
    + stage_example("done", "[stages.done.transitions]"),
    example_fixed=stage_example("work", '[stages.work.transitions.done]\ntransform = "compact"')
    + "\n\n"
    + stage_example("done", "[stages.done.transitions]"),
    fix="write the canonical spelling",
    fixer=KeyFix(write_canonical),
)


def canonical_values(document: dict[str, Any]) -> Iterator[tuple[KeyPath, str, str]]:
    """(key path, value as written, canonical spelling) for every value written in another
    spelling of what the runtime reads, in document order."""
    yield from _policies(document.get("tool_permissions"), ("tool_permissions",))
    yield from _regions(table(table(document.get("context")).get("regions")), ("context", "regions"))
    for name, stage in table(document.get("stages")).items():
        if not isinstance(stage, dict):
            continue
        base: KeyPath = ("stages", name)
        yield from _policies(stage.get("tool_permissions"), base + ("tool_permissions",))
        yield from _regions(table(table(stage.get("context")).get("regions")), base + ("context", "regions"))
        for target, edge in table(stage.get("transitions")).items():
            value = table(edge).get("transform")
            if isinstance(value, str) and value in TRANSFORM_ALIASES:
                yield base + ("transitions", target, "transform"), value, TRANSFORM_ALIASES[value]


def tables_written_as_values(document: dict[str, Any]) -> Iterator[tuple[KeyPath, Any, str]]:
    """(key path, value as written, what the runtime reads it as) for every value of another
    type where a table belongs and the runtime reads it as that table with every key at its
    default (format.md R3), in document order."""
    if "agent" in document and not isinstance(document["agent"], dict):
        yield ("agent",), document["agent"], "the [agent] table with every setting at its default"
    yield from _scalar_regions(table(document.get("context")).get("regions"), ("context", "regions"))
    for name, stage in table(document.get("stages")).items():
        base: KeyPath = ("stages", name)
        if not isinstance(stage, dict):
            yield base, stage, f"a stage '{name}' with every key at its default (an autonomous stage)"
            continue
        yield from _scalar_regions(table(stage.get("context")).get("regions"), base + ("context", "regions"))
        for target, edge in table(stage.get("transitions")).items():
            if not isinstance(edge, dict):
                yield (
                    base + ("transitions", target),
                    edge,
                    (f"an edge from '{name}' to '{target}' with every key at its default (condition always)"),
                )
        points = stage.get("interaction_points")
        for index, point in enumerate(points if isinstance(points, list) else ()):
            if not isinstance(point, dict):
                yield (
                    base + ("interaction_points", index),
                    point,
                    (f"a blank interaction point of stage '{name}' (no name, no prompt)"),
                )


def _scalar_regions(regions: Any, path: KeyPath) -> Iterator[tuple[KeyPath, Any, str]]:
    for name, region in table(regions).items():
        if not isinstance(region, dict):
            yield path + (name,), region, f"a region '{name}' with every key at its default (temporary, 5000 tokens)"


def _policies(policies: Any, path: KeyPath) -> Iterator[tuple[KeyPath, str, str]]:
    for tool, policy in table(policies).items():
        if isinstance(policy, str) and policy not in POLICIES and ascii_lower(policy) in POLICIES:
            yield path + (tool,), policy, ascii_lower(policy)


def _regions(regions: Table, path: KeyPath) -> Iterator[tuple[KeyPath, str, str]]:
    for name, region in regions.items():
        region = table(region)
        kind = region.get("kind")
        if isinstance(kind, str) and kind in REGION_KIND_ALIASES:
            yield path + (name, "kind"), kind, REGION_KIND_ALIASES[kind]
        seed = region.get("seed")
        refresh = table(seed).get("refresh")
        if isinstance(refresh, str):
            meaning = REFRESH_SPELLINGS.get(ascii_lower(refresh.strip()))
            if meaning is not None and refresh != meaning:
                yield path + (name, "seed", "refresh"), refresh, meaning


def _canonical_spellings(document: dict[str, Any]) -> dict[KeyPath, str]:
    return {path: canonical for path, _, canonical in canonical_values(document)}


def _tables_written_as_values(document: dict[str, Any]) -> set[KeyPath]:
    return {path for path, _, _ in tables_written_as_values(document)}


@LINT.check(NON_CANONICAL_VALUE)
def check_spellings(ctx: RuleContext) -> Iterator[Diagnostic]:
    for path, written, canonical in canonical_values(ctx.document):
        yield ctx.report(
            NON_CANONICAL_VALUE,
            f"{_what(path)} '{written}' is read as '{canonical}'",
            path,
            anchor="value",
            fix=f'write "{canonical}" (`blueprint validate --fix` does it)',
        )
    for path, written, meaning in tables_written_as_values(ctx.document):
        shown = preview(written)
        yield ctx.report(
            NON_CANONICAL_VALUE,
            f"{dotted(path)} is {toml_type(written)}{f' ({shown})' if shown is not None else ''} where a table "
            f"belongs; the runtime reads any such value as {meaning}, whatever the value says",
            path,
            anchor="value",
            fix=f"write {_write_empty(path)} (`blueprint validate --fix` does it), or remove it if none was meant",
        )


def _write_empty(path: KeyPath) -> str:
    """`b = {}`, or `{} in its place` for an array entry."""
    if isinstance(path[-1], int):
        return "{} in its place"
    return f"{format_key_path(path[-1:])} = {{}}"


def _what(path: KeyPath) -> str:
    if path[-1] == "transform":
        return "transform"
    if path[-1] == "kind":
        return f"region '{path[-2]}': kind"
    if path[-1] == "refresh":
        return f"region '{path[-3]}': seed refresh"
    return f"tool '{path[-1]}': policy"
