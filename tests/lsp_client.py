"""A pytest-lsp client for `blueprint lsp` that keeps every publishDiagnostics with its version."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

ROOT = Path(__file__).resolve().parents[1]
SERVER = [sys.executable, "-m", "compiler", "lsp"]


class Client(LanguageClient):
    published: list[types.PublishDiagnosticsParams]


def _record(client: Client, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)


def make_client() -> Client:
    client = Client(converter_factory=default_converter)
    client.published = []
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _record
    register_lsp_features(client, features)
    return client


CONFIG = ClientServerConfig(server_command=SERVER, client_factory=make_client)


async def initialize(
    client: Client, root: Path | None = None, options: Any = None, **capabilities: Any
) -> types.InitializeResult:
    params = types.InitializeParams(
        capabilities=types.ClientCapabilities(**capabilities),
        root_uri=(root or ROOT).as_uri(),
        initialization_options=options,
    )
    return await client.initialize_session(params)


async def published(
    client: Client, uri: str, version: int | None = None, timeout: float = 20.0, where: Any = None
) -> types.PublishDiagnosticsParams:
    """The first publishDiagnostics for `uri` at `version` (or any version) that satisfies
    `where` (if given), waiting for it."""
    deadline = time.monotonic() + timeout
    while True:
        for params in client.published:
            if (
                params.uri == uri
                and (version is None or params.version == version)
                and (where is None or where(params))
            ):
                return params
        if time.monotonic() > deadline:
            seen = [(p.uri, p.version) for p in client.published]
            raise AssertionError(f"no diagnostics for {uri} version {version}; seen {seen}")
        await asyncio.sleep(0.005)


def open_document(client: Client, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="toml", version=version, text=text)
        )
    )
    return uri


def change(
    client: Client,
    uri: str,
    version: int,
    text: str,
    start: tuple[int, int] | None = None,
    end: tuple[int, int] | None = None,
) -> None:
    """Replace the whole text, or the range start..end (line, character) with `text`."""
    if start is None:
        event: Any = types.TextDocumentContentChangeWholeDocument(text=text)
    else:
        end = end or start
        event = types.TextDocumentContentChangePartial(
            range=types.Range(
                start=types.Position(line=start[0], character=start[1]),
                end=types.Position(line=end[0], character=end[1]),
            ),
            text=text,
        )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[event]
        )
    )


def position(text: str, needle: str, nth: int = 0, shift: int = 0) -> types.Position:
    """The LSP position (UTF-16) of the nth occurrence of `needle` in `text`, plus `shift` characters."""
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    index += shift
    line = text.count("\n", 0, index)
    column = text[text.rfind("\n", 0, index) + 1 : index]
    return types.Position(line=line, character=len(column.encode("utf-16-le")) // 2)
