"""Fixes that edit keys and values, through tomlkit so every other byte stays as it was.

tomlkit keeps comments, blank lines, quoting and key order of everything it does not touch;
these edits only insert one key or swap one string value, in the style of the file (its
newline, the indentation of the table's keys, the quote style of the old value).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic, KeyPath

#: Codes fixed here (`non-canonical-value`: a spelling, or a value of another type where a table
#: belongs; `outdated-key` and `rejected-key`: an old spelling moved or renamed to the current one).
TOML_CODES = ("stage-missing-mode", "non-canonical-value", "outdated-key", "rejected-key")


class Unfixable(Exception):
    """This finding cannot be fixed safely in this file (its shape is unusual); it is left."""


def apply_toml_fixes(text: str, diagnostics: list["Diagnostic"]) -> tuple[str, list["Diagnostic"]]:
    """`text` with the fixes for `diagnostics` applied, and the findings that were fixed."""
    import tomlkit

    text, renamed = _renames(text, diagnostics)
    document = tomlkit.parse(text)
    if tomlkit.dumps(document) != text:  # a file tomlkit cannot reproduce is not touched
        return text, []
    newline = "\r\n" if "\r\n" in text else "\n"
    spellings = _canonical_spellings(document)
    scalars = _scalar_tables(document)
    moves = {old.path: old for old in _outdated(document) if old.movable and not old.renamed}
    fixed = list(renamed)
    for diagnostic in diagnostics:
        try:
            if diagnostic.code == "outdated-key":
                _move(document, moves[tuple(diagnostic.path)])
            elif diagnostic.code == "rejected-key":
                continue  # only renames, done on the text above
            elif diagnostic.code == "stage-missing-mode":
                _insert_first(_node(document, diagnostic.path), "mode", "autonomous", newline)
            elif diagnostic.code == "non-canonical-value" and tuple(diagnostic.path) in scalars:
                _tableize(document, diagnostic.path)
            elif diagnostic.code == "non-canonical-value":
                _respell(document, diagnostic.path, spellings)
            else:
                continue
        except (Unfixable, LookupError, TypeError, ValueError, AttributeError):
            continue
        fixed.append(diagnostic)
    return tomlkit.dumps(document), fixed


def _node(document: Any, path: "KeyPath") -> Any:
    node = document
    for part in path:
        node = node[part]
    return node


def _insert_first(table: Any, key: str, value: str, newline: str) -> None:
    """Add `key = value` as the first key of `table` (right under its header)."""
    import tomlkit
    from tomlkit.container import OutOfOrderTableProxy
    from tomlkit.items import InlineTable, Table, Whitespace

    if isinstance(table, OutOfOrderTableProxy):
        raise Unfixable("the table is written in several places")
    if not isinstance(table, (Table, InlineTable)) or key in table:
        raise Unfixable("not a table, or the key is already there")
    container = table.value
    item = tomlkit.item(value)
    first = next((it for k, it in container.body if k is not None and not isinstance(it, Table)), None)
    at = 0
    if isinstance(table, Table):
        item.trivia.trail = newline
        if first is not None:
            item.trivia.indent = first.trivia.indent
    elif container.body and container.body[0][0] is None and isinstance(container.body[0][1], Whitespace):
        at = 1  # after the space that opens `{ a = 1 }`
    insert = getattr(container, "_insert_at", None)  # tomlkit has no public "insert first"
    if insert is None or not len(container):
        table.add(key, item)
    else:
        insert(at, key, item)


def _canonical_spellings(document: Any) -> dict["KeyPath", str]:
    from ..rules.lint.spellings import canonical_values

    return {path: canonical for path, _, canonical in canonical_values(document.unwrap())}


def _outdated(document: Any) -> list[Any]:
    from ..rules.lint.outdated import outdated_keys

    return list(outdated_keys(document.unwrap()))


def _renames(text: str, diagnostics: list["Diagnostic"]) -> tuple[str, list["Diagnostic"]]:
    """Old key names renamed in the text (tomlkit cannot rename a table header)."""
    import tomllib

    from ..rules.lint.outdated import outdated_keys
    from .renames import rename_key

    wanted = [d for d in diagnostics if d.code == "rejected-key"]
    if not wanted:
        return text, []
    renames = {old.path: old for old in outdated_keys(tomllib.loads(text)) if old.renamed and old.movable}
    done = []
    for diagnostic in wanted:
        old = renames.get(tuple(diagnostic.path))
        if old is None:
            continue
        try:
            text = rename_key(text, old.path, old.to[-1])
        except Unfixable:
            continue
        done.append(diagnostic)
    return text, done


def _move(document: Any, old: Any) -> None:
    """Move the item at `old.path` to `old.to`, keeping its value, comment and string style."""
    source = _node(document, old.path[:-1])
    item = source.item(old.path[-1])
    target = _node(document, old.to[:-1]) if len(old.to) > 1 else document
    if old.to[-1] in target:
        raise Unfixable("the key is already where it belongs")
    source.remove(old.path[-1])
    target.add(old.to[-1], item)


def _scalar_tables(document: Any) -> set["KeyPath"]:
    from ..rules.lint.spellings import tables_written_as_values

    return {path for path, _, _ in tables_written_as_values(document.unwrap())}


def _tableize(document: Any, path: "KeyPath") -> None:
    """Replace the value at `path` with `{}`, the table the runtime reads it as; a comment after
    it stays where it was."""
    import tomlkit
    from tomlkit.items import Item

    parent = _node(document, path[:-1])
    old = parent.item(path[-1]) if hasattr(parent, "item") else parent[path[-1]]
    if isinstance(old, dict) or not isinstance(old, Item):
        raise Unfixable("already a table")
    new = tomlkit.inline_table()
    new.trivia.indent, new.trivia.comment_ws = old.trivia.indent, old.trivia.comment_ws
    new.trivia.comment, new.trivia.trail = old.trivia.comment, old.trivia.trail
    parent[path[-1]] = new


def _respell(document: Any, path: "KeyPath", spellings: dict["KeyPath", str]) -> None:
    """Replace the string at `path` with its canonical spelling, in the same quote style."""
    import tomlkit
    from tomlkit.items import String, StringType

    canonical = spellings.get(tuple(path))
    if canonical is None:
        raise Unfixable("the value is already canonical")
    parent = _node(document, path[:-1])
    old = parent[path[-1]]
    if not isinstance(old, String):
        raise Unfixable("not a string")
    literal = old.type in (StringType.SLL, StringType.MLL)
    multiline = old.type in (StringType.MLB, StringType.MLL)
    parent[path[-1]] = tomlkit.string(canonical, literal=literal, multiline=multiline)
