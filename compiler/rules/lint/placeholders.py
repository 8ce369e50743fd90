"""Placeholders in texts the runtime fills in: a nudge's `{stage}` and `{regions}`, a required
region's `{region}`. Any other `{name}` is passed to the model exactly as written."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...diagnostics import Diagnostic, KeyPath
from ...rulebook.registry import LINT
from ...rulebook.snippets import stage as stage_example
from ..common import raw_region_tables, raw_table, stage_path, suggest
from ..context import RuleContext

NUDGE_PLACEHOLDERS = ("stage", "regions")
REQUIRED_MESSAGE_PLACEHOLDERS = ("region",)
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")

UNKNOWN_PLACEHOLDER = LINT.define(
    "unknown-placeholder",
    severity="warning",
    summary=(
        "A nudge `text` uses a placeholder other than `{stage}` / `{regions}`, or a region's "
        "`required_message` one other than `{region}`."
    ),
    rationale=(
        "The runtime fills in exactly these placeholders by plain text replacement: `{stage}` "
        "and `{regions}` in nudge texts, `{region}` in a required region's message. Any other "
        "`{name}`, usually a misspelling, reaches the model literally, so the nudge it was meant "
        "to sharpen reads as a template nobody filled in."
    ),
    example=stage_example("draft", '\n[stages.draft.nudge]\ntext = "Stage {stge} is not done: fill {regions}."'),
    example_fixed=stage_example("draft", '\n[stages.draft.nudge]\ntext = "Stage {stage} is not done: fill {regions}."'),
    fix="use {stage} or {regions} in a nudge text, {region} in a required_message",
)


def _unknown(
    ctx: RuleContext, text: object, allowed: tuple[str, ...], what: str, path: KeyPath
) -> Iterator[Diagnostic]:
    if not isinstance(text, str):
        return
    reported: set[str] = set()
    for match in _PLACEHOLDER.finditer(text):
        name = match.group(1)
        if name in allowed or name in reported:
            continue
        reported.add(name)
        close = suggest(name, allowed)
        known = " or ".join(f"{{{p}}}" for p in allowed)
        yield ctx.report(
            UNKNOWN_PLACEHOLDER,
            f"{what} uses '{{{name}}}', which the runtime does not fill in (it knows {known}), so the "
            "model receives it as written",
            path,
            anchor="value",
            fix=f"did you mean '{{{close}}}'?" if close else f"use {known}, or write the text out",
        )


@LINT.check(UNKNOWN_PLACEHOLDER)
def check_placeholders(ctx: RuleContext) -> Iterator[Diagnostic]:
    yield from _unknown(
        ctx,
        ctx.raw(("agent", "nudge", "text"), None),
        NUDGE_PLACEHOLDERS,
        "the [agent.nudge] text",
        ("agent", "nudge", "text"),
    )
    for name in raw_table(ctx, ("stages",)):
        path = stage_path(name) + ("nudge", "text")
        yield from _unknown(ctx, ctx.raw(path, None), NUDGE_PLACEHOLDERS, f"stage '{name}' nudge text", path)
    for prefix, regions in raw_region_tables(ctx):
        for region, raw in regions.items():
            if isinstance(raw, dict):
                path = prefix + (region, "required_message")
                yield from _unknown(
                    ctx, raw.get("required_message"), REQUIRED_MESSAGE_PLACEHOLDERS,
                    f"region '{region}' required_message", path,
                )  # fmt: skip
