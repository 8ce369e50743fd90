"""Region definitions the reference refuses: budgets, custom scripts, the working budget."""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...ir.build_regions import parse_percent
from ...rulebook.registry import STRUCTURE
from ..context import MISSING, RuleContext
from .common import layouts, raw_region_tables

INVALID_BUDGET = STRUCTURE.define(
    "invalid-budget",
    severity="error",
    summary='A region `budget` or `compact_at` is not a percentage "N%" with 0 < N ≤ 100.',
    rationale=(
        "Both keys are a share of the model's context window, written as a number followed by "
        "'%'. The reference runtime refuses to load a blueprint with any other spelling, for "
        "every region kind (even where the key is unused), so the value cannot be a token count, "
        "a fraction, zero or more than the whole window."
    ),
    example='[context.regions]\nnotes = { kind = "compacting", budget = "0.3", compact_at = "120%" }',
    example_fixed='[context.regions]\nnotes = { kind = "compacting", budget = "30%", compact_at = "80%" }',
    fix='write a percentage such as "35%" (more than 0, at most 100); use max_tokens for a token count',
    leviath="P32, P33 (P25 in a stage layout)",
)

CUSTOM_REGION_MISSING_SCRIPT = STRUCTURE.define(
    "custom-region-missing-script",
    severity="error",
    summary='A region of `kind = "custom"` has no `script`.',
    rationale=(
        "A custom region is rendered by its Rhai script; without one it could never be drawn. "
        "The reference runtime refuses the blueprint when `script` is missing or blank."
    ),
    example='[context.regions]\nboard = { kind = "custom" }',
    example_fixed='[context.regions]\nboard = { kind = "custom", script = "regions/board.rhai" }',
    fix='add script = "<path>.rhai" to the region, or choose another kind',
    leviath="P35, V3 (P25 in a stage layout)",
)

_SCRIPT_RESOLUTION = (
    "Leviath resolves the path against the folder the blueprint file is in (an absolute path "
    "is taken as it is) when `lev validate`, `lev test` or a run loads the blueprint, and "
    "refuses the blueprint when the script resolves outside that folder once symbolic links "
    "are followed, or when there is no file it can read there. "
)
_NOT_CHECKED = (
    "Only the path is checked, from the blueprint's folder on disk: a blueprint checked as "
    "text (`validate_text`, standard input without `--stdin-filename`) gets no finding. "
    "Leviath also compiles the script and requires a `render` function; blueprint-compiler "
    "reads no Rhai, so a script that does not compile passes here and fails there."
)

CUSTOM_REGION_SCRIPT_NOT_FOUND = STRUCTURE.define(
    "custom-region-script-not-found",
    severity="error",
    summary="A custom region's `script` names no file that can be read, beside the blueprint.",
    rationale=(
        "A custom region is drawn by its Rhai script, every turn. "
        + _SCRIPT_RESOLUTION
        + "A misspelt path, a script never committed, or a folder where the file should be "
        "stops every run before it starts. " + _NOT_CHECKED
    ),
    example='[context.regions]\nboard = { kind = "custom", script = "regions/bord.rhai" }',
    example_fixed='[context.regions]\nboard = { kind = "custom", script = "regions/board.rhai" }',
    fix="create the script, or correct the path (relative to the blueprint's folder)",
    leviath="resolve_region_scripts (run by lev validate, lev test and every spawn)",
)

CUSTOM_REGION_SCRIPT_OUTSIDE = STRUCTURE.define(
    "custom-region-script-outside",
    severity="error",
    summary="A custom region's `script` resolves outside the blueprint's folder.",
    rationale=(
        "A script is code the blueprint ships, so Leviath loads it only from the blueprint's "
        "own folder or a folder below it: a path that climbs out with `..`, an absolute path "
        "elsewhere, or a symbolic link that leads out is refused, whether or not the file "
        "exists (otherwise a blueprint could probe the machine it runs on). "
        + _SCRIPT_RESOLUTION
        + "A `..` after a folder that does not exist is refused too, since where it leads "
        "cannot be checked. " + _NOT_CHECKED
    ),
    example='[context.regions]\nboard = { kind = "custom", script = "../shared/board.rhai" }',
    example_fixed='[context.regions]\nboard = { kind = "custom", script = "regions/board.rhai" }',
    fix="move the script into the blueprint's folder (or below it) and name it relative to the blueprint",
    leviath="resolve_region_scripts (run by lev validate, lev test and every spawn)",
)

WORKING_BUDGET_TOO_SMALL = STRUCTURE.define(
    "working-budget-too-small",
    severity="error",
    summary="Fixed regions leave fewer than 8000 tokens of a 20000+ token layout for working context.",
    rationale=(
        "Pinned, hashmap, compact_history and persistent custom regions are never evicted. When "
        "they can take nearly the whole layout, the conversation and tool results have no room "
        "and the agent works blind. The reference runtime refuses such a layout (only when no "
        "region uses a percentage budget and the total is at least 20000 tokens)."
    ),
    example=(
        "[context.regions]\n"
        'docs = { kind = "pinned", max_tokens = 20000 }\n'
        'conversation = { kind = "sliding_window", max_tokens = 4000 }'
    ),
    example_fixed=(
        "[context.regions]\n"
        'docs = { kind = "pinned", max_tokens = 12000 }\n'
        'conversation = { kind = "sliding_window", max_tokens = 12000 }'
    ),
    fix="reduce the fixed regions' max_tokens or give the working regions more",
    leviath="V4, V8",
)

