"""Open documents, their edits, and what validating one version of one produced.

The store keeps the client's text of each open document (the file on disk may be older) and
applies `didChange` edits itself: LSP lines break at `\\n`, `\\r\\n` and `\\r` only, while
`str.splitlines` also breaks at form feeds, U+2028 and other characters a TOML string or
comment may hold. Each version's `Analysis` is computed once and dropped with the version, so
memory stays flat however long a session lasts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from .text import TextLines

if TYPE_CHECKING:
    from ..config import Settings
    from ..parse.positions import PositionIndex
    from ..parse.source import SourceFile
    from ..pipeline import FileResult
    from .names import NameIndex


def uri_to_path(uri: str) -> str:
    """The file-system path of a `file:` URI; other URIs are kept as they are (an untitled
    buffer still gets findings, just no project settings and no tool scripts)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    path = unquote(parsed.path)
    if os.name == "nt" and path.startswith("/") and len(path) > 2 and path[2] == ":":
        path = path[1:]
    return path


@dataclass
class Analysis:
    """One version of one document, validated, with what navigation derives from it lazily."""

    text: str
    version: int
    result: "FileResult"
    encoding: str = "utf-16"
    #: The project settings it was validated with (quick fixes are verified with the same).
    settings: "Settings | None" = None
    #: The families that ran: validate's, or check's on save.
    checked: bool = False

    @cached_property
    def lines(self) -> TextLines:
        return TextLines(self.text, self.encoding)

    @property
    def parsed(self) -> bool:
        return self.result.document is not None and self.result.blueprint is not None

    @property
    def source(self) -> "SourceFile":
        """The decoded text the findings point into (the client's text is always decodable)."""
        source = self.result.source
        assert source is not None
        return source

    @cached_property
    def index(self) -> "PositionIndex":
        """Every key and value of this version, with every key token (for rename)."""
        from ..parse.positions import PositionIndex

        return PositionIndex(self.source.text, self.source.lines, every_key=True)

    @cached_property
    def names(self) -> "NameIndex":
        from .names import NameIndex

        assert self.parsed
        return NameIndex.build(self)


@dataclass
class Document:
    uri: str
    text: str
    version: int
    path: str = ""
    #: The latest validation of any version (findings stay shown while a new one runs).
    analysis: Analysis | None = None
    #: The latest validation that parsed: names for completion while the text does not.
    last_parsed: Analysis | None = None
    closed: bool = False

    def __post_init__(self) -> None:
        self.path = self.path or uri_to_path(self.uri)

    def apply(self, changes: list[Any], version: int, encoding: str) -> None:
        """Apply `didChange` content changes in order (full texts or ranged edits)."""
        text = self.text
        for change in changes:
            if getattr(change, "range", None) is None:
                text = change.text
                continue
            lines = TextLines(text, encoding)
            start = lines.offset(change.range.start.line, change.range.start.character)
            end = lines.offset(change.range.end.line, change.range.end.character)
            start, end = min(start, end), max(start, end)
            text = text[:start] + change.text + text[end:]
        self.text = text
        self.version = version

    def current(self) -> Analysis | None:
        """The analysis of the document's current version, if it has been made."""
        analysis = self.analysis
        return analysis if analysis is not None and analysis.version == self.version else None


def analyse(
    path: str, text: str, version: int, settings: "Settings", encoding: str, *, check: bool = False
) -> Analysis:
    """Validate one version of a document (and explore its runs when `check`), as
    `blueprint validate` / `blueprint check` would validate the file `path` holding `text`."""
    data = text.encode("utf-8", "surrogatepass")
    if check:
        from ..check import check_bytes

        result = check_bytes(path, data, settings).result
    else:
        from ..pipeline import validate_bytes

        result = validate_bytes(path, data, settings)
    return Analysis(text, version, result, encoding, settings, checked=check)
