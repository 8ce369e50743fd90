"""Files that sit beside blueprints but are not blueprints: `lev test` files and Rhai scripts.

Leviath's `lev test` runs the files of a `tests/` folder beside an `agent.leviath`: each
`tests/*.toml` holds `[[test]]` cases (a name, an input, what the answer must contain or which
tool it must call), each one a single real inference against a provider, and each
`tests/*.rhai` is a script whose result is the test's verdict. Rhai scripts are also the
blueprint's tools (`tools/*.rhai`) and its custom regions' scripts. None of them is a blueprint
or a scenario file, so a command that is handed one says what it is, once, instead of
reporting every key it does not know.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..diagnostics import Diagnostic, Span
from ..rulebook.registry import SYNTAX
from .positions import PositionIndex
from .source import SourceFile

RHAI_SUFFIX = ".rhai"

NOT_A_BLUEPRINT = SYNTAX.define(
    "not-a-blueprint",
    severity="note",
    summary="The file is a `lev test` file or a Rhai script, not a blueprint, so it is not checked.",
    rationale=(
        "Leviath's `lev test` runs the `tests/` folder beside an `agent.leviath`: a "
        "`tests/*.toml` file holds `[[test]]` cases, each a single real inference sent to a "
        "provider with the case's input, passing when the answer contains `expect_contains` or "
        "calls `expect_tool_call`; a `tests/*.rhai` script passes unless it returns false. "
        "Rhai scripts are also a blueprint's tools and its custom regions' scripts. Such a "
        "file named on the command line (or opened in an editor that runs the language "
        "server on every TOML file) is recognised, by a top-level `test` array of tables "
        "with no `[agent]` or `[stages]`, or by the `.rhai` suffix, and reported once as what "
        "it is instead of being checked as a blueprint (which would report a missing "
        "`[agent]` table and an unknown key `test`). blueprint-compiler does not check these "
        "files; its own tests of a blueprint are scenario files (docs/testing.md)."
    ),
    example='[[test]]\nname = "greets"\ninput = "Hello"\nexpect_contains = "hello"',
    fix="nothing to fix here: `lev test` runs the tests/ files; check the blueprint beside it",
    whole_file_example=True,
)


def is_rhai_script(path: str) -> bool:
    """A path with Leviath's script suffix: a tool, a region script, a `lev test` script."""
    return path.endswith(RHAI_SUFFIX)


def is_lev_test_document(document: dict[str, Any]) -> bool:
    """A `lev test` file: a top-level `test` array of tables, and no `[agent]` or `[stages]`
    (which any blueprint has, and a scenario file never needs)."""
    tests = document.get("test")
    return (
        isinstance(tests, list)
        and all(isinstance(case, dict) for case in tests)
        and "agent" not in document
        and "stages" not in document
    )


def lev_test_note(source: SourceFile) -> Diagnostic:
    """The one finding of a `lev test` file that was to be checked as a blueprint."""
    span = PositionIndex(source.text, source.lines).locate(("test",), prefer="key")[0]
    return NOT_A_BLUEPRINT.diagnostic(
        "this is a `lev test` file, not a blueprint: each [[test]] case is one real inference that "
        "`lev test` sends to a provider; blueprint-compiler does not check it (docs/testing.md#lev-test-files)",
        file=source.path,
        path=("test",),
        span=span or Span.point(1, 1),
    )


def rhai_note(path: str) -> Diagnostic:
    """The one finding of a Rhai script that was to be checked as a blueprint."""
    return NOT_A_BLUEPRINT.diagnostic(
        "this is a Rhai script, not a blueprint (a tool, a custom region's script or a `lev test` "
        "script); blueprint-compiler reads no Rhai",
        file=path,
        span=Span(1, 1, 1, 2),
    )


def blocking(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """What stops a command from using a file's blueprint: its errors, or the note that the
    file is not a blueprint (which is not an error of the file)."""
    return [d for d in diagnostics if d.severity == "error" or d.code == NOT_A_BLUEPRINT.code]


def refusal(diagnostics: Iterable[Diagnostic]) -> str:
    """Why a command does not use the file, to follow its subject in a message: "is not a
    blueprint" or "has errors"."""
    if any(d.code == NOT_A_BLUEPRINT.code for d in diagnostics):
        return "is not a blueprint"
    return "has errors"


__all__ = [
    "NOT_A_BLUEPRINT",
    "blocking",
    "is_lev_test_document",
    "is_rhai_script",
    "lev_test_note",
    "refusal",
    "rhai_note",
]
