"""Completion: keys the table at the cursor accepts, enumeration values, and names.

Keys and values come from the one schema (`keys.py`); stage, region and tool names from the
document (its latest version that parsed, so names are offered while a line is half typed);
tool names also from the built-in catalog, the `tools/*.rhai` scripts beside the blueprint and
the project's `known-tools`; rule codes, inside `# blueprint: ignore[...]`, from the registry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..diagnostics import KeyPath, format_key
from .cursor import Cursor, cursor_at
from .keys import allowed_values, child_keys, key_doc, schema_at, toml_value
from .names import LAYOUTS, VALUE_KINDS, Kind, Pattern, matches
from .ranges import offset_of, offsets_range

if TYPE_CHECKING:
    from .documents import Analysis, Document
    from .server import BlueprintServer

TRIGGERS = ('"', "'", "[", ".", ",")
_DIRECTIVE = re.compile(r"^\s*blueprint\s*:\s*ignore(?:-file)?\s*\[(?P<codes>[^\]]*)$")
#: Tables whose keys are names, and what they name.
NAMED_KEYS: tuple[tuple[Pattern, Kind], ...] = (
    (("stages", "*", "transitions"), "stage"),
    (("tool_permissions",), "tool"),
    (("stages", "*", "tool_permissions"), "tool"),
    (("stages", "*", "tool_routing", "overrides"), "tool"),
    (("stages", "*", "tool_routing", "max_result_tokens_per_tool"), "tool"),
)
_ITEM_KINDS = {
    "stage": types.CompletionItemKind.Class,
    "region": types.CompletionItemKind.Variable,
    "tool": types.CompletionItemKind.Function,
}


def complete(ls: "BlueprintServer", document: "Document", analysis: "Analysis", params: Any) -> Any:
    text = analysis.text
    offset = offset_of(analysis.lines, params.position)
    cursor = cursor_at(text, offset)
    edit_range = offsets_range(analysis.lines, cursor.word_start, offset)
    named = analysis if analysis.parsed else document.last_parsed or _without_line(document, analysis, offset)

    def item(
        label: str,
        kind: types.CompletionItemKind,
        insert: str | None = None,
        detail: str | None = None,
        doc: str | None = None,
    ) -> types.CompletionItem:
        return types.CompletionItem(
            label=label,
            kind=kind,
            detail=detail,
            documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=doc) if doc else None,
            text_edit=types.TextEdit(range=edit_range, new_text=insert if insert is not None else label),
            filter_text=insert if insert is not None else label,
        )

    items: list[types.CompletionItem] = []
    if cursor.where == "comment":
        match = _DIRECTIVE.match(cursor.comment)
        if match:
            typed = re.split(r"[,\s]", match.group("codes"))[-1]
            start = offset - len(typed)
            edit_range = offsets_range(analysis.lines, start, offset)
            items = [item(code, types.CompletionItemKind.Constant, detail=summary) for code, summary in _rule_codes()]
    elif cursor.where in ("header", "key"):
        items = _key_items(cursor, named, document, item)
    elif cursor.where == "value":
        items = _value_items(cursor, named, document, item)
    return types.CompletionList(is_incomplete=False, items=items)


def _without_line(document: "Document", analysis: "Analysis", offset: int) -> "Analysis | None":
    """The document read without the line being typed, which is often all that keeps it from
    parsing: its names are what completion offers on a document that never parsed."""
    from .diagnostics import project_settings
    from .documents import analyse

    lines = analysis.lines
    line = lines.position(offset).line
    start, end = lines.starts[line], lines.offset(line, 1 << 30)
    settings, _ = project_settings(document.path)
    text = analysis.text[:start] + analysis.text[end:]
    fallback = analyse(document.path, text, analysis.version, settings, lines.encoding)
    return fallback if fallback.parsed else None


def _rule_codes() -> list[tuple[str, str]]:
    from ..rulebook.registry import REGISTRY

    return [(rule.code, rule.summary) for rule in REGISTRY.all()] + [("all", "Every rule.")]


def _key_items(cursor: Cursor, named: "Analysis | None", document: "Document", item: Any) -> list[types.CompletionItem]:
    path = cursor.path
    items = []
    present = _present_keys(named, path) if cursor.where == "key" else set()
    for name, node in child_keys(path).items():
        if cursor.where == "header" and not _is_table(node):
            continue
        if name in present:
            continue
        doc = key_doc(path + (name,))
        item_kind = types.CompletionItemKind.Module if _is_table(node) else types.CompletionItemKind.Field
        items.append(
            item(name, item_kind, format_key(name), doc.kind if doc else None, doc.markdown() if doc else None)
        )
    kind = _named_key_kind(path, header=cursor.where == "header")
    if kind is not None:
        for name in _names(kind, named, document):
            if name not in present:
                items.append(item(name, _ITEM_KINDS[kind], format_key(name), kind))
    return items


def _value_items(
    cursor: Cursor, named: "Analysis | None", document: "Document", item: Any
) -> list[types.CompletionItem]:
    path = cursor.path
    quote = (lambda v: v) if cursor.in_string else toml_value
    for kind, patterns in VALUE_KINDS:
        if any(matches(path, p) for p in patterns):
            return [item(n, _ITEM_KINDS[kind], quote(n), kind) for n in _names(kind, named, document)]
    node = schema_at(path)
    if node is None:
        return []
    values = allowed_values(node)
    if cursor.in_string:
        values = [v for v in values if isinstance(v, str)]
    return [
        item(
            toml_value(v) if not isinstance(v, str) else v,
            types.CompletionItemKind.EnumMember,
            v if isinstance(v, str) and cursor.in_string else toml_value(v),
        )
        for v in values
    ]


def _is_table(node: dict) -> bool:
    types_ = node.get("type")
    types_ = [types_] if isinstance(types_, str) else list(types_ or [])
    items = node.get("items")
    if not isinstance(items, dict):
        items = {}
    return "object" in types_ or ("array" in types_ and items.get("type") == "object")


def _named_key_kind(path: KeyPath, *, header: bool) -> Kind | None:
    """What the keys of the table at `path` name (header completion also names stages and
    regions, as in `[stages.<name>]` and `[context.regions.<name>]`)."""
    for pattern, kind in NAMED_KEYS:
        if matches(path, pattern):
            return kind
    if header and path == ("stages",):
        return "stage"
    if header and any(matches(path, layout[:-1]) for layout in LAYOUTS):
        return "region"
    return None


def _present_keys(named: "Analysis | None", path: KeyPath) -> set[str]:
    if named is None or named.result.document is None:
        return set()
    node: Any = named.result.document
    for part in path:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
        else:
            return set()
    return set(node) if isinstance(node, dict) else set()


def _names(kind: Kind, named: "Analysis | None", document: "Document") -> Iterable[str]:
    if kind == "tool":
        from ..rules.lint.tool_catalog import CATALOG
        from .diagnostics import project_settings

        settings, _ = project_settings(document.path)
        return sorted(CATALOG | set(settings.local_tools or ()) | set(settings.known_tools))
    if named is None or named.result.blueprint is None:
        return []
    blueprint = named.result.blueprint
    if kind == "stage":
        return [] if blueprint.default_stage else list(blueprint.stage_names)
    return sorted(blueprint.known_regions)
