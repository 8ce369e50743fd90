"""What a rule's fixer is: the contract between a rule module and the fix engine (`compiler.fix`).

A fixable rule declares its fixer beside it (`define(..., fixer=KeyFix(...))`); the engine finds
it through the registry and hands it an editor, so a rule never imports the engine and the
engine never imports a rule. Two kinds, by how a finding is found again in the text:

- `KeyFix` edits keys and values by key path, through a `KeyEdits` (tomlkit underneath, so
  every other byte stays as it was). Key fixes of several findings share one pass.
- `LineFix` edits the lines at a finding's span (comments, which TOML keeps nowhere else),
  through a `LineEdits`. Spans are only right in the text they were reported for, so line
  fixes run in a pass of their own, last column first.

A fix must not change what a run does: the engine keeps it only when the fixed file reads
back to the same typed blueprint, with every other finding unchanged. A fixer that moves an
old spelling to where Leviath now reads it changes the run on purpose; its `meant` says how:
the original document as the fixed file must read. A fixer that changes the meaning without
a `meant` is refused, and `--fix` names its rule and says that `meant=` is what it lacks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from compiler.records import record

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic, KeyPath
    from .registry import Rule

T = TypeVar("T")

#: (original document, key paths of the findings fixed) → the document the fixed file must mean.
Meaning = Callable[[dict[str, Any], Sequence["KeyPath"]], dict[str, Any]]


class Unfixable(Exception):
    """This finding cannot be fixed safely in this file (its shape is unusual); it is left."""


class KeyEdits(Protocol):
    """The file's TOML, edited by key path. Paths are those of the findings being fixed."""

    @property
    def original(self) -> dict[str, Any]:
        """The document as the pass found it (before any edit of this pass)."""
        ...

    def derived(self, compute: Callable[[dict[str, Any]], T]) -> T:
        """`compute(original)`, computed once per pass (a fixer's index of what to rewrite)."""
        ...

    def insert_first(self, table: "KeyPath", key: str, value: str) -> None:
        """Write `key = "value"` as the first key of the table at `table`."""
        ...

    def replace_string(self, path: "KeyPath", value: str) -> None:
        """Replace the string at `path` with `value`, in the same quote style."""
        ...

    def replace_with_table(self, path: "KeyPath") -> None:
        """Replace the value at `path` with `{}`, keeping a comment after it."""
        ...

    def move(self, path: "KeyPath", to: "KeyPath") -> None:
        """Move the key at `path` (value, comment and style) to `to`; `to` must be free."""
        ...

    def rename(self, path: "KeyPath", name: str) -> None:
        """Rename the last key of `path` to `name`, in its key and in every header below it."""
        ...

    def delete_element(self, path: "KeyPath") -> None:
        """Delete the element of an inline array at `path` (its last part is the position),
        with the comma and the comment that belong to it."""
        ...


class LineEdits(Protocol):
    """The lines of the text the findings were reported in (numbered from 1, without newlines)."""

    def line(self, number: int) -> str: ...

    def replace_line(self, number: int, text: str | None) -> None:
        """Put `text` in place of line `number`; None removes the line."""
        ...


class _Titled:
    def title(self, rule: "Rule", finding: "Diagnostic") -> str:
        """The fix's short title (an editor's quick fix, SARIF `fixes[].description`)."""
        hint = finding.fix or rule.fix
        return f"Fix {rule.code}: {hint}" if hint else f"Fix {rule.code}"


@record
class KeyFix(_Titled):
    """Fixes one finding by editing keys; raises `Unfixable` to leave it."""

    edit: Callable[[KeyEdits, "Diagnostic"], None]
    #: None: the fixed file must mean exactly what the original meant.
    meant: Meaning | None = None


@record
class LineFix(_Titled):
    """Fixes one finding by editing the lines at its span; raises `Unfixable` to leave it."""

    edit: Callable[[LineEdits, "Diagnostic"], None]
    meant: Meaning | None = None


Fixer = KeyFix | LineFix

__all__ = ["Fixer", "KeyEdits", "KeyFix", "LineEdits", "LineFix", "Meaning", "Unfixable"]
