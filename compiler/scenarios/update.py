"""`blueprint test --update`: rewrite failing expectations to what the run did, keeping the file's layout.

The file is edited with tomlkit, so comments, blank lines, key order and inline or table
style all stay as written; only the values of failing expectations change. In a table
expectation (`visits`, `holds`, `budgets`, `flags`) only the entries that failed change, so a
comparison such as `">= 1"` that still holds is kept. An expectation the run has nothing to
say about any more (a `reason` once the run no longer fails) is removed. Script mismatches
and `expect_not` failures are never rewritten: they say the script or the blueprint must
change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tomlkit
from tomlkit.items import Array, InlineTable, Table

from .expectations import actual, entry_ok
from .runner import ScenarioResult

TABLE_KEYS = ("visits", "holds", "budgets", "flags")


def update_text(text: str, results: Sequence[ScenarioResult]) -> tuple[str, int]:
    """The file's new text and how many expectations changed."""
    document = tomlkit.parse(text)
    changed = 0
    for result in results:
        if result.played is None or result.played.mismatch is not None:
            continue
        for failure in result.failures:
            expectation = failure.expectation
            if not failure.updatable or expectation is None:
                continue
            *parent, key = expectation.where.path
            container = _at(document, parent)
            value = actual(expectation, result.played)
            if value is None:
                del container[key]
            elif expectation.key in TABLE_KEYS:
                _merge(container[key], expectation.key, value)
            else:
                container[key] = _item(value, container[key])
            changed += 1
    return tomlkit.dumps(document), changed


def _at(document: Any, path: Sequence[Any]) -> Any:
    node = document
    for part in path:
        node = node[part]
    return node


def _merge(table: Any, key: str, values: dict) -> None:
    """Change only the entries that fail, in place (an inline table stays inline)."""
    for name, got in values.items():
        if not entry_ok(key, table[name], got):
            table[name] = got


def _item(value: Any, old: Any) -> Any:
    """A new value written the way the old one was (a multi-line array stays multi-line)."""
    if isinstance(value, list):
        array = tomlkit.array()
        array.extend(value)
        if isinstance(old, Array) and "\n" in old.as_string():
            array.multiline(True)
        return array
    if isinstance(value, dict) and isinstance(old, (InlineTable, Table)):
        table = tomlkit.inline_table()
        table.update(value)
        return table
    return value
