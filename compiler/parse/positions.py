"""Where every key and value of a TOML document is: a key path → span index.

tomllib gives values without positions and tomlkit keeps none either, so we scan the text
ourselves. The scanner runs only over text that tomllib has already accepted, so it needs no
error recovery: it tracks table headers, keys and the extent of each value, nothing more.

Paths are the tuples jsonschema reports in `error.absolute_path`: table keys as strings
(quoted keys decoded), array positions as integers, array-of-tables elements numbered in
document order. For every path we keep up to three spans, as offsets:

- `key`: the key token that names it (for a dotted key or header, its own segment), taken
  from its first appearance;
- `value`: the value text of a `key = value` pair (or of an array element);
- `header`: the whole `[table]` / `[[array]]` header that opens it.

Built with `every_key=True`, the index also keeps every key token that names a path, not only
its first (`key_spans`): `[stages.plan]` and `[stages.plan.transitions.review]` both name stage
`plan`, which renaming it must change in both places.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import cast

from ..diagnostics import KeyPath, Span
from .reader import loads
from .source import LineIndex

_WS = re.compile(r"[ \t]*")
_WS_NL = re.compile(r"(?:[ \t\r\n]+|#[^\n]*)*+")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_BASIC = re.compile(r'"(?:[^"\\\n]+|\\.)*+"')
_LITERAL = re.compile(r"'[^'\n]*'")
_ML_BASIC = re.compile(r'"""(?:[^"\\]+|\\.|"(?!""))*+"{3,5}', re.S)
_ML_LITERAL = re.compile(r"'''(?:[^']+|'(?!''))*+'{3,5}")
_SCALAR = re.compile(r"[0-9A-Za-z_+\-.:]+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_SPACED_TIME = re.compile(r" \d{2}:[0-9A-Za-z_+\-.:]*")
_Matcher = Callable[[str, int], "re.Match[str]"]


def _sure(pattern: re.Pattern[str]) -> _Matcher:
    """`pattern.match`, typed as never missing: the scanner applies each token pattern where
    tomllib has read such a token, and white space matches (if only nothing) everywhere."""
    return cast(_Matcher, pattern.match)


_ws, _ws_nl, _bare_key, _scalar = _sure(_WS), _sure(_WS_NL), _sure(_BARE_KEY), _sure(_SCALAR)
_basic, _literal, _ml_basic, _ml_literal = _sure(_BASIC), _sure(_LITERAL), _sure(_ML_BASIC), _sure(_ML_LITERAL)
# Fast paths, each read in one match: most pairs of a blueprint are `name = value` with a
# single bare key and a one-line basic string or a plain scalar (not a date followed by a
# time) as the value, and most array elements are such values too. Anything else (a dotted
# or quoted key, another kind of value) takes the general path.
_SIMPLE_VALUE = r'(?!""")"(?:[^"\\\n]+|\\.)*+"|[0-9A-Za-z_+\-.:]++(?! \d{2}:)'
_BARE_PAIR = re.compile(rf"[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*({_SIMPLE_VALUE})?")
#: A `[table]` header of bare keys (not an array-of-tables header).
_BARE_HEADER = re.compile(r"\[[ \t]*[A-Za-z0-9_-]+(?:[ \t]*\.[ \t]*[A-Za-z0-9_-]+)*[ \t]*\]")
#: An array element and the separator after it (whitespace, comments, one comma).
_SIMPLE_ITEM = re.compile(rf"({_SIMPLE_VALUE}){_WS_NL.pattern}(?:,{_WS_NL.pattern})?")
#: An inline table or array nested at most three deep, with no multi-line string inside:
#: its extent is found in one match and its inside is read only when a path in it is asked
#: for (`model = { models = [{ provider = "…", model = "…" }] }` is three deep).
_ATOMS = r"""[^{}\[\]"'#]++|"(?!"")(?:[^"\\\n]++|\\.)*+"|'(?!'')[^'\n]*+'|#[^\n]*+"""


def _containers(inside: str) -> str:
    # Either bracket closes either: the text is valid TOML, where they always pair up, and one
    # copy of `inside` per level keeps the pattern (and its compile time) small.
    return r"[\[{]" + inside + r"[\]}]"


_INSIDE = "(?:" + _ATOMS + ")*+"
for _ in range(2):
    _INSIDE = "(?:" + _ATOMS + "|" + _containers(_INSIDE) + ")*+"
_FLAT_CONTAINER = re.compile(_containers(_INSIDE))
#: Consecutive `name = value` lines with a single bare key and a value that holds no table or
#: array of its own (blank and comment lines between them): found in one match, read only
#: when a path in their table is asked for.
_BLOCK_VALUE = (
    rf"(?s:{_ML_BASIC.pattern})|{_ML_LITERAL.pattern}|{_SIMPLE_VALUE}|'(?!'')[^'\n]*'|{_FLAT_CONTAINER.pattern}"
)
_PAIR_BLOCK = re.compile(
    rf"(?:[ \t]*[A-Za-z0-9_-]+[ \t]*=[ \t]*(?:{_BLOCK_VALUE})[ \t]*(?:#[^\n]*)?\r?\n(?:[ \t]*(?:#[^\n]*)?\r?\n)*+)++"
)


@dataclass(slots=True)
class Entry:
    """Offsets (start, end) of what names and holds one path."""

    key: tuple[int, int] | None = None
    value: tuple[int, int] | None = None
    header: tuple[int, int] | None = None


class PositionIndex:
    """Key path → `Entry`, plus conversion of its offsets to `Span`s."""

    def __init__(self, text: str, lines: LineIndex | None = None, *, every_key: bool = False) -> None:
        self._lines = lines or LineIndex(text)
        self._entries: dict[KeyPath, Entry] = {}
        self._scanner = _Scanner(text, self._entries, every_key)
        #: The table the text ends in (where a following `key = value` would land).
        self.last_table: KeyPath = self._scanner.scan()
        self._aot_last = self._scanner.aot_last
        if every_key:
            self._scanner.expand_all()

    @property
    def entries(self) -> dict[KeyPath, Entry]:
        """Every path of the document (the insides of deferred containers read first)."""
        self._scanner.expand_all()
        return self._entries

    def _entry(self, path: KeyPath) -> Entry | None:
        path = tuple(path)
        if self._scanner.deferred:
            self._scanner.expand(path)
        return self._entries.get(path)

    def resolve_line(self, line: str) -> tuple[KeyPath, int, int, bool] | None:
        """What a `[header]` or `key = value` line appended to this text would define.

        Returns (path, start, end, is_header) with the key's column range within `line`,
        or None when the line holds neither. Used to explain duplicate-key errors.
        """
        scanner = _Scanner(line, {})
        scanner.aot_last = dict(self._aot_last)
        i = scanner.skip_ws(0)
        if i >= len(line) or line[i] in "#\r\n":
            return None
        try:
            if line[i] == "[":
                if line.startswith("[[", i):
                    return None  # a new array element never duplicates
                segments, _ = scanner.read_key(i + 1)
                path = scanner.resolve(segments, is_array=False)
                return path, segments[-1][1], segments[-1][2], True
            segments, _ = scanner.read_key(i)
        except (IndexError, AttributeError):
            return None
        path = self.last_table + tuple(name for name, _, _ in segments)
        return path, segments[0][1], segments[-1][2], False

    def __contains__(self, path: KeyPath) -> bool:
        return self._entry(path) is not None

    def get(self, path: KeyPath) -> Entry | None:
        return self._entry(path)

    def paths(self) -> Iterator[KeyPath]:
        return iter(self.entries)

    def key_span(self, path: KeyPath) -> Span | None:
        entry = self._entry(path)
        return self._span(entry.key) if entry and entry.key else None

    def value_span(self, path: KeyPath) -> Span | None:
        entry = self._entry(path)
        return self._span(entry.value) if entry and entry.value else None

    def header_span(self, path: KeyPath) -> Span | None:
        entry = self._entry(path)
        return self._span(entry.header) if entry and entry.header else None

    def key_spans(self, path: KeyPath) -> list[Span]:
        """Every key token that names `path`, in document order (an index built with
        `every_key=True`; otherwise a `ValueError`)."""
        if self._scanner.keys is None:
            raise ValueError("key_spans needs a PositionIndex built with every_key=True")
        return [self._span(offsets) for offsets in self._scanner.keys.get(tuple(path), ())]

    def locate(self, path: KeyPath, prefer: str = "value") -> tuple[Span | None, KeyPath]:
        """The best span for a finding about `path`, and the path it was found at.

        `prefer="value"` anchors on the value (type, enum and range findings), `"key"` on the
        key that names the path (unknown keys, references to it). A path that is not in the
        document (a missing key, a default) falls back to its nearest ancestor's key.
        """
        path = tuple(path)
        if self._scanner.deferred:
            self._scanner.expand(path)
        order = ("value", "key", "header") if prefer == "value" else ("key", "header", "value")
        probe = path
        while True:
            entry = self._entries.get(probe)
            if entry is not None:
                for kind in order if probe == path else ("key", "header", "value"):
                    offsets = getattr(entry, kind)
                    if offsets is not None:
                        return self._span(offsets), probe
            if not probe:
                return None, ()
            probe = probe[:-1]

    def _span(self, offsets: tuple[int, int]) -> Span:
        return self._lines.span(*offsets)


class _Scanner:
    """One pass over accepted TOML text, filling `entries`."""

    def __init__(self, text: str, entries: dict[KeyPath, Entry], every_key: bool = False) -> None:
        self.text = text
        self.entries = entries
        #: With `every_key`: path → offsets of every key token that names it.
        self.keys: dict[KeyPath, list[tuple[int, int]]] | None = {} if every_key else None
        #: resolved path of an array of tables → index of its latest element
        self.aot_last: dict[KeyPath, int] = {}
        #: Text not read yet, by the path its keys extend: a flat inline table or array (by its
        #: own path) or a block of simple pairs (by its table) → [(start, end)]. Findings
        #: concern a handful of paths, so most of it is never read; each path's spans are the
        #: same whenever it is read, since nothing else in the file can name its keys.
        self.deferred: dict[KeyPath, list[tuple[int, int]]] = {}

    def defer(self, path: KeyPath, start: int, end: int) -> None:
        self.deferred.setdefault(path, []).append((start, end))

    def expand(self, path: KeyPath) -> None:
        """Read the deferred text that could hold `path` (or the ancestors `locate` tries)."""
        for length in range(len(path)):
            for start, end in self.deferred.pop(path[:length], ()):
                self.read_deferred(path[:length], start, end)

    def expand_all(self) -> None:
        while self.deferred:
            path, spans = self.deferred.popitem()
            for start, end in spans:
                self.read_deferred(path, start, end)

    def read_deferred(self, path: KeyPath, start: int, end: int) -> None:
        if self.text[start] in "{[":
            self.read_container(start, path)
            return
        skip = _ws_nl
        i = start
        while i < end:
            i = skip(self.text, self.read_pair(i, path)).end()

    def read_container(self, i: int, path: KeyPath) -> int:
        return self.read_inline_table(i, path) if self.text[i] == "{" else self.read_array(i, path)

    # -- recording -------------------------------------------------------------------------

    def _entry(self, path: KeyPath) -> Entry:
        entry = self.entries.get(path)
        if entry is None:
            entry = self.entries[path] = Entry()
        return entry

    def _key(self, path: KeyPath, start: int, end: int) -> None:
        entry = self._entry(path)
        if entry.key is None:
            entry.key = (start, end)
        if self.keys is not None:
            self.keys.setdefault(path, []).append((start, end))

    # -- lexing ----------------------------------------------------------------------------

    def skip_ws(self, i: int) -> int:
        return _ws(self.text, i).end()

    def skip_ws_nl(self, i: int) -> int:
        return _ws_nl(self.text, i).end()

    def read_key(self, i: int) -> tuple[list[tuple[str, int, int]], int]:
        """A (possibly dotted) key at `i`: its segments with their offsets, and the end."""
        text = self.text
        segments: list[tuple[str, int, int]] = []
        while True:
            i = self.skip_ws(i)
            c = text[i]
            if c == '"':
                end = _basic(text, i).end()
                name = _decode_quoted_key(text[i:end])
            elif c == "'":
                end = _literal(text, i).end()
                name = text[i + 1 : end - 1]
            else:
                end = _bare_key(text, i).end()
                name = text[i:end]
            segments.append((name, i, end))
            i = self.skip_ws(end)
            if i < len(text) and text[i] == ".":
                i += 1
                continue
            return segments, i

    # -- structure -------------------------------------------------------------------------

    def scan(self) -> KeyPath:
        text = self.text
        n = len(text)
        table: KeyPath = ()
        skip = _ws_nl
        i = skip(text, 0).end()
        block = _PAIR_BLOCK.match
        while i < n:
            if text[i] == "[":
                table, i = self.read_header(i)
            else:
                pairs = block(text, i)
                if pairs is None:
                    i = self.read_pair(i, table)
                else:
                    self.defer(table, i, pairs.end())
                    i = pairs.end()
            i = skip(text, i).end()
        return table

    def read_header(self, start: int) -> tuple[KeyPath, int]:
        text = self.text
        bare = _BARE_HEADER.match(text, start)
        if bare is not None:
            i = bare.end()
            inside = text[start + 1 : i - 1]
            if " " in inside or "\t" in inside:
                segments = [(m.group(), m.start(), m.end()) for m in _BARE_KEY.finditer(text, start + 1, i - 1)]
                resolved = self.resolve(segments, False)
            else:
                resolved = self.resolve_bare(inside.split("."), start + 1)
            entry = self._entry(resolved)
            if entry.header is None:
                entry.header = (start, i)
            return resolved, i
        is_array = text.startswith("[[", start)
        segments, i = self.read_key(start + (2 if is_array else 1))
        i += 2 if is_array else 1  # the closing bracket(s); whitespace was skipped by read_key
        resolved = self.resolve(segments, is_array, header=(start, i))
        entry = self._entry(resolved)
        if entry.header is None:
            entry.header = (start, i)
        return resolved, i

    def resolve(
        self,
        segments: list[tuple[str, int, int]],
        is_array: bool,
        header: tuple[int, int] | None = None,
    ) -> KeyPath:
        """The path a header names, numbering array-of-tables elements (recording keys)."""
        resolved: KeyPath = ()
        last = len(segments) - 1
        for pos, (name, s, e) in enumerate(segments):
            resolved = resolved + (name,)
            self._key(resolved, s, e)
            if pos == last and is_array:
                entry = self._entry(resolved)
                if entry.header is None:
                    entry.header = header
                index = self.aot_last.get(resolved, -1) + 1
                self.aot_last[resolved] = index
                resolved = resolved + (index,)
                self._key(resolved, s, e)
            elif resolved in self.aot_last:
                resolved = resolved + (self.aot_last[resolved],)
        return resolved

    def resolve_bare(self, names: list[str], offset: int) -> KeyPath:
        """`resolve` for a `[table]` header of bare keys without spaces, whose segments
        start at `offset` one dot apart: the same entries, with the lookups inlined (most
        headers of a blueprint are such, and resolving them was most of the scan)."""
        entries = self.entries
        aot_last = self.aot_last
        keys = self.keys
        resolved: KeyPath = ()
        for name in names:
            end = offset + len(name)
            resolved = resolved + (name,)
            entry = entries.get(resolved)
            if entry is None:
                entries[resolved] = Entry(key=(offset, end))
            elif entry.key is None:
                entry.key = (offset, end)
            if keys is not None:
                keys.setdefault(resolved, []).append((offset, end))
            if aot_last and resolved in aot_last:
                resolved = resolved + (aot_last[resolved],)
            offset = end + 1
        return resolved

    def read_pair(self, i: int, table: KeyPath) -> int:
        simple = _BARE_PAIR.match(self.text, i)
        if simple is not None:
            path = table + (simple.group(1),)
            entry = self.entries.get(path)
            if entry is None:
                entry = self.entries[path] = Entry(key=simple.span(1))
            elif entry.key is None:
                entry.key = simple.span(1)
            if self.keys is not None:
                self.keys.setdefault(path, []).append(simple.span(1))
            if simple.group(2) is None:
                return self.read_value(simple.end(), path)
            entry.value = simple.span(2)
            return simple.end()
        segments, i = self.read_key(i)
        path = table
        for name, s, e in segments:
            path = path + (name,)
            self._key(path, s, e)
        i = self.skip_ws(i + 1)  # past '='
        return self.read_value(i, path)

    def read_value(self, i: int, path: KeyPath) -> int:
        text = self.text
        c = text[i]
        if c == '"':
            end = (_ml_basic if text.startswith('"""', i) else _basic)(text, i).end()
        elif c == "'":
            end = (_ml_literal if text.startswith("'''", i) else _literal)(text, i).end()
        elif c == "{" or c == "[":
            flat = _FLAT_CONTAINER.match(text, i)
            if flat is None:
                end = self.read_container(i, path)
            else:
                end = flat.end()
                self.defer(path, i, end)
        else:
            end = _scalar(text, i).end()
            if _DATE.fullmatch(text, i, end):
                spaced = _SPACED_TIME.match(text, end)
                if spaced:
                    end = spaced.end()
        entry = self.entries.get(path)
        if entry is None:
            self.entries[path] = Entry(value=(i, end))
        else:
            entry.value = (i, end)
        return end

    def read_inline_table(self, i: int, path: KeyPath) -> int:
        text = self.text
        i = self.skip_ws_nl(i + 1)
        while text[i] != "}":
            i = self.read_pair(i, path)
            i = self.skip_ws_nl(i)
            if text[i] == ",":
                i = self.skip_ws_nl(i + 1)
        return i + 1

    def read_array(self, i: int, path: KeyPath) -> int:
        text = self.text
        entries = self.entries
        i = self.skip_ws_nl(i + 1)
        index = 0
        while text[i] != "]":
            item = _SIMPLE_ITEM.match(text, i)
            if item is not None:
                element = path + (index,)
                entry = entries.get(element)
                if entry is None:
                    entries[element] = Entry(value=item.span(1))
                else:
                    entry.value = item.span(1)
                i = item.end()
            else:
                i = self.read_value(i, path + (index,))
                i = self.skip_ws_nl(i)
                if text[i] == ",":
                    i = self.skip_ws_nl(i + 1)
            index += 1
        return i + 1


def _decode_quoted_key(raw: str) -> str:
    """Decode a basic-string key by letting the TOML reader read it; escapes stay its business."""
    if "\\" not in raw:
        return raw[1:-1]
    return next(iter(loads(f"{raw} = 0")))
