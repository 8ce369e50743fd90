"""The schema layer: the raw document against `schemas/blueprint.schema.json`.

Shape only — types, enumerations, ranges, required and unknown keys — checked on the
document exactly as written, before any default is applied. The codes are declared
here; `check.py` emits them and `findings.py` does the translation from jsonschema's errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...diagnostics import Diagnostic, KeyPath
from ...rulebook.fixers import KeyEdits, KeyFix
from ...rulebook.registry import SCHEMA
from ...rulebook.snippets import stage as declared

#: The examples of this family show the whole file, [agent] table included.
_AGENT = '[agent]\nname = "t"\n\n'


def _rename_old_key(edits: KeyEdits, finding: Diagnostic) -> None:
    """`tool_result_routing` becomes `tool_routing`; every other refused key is left to the author."""
    from ..lint.outdated import rename_old_key

    rename_old_key(edits, finding)


def _with_current_spellings(document: dict[str, Any], paths: Sequence[KeyPath]) -> dict[str, Any]:
    from ..lint.outdated import with_current_spellings

    return with_current_spellings(document, paths)


MISSING_AGENT = SCHEMA.define(
    "missing-agent",
    severity="error",
    summary="The blueprint has no [agent] table.",
    rationale=(
        "The [agent] table is the one required part of a blueprint: the reference runtime "
        "refuses to load a file without it, even though every key inside it is optional."
    ),
    example=declared("work"),
    example_fixed='[agent]\nname = "helper"\n\n' + declared("work"),
    whole_file_example=True,
    fix='add an [agent] table, for example [agent] with name = "my-agent"',
    leviath="P2",
)

INVALID_TYPE = SCHEMA.define(
    "invalid-type",
    severity="error",
    summary="A value has the wrong TOML type.",
    rationale=(
        "For a few keys the reference refuses the file outright; for most it silently treats "
        "a wrongly typed value as absent and uses the default, so `max_iterations = 10.0` "
        "means no cap at all and `condition = true` means `always`. Either way the value the "
        "author wrote is not the one that runs. Integers and floats are distinct TOML types, "
        "as are booleans and strings, and a date is never a string."
    ),
    example=_AGENT + declared("work", "max_iterations = 10.0", max_iterations=None),
    example_fixed=_AGENT + declared("work", max_iterations=10),
    fix="write the value with the type shown",
    leviath="P8, P11, P13, P14, P17, P20, P22, P41, P43, P44",
    differs="Leviath ignores most wrongly typed values (R4, R6) and falls back to the default.",
)

INVALID_VALUE = SCHEMA.define(
    "invalid-value",
    severity="error",
    summary="A string is not one of the values its key accepts.",
    rationale=(
        "Modes, conditions, transforms, region kinds, policies and the other enumerated keys "
        "accept a fixed set of spellings. The reference refuses most unknown spellings; for "
        "seed `refresh` and mapping `transform` it silently falls back to the default, which "
        "is worse. The message lists the valid values."
    ),
    example=_AGENT + declared("work", mode="outupt"),
    example_fixed=_AGENT + declared("work", mode="output"),
    fix="use one of the values listed",
    leviath="P4, P5, P6, P7, P19, P23, P28, P31, P34, P36, P37, P38, P39, P40, P45 (P25 in a stage layout)",
    differs="Leviath silently ignores an unknown seed `refresh` or `[[transforms.mappings]] transform`.",
)

OUT_OF_RANGE = SCHEMA.define(
    "out-of-range",
    severity="error",
    summary="A number is below the smallest value that makes sense for its key.",
    rationale=(
        "Counts, caps and budgets cannot be negative. The reference refuses negative fan-out "
        "and routing caps, silently drops a negative gate `max_attempts`, nudge `max` or "
        "`request_timeout_secs`, and converts the other negatives to an enormous number "
        "(2^64 − n), so `max_iterations = -1` means no cap at all. Stuck thresholds must be at "
        "least 1: 0 or less leaves the threshold unset, so the edge never trips."
    ),
    example=_AGENT + declared("work", max_iterations=-1),
    example_fixed=_AGENT + declared("work", max_iterations=20),
    fix="use a whole number in the range shown",
    leviath="P9, P15, P18, R5",
    differs="Leviath wraps most negative integers to 2^64 − n and ignores non-positive stuck thresholds.",
)

UNKNOWN_KEY = SCHEMA.define(
    "unknown-key",
    severity="warning",
    summary="A key the reference does not read, in a table where it ignores unknown keys.",
    rationale=(
        "Outside a handful of strict tables the reference silently ignores keys it does not "
        "know, so a misspelt key (`max_iteration`, `mounts`) is a setting that never takes "
        "effect, with nothing to say so. The fix suggests the key that was probably meant."
    ),
    example='[agent]\nname = "t"\n\n[sandbox]\nkind = "container"\nmounts = ["/data"]',
    example_fixed='[agent]\nname = "t"\n\n[sandbox]\nkind = "container"\nmount = ["/data"]',
    fix="remove the key or correct its spelling",
    leviath="R8",
    differs="Leviath ignores these keys without a word.",
)

REJECTED_KEY = SCHEMA.define(
    "rejected-key",
    severity="error",
    summary="An unknown key in a table where the reference refuses unknown keys.",
    rationale=(
        "Stage tables, a stage's `context`, `tool_routing` and its table-form overrides, "
        "edges, gates and `hooks` are strict: the reference refuses to load a file with an "
        "unknown key there. The fix suggests the key that was probably meant, or names the "
        "current spelling of a key earlier Leviath versions read: a stage's "
        "`tool_result_routing` is now `tool_routing` (the same table), and `next_stage` is "
        "written as a transition."
    ),
    example=_AGENT
    + declared("work", "max_iteration = 10", max_iterations=None)
    + '\n\n[stages.work.transitions.done]\ncondtion = "error"\n\n'
    + declared("done"),
    example_fixed=_AGENT
    + declared("work", max_iterations=10)
    + '\n\n[stages.work.transitions.done]\ncondition = "error"\n\n'
    + declared("done"),
    fix=(
        "remove the key or correct its spelling; `blueprint validate --fix` renames the old "
        "stage key `tool_result_routing` to `tool_routing`, and leaves every other key to you"
    ),
    leviath="P3, P10, P12, P21, P24, P26, P27",
    fixer=KeyFix(_rename_old_key, meant=_with_current_spellings),
)

EMPTY_ROUTING_OVERRIDE = SCHEMA.define(
    "empty-routing-override",
    severity="error",
    summary="A tool-routing override is an empty table.",
    rationale=(
        "An override either routes a tool's results to a region, caps them, or both; an "
        "empty table does neither, and the reference refuses to load the file."
    ),
    example=_AGENT + declared("work") + "\n\n[stages.work.tool_routing.overrides]\nbash = {}",
    example_fixed=_AGENT
    + declared("work")
    + "\n\n[stages.work.tool_routing.overrides]\nbash = { max_result_tokens = 2000 }",
    fix="set region, max_result_tokens, or both",
    leviath="P16",
)

MISSING_KEY = SCHEMA.define(
    "missing-key",
    severity="error",
    summary="A table lacks a key it cannot work without.",
    rationale=(
        "Some tables mean nothing without one of their keys: a seed tool call needs the "
        "tool's `name`. The reference silently drops such a table, so the seed the author "
        "wrote never applies."
    ),
    example=(
        '[agent]\nname = "t"\n\n[context.regions.notes]\nkind = "pinned"\n'
        'seed = { tools = [{ args = { path = "notes.md" } }] }'
    ),
    example_fixed=(
        '[agent]\nname = "t"\n\n[context.regions.notes]\nkind = "pinned"\n'
        'seed = { tools = [{ name = "read_file", args = { path = "notes.md" } }] }'
    ),
    fix="add the missing key",
    differs="Leviath silently drops the incomplete table.",
)
