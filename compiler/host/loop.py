"""The reference host: an asyncio loop over the stage-runner that runs a blueprint for real.

`Host(ir, model=…, tools=…).run("run-1")` starts run `run-1`, or resumes it from the store
when it was saved before. The loop is the one docs/runner.md describes, made durable:

1. After every step the actions' effects on the context (notes, injections, cleared regions,
   the reviewed document) are applied once — the state's `seq` says which are — and the run is
   saved: the state, with the context and a journal in its host data, in one atomic write.
2. The outstanding request is then performed, and each of its results is journaled (and saved)
   as it arrives, keyed by the action id: the model's reply, then each tool call's result
   (`ToolUse.key` is `"<action id>/<n>"`). A host resumed after a crash takes what the
   journal holds instead of asking again, so no tool runs twice and none is lost.
3. The regions the results changed are reported, then the answer, naming its request.

Tool calls are judged first (`judge_tool`): a tool the stage does not offer is `unavailable`,
a denied one `denied`, and one that asks is run only when `person.approve` says so. The
context tools (`context_write`, `context_append`, `context_read`, `todo_add`, `todo_done`),
`submit_output` and `fan_out` are the host's own. An inference with a `deadline` races a timer:
when it wins, the host sends the `Tick` that interrupts the stage, and the request is
withdrawn. How each action is performed is `compiler.host.driver`'s, shared with the Temporal
host; this module makes the outside calls in-process and keeps the run in a store.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..ir.model import Blueprint
from ..runtime import (
    AskInteraction,
    AskRoute,
    AwaitChildren,
    AwaitWorkers,
    Event,
    InferenceFailed,
    RunInference,
    RunState,
    Tick,
    next_actions,
    start,
    step,
)
from .context import Context
from .driver import Driver, HostError, ModelError, RunResult, settle
from .protocols import Answer, ModelReply, ToolResult, ToolUse, WorkersDone
from .store import MemoryStore, Store

__all__ = ["Host", "HostError", "ModelError", "RunResult"]


class Host:
    """Runs `ir` with the given model client, tools, person, workers and child runs, keeping
    every run in `store` (in memory unless one is given). `clock` counts seconds; the user's
    and the launch's tool permissions are those of `runtime.judge_tool`."""

    def __init__(
        self,
        ir: Blueprint,
        *,
        model: Any,
        tools: Any = None,
        person: Any = None,
        workers: Any = None,
        children: Any = None,
        summarizer: Any = None,
        store: Store | None = None,
        clock: Callable[[], float] = time.time,
        user_permissions: Mapping[str, str] | None = None,
        launch_permissions: Mapping[str, str] | None = None,
        poll: float = 1.0,
    ) -> None:
        if not isinstance(ir, Blueprint):
            raise TypeError(f"a host runs a compiler.ir.model.Blueprint, not {type(ir).__name__}")
        self.ir = ir
        self.model, self.tools, self.person = model, tools, person
        self.workers, self.children, self.summarizer = workers, children, summarizer
        self.store: Store = store if store is not None else MemoryStore()
        self.clock = clock
        self.user_permissions, self.launch_permissions = user_permissions, launch_permissions
        #: How often (seconds) a wait on a model with a stuck deadline looks at the clock.
        self.poll = poll

    async def run(self, run_id: str, *, regions: Mapping[str, list[str]] | None = None, **options: Any) -> RunResult:
        """Start run `run_id` (seeding `regions`; `options` go to `runtime.start`), or resume it
        from the store; drive it until it ends or is paused."""
        run = _LocalRun(self, run_id)
        saved = self.store.load(run_id)
        if saved is None:
            run.context = Context.seeded(regions or {})
            run.state, actions = start(self.ir, self.clock(), regions=run.context.changes(), run_id=run_id, **options)
        else:
            run.load(RunState.from_json(saved))
            actions = next_actions(self.ir, run.state)
        return await run.drive(actions)

    async def send(self, run_id: str, event: Event) -> RunState:
        """Feed an operator's event (`Paused`, `Resumed`, `Cancel`) to a saved run, and save it;
        `run` then carries on from there."""
        saved = self.store.load(run_id)
        if saved is None:
            raise KeyError(f"no run '{run_id}' is saved")
        run = _LocalRun(self, run_id)
        run.load(RunState.from_json(saved))
        run.state, actions = step(self.ir, run.state, event)
        run.apply(actions)
        run.save()
        return run.state


class _LocalRun(Driver):
    """A run of the reference host: the user's objects called in this process, the run saved
    to the host's store after every step and every result."""

    def __init__(self, host: Host, run_id: str) -> None:
        super().__init__(
            host.ir, run_id, user_permissions=host.user_permissions, launch_permissions=host.launch_permissions
        )
        self.host = host

    def clock(self) -> float:
        return self.host.clock()

    def save(self) -> None:
        self.state = self.host_data()
        self.host.store.save(self.run_id, self.state.to_json())

    async def call_model(self, action: RunInference, view: Mapping[str, Sequence[str]]) -> ModelReply | Event:
        host = self.host

        async def infer() -> Any:  # a plain function's exception belongs to the task as well
            return await settle(host.model.infer(action, view))

        task = asyncio.ensure_future(infer())
        while True:  # the clock is read again at every wake-up: a long call or a suspend moves it
            left = None if action.deadline is None else action.deadline - host.clock()
            if left is not None and left <= 0:  # the stuck clock ran out while the model worked
                task.cancel()
                return Tick(now=host.clock())
            done, _ = await asyncio.wait({task}, timeout=None if left is None else min(left, host.poll))
            if done:
                break
        try:
            reply = task.result()
        except ModelError as failure:
            return InferenceFailed(str(failure), failure.kind, request=action.request, now=host.clock())
        if not isinstance(reply, ModelReply):
            raise TypeError(f"the model client's infer returned {type(reply).__name__}, not a ModelReply")
        return reply

    async def call_route(self, action: AskRoute, view: Mapping[str, Sequence[str]]) -> str | Event:
        try:
            return str(await settle(self.host.model.route(action, view)))
        except ModelError as failure:
            return InferenceFailed(str(failure), failure.kind, request=action.request, now=self.host.clock())

    async def call_summarizer(self, region: str, entries: list[str]) -> str | None:
        summarizer = self.host.summarizer
        return None if summarizer is None else await settle(summarizer.summarize(region, entries))

    async def call_tool(self, use: ToolUse) -> ToolResult | None:
        tools = self.host.tools
        return None if tools is None else await settle(tools.run(use))

    async def approve(self, use: ToolUse) -> bool:
        person = self.host.person
        return person is not None and bool(await settle(person.approve(use)))

    async def ask_person(self, action: AskInteraction) -> Answer:
        if self.host.person is None:
            return await super().ask_person(action)
        answer: Answer = await settle(self.host.person.ask(action))
        return answer

    async def run_workers(self, action: AwaitWorkers, items: list[Any]) -> WorkersDone:
        if self.host.workers is None:
            return await super().run_workers(action, items)
        done: WorkersDone = await settle(self.host.workers.fan_out(action, items))
        return done

    async def wait_children(self, action: AwaitChildren) -> list[str]:
        if self.host.children is None:
            return await super().wait_children(action)
        return list(await settle(self.host.children.wait(action)))
