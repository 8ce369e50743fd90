"""Region seeds the runtime does not read as written: a table it cannot understand
(`region-seed-not-understood`) and keys it skips (`seed-key-ignored`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...diagnostics import Diagnostic
from ...ir.build_regions import build_seed
from ...rulebook.registry import LINT
from ...rulebook.snippets import stage as stage_example
from ...schema.describe import toml_type
from ..common import did_you_mean, raw_region_tables, raw_seeds
from ..context import RuleContext

#: Seed forms in the order the reference tries them; the first one present wins.
SEED_FORMS = ("glob", "files", "literal", "rhai", "command", "tool", "tools", "caller")
_FORM_TYPES: dict[str, type] = {
    "glob": str, "files": list, "literal": str, "rhai": str, "command": str, "tool": str, "tools": list, "caller": str,
}  # fmt: skip
_FORMS_FIX = "use one of the seed forms caller, literal, files, glob, rhai, command, tool or tools"

REGION_SEED_NOT_UNDERSTOOD = LINT.define(
    "region-seed-not-understood",
    severity="warning",
    summary="A region's `seed` is no seed the runtime reads, so the region starts empty.",
    rationale=(
        "A seed fills a region before the first inference: from a caller input (a string), or "
        "from a table naming a literal, files, a glob, a Rhai script, a command or tool calls. "
        'A table with none of those keys in a readable shape (`{ caller_input = "task" }`, '
        '`{ tools = [] }`, `{ files = "a" }`), or a seed of another type (`seed = 42`, '
        '`seed = ["a"]`), is no seed at all. The runtime drops it without a word, the region '
        "starts empty, and a region named `task` even loses the task input it would otherwise "
        "receive."
    ),
    example='[context.regions.brief]\nkind = "pinned"\nseed = { caller_input = "task" }\n\n' + stage_example("work"),
    example_fixed='[context.regions.brief]\nkind = "pinned"\nseed = { caller = "task" }\n\n' + stage_example("work"),
    fix="use a string (a caller input) or one of the forms caller, literal, files, glob, rhai, command, tool, tools",
    leviath="region-seed-not-understood",
    differs="Leviath checks regions of the top-level [context.regions] only; we check stage layouts too.",
)

SEED_KEY_IGNORED = LINT.define(
    "seed-key-ignored",
    severity="warning",
    summary="A seed table gives a second form, or a `refresh` its form does not read, and the runtime skips it.",
    rationale=(
        "A seed has exactly one form. The runtime takes the first it finds, in the order glob, "
        "files, literal, rhai, command, tool, tools, caller, and ignores any other; `refresh` is "
        "read only by tool seeds. An author who wrote both `glob` and `literal` gets only the "
        'glob, and one who wrote `refresh = "each_stage"` on a command seed gets a command run '
        "once."
    ),
    example='[context.regions.notes]\nseed = { glob = "notes/*.md", literal = "No notes yet." }\n\n'
    + stage_example("work"),
    example_fixed='[context.regions.notes]\nseed = { glob = "notes/*.md" }\n\n' + stage_example("work"),
    fix="keep one seed form per region (split the region in two if both are needed)",
)


def _winning_form(seed: dict[str, Any]) -> str | None:
    """The form the runtime reads from a seed table, as `build_seed` decides it."""
    for form in SEED_FORMS:
        value = seed.get(form)
        if not isinstance(value, _FORM_TYPES[form]):
            continue
        if form == "tools" and build_seed("", {"tools": value}) is None:
            return None  # no readable call: the whole seed is dropped, later forms included
        return form
    return None


@LINT.check(REGION_SEED_NOT_UNDERSTOOD)
def check_unreadable_seeds(ctx: RuleContext) -> Iterator[Diagnostic]:
    for prefix, regions in raw_region_tables(ctx):
        for region, raw in regions.items():
            seed = raw.get("seed", "") if isinstance(raw, dict) else ""
            if isinstance(seed, (str, dict)):
                continue  # a caller input, or a table judged below
            lost = ", losing the --task input it would otherwise receive" if region == "task" else ""
            yield ctx.report(
                REGION_SEED_NOT_UNDERSTOOD,
                f"region '{region}': a seed must be a string (a caller input) or a table, not "
                f"{toml_type(seed)}, so the runtime reads no seed and the region starts empty{lost}",
                prefix + (region, "seed"),
                anchor="value",
            )
    for path, region, seed in raw_seeds(ctx):
        if build_seed(region, seed) is not None:
            continue
        lost = ", losing the --task input it would otherwise receive" if region == "task" else ""
        unknown = [key for key in seed if key not in SEED_FORMS and key != "refresh"]
        fix = did_you_mean(unknown[0], SEED_FORMS, _FORMS_FIX) if len(unknown) == 1 else _FORMS_FIX
        if isinstance(seed.get("tools"), list):
            why = (
                "its tools list holds no call the runtime can read (each needs a tool name), which drops the whole seed"
            )
            fix = 'name the tool of each call: tools = ["name"] or [{ name = "…", args = { … } }]'
        else:
            why = (
                "the seed table gives none of caller, literal, files, glob, rhai, command, tool or "
                "tools in a form the runtime reads"
            )
        yield ctx.report(
            REGION_SEED_NOT_UNDERSTOOD,
            f"region '{region}': {why}, so the region starts empty{lost}",
            path,
            fix=fix,
        )


@LINT.check(SEED_KEY_IGNORED)
def check_shadowed_seed_keys(ctx: RuleContext) -> Iterator[Diagnostic]:
    for path, region, seed in raw_seeds(ctx):
        winner = _winning_form(seed)
        if winner is None:
            continue  # nothing is read at all: region-seed-not-understood
        for form in SEED_FORMS:
            if form != winner and form in seed and isinstance(seed[form], _FORM_TYPES[form]):
                yield ctx.report(
                    SEED_KEY_IGNORED,
                    f"region '{region}': seed key '{form}' is ignored because the runtime reads the "
                    f"'{winner}' form of this seed; a seed has exactly one form",
                    path + (form,),
                    fix=f"remove '{form}', or move it into a region of its own",
                )
        if "refresh" in seed and winner not in ("tool", "tools"):
            yield ctx.report(
                SEED_KEY_IGNORED,
                f"region '{region}': refresh is read only by tool seeds, so this '{winner}' seed runs once",
                path + ("refresh",),
                fix="remove refresh",
            )
