"""Hosts over the stage-runner: run a blueprint for real, and survive a crash.

`Host` is the reference host, an asyncio loop that takes a model client and tool
implementations (the protocols of `compiler.host.protocols`), keeps each run's context, and
saves the state with its context and journal atomically after every step (`JsonFileStore`,
`SqliteStore`), so a run resumes from its store where it stopped. `compiler.host.temporal`
runs the same loop on a Temporal server (`pip install 'agent-blueprint-compiler[temporal]'`).
docs/hosts.md shows both.
"""

from __future__ import annotations

from .context import Context
from .driver import HostError, ModelError, RunResult
from .loop import Host
from .protocols import Answer, Call, ModelReply, ToolResult, ToolUse, WorkersDone
from .store import JsonFileStore, MemoryStore, SqliteStore, Store

__all__ = [
    "Answer",
    "Call",
    "Context",
    "Host",
    "HostError",
    "JsonFileStore",
    "MemoryStore",
    "ModelError",
    "ModelReply",
    "RunResult",
    "SqliteStore",
    "Store",
    "ToolResult",
    "ToolUse",
    "WorkersDone",
]
