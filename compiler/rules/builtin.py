"""Codes the pipeline itself emits: reading the file, and a check that failed."""

from __future__ import annotations

from .registry import define

define(
    "invalid-encoding",
    severity="error",
    family="syntax",
    summary="The file is not valid UTF-8.",
    rationale=(
        "TOML files are UTF-8 text, and the reference runtime refuses to load anything else. "
        "The rest of the file is still checked, with the bad bytes replaced, so other findings "
        "are not hidden."
    ),
    example='[agent]\nname = "caf\\xe9"   # saved as Latin-1: the byte 0xE9 is not UTF-8',
    fix="re-save the file as UTF-8",
)

define(
    "file-too-large",
    severity="error",
    family="syntax",
    summary="The file is larger than any blueprint could reasonably be (8 MiB).",
    rationale=(
        "Real blueprints are tens of kilobytes. A file this large is almost certainly not the "
        "blueprint you meant, and reading it would only waste time and memory."
    ),
    example="# an 80 MB log file passed by mistake",
    fix="split the blueprint, or check that this is the file you meant",
)

define(
    "toml-syntax",
    severity="error",
    family="syntax",
    summary="The file is not valid TOML 1.0.",
    rationale=(
        "Nothing can be read from a file that does not parse; the reference runtime refuses it "
        "with 'Failed to parse agent.leviath'. Only the first syntax error can be reported: "
        "after it, the reader cannot know what the rest of the file means."
    ),
    example='[agent]\nname = "coder\n\n[stages.plan]\nmax_iterations = 10',
    example_fixed='[agent]\nname = "coder"\n\n[stages.plan]\nmax_iterations = 10',
    fix="correct the TOML at the position shown",
    leviath="P1",
)

define(
    "duplicate-key",
    severity="error",
    family="syntax",
    summary="A key or table header appears twice.",
    rationale=(
        "TOML forbids defining a key or a table twice, and the reference runtime refuses the "
        "file. It usually means two edits of the same setting, and only one of them can be "
        "what the author meant. This is also why two stages, regions or edges can never share "
        "a name."
    ),
    example='[agent]\nname = "dup"\n\n[stages.plan]\nmax_iterations = 10\nmax_iterations = 20',
    example_fixed='[agent]\nname = "dup"\n\n[stages.plan]\nmax_iterations = 20',
    fix="TOML allows each key and table once; merge the two definitions",
    leviath="P1, V1",
)

define(
    "nesting-too-deep",
    severity="error",
    family="syntax",
    summary="Arrays or tables nest deeper than 48 levels.",
    rationale=(
        "No blueprint key nests more than a handful of levels. Absurd nesting is either "
        "generated garbage or an attempt to exhaust the reader, so it is refused up front."
    ),
    example="[agent]\nname = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    fix="flatten the nested value",
)

define(
    "internal-error",
    severity="error",
    family="meta",
    summary="A check crashed on this file (a bug in blueprint-compiler).",
    rationale=(
        "A failing check must not stop the other checks or the other files, so the crash is "
        "reported as a finding instead of a traceback. Please report it with the blueprint."
    ),
    example="# any blueprint that makes a check raise",
    fix="report this with the blueprint that triggers it",
)
