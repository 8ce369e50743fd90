"""Findings as LSP diagnostics, published as the user types.

The findings are exactly `blueprint validate`'s for the document's text with the project's
settings (and `blueprint check`'s on save): the same codes, severities, messages and ranges,
suppressions honoured. Each keeps its fix hint (on a second line), its trace of related places
(`relatedInformation`), a link to its rule's page (`codeDescription`) and a tag where one fits.

Scheduling: a change waits `debounceMs` for more changes, then the latest text is validated in
one worker thread (the server keeps answering requests meanwhile). A result is published only if
its version is still the document's version, so an older version's findings never replace a
newer one's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from lsprotocol import types

from ..config import ConfigError, ConfigFinder, Settings, settings_for
from ..diagnostics import Diagnostic
from .documents import Analysis, Document, analyse
from .ranges import to_range

if TYPE_CHECKING:
    from .settings import ClientSettings

log = logging.getLogger(__name__)

SOURCE = "blueprint"
_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "note": types.DiagnosticSeverity.Information,
}
#: Findings about text that does nothing: editors fade it out.
UNNECESSARY = frozenset(
    {
        "unused-suppression",
        "ignored-key",
        "seed-key-ignored",
        "agent-model-block-ignored",
        "unreachable-stage",
        "stage-never-entered",
        "edge-never-taken",
    }
)
#: Findings about a spelling the runtime still reads but that has a newer one: struck through.
DEPRECATED = frozenset({"non-canonical-value"})


def project_settings(path: str) -> tuple[Settings, str | None]:
    """The settings `blueprint validate PATH` would use, and a configuration error if any (the
    defaults are used then, and the error is shown to the user)."""
    try:
        return settings_for(ConfigFinder().for_file(path), path=path).for_file(path), None
    except ConfigError as exc:
        return settings_for(None), str(exc)
    except (OSError, ValueError):  # not a file-system path (an untitled buffer)
        return settings_for(None), None


def _analyse(path: str, text: str, version: int, encoding: str, check: bool) -> tuple[Analysis, str | None]:
    settings, problem = project_settings(path)
    return analyse(path, text, version, settings, encoding, check=check), problem


def to_lsp(finding: Diagnostic, analysis: Analysis, uri: str, client: "ClientSettings") -> types.Diagnostic:
    lines = analysis.lines
    tags = []
    if finding.code in UNNECESSARY:
        tags.append(types.DiagnosticTag.Unnecessary)
    if finding.code in DEPRECATED:
        tags.append(types.DiagnosticTag.Deprecated)
    href = client.rule_href(finding.code)
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=to_range(lines, r.span)),
            message=r.message,
        )
        for r in finding.related
        if r.span is not None
    ]
    return types.Diagnostic(
        range=to_range(lines, finding.span),
        message=finding.message + (f"\nfix: {finding.fix}" if finding.fix else ""),
        severity=_SEVERITY.get(finding.severity, types.DiagnosticSeverity.Information),
        code=finding.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        tags=tags or None,
        related_information=related or None,
    )


class Publisher:
    """Debounced validation of open documents, one worker thread, newest version wins."""

    def __init__(
        self,
        publish: Callable[[str, int, list[types.Diagnostic]], None],
        warn: Callable[[str], None],
        client: Callable[[], "ClientSettings"],
        encoding: Callable[[], str],
    ) -> None:
        self._publish = publish
        self._warn = warn
        self._client = client
        self._encoding = encoding
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="blueprint-validate")
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._warned: set[str] = set()

    def schedule(self, document: Document, *, check: bool = False, delay: float | None = None) -> None:
        """Validate `document` after the debounce delay, replacing any pending run for it."""
        timer = self._timers.pop(document.uri, None)
        if timer is not None:
            timer.cancel()
        if delay is None:
            delay = self._client().debounce_ms / 1000
        loop = asyncio.get_running_loop()
        self._timers[document.uri] = loop.call_later(
            delay, lambda: asyncio.ensure_future(self._run(document, check or self._client().check_on_change))
        )

    def forget(self, uri: str) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()

    async def _run(self, document: Document, check: bool) -> None:
        self._timers.pop(document.uri, None)
        text, version = document.text, document.version  # a snapshot, taken on the loop's thread
        encoding = self._encoding()
        try:
            analysis, problem = await asyncio.get_running_loop().run_in_executor(
                self._executor, _analyse, document.path, text, version, encoding, check
            )
        except Exception:  # a bug must not stop the server; the log says what happened
            log.exception("validating %s failed", document.uri)
            return
        self._report(problem)
        if document.closed or document.version != version:
            return  # closed, or changed meanwhile (the newer version's own run publishes)
        self.publish(document, analysis)

    def current(self, document: Document) -> Analysis:
        """The analysis of the document's current version, made now if the debounced run has
        not happened yet (a request right after a change must not see stale positions)."""
        analysis = document.current()
        if analysis is None:
            self.forget(document.uri)
            analysis, problem = _analyse(document.path, document.text, document.version, self._encoding(), False)
            self._report(problem)
            self.publish(document, analysis)
        return analysis

    def _report(self, problem: str | None) -> None:
        if problem is not None and problem not in self._warned:
            self._warned.add(problem)
            self._warn(f"blueprint: {problem}; using the default settings")

    def publish(self, document: Document, analysis: Analysis) -> None:
        current = document.analysis
        if current is not None and current.version > analysis.version:
            return
        document.analysis = analysis
        if analysis.parsed:
            document.last_parsed = analysis
        client = self._client()
        self._publish(
            document.uri,
            analysis.version,
            [to_lsp(d, analysis, document.uri, client) for d in analysis.result.diagnostics],
        )

    def shutdown(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self._executor.shutdown(wait=False, cancel_futures=True)
