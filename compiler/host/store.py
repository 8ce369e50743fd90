"""Where a host keeps its runs: one JSON text per run id, replaced atomically.

A saved text is the whole run — the `RunState`, with the host's context and journal in its
host data — so a store needs only `load` and `save`. A save either lands whole or not at all:
`JsonFileStore` writes a temporary file beside the run's file, flushes it to disk and renames
it over the old one (then flushes the folder); `SqliteStore` replaces the run's row in one
transaction. After a crash the store holds the last save or the one before, never a mix.
"""

from __future__ import annotations

import os
import re
import sqlite3
import tempfile
import threading
from pathlib import Path
from typing import Protocol, runtime_checkable

from ..reading import read_limited

#: The most a saved run may take (a state with its context and journal).
MAX_SAVED_BYTES = 64 * 1024 * 1024
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


@runtime_checkable
class Store(Protocol):
    def load(self, run_id: str) -> str | None:
        """The last text saved for `run_id`, or None for a run never saved."""

    def save(self, run_id: str, text: str) -> None:
        """Replace what is saved for `run_id`, atomically."""


def _check_id(run_id: str) -> str:
    if not isinstance(run_id, str) or not _SAFE_ID.fullmatch(run_id):
        raise ValueError(
            f"a run id is 1 to 200 letters, digits, '.', '_' or '-', starting with a letter or digit, not {run_id!r}"
        )
    return run_id


class MemoryStore:
    """Runs kept in this process only (tests, a host that persists elsewhere)."""

    def __init__(self) -> None:
        self.saved: dict[str, str] = {}

    def load(self, run_id: str) -> str | None:
        return self.saved.get(_check_id(run_id))

    def save(self, run_id: str, text: str) -> None:
        self.saved[_check_id(run_id)] = text


class JsonFileStore:
    """One `<run id>.json` file per run in `folder` (created if missing)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def path(self, run_id: str) -> Path:
        return self.folder / f"{_check_id(run_id)}.json"

    def load(self, run_id: str) -> str | None:
        path = self.path(run_id)
        if not path.exists():
            return None
        data = read_limited(path, MAX_SAVED_BYTES)
        if len(data) > MAX_SAVED_BYTES:
            raise OSError(f"{path}: a saved run is at most {MAX_SAVED_BYTES} bytes")
        return data.decode("utf-8")

    def save(self, run_id: str, text: str) -> None:
        path = self.path(run_id)
        data = text.encode("utf-8")
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=self.folder)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        folder = os.open(self.folder, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


class SqliteStore:
    """Runs in one SQLite database (table `runs`), safe to share between the threads of a process."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._connection = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=FULL")
        self._connection.execute(
            "CREATE TABLE IF NOT EXISTS runs (run_id TEXT PRIMARY KEY, state TEXT NOT NULL, saved INTEGER NOT NULL)"
        )

    def load(self, run_id: str) -> str | None:
        with self._lock:
            row = self._connection.execute("SELECT state FROM runs WHERE run_id = ?", (_check_id(run_id),)).fetchone()
        return row[0] if row is not None else None

    def save(self, run_id: str, text: str) -> None:
        if len(text) > MAX_SAVED_BYTES:
            raise ValueError(f"a saved run is at most {MAX_SAVED_BYTES} bytes")
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                self._connection.execute(
                    "INSERT INTO runs (run_id, state, saved) VALUES (?, ?, 1) "
                    "ON CONFLICT(run_id) DO UPDATE SET state = excluded.state, saved = saved + 1",
                    (_check_id(run_id), text),
                )
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")

    def runs(self) -> list[str]:
        """Every run id saved, in order."""
        with self._lock:
            return [row[0] for row in self._connection.execute("SELECT run_id FROM runs ORDER BY run_id")]

    def close(self) -> None:
        with self._lock:
            self._connection.close()
