"""Workers, clients and replays for runs on Temporal: the few calls a runtime needs.

- `connect(address)`: a client, or `TemporalError` saying why the server cannot be reached;
- `make_worker(client, task_queue, blueprints, model=…, tools=…)`: a worker that serves those
  blueprints' runs with the user's objects as activities (start it with `async with` or
  `await worker.run()`);
- `start_run(client, ir, run_id, task_queue=…)`: start a run (a `RunWorkflow`), or, with
  `state=`, go on from a saved state (a run moved from the reference host, or onto an edited
  blueprint with `runtime.rebind`);
- `replay_histories(histories, blueprints)`: Temporal's `Replayer` over recorded histories,
  to check that this code still decides every recorded run the same way.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Iterable
from typing import Any

from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Replayer, Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from ...ir.digest import digest
from ...ir.model import Blueprint
from .activities import Activities
from .messages import RUN_WORKFLOW, RunInput, RunOutput, RunSettings
from .registry import register, unregister
from .workflow import FanOutItemWorkflow, RunWorkflow

#: Seconds `connect` waits for a server to answer.
CONNECT_TIMEOUT = 10.0
_ADDRESS = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(?P<port>[0-9]{1,5})")


class TemporalError(Exception):
    """A Temporal server that cannot be used: a bad address, no answer, a refused call."""


def check_address(address: str) -> str:
    """`address` when it is `HOST:PORT` (a port from 1 to 65535); `TemporalError` otherwise."""
    match = _ADDRESS.fullmatch(address) if isinstance(address, str) else None
    if match is None or not 0 < int(match["port"]) < 65536:
        raise TemporalError(f"a Temporal server's address is HOST:PORT (as in localhost:7233), not {address!r}")
    return address


async def connect(address: str, *, namespace: str = "default", timeout: float = CONNECT_TIMEOUT) -> Client:
    """A client of the server at `address` (`HOST:PORT`), once it has answered."""
    check_address(address)
    try:
        return await asyncio.wait_for(Client.connect(address, namespace=namespace), timeout)
    except TimeoutError:
        raise TemporalError(f"no Temporal server answered at {address} within {timeout:g} seconds") from None
    except RuntimeError as exc:
        raise TemporalError(f"cannot reach a Temporal server at {address}: {_reason(exc)}") from None


def _reason(exc: BaseException) -> str:
    """The useful part of the SDK's connection error (`Connection refused`, …)."""
    text = str(exc)
    found = re.findall(r'message: "([^"]+)"', text)
    return found[-1] if found else text.removeprefix("Failed client connect: ")


def sandbox_runner() -> SandboxedWorkflowRunner:
    """The workflow sandbox with this package passed through: the runner is pure and uses the
    standard library only, and the workflows read the worker's blueprints from `registry`."""
    return SandboxedWorkflowRunner(restrictions=SandboxRestrictions.default.with_passthrough_modules("compiler"))


def make_worker(
    client: Client,
    task_queue: str,
    blueprints: Iterable[Blueprint],
    *,
    model: Any,
    tools: Any = None,
    summarizer: Any = None,
    workers: Any = None,
    children: Any = None,
    **options: Any,
) -> Worker:
    """A worker serving runs of `blueprints` on `task_queue`, performing them with the user's
    objects (as `compiler.host.Host` takes them; `workers` is an `ItemWorker`). `options` go
    to `temporalio.worker.Worker`."""
    register(task_queue, blueprints)
    activities = Activities(model=model, tools=tools, summarizer=summarizer, workers=workers, children=children)
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[RunWorkflow, FanOutItemWorkflow],
        activities=activities.all(),
        workflow_runner=sandbox_runner(),
        **options,
    )


async def start_run(
    client: Client,
    ir: Blueprint,
    run_id: str,
    *,
    task_queue: str,
    regions: dict[str, list[str]] | None = None,
    unattended: bool = False,
    default_max_iterations: int | None = None,
    settings: RunSettings | None = None,
    state: str | None = None,
    workflow_id: str | None = None,
    **options: Any,
) -> WorkflowHandle[Any, RunOutput]:
    """Start run `run_id` of `ir` as a workflow (id `workflow_id`, else `blueprint-run-<run id>`);
    `await handle.result()` is its `RunOutput`. `options` go to `Client.start_workflow`."""
    given = RunInput(
        run_id=run_id,
        blueprint=digest(ir),
        regions=regions,
        unattended=unattended,
        default_max_iterations=default_max_iterations,
        state=state,
        settings=settings if settings is not None else RunSettings(),
    )
    return await client.start_workflow(
        RUN_WORKFLOW,
        given,
        id=workflow_id or f"blueprint-run-{run_id}",
        task_queue=task_queue,
        result_type=RunOutput,
        **options,
    )


async def replay_histories(histories: Iterable[Any], blueprints: Iterable[Blueprint]) -> None:
    """Replay recorded histories (`WorkflowHistory`, as `handle.fetch_history()` gives them)
    with this code and `blueprints`; raises the first non-determinism error, if any."""
    from .replay import ReplayWorkflow

    # The replayer runs every workflow on the task queue `replay-<build id>`: serve the
    # blueprints there, under a build id of this call's own.
    build_id = f"blueprint-replay-{uuid.uuid4().hex}"
    register(f"replay-{build_id}", blueprints)
    replayer = Replayer(
        workflows=[RunWorkflow, FanOutItemWorkflow, ReplayWorkflow], workflow_runner=sandbox_runner(), build_id=build_id
    )
    try:
        for history in histories:
            await replayer.replay_workflow(history)
    finally:
        unregister(f"replay-{build_id}")
