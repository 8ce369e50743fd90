"""`blueprint lsp` as an editor sees it: from a `didChange` to its `publishDiagnostics`.

The server runs as a process (`python -m compiler lsp`) with its default settings (the 20 ms
debounce included, since a user waits for it too) and a minimal JSON-RPC client on its pipes.
Each edit inserts or removes a space at the end of a line of the corpus's largest blueprint
(the coder), so every edit is a real change that is validated in full; the next edit is sent
once the findings for the previous one have arrived. Memory is the server's resident set,
read from /proc, after a warm-up and after 2,000 edits.
"""

from __future__ import annotations

import json
import os
import queue
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from corpus import locate
from measure import Row

ROOT = Path(__file__).resolve().parent.parent
CODER = locate().blueprint("coder")


class Server:
    """`blueprint lsp` on pipes, with a reader thread that queues every message it sends."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "compiler", "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT
        )
        self.messages: queue.Queue[dict] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._id = 0

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n"):
                    break
            self.messages.put(json.loads(stream.read(length)))

    def send(self, method: str, params: Any, *, request: bool = False) -> int | None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self._id += 1
            message["id"] = self._id
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.process.stdin.flush()
        return message.get("id")

    def wait(self, predicate: Any, timeout: float = 60.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            message = self.messages.get(timeout=max(0.0, deadline - time.monotonic()))
            if predicate(message):
                return message

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        ident = self.send("shutdown", None, request=True)
        self.wait(lambda m: m.get("id") == ident)
        self.send("exit", None)
        self.process.wait(timeout=30)


def _published(uri: str, version: int):
    return lambda m: (
        m.get("method") == "textDocument/publishDiagnostics"
        and m["params"]["uri"] == uri
        and m["params"].get("version") == version
    )


def lsp_rows(edits: int, memory_edits: int) -> list[Row]:
    path = CODER
    if path is None:
        import generate

        text = generate.realistic(random.Random(7), "coder")
        name = "a generated realistic blueprint (no real corpus found)"
    else:
        text = path.read_text(encoding="utf-8")
        name = f"coder ({text.count(chr(10))} lines)"
    uri = (path or ROOT / "coder.leviath").resolve().as_uri()
    server = Server()
    try:
        ident = server.send("initialize", {"processId": os.getpid(), "capabilities": {}, "rootUri": None}, request=True)
        server.wait(lambda m: m.get("id") == ident)
        server.send("initialized", {})
        server.send(
            "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "toml", "version": 1, "text": text}}
        )
        server.wait(_published(uri, 1))
        lines = text.split("\n")
        rng = random.Random(20240611)
        version = 1
        spaced: int | None = None

        def edit() -> float:
            nonlocal version, spaced
            version += 1
            if spaced is None:
                spaced = rng.randrange(len(lines) - 1)
                end = len(lines[spaced])
                change = {
                    "range": {"start": {"line": spaced, "character": end}, "end": {"line": spaced, "character": end}},
                    "text": " ",
                }
            else:
                end = len(lines[spaced])
                change = {
                    "range": {
                        "start": {"line": spaced, "character": end},
                        "end": {"line": spaced, "character": end + 1},
                    },
                    "text": "",
                }
                spaced = None
            start = time.perf_counter()
            server.send(
                "textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
            )
            server.wait(_published(uri, version))
            return time.perf_counter() - start

        for _ in range(20):  # warm-up: caches, the first validation's imports
            edit()
        latencies = sorted(edit() for _ in range(edits))
        before = server.rss_mb()
        samples = [before]
        for done in range(1, memory_edits + 1):
            edit()
            if done % max(1, memory_edits // 4) == 0:
                samples.append(server.rss_mb())
        after = server.rss_mb()
    finally:
        if server.process.poll() is None:
            server.close()
    p50 = statistics.median(latencies) * 1000
    p95 = latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))] * 1000
    growth = after - before
    return [
        Row(
            "lsp: didChange → publishDiagnostics, p95",
            p95,
            "ms",
            "p95 ≤ 50 ms",
            p95 <= 50,
            f"p50 {p50:.1f} ms, p95 {p95:.1f} ms over {edits} edits of {name} (20 ms debounce included)",
            {"p50_ms": p50, "p95_ms": p95, "edits": edits},
        ),
        Row(
            "lsp: server memory over many edits",
            growth,
            "MB",
            "flat (≤ 5 MB growth)",
            growth <= 5,
            f"{before:.1f} MB after warm-up, {after:.1f} MB after {memory_edits} more edits "
            f"({' → '.join(f'{mb:.1f}' for mb in samples)} MB at each quarter)",
            {"rss_before_mb": before, "rss_after_mb": after, "rss_samples_mb": samples, "edits": memory_edits},
        ),
    ]
