"""A recorded run replayed as a Temporal workflow: `blueprint run --events FILE --temporal HOST:PORT`.

`ReplayWorkflow` does on the server what `runtime.timeline.replay` does in-process: it starts
the run at the recording's first time and feeds every event in order (`replay_step`),
keeping each step. The recording stays in the process that holds it: the workflow reads it
a page at a time and writes its steps back, a batch at a time, through two activities of
that process's worker (`Desk`), keyed by position, so a retried activity neither skips nor
repeats a step. Each step comes back as data — the event (`event_to_dict`), the actions
(`action_to_dict`) and the state (`RunState.to_json`) — and `replay_on_server` rebuilds the
`Trace` the timeline is printed from, so the output is the in-process command's, byte for
byte. A long recording continues as new, carrying the state and its place.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

from temporalio import activity, workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from ...ir.digest import digest
    from ...ir.model import DEFAULT_MAX_ITERATIONS, Blueprint
    from ...runtime import RegionChanged, RunState, replay_step, start
    from ...runtime.actions import action_from_dict, action_to_dict
    from ...runtime.events import Event, event_from_dict, event_to_dict
    from ...runtime.timeline import Entry, Trace
    from .messages import REPLAY_WORKFLOW, EventPage, ReplayInput, ReplayOutput, StepBatch
    from .registry import blueprint_for

READ_EVENTS = "blueprint.replay.read_events"
WRITE_STEPS = "blueprint.replay.write_steps"
#: Bounds on what one activity carries, well below Temporal's 2 MB limit on a payload.
PAGE_EVENTS = 500
PAGE_BYTES = 256 * 1024
BATCH_BYTES = 512 * 1024
LARGEST_ITEM = 1536 * 1024
_ACTIVITY: dict[str, Any] = {
    "start_to_close_timeout": timedelta(seconds=60),
    "retry_policy": RetryPolicy(maximum_attempts=5),
}


@workflow.defn(name=REPLAY_WORKFLOW, failure_exception_types=[Exception])
class ReplayWorkflow:
    """Feeds a recording through the runner, writing every step back (module docstring)."""

    def __init__(self) -> None:
        self.steps: list[str] = []
        self.size = 0

    @workflow.run
    async def run(self, given: ReplayInput) -> ReplayOutput:
        ir = blueprint_for(workflow.info().task_queue, given.blueprint)
        batch, offset, unused, written = given.batch, given.offset, given.unused, 0
        if given.state is None:
            seeded = [e for e in map(event_from_dict, given.regions or ()) if isinstance(e, RegionChanged)]
            options: dict[str, Any] = {"unattended": given.unattended}
            if given.default_max_iterations is not None:
                options["default_max_iterations"] = given.default_max_iterations
            state, actions = start(ir, given.first, regions=seeded or None, run_id=given.run_id, **options)
            self.keep(None, actions, state)
        else:
            state = RunState.from_json(given.state)
        while True:
            page: EventPage = await workflow.execute_activity(
                READ_EVENTS,
                args=[given.source, offset, given.page_events],
                activity_id=f"events/{offset}",
                result_type=EventPage,
                **_ACTIVITY,
            )
            for data in page.events:
                offset += 1
                event = event_from_dict(data)
                if event is None:
                    raise ApplicationError(
                        f"event {offset} of the recording could not be read back", non_retryable=True
                    )
                if state.terminal:
                    unused += 1
                    continue
                state, actions = replay_step(ir, state, event)
                self.keep(event, actions, state)
                if self.size >= BATCH_BYTES:
                    written += await self.flush(given.source, batch)
                    batch += 1
            if self.steps:
                written += await self.flush(given.source, batch)
                batch += 1
            if page.end:
                return ReplayOutput(steps=written, unused=unused, batches=batch, continued=given.continued)
            info = workflow.info()
            if info.is_continue_as_new_suggested() or info.get_current_history_length() >= given.history_events:
                workflow.continue_as_new(
                    replace(
                        given,
                        state=state.to_json(),
                        offset=offset,
                        batch=batch,
                        unused=unused,
                        continued=given.continued + 1,
                    )
                )

    def keep(self, event: Event | None, actions: Sequence[Any], state: RunState) -> None:
        step = {
            "event": event_to_dict(event) if event is not None else None,
            "actions": [action_to_dict(action) for action in actions],
            "state": state.to_json(),
        }
        text = json.dumps(step, ensure_ascii=False)
        size = len(text.encode("utf-8"))
        if size > LARGEST_ITEM:
            raise ApplicationError(
                f"step {len(self.steps) + 1} is {size:,} bytes as JSON, more than a Temporal payload may hold",
                non_retryable=True,
            )
        self.steps.append(text)
        self.size += size

    async def flush(self, source: str, batch: int) -> int:
        steps, self.steps, self.size = self.steps, [], 0
        await workflow.execute_activity(
            WRITE_STEPS, StepBatch(source, batch, steps), activity_id=f"steps/{batch}", **_ACTIVITY
        )
        return len(steps)


class Desk:
    """The recordings this process replays and the steps their workflows wrote back, as the
    two activities `ReplayWorkflow` calls."""

    def __init__(self) -> None:
        self.recordings: dict[str, list[tuple[dict[str, Any], int]]] = {}
        self.batches: dict[str, dict[int, list[str]]] = {}

    def add(self, events: Iterable[Event]) -> str:
        """Hold a recording; its source name."""
        source = uuid.uuid4().hex
        held = []
        for number, event in enumerate(events, start=1):
            data = event_to_dict(event)
            size = len(json.dumps(data, ensure_ascii=False).encode("utf-8"))
            if size > LARGEST_ITEM:
                raise ValueError(f"event {number} is {size:,} bytes as JSON, more than a Temporal payload may hold")
            held.append((data, size))
        self.recordings[source] = held
        self.batches[source] = {}
        return source

    @activity.defn(name=READ_EVENTS)
    async def read_events(self, source: str, offset: int, most: int) -> EventPage:
        held, most = self.recordings[source], min(max(most, 1), PAGE_EVENTS)
        page: list[dict[str, Any]] = []
        size, end = 0, offset
        while end < len(held) and len(page) < most and (not page or size + held[end][1] <= PAGE_BYTES):
            page.append(held[end][0])
            size += held[end][1]
            end += 1
        return EventPage(events=page, end=end >= len(held))

    @activity.defn(name=WRITE_STEPS)
    async def write_steps(self, batch: StepBatch) -> None:
        self.batches[batch.source][batch.batch] = batch.steps  # by number: a retry replaces, never adds

    def steps(self, source: str) -> list[dict[str, Any]]:
        """The steps written back for `source`, in order (and the recording let go)."""
        batches = self.batches.pop(source)
        self.recordings.pop(source, None)
        if sorted(batches) != list(range(len(batches))):
            raise ValueError(f"the replay wrote batches {sorted(batches)}: some are missing")
        return [json.loads(step) for number in sorted(batches) for step in batches[number]]


async def replay_recording(
    client: Any,
    ir: Blueprint,
    events: Iterable[Event],
    *,
    regions: Iterable[RegionChanged] | None = None,
    unattended: bool = False,
    default_max_iterations: int = DEFAULT_MAX_ITERATIONS,
    history_events: int = 5000,
    page_events: int = PAGE_EVENTS,
    desk: Desk | None = None,
    task_queue: str | None = None,
) -> tuple[Trace, ReplayOutput]:
    """Replay `events` as a workflow on `client`'s server, with a worker of this process (or
    on `task_queue`, whose worker holds `desk`); the trace and what the workflow reported."""
    from .registry import register
    from .worker import sandbox_runner

    events = list(events)
    first = next((now for e in events if (now := getattr(e, "now", None)) is not None), 0)
    own = desk is None
    desk = desk if desk is not None else Desk()
    queue = task_queue or f"blueprint-replay-{uuid.uuid4().hex}"
    source = desk.add(events)
    register(queue, [ir], add=True)
    given = ReplayInput(
        blueprint=digest(ir),
        source=source,
        first=float(first),
        regions=[event_to_dict(e) for e in regions] if regions is not None else None,
        unattended=unattended,
        default_max_iterations=default_max_iterations,
        history_events=history_events,
        page_events=page_events,
    )
    run = client.execute_workflow(
        REPLAY_WORKFLOW, given, id=queue + "-" + source, task_queue=queue, result_type=ReplayOutput
    )
    if own:
        from temporalio.worker import Worker

        worker = Worker(
            client,
            task_queue=queue,
            workflows=[ReplayWorkflow],
            activities=[desk.read_events, desk.write_steps],
            workflow_runner=sandbox_runner(),
        )
        async with worker:
            output = await run
    else:
        output = await run
    return rebuild(ir, desk.steps(source), output.unused), output


def rebuild(ir: Blueprint, steps: list[dict[str, Any]], unused: int) -> Trace:
    """The `Trace` of the steps a replay wrote back."""
    trace = Trace(ir.name, unused=unused)
    before: RunState | None = None
    for step in steps:
        event = event_from_dict(step["event"]) if step["event"] is not None else None
        after = RunState.from_json(step["state"])
        trace.entries.append(Entry(event, tuple(action_from_dict(a) for a in step["actions"]), before, after))
        before = after
    return trace


def replay_on_server(
    address: str,
    ir: Blueprint,
    events: Iterable[Event],
    *,
    skipped: int = 0,
    skipped_lines: Iterable[int] = (),
    **options: Any,
) -> Trace:
    """`runtime.timeline.replay`, with the run replayed as a workflow on the server at
    `address` (a worker in this process); `TemporalError` when the server cannot be used."""
    from temporalio.client import WorkflowFailureError
    from temporalio.service import RPCError

    from .worker import TemporalError, connect

    async def go() -> Trace:
        client = await connect(address)
        try:
            trace, _ = await replay_recording(client, ir, events, **options)
        except WorkflowFailureError as failure:
            cause = failure.cause
            raise TemporalError(f"the replay failed on the server: {getattr(cause, 'message', cause)}") from None
        except RPCError as failure:
            raise TemporalError(f"the Temporal server at {address} refused a call: {failure.message}") from None
        except ValueError as problem:
            raise TemporalError(str(problem)) from None
        return trace

    trace = asyncio.run(go())
    trace.skipped, trace.skipped_lines = skipped, tuple(skipped_lines)
    return trace
