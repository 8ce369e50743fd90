"""Key fixes (`KeyFix`): edits by key path, through tomlkit so every other byte stays as it was.

tomlkit keeps comments, blank lines, quoting and key order of everything it does not touch;
the edits here only insert one key, swap one value or move one key, in the style of the file
(its newline, the indentation of the table's keys, the quote style of the old value). A
rename is made in the text itself (`renames.py`), since tomlkit cannot rename a table header.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..rulebook.fixers import KeyFix, Unfixable

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic, KeyPath

T = TypeVar("T")

#: What a fixer may raise on a file whose shape it did not expect: the finding is left alone.
LEFT_ALONE = (Unfixable, LookupError, TypeError, ValueError, AttributeError)


def apply_key_fixes(text: str, fixes: list[tuple["Diagnostic", KeyFix]]) -> tuple[str, list["Diagnostic"]]:
    """`text` with `fixes` (each finding with its rule's fixer) applied, and the findings fixed."""
    edits = TomlKeyEdits(text)
    fixed = []
    for finding, fixer in fixes:
        try:
            fixer.edit(edits, finding)
        except LEFT_ALONE:
            continue
        fixed.append(finding)
    return edits.text(), fixed


class TomlKeyEdits:
    """The `KeyEdits` a key fixer works through: the text, parsed by tomlkit when first edited."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._document: Any = None
        self._original = tomllib.loads(text)
        self._derived: dict[Callable[[dict[str, Any]], Any], Any] = {}
        self._newline = "\r\n" if "\r\n" in text else "\n"

    @property
    def original(self) -> dict[str, Any]:
        return self._original

    def derived(self, compute: Callable[[dict[str, Any]], T]) -> T:
        if compute not in self._derived:
            self._derived[compute] = compute(self._original)
        result: T = self._derived[compute]
        return result

    def text(self) -> str:
        if self._document is None:
            return self._text
        import tomlkit

        return tomlkit.dumps(self._document)

    def _parsed(self) -> Any:
        if self._document is None:
            import tomlkit

            document = tomlkit.parse(self._text)
            if tomlkit.dumps(document) != self._text:
                raise Unfixable("tomlkit cannot reproduce this file, so it is not edited")
            self._document = document
        return self._document

    def _node(self, path: "KeyPath") -> Any:
        node = self._parsed()
        for part in path:
            node = node[part]
        return node

    def insert_first(self, table: "KeyPath", key: str, value: str) -> None:
        import tomlkit
        from tomlkit.container import OutOfOrderTableProxy
        from tomlkit.items import InlineTable, Table, Whitespace

        node = self._node(table)
        if isinstance(node, OutOfOrderTableProxy):
            raise Unfixable("the table is written in several places")
        if not isinstance(node, (Table, InlineTable)) or key in node:
            raise Unfixable("not a table, or the key is already there")
        container = node.value
        item = tomlkit.item(value)
        first = next((it for k, it in container.body if k is not None and not isinstance(it, Table)), None)
        at = 0
        if isinstance(node, Table):
            item.trivia.trail = self._newline
            if first is not None:
                item.trivia.indent = first.trivia.indent
        elif container.body and container.body[0][0] is None and isinstance(container.body[0][1], Whitespace):
            at = 1  # after the space that opens `{ a = 1 }`
        insert = getattr(container, "_insert_at", None)  # tomlkit has no public "insert first"
        if insert is None or not len(container):
            node.add(key, item)
        else:
            insert(at, key, item)

    def replace_string(self, path: "KeyPath", value: str) -> None:
        import tomlkit
        from tomlkit.items import String, StringType

        parent = self._node(path[:-1])
        old = parent[path[-1]]
        if not isinstance(old, String):
            raise Unfixable("not a string")
        literal = old.type in (StringType.SLL, StringType.MLL)
        multiline = old.type in (StringType.MLB, StringType.MLL)
        parent[path[-1]] = tomlkit.string(value, literal=literal, multiline=multiline)

    def replace_with_table(self, path: "KeyPath") -> None:
        import tomlkit
        from tomlkit.items import Item

        parent = self._node(path[:-1])
        old = parent.item(path[-1]) if hasattr(parent, "item") else parent[path[-1]]
        if isinstance(old, dict) or not isinstance(old, Item):
            raise Unfixable("already a table")
        new = tomlkit.inline_table()
        new.trivia.indent, new.trivia.comment_ws = old.trivia.indent, old.trivia.comment_ws
        new.trivia.comment, new.trivia.trail = old.trivia.comment, old.trivia.trail
        parent[path[-1]] = new

    def move(self, path: "KeyPath", to: "KeyPath") -> None:
        source = self._node(path[:-1])
        item = source.item(path[-1])
        target = self._node(to[:-1]) if len(to) > 1 else self._parsed()
        if to[-1] in target:
            raise Unfixable("the key is already where it belongs")
        source.remove(path[-1])
        target.add(to[-1], item)

    def delete_element(self, path: "KeyPath") -> None:
        from tomlkit.items import Array

        if not path or type(path[-1]) is not int:
            raise Unfixable("not the path of an array element")
        array = self._node(path[:-1])
        if not isinstance(array, Array):
            raise Unfixable("not an inline array (an array of tables is not edited)")
        del array[path[-1]]

    def rename(self, path: "KeyPath", name: str) -> None:
        from .renames import rename_key

        renamed = rename_key(self.text(), path, name)
        self._text, self._document = renamed, None
