"""Values written in a spelling the runtime accepts but reads as another one: an alias
(`transform = "summarize"`, region `kind = "hash_map"`, seed `refresh = "stage"`) or a letter
case it ignores (`"ALLOW"`). Each reads exactly like its canonical spelling, so
`blueprint validate --fix` rewrites it without changing what a run does.

`canonical_values(document)` is the one list of such values; the check reports it and the
fixer (`compiler.fix`) rewrites it, so the two cannot disagree.
"""

from __future__ import annotations

from typing import Any, Iterator

from ...diagnostics import Diagnostic, KeyPath
from ...ir.build_edges import TRANSFORM_ALIASES
from ...ir.build_regions import REGION_KIND_ALIASES
from ...ir.build_sections import POLICIES
from ...ir.build_values import Table, ascii_lower, table
from ..context import RuleContext
from ..registry import check, define
from .snippets import stage as stage_example

FAMILY = "lint"
CODE = "non-canonical-value"

#: Seed `refresh` spellings (after trimming and ASCII lower-casing) and what they mean.
REFRESH_SPELLINGS = {"once": "once", "spawn": "once", "each_stage": "each_stage", "stage": "each_stage"}

define(
    CODE,
    severity="note",
    family=FAMILY,
    summary="A value uses an alias or a letter case the runtime also accepts (`summarize`, `hash_map`, `\"ALLOW\"`).",
    rationale=(
        "The runtime reads `transform = \"summarize\"` as `compact`, region `kind = \"hash_map\"` as "
        "`hashmap`, a seed's `refresh = \"stage\"` as `each_stage` (and `\"spawn\"` as `once`, "
        "ignoring case and surrounding spaces), and tool policies whatever their case. Two "
        "spellings of one thing make a blueprint harder to search and to compare, and readers "
        "wonder whether they differ. Nothing changes at run time, so `blueprint validate --fix` "
        "rewrites them."
    ),
    example=stage_example("work", '[stages.work.transitions.done]\ntransform = "summarize"')
    + "\n\n"
    + stage_example("done", "[stages.done.transitions]"),
    example_fixed=stage_example("work", '[stages.work.transitions.done]\ntransform = "compact"')
    + "\n\n"
    + stage_example("done", "[stages.done.transitions]"),
    fix="write the canonical spelling",
    fixable=True,
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


@check(CODE, family=FAMILY)
def check_spellings(ctx: RuleContext) -> Iterator[Diagnostic]:
    for path, written, canonical in canonical_values(ctx.document):
        yield ctx.report(
            CODE,
            f"{_what(path)} '{written}' is read as '{canonical}'",
            path,
            anchor="value",
            fix=f'write "{canonical}" (`blueprint validate --fix` does it)',
        )


def _what(path: KeyPath) -> str:
    if path[-1] == "transform":
        return "transform"
    if path[-1] == "kind":
        return f"region '{path[-2]}': kind"
    if path[-1] == "refresh":
        return f"region '{path[-3]}': seed refresh"
    return f"tool '{path[-1]}': policy"