#: Layout constants of the reference (`MIN_WORKING_TOKENS`, `BUDGET_CHECK_MIN_TOTAL`).
MIN_WORKING_TOKENS = 8000
BUDGET_CHECK_MIN_TOTAL = 20000

_PROBLEMS = {
    "no-percent": "must end with '%'",
    "not-a-number": "is not a number followed by '%'",
    "out-of-range": "must be more than 0% and at most 100%",
}


@STRUCTURE.check(INVALID_BUDGET)
def check_budgets(ctx: RuleContext) -> Iterator[Diagnostic]:
    for prefix, regions in raw_region_tables(ctx):
        for name, region in regions.items():
            if not isinstance(region, dict):
                continue
            for key in ("budget", "compact_at"):
                value = region.get(key)
                if not isinstance(value, str):
                    continue
                _, problem = parse_percent(value)
                if problem is not None:
                    yield ctx.report(
                        INVALID_BUDGET,
                        f"region '{name}': {key} '{value}' {_PROBLEMS[problem]}",
                        prefix + (name, key),
                        anchor="value",
                    )


@STRUCTURE.check(CUSTOM_REGION_MISSING_SCRIPT)
def check_custom_scripts(ctx: RuleContext) -> Iterator[Diagnostic]:
    for prefix, layout, _ in layouts(ctx):
        for region in layout.regions:
            if region.kind != "custom" or region.script is not None:
                continue
            path = prefix + (region.name,)
            script = ctx.raw(path + ("script",))
            if script is MISSING:
                yield ctx.report(CUSTOM_REGION_MISSING_SCRIPT, f"custom region '{region.name}' has no script", path)
            elif isinstance(script, str):
                yield ctx.report(
                    CUSTOM_REGION_MISSING_SCRIPT,
                    f"custom region '{region.name}' has a blank script",
                    path + ("script",),
                    anchor="value",
                )
            # A script that is not a string at all is the schema layer's finding (invalid-type).


@STRUCTURE.check(CUSTOM_REGION_SCRIPT_NOT_FOUND, CUSTOM_REGION_SCRIPT_OUTSIDE)
def check_script_files(ctx: RuleContext) -> Iterator[Diagnostic]:
    scripts = ctx.region_scripts
    if not scripts:  # not on disk (nothing was looked up), or no custom region
        return
    for prefix, layout, stage in layouts(ctx):
        for region in layout.regions:
            found = scripts.get(region.script) if region.kind == "custom" and region.script else None
            if found is None or found.status == "ok":
                continue
            where = f"custom region '{region.name}'" + (f" of stage '{stage}'" if stage is not None else "")
            if found.status == "outside":
                rule = CUSTOM_REGION_SCRIPT_OUTSIDE
                then = "Leviath loads a script only from the blueprint's folder or below it, and refuses the blueprint"
            else:
                rule = CUSTOM_REGION_SCRIPT_NOT_FOUND
                then = "the path is relative to the blueprint's folder, and Leviath refuses a blueprint whose script it cannot read"
            yield ctx.report(
                rule,
                f"{where}: script '{found.declared}' {found.reason}; {then}",
                prefix + (region.name, "script"),
                anchor="value",
            )


@STRUCTURE.check(WORKING_BUDGET_TOO_SMALL)
def check_working_budget(ctx: RuleContext) -> Iterator[Diagnostic]:
    for prefix, layout, stage in layouts(ctx):
        raw = ctx.raw(prefix, {})
        raw = raw if isinstance(raw, dict) else {}
        # Any written percentage (even a malformed one) makes the token sums provisional.
        if any(isinstance(r, dict) and isinstance(r.get("budget"), str) for r in raw.values()):
            continue
        sizes = [r.max_tokens or 0 for r in layout.regions]
        if any(size < 0 for size in sizes):  # out-of-range, reported by the schema layer
            continue
        total = layout.total_budget
        fixed = sum(r.max_tokens or 0 for r in layout.regions if r.is_fixed)
        working = max(total - fixed, 0)
        if total >= BUDGET_CHECK_MIN_TOTAL and working < MIN_WORKING_TOKENS:
            where = f"stage '{stage}' layout" if stage is not None else "context layout"
            yield ctx.report(
                WORKING_BUDGET_TOO_SMALL,
                f"{where} leaves only {working} working tokens: fixed regions (pinned, hashmap, "
                f"compact_history, persistent custom) take {fixed} of {total}, "
                f"and at least {MIN_WORKING_TOKENS} are needed",
                prefix,
            )
