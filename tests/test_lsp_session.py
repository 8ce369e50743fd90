"""`blueprint lsp` over whole sessions: a random edit script with requests between edits,
shutdown and exit, malformed messages, and the command without its extra installed."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types

from compiler.pipeline import validate_bytes
from tests.helpers import ROOT
from tests.lsp_client import CONFIG, SERVER, Client, initialize, open_document, published

BASE = (ROOT / "blueprints" / "review-loop.leviath").read_text(encoding="utf-8")
#: What random edits insert: TOML punctuation, names, quotes, astral and combining characters,
#: line breaks of every kind LSP knows.
PIECES = [
    "[",
    "]",
    "{",
    "}",
    '"',
    "'",
    "=",
    ",",
    ".",
    "#",
    " ",
    "\n",
    "\r\n",
    "\r",
    "🦀",
    "é",
    "\u2028",
    "stages",
    "review",
    "gate",
    "mode",
    '"""',
    "x = 1\n",
    "[stages.new]\n",
    "# blueprint: ignore[",
    "\t",
]


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: Client):
    await initialize(lsp_client, options={"blueprint": {"debounceMs": 0}})
    yield
    if lsp_client._server.returncode is None:  # still running: end it properly
        await lsp_client.shutdown_session()


def _utf16_position(text: str, offset: int) -> types.Position:
    before = text[:offset]
    line_start = max(before.rfind("\n"), before.rfind("\r")) + 1
    # Lines break at \n, \r\n and \r (and nowhere else): count them that way.
    line = before.count("\n") + before.count("\r") - before.count("\r\n")
    return types.Position(line=line, character=len(before[line_start:].encode("utf-16-le")) // 2)


@pytest.mark.asyncio
async def test_a_random_edit_session_never_crashes_and_ends_in_sync(client: Client, tmp_path: Path) -> None:
    rng = random.Random(20240611)
    path = tmp_path / "agent.leviath"
    path.write_text(BASE, encoding="utf-8")
    text = BASE
    uri = open_document(client, path, text)
    for version in range(2, 202):
        start = rng.randrange(len(text) + 1)
        end = min(len(text), start + rng.choice((0, 0, 1, 3, 12)))
        if 0 < start < len(text) and text[start - 1 : start + 1] == "\r\n":
            start -= 1  # never split a CRLF: LSP positions cannot point between its two characters
        if 0 < end < len(text) and text[end - 1 : end + 1] == "\r\n":
            end += 1
        end = max(start, end)
        insert = "".join(rng.choice(PIECES) for _ in range(rng.choice((0, 1, 2))))
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=_utf16_position(text, start), end=_utf16_position(text, end)),
                        text=insert,
                    )
                ],
            )
        )
        text = text[:start] + insert + text[end:]
        at = _utf16_position(text, rng.randrange(len(text) + 1))
        ident = types.TextDocumentIdentifier(uri=uri)
        request = rng.choice(("hover", "completion", "definition", "symbols", "actions", "highlight"))
        if request == "hover":
            await client.text_document_hover_async(types.HoverParams(text_document=ident, position=at))
        elif request == "completion":
            await client.text_document_completion_async(types.CompletionParams(text_document=ident, position=at))
        elif request == "definition":
            await client.text_document_definition_async(types.DefinitionParams(text_document=ident, position=at))
        elif request == "symbols":
            await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=ident))
        elif request == "highlight":
            await client.text_document_document_highlight_async(
                types.DocumentHighlightParams(text_document=ident, position=at)
            )
        else:
            await client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=ident,
                    range=types.Range(start=at, end=at),
                    context=types.CodeActionContext(diagnostics=[]),
                )
            )
    final = await published(client, uri, 201)
    want = validate_bytes(str(path), text.encode("utf-8", "surrogatepass")).diagnostics
    assert [d.code for d in final.diagnostics] == [d.code for d in want]
    assert not client.messages, [m.message for m in client.messages]  # no error was shown to the user
    versions = [p.version for p in client.published if p.uri == uri]
    assert versions == sorted(versions)


@pytest.mark.asyncio
async def test_shutdown_then_exit_ends_the_server_with_status_0(client: Client) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    assert await client._server.wait() == 0  # the server process pytest-lsp started


def _frame(message: dict | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def test_malformed_messages_are_survived() -> None:
    """Not JSON, an unknown method, bad params: each gets its error (or is dropped, for a
    notification), and the next request is still answered."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        b"{this is not json",
        {"jsonrpc": "2.0", "id": 2, "method": "no/suchMethod", "params": {}},
        {"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {"position": "nowhere"}},
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": "file:///nope", "version": 2}, "contentChanges": [{"text": "x"}]},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "textDocument/hover",
            "params": {"textDocument": {"uri": "file:///nope"}, "position": {"line": 0, "character": 0}},
        },
        {"jsonrpc": "2.0", "id": 5, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    done = subprocess.run(SERVER, input=b"".join(_frame(m) for m in messages), capture_output=True, timeout=120)
    replies = {}
    for chunk in done.stdout.split(b"Content-Length: ")[1:]:
        body = json.loads(chunk.split(b"\r\n\r\n", 1)[1])
        if "id" in body:
            replies[body["id"]] = body
    assert done.returncode == 0, done.stderr.decode()
    assert "capabilities" in replies[1]["result"]
    assert replies[2]["error"]["code"] == -32601  # method not found
    assert replies[3]["error"]["code"] == -32602  # invalid params
    assert replies[4]["result"] is None  # a document the server does not hold: nothing to show
    assert replies[5]["result"] is None


def test_an_environment_without_pygls_is_told_how_to_mend_it() -> None:
    probe = textwrap.dedent(
        """
        import sys
        sys.modules["pygls"] = None  # as if it had been uninstalled from the environment
        from compiler.cli.main import main
        main(["lsp"])
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2
    assert "pip install --force-reinstall agent-blueprint-compiler" in done.stderr and "Traceback" not in done.stderr


def test_the_base_install_brings_the_language_server_and_the_watcher() -> None:
    """As ruff ships its server and watch mode: no extra to remember (the README installs `.`)."""
    import tomllib
    from importlib.metadata import requires

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    names = {entry.split(">")[0].split("=")[0].split("<")[0].strip() for entry in declared}
    assert {"pygls", "lsprotocol", "watchfiles"} <= names
    installed = [r for r in requires("agent-blueprint-compiler") or () if "extra ==" not in r]
    assert {r.split(">")[0].split("=")[0].split("<")[0].strip() for r in installed} >= {
        "pygls",
        "lsprotocol",
        "watchfiles",
    }


@pytest.mark.parametrize(
    ("frame", "said"),
    [
        (b"Content-Length: 99999999999999999999\r\n\r\n{}", "a message of 99999999999999999999 bytes"),
        (b"Content-Length: 999999999999\r\n\r\n{}", "a message of 999999999999 bytes"),
        (b"X-Padding: " + b"x" * 100_000 + b"\r\n", "a header line longer than 4,096 bytes"),
    ],
)
def test_a_frame_beyond_the_limits_stops_the_server_with_a_clear_message(frame: bytes, said: str) -> None:
    hello = _frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    done = subprocess.run(SERVER, input=hello + frame, capture_output=True, timeout=60)
    assert done.returncode == 2
    assert b'"id": 1' in done.stdout or b'"id":1' in done.stdout  # answered until then
    assert f"the language server stopped: the client sent {said}" in done.stderr.decode()
    assert b"Traceback" not in done.stderr and b"internal error" not in done.stderr
