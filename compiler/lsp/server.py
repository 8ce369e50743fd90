"""The language server: pygls wiring, document sync, and one handler per feature.

Each handler finds the document, makes sure its current version is analysed, and hands over to
the feature's module. A request for a document the server does not hold (never opened, or
closed) gets an empty answer, never an error that would make an editor complain; a handler
that fails on unexpected input answers with the protocol's internal error and the server
carries on.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from .. import __version__
from . import actions, completion, hover, navigation, rename
from .diagnostics import Publisher
from .documents import Analysis, Document
from .rename import RenameRefused
from .settings import ClientSettings, read_settings

log = logging.getLogger(__name__)
T = TypeVar("T")
#: A request already answered with an error while it was being read.
_ANSWERED = object()

_ENCODINGS = {
    types.PositionEncodingKind.Utf8: "utf-8",
    types.PositionEncodingKind.Utf16: "utf-16",
    types.PositionEncodingKind.Utf32: "utf-32",
}


class BlueprintProtocol(LanguageServerProtocol):
    """pygls's protocol with document sync left to the server's own store (`Document`): pygls's
    workspace would split lines at characters LSP does not break at, and fail on a change to a
    document that is not open. A request whose parameters do not fit its method is answered
    with the protocol's error (pygls would drop it, leaving the client waiting for ever)."""

    def structure_message(self, data: Any) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if not (isinstance(data, dict) and "id" in data and "method" in data):
                raise
            message = f"invalid parameters for {data['method']}"
            self._send_response(data["id"], error=types.ResponseError(code=exc.code, message=message))
            return _ANSWERED

    def handle_message(self, message: Any) -> None:
        if message is not _ANSWERED:
            super().handle_message(message)

    def _check_handler_result(self, future: Any) -> None:
        super()._check_handler_result(future)
        # pygls files the future of each notification it runs through a generator or a
        # coroutine (didOpen, didChange, didClose …) under a made-up id, and nothing ever takes
        # it out again: a future per keystroke, for as long as the session lasts.
        for key in [key for key, pending in self._request_futures.items() if pending is future]:
            del self._request_futures[key]

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


class BlueprintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("blueprint", __version__, protocol_cls=BlueprintProtocol)
        self.documents: dict[str, Document] = {}
        self.client_settings = ClientSettings()
        self.publisher = Publisher(self._publish, self._warn, lambda: self.client_settings, self.encoding)

    def encoding(self) -> str:
        capabilities = self.protocol.server_capabilities if self._initialized() else None
        negotiated = getattr(capabilities, "position_encoding", None) or types.PositionEncodingKind.Utf16
        return _ENCODINGS.get(negotiated, "utf-16")

    def _initialized(self) -> bool:
        return getattr(self.protocol, "server_capabilities", None) is not None

    def _publish(self, uri: str, version: int, diagnostics: list[types.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def _warn(self, message: str) -> None:
        self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))

    def apply_settings(self, raw: Any) -> None:
        self.client_settings, problems = read_settings(self.client_settings, raw)
        for problem in problems:
            self._warn(problem)

    def analysis(self, uri: str) -> tuple[Document, Analysis] | None:
        """The open document and its current analysis, or None when it is not open."""
        document = self.documents.get(uri)
        if document is None:
            return None
        return document, self.publisher.current(document)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # A failed request was answered with its error already; anything else (a malformed
        # message, a failing notification handler) is logged, never shown as a pop-up.
        if source is FeatureRequestError:
            return
        log.error("%s: %s", getattr(source, "__name__", source), error)


