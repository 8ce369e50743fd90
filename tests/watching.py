"""A `blueprint … --watch` process for tests: started in a folder, read line by line from
threads, asked to wait for a line, stopped with SIGINT (as Ctrl-C does)."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.helpers import ROOT

#: Long enough for a slow CI machine; a watch that works answers in well under a second.
WAIT = 30.0


class Watch:
    def __init__(self, cwd: Path, *args: str) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("BLUEPRINT_DEBUG", "FORCE_COLOR")}
        env["PYTHONPATH"] = str(ROOT)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "compiler", *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[tuple[str, str]] = queue.Queue()
        self.seen: list[tuple[str, str]] = []
        #: How far into `seen` each stream has been waited for.
        self.cursor = {"out": 0, "err": 0}
        for name, stream in (("out", self.process.stdout), ("err", self.process.stderr)):
            threading.Thread(target=self._read, args=(name, stream), daemon=True).start()

    def _read(self, name: str, stream) -> None:
        for line in stream:
            self.lines.put((name, line.rstrip("\n")))

    def wait_for(self, text: str, stream: str = "out") -> list[str]:
        """The lines of `stream` not waited for yet, up to the first that contains `text`."""
        got: list[str] = []
        deadline = time.monotonic() + WAIT
        while True:
            while self.cursor[stream] < len(self.seen):
                name, line = self.seen[self.cursor[stream]]
                self.cursor[stream] += 1
                if name == stream:
                    got.append(line)
                    if text in line:
                        return got
            if time.monotonic() > deadline:
                break
            try:
                self.seen.append(self.lines.get(timeout=0.2))
            except queue.Empty:
                if self.process.poll() is not None and self.lines.empty():
                    break
        raise AssertionError(f"no line with {text!r} on std{stream}; seen: {self.seen[-30:]}")

    def waiting(self) -> None:
        """Until the watch says it watches (after a run)."""
        self.wait_for("for changes; Ctrl-C to stop", "err")

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode
