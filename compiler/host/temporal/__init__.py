"""Runs on Temporal: one workflow per run drives the stage-runner, durably (docs/hosts.md).

`make_worker` serves blueprints' runs with the user's model client, tools and workers as
activities; `start_run` starts one; a person answers through the workflow's `answer` and
`approve` updates (`Reply`, `Approval`) and sees what it waits on with the `waiting` query.
`replay_histories` checks recorded histories against this code. Needs the `temporalio`
package (`pip install 'agent-blueprint-compiler[temporal]'`).
"""

from __future__ import annotations

try:
    import temporalio
except ImportError as missing:  # pragma: no cover - exercised by a test that hides the package
    raise ImportError(
        "compiler.host.temporal needs the temporalio package: pip install 'agent-blueprint-compiler[temporal]'"
    ) from missing

from .activities import Activities, ItemWorker
from .messages import Approval, Reply, RunInput, RunOutput, RunSettings, Waiting
from .worker import TemporalError, check_address, connect, make_worker, replay_histories, sandbox_runner, start_run
from .workflow import FanOutItemWorkflow, RunWorkflow

__all__ = [
    "Activities",
    "Approval",
    "FanOutItemWorkflow",
    "ItemWorker",
    "Reply",
    "RunInput",
    "RunOutput",
    "RunSettings",
    "RunWorkflow",
    "TemporalError",
    "Waiting",
    "check_address",
    "connect",
    "make_worker",
    "replay_histories",
    "sandbox_runner",
    "start_run",
]
