"""Every name in a blueprint that points at something, with where it is written.

Stages are declared by their table key and named by transition keys, `entry_stage`,
`worker_stage` and `merge_stage`; regions are declared in the global and stage layouts and named
by gates, transform lists, tool routing, fan-out results, documents, file tracking,
`source_region` and `[[transforms]]`; tools are named in tool lists, permissions, routing and
seeds, and defined by `tools/<name>.rhai` beside the blueprint; hooks, custom regions and seeds
name `.rhai` scripts by path. The patterns below say where each is written ('*' any table key,
'#' any array element); the positions come from the `PositionIndex`, the names from the parsed
document, so a name is found exactly where validation found it.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

from compiler.records import record

from ..diagnostics import KeyPath, Span
from ..ir.model import ALWAYS_VISIBLE_REGIONS

if TYPE_CHECKING:
    from ..parse.positions import PositionIndex
    from .documents import Analysis

Kind = Literal["stage", "region", "tool", "script"]
Pattern = tuple[str, ...]

LAYOUTS: tuple[Pattern, ...] = (("context", "regions", "*"), ("stages", "*", "context", "regions", "*"))
_EDGE: Pattern = ("stages", "*", "transitions", "*")
_GATE: Pattern = (*_EDGE, "gate")
_ROUTING: Pattern = ("stages", "*", "tool_routing")

#: Where a stage is declared (the key) and named (keys and values).
STAGE_DECLARATIONS: tuple[Pattern, ...] = (("stages", "*"),)
STAGE_KEYS: tuple[Pattern, ...] = (_EDGE,)
STAGE_VALUES: tuple[Pattern, ...] = (
    ("agent", "entry_stage"),
    ("stages", "*", "worker_stage"),
    ("stages", "*", "merge_stage"),
)
REGION_DECLARATIONS: tuple[Pattern, ...] = LAYOUTS
REGION_KEYS: tuple[Pattern, ...] = ()
REGION_VALUES: tuple[Pattern, ...] = (
    (*_GATE, "region"),
    (*_GATE, "require_region_updated"),
    (*_GATE, "require_no_open_items"),
    (*_GATE, "require_regions", "#"),
    (*_GATE, "require_region_entries", "region"),
    (*_EDGE, "transform_config", "carry", "#"),
    (*_EDGE, "transform_config", "compact", "#"),
    (*_EDGE, "transform_config", "clear", "#"),
    ("stages", "*", "results_region"),
    ("stages", "*", "interaction_points", "#", "document_region"),
    ("context", "file_tracking", "region"),
    *((*layout, "source_region") for layout in LAYOUTS),
    ("transforms", "#", "mappings", "#", "to_region"),
    (*_ROUTING, "default_region"),
    (*_ROUTING, "overrides", "*"),
    (*_ROUTING, "overrides", "*", "region"),
)
TOOL_KEYS: tuple[Pattern, ...] = (
    ("tool_permissions", "*"),
    ("stages", "*", "tool_permissions", "*"),
    (*_ROUTING, "overrides", "*"),
    (*_ROUTING, "max_result_tokens_per_tool", "*"),
)
TOOL_VALUES: tuple[Pattern, ...] = (
    ("stages", "*", "available_tools", "#"),
    ("stages", "*", "required_tools", "#"),
    (*_GATE, "tools", "#"),
    ("safe_commands", "tools", "#"),
    *((*layout, "seed", "tool") for layout in LAYOUTS),
    *((*layout, "seed", "tools", "#") for layout in LAYOUTS),
    *((*layout, "seed", "tools", "#", "name") for layout in LAYOUTS),
)
SCRIPT_VALUES: tuple[Pattern, ...] = (
    ("stages", "*", "hooks", "*"),
    *((*layout, "script") for layout in LAYOUTS),
    *((*layout, "seed", "rhai") for layout in LAYOUTS),
)

#: What a value at each kind of pattern names, for completion.
VALUE_KINDS: tuple[tuple[Kind, tuple[Pattern, ...]], ...] = (
    ("stage", STAGE_VALUES),
    ("region", REGION_VALUES),
    ("tool", TOOL_VALUES),
)


@record
class Occurrence:
    """One place a name is written: `span` covers the name itself (inside the quotes of a plain
    string), `token` the whole key or value that spells it."""

    kind: Kind
    name: str
    span: Span
    token: Span
    path: KeyPath
    declaration: bool
    #: "key" for a table key, else the quote a string value uses ('"' or "'").
    written_as: str


def matches(path: KeyPath, pattern: Pattern) -> bool:
    """Whether a key path fits a pattern ('*' any key, '#' any array index)."""
    if len(path) != len(pattern):
        return False
    for part, want in zip(path, pattern):
        if want == "#":
            if not isinstance(part, int):
                return False
        elif want == "*":
            if not isinstance(part, str):
                return False
        elif part != want:
            return False
    return True


def walk(document: Any, pattern: Pattern, prefix: KeyPath = ()) -> Iterator[tuple[KeyPath, Any]]:
    """(path, value) for every path of `document` that fits `pattern`."""
    if not pattern:
        yield prefix, document
        return
    head, rest = pattern[0], pattern[1:]
    if head == "#":
        if isinstance(document, list):
            for index, item in enumerate(document):
                yield from walk(item, rest, prefix + (index,))
    elif isinstance(document, dict):
        if head == "*":
            for key, value in document.items():
                yield from walk(value, rest, prefix + (key,))
        elif head in document:
            yield from walk(document[head], rest, prefix + (head,))


class NameIndex:
    """Every occurrence of every name in one parsed version, in document order."""

    def __init__(self, occurrences: list[Occurrence], directory: str | None) -> None:
        self.occurrences = sorted(occurrences, key=lambda o: (o.token.line, o.token.column))
        self._starts = [(o.token.line, o.token.column) for o in self.occurrences]
        #: The blueprint's folder on disk (None for a buffer that is not a file).
        self.directory = directory

    @classmethod
    def build(cls, analysis: "Analysis") -> "NameIndex":
        document = analysis.result.document or {}
        index = analysis.index
        found: list[Occurrence] = []
        kinds: tuple[tuple[Kind, tuple[Pattern, ...], tuple[Pattern, ...], tuple[Pattern, ...]], ...] = (
            ("stage", STAGE_DECLARATIONS, STAGE_KEYS, STAGE_VALUES),
            ("region", REGION_DECLARATIONS, REGION_KEYS, REGION_VALUES),
            ("tool", (), TOOL_KEYS, TOOL_VALUES),
            ("script", (), (), SCRIPT_VALUES),
        )
        for kind, declarations, keys, values in kinds:
            for patterns, declaration in ((declarations, True), (keys, False)):
                for pattern in patterns:
                    for path, _ in walk(document, pattern):
                        found.extend(_key_occurrences(index, kind, path, declaration))
            for pattern in values:
                for path, value in walk(document, pattern):
                    if isinstance(value, str):
                        occurrence = _value_occurrence(analysis, index, kind, path, value)
                        if occurrence is not None:
                            found.append(occurrence)
        file = analysis.result.path
        directory = os.path.dirname(os.path.abspath(file)) if os.path.isfile(file) else None
        return cls(found, directory)

    def at(self, line: int, column: int) -> Occurrence | None:
        """The occurrence whose token holds the 1-based position, if any."""
        i = bisect_right(self._starts, (line, column))
        for occurrence in reversed(self.occurrences[max(0, i - 3) : i]):
            token = occurrence.token
            if (token.line, token.column) <= (line, column) <= (token.end_line, token.end_column):
                return occurrence
        return None

    def of(self, kind: Kind, name: str) -> list[Occurrence]:
        return [o for o in self.occurrences if o.kind == kind and o.name == name]

    def declarations(self, kind: Kind, name: str) -> list[Occurrence]:
        return [o for o in self.of(kind, name) if o.declaration]

    def names(self, kind: Kind) -> list[str]:
        """Declared names of a kind, in document order, each once."""
        return list(dict.fromkeys(o.name for o in self.occurrences if o.kind == kind and o.declaration))

    def script_file(self, occurrence: Occurrence) -> str | None:
        """The file a tool name or script path stands for, when it exists on disk."""
        if self.directory is None:
            return None
        if occurrence.kind == "tool":
            candidate = os.path.join(self.directory, "tools", occurrence.name + ".rhai")
        elif occurrence.kind == "script":
            candidate = os.path.normpath(os.path.join(self.directory, occurrence.name))
        else:
            return None
        return candidate if os.path.isfile(candidate) else None


def is_builtin_region(name: str) -> bool:
    return name in ALWAYS_VISIBLE_REGIONS


def _key_occurrences(index: "PositionIndex", kind: Kind, path: KeyPath, declaration: bool) -> Iterator[Occurrence]:
    name = path[-1]
    if not isinstance(name, str):
        return
    for span in index.key_spans(path):
        yield Occurrence(kind, name, span, span, path, declaration, "key")


def _value_occurrence(
    analysis: "Analysis", index: "PositionIndex", kind: Kind, path: KeyPath, name: str
) -> Occurrence | None:
    span = index.value_span(path)
    if span is None or span.line != span.end_line:
        return None  # a multi-line string names nothing worth pointing at
    raw = analysis.source.line_text(span.line)[span.column - 1 : span.end_column - 1]
    quote = raw[:1]
    if quote not in ("'", '"'):
        return None
    inner = raw[1:-1]
    name_span = Span(span.line, span.column + 1, span.end_line, span.end_column - 1) if inner == name else span
    return Occurrence(kind, name, name_span, span, path, False, quote)