def build_server() -> BlueprintServer:
    server = BlueprintServer()

    def on_document(
        method: str, default: T, options: Any = None
    ) -> Callable[[Callable[[BlueprintServer, Document, Analysis, Any], T]], None]:
        """Register a request handler that gets the document and its analysis."""

        def register(handler: Callable[[BlueprintServer, Document, Analysis, Any], T]) -> None:
            def respond(ls: BlueprintServer, params: Any) -> T:
                found = ls.analysis(params.text_document.uri)
                if found is None:
                    return default
                return handler(ls, found[0], found[1], params)

            respond.__name__ = handler.__name__
            server.feature(method, options)(respond)

        return register

    @server.feature(types.INITIALIZE)
    def initialize(ls: BlueprintServer, params: types.InitializeParams) -> None:
        ls.apply_settings(params.initialization_options)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: BlueprintServer, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if not (isinstance(settings, dict) and settings) and _can_pull_configuration(ls):
            try:
                pulled = await ls.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section="blueprint")])
                )
                settings = pulled[0] if pulled else None
            except Exception as exc:  # a client that advertised the request and fails it
                log.warning("workspace/configuration failed: %s", exc)
        ls.apply_settings(settings)
        for document in ls.documents.values():
            ls.publisher.schedule(document, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: BlueprintServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        document = Document(item.uri, item.text, item.version)
        ls.documents[item.uri] = document
        ls.publisher.schedule(document, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: BlueprintServer, params: types.DidChangeTextDocumentParams) -> None:
        document = ls.documents.get(params.text_document.uri)
        if document is None:
            log.warning("didChange for %s, which is not open: ignored", params.text_document.uri)
            return
        document.apply(list(params.content_changes), params.text_document.version, ls.encoding())
        ls.publisher.schedule(document)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: BlueprintServer, params: types.DidSaveTextDocumentParams) -> None:
        document = ls.documents.get(params.text_document.uri)
        if document is None:
            return
        if ls.client_settings.check_on_save:
            ls.publisher.schedule(document, check=True, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: BlueprintServer, params: types.DidCloseTextDocumentParams) -> None:
        document = ls.documents.pop(params.text_document.uri, None)
        if document is None:
            return
        document.closed = True
        ls.publisher.forget(document.uri)
        ls._publish(document.uri, document.version, [])

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: BlueprintServer, params: Any) -> None:
        ls.publisher.shutdown()

    on_document(types.TEXT_DOCUMENT_DEFINITION, None)(navigation.definition)
    on_document(types.TEXT_DOCUMENT_REFERENCES, None)(navigation.references)
    on_document(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, None)(navigation.highlights)
    on_document(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, None)(navigation.symbols)
    on_document(types.TEXT_DOCUMENT_PREPARE_RENAME, None)(rename.prepare)
    on_document(types.TEXT_DOCUMENT_RENAME, None, types.RenameOptions(prepare_provider=True))(rename.rename)
    on_document(
        types.TEXT_DOCUMENT_COMPLETION,
        None,
        types.CompletionOptions(trigger_characters=list(completion.TRIGGERS)),
    )(completion.complete)
    on_document(types.TEXT_DOCUMENT_HOVER, None)(hover.hover)
    on_document(
        types.TEXT_DOCUMENT_CODE_ACTION,
        None,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )(actions.code_actions)
    return server


def _can_pull_configuration(ls: BlueprintServer) -> bool:
    workspace = getattr(ls.client_capabilities, "workspace", None)
    return bool(workspace is not None and workspace.configuration)


class _QuietRefusals(logging.Filter):
    """pygls logs every error answer with its traceback; a refused rename is an answer, not a
    fault, and does not belong in the editor's server log."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, RenameRefused) and "RenameRefused" not in record.getMessage()


def serve(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Talk LSP over standard input and output until the client says exit; `TransportError`
    when the input breaks the limits of `compiler.lsp.transport`."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("blueprint lsp: %(levelname)s: %(message)s"))
    handler.addFilter(_QuietRefusals())
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    from .. import pipeline  # noqa: F401 (every rule, loaded before the worker thread and the handlers need them)
    from .transport import BoundedInput

    build_server().start_io(BoundedInput(stdin or sys.stdin.buffer), stdout)  # type: ignore[arg-type]
