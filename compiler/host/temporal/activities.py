"""The activities of a run on Temporal: thin wrappers over the reference host's protocols.

`Activities(model=…, tools=…)` binds the user's objects (the `ModelClient`, `ToolBox`,
`Summarizer` and `Children` of `compiler.host.protocols`, and an `ItemWorker` for fan-out
items) to the activities the run workflow schedules. Each activity is keyed by the action it
performs: its activity id is the action id (a tool call's is `ToolUse.key`,
`"<action id>/<n>"`), and the same key reaches the user's object (`action.id`, `use.key`),
so a retried activity can find the effect it already had and never repeat it.

A method may be a coroutine function or a plain one; a plain one runs in a thread, so a
blocking client does not stall the worker. While it runs the activity heartbeats, so a
worker that dies is noticed within the run's `heartbeat_timeout` and the activity is
retried elsewhere, and a cancelled inference (the stuck clock ran out) is stopped.
`ModelError` is not retried: it reaches the runner as `InferenceFailed` with its kind.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

from temporalio import activity
from temporalio.exceptions import ApplicationError

from ...runtime.actions import AwaitChildren, AwaitWorkers
from ..driver import ModelError
from ..protocols import ModelReply, ToolResult, ToolUse
from .messages import (
    INFER,
    ROUTE,
    RUN_TOOL,
    SUMMARIZE,
    WAIT_CHILDREN,
    WORK_ITEM,
    InferCall,
    ItemInput,
    SummaryCall,
    ToolCallInput,
    action_of,
    context_of,
)

#: The `ApplicationError` type a failed model call travels as.
MODEL_ERROR = "ModelError"


@runtime_checkable
class ItemWorker(Protocol):
    def work(self, action: AwaitWorkers, item: Any, key: str) -> str | Any:
        """Do one fan-out item (`key` is unique to it: `"<action id>/<n>"`); its report line.
        Raise to fail the item."""


async def _call(method: Callable[..., Any], *args: Any) -> Any:
    """`method(*args)`, heartbeating while it runs: awaited when it is a coroutine function,
    in a thread otherwise."""
    if inspect.iscoroutinefunction(method):
        work: Awaitable[Any] = method(*args)
    else:
        work = asyncio.to_thread(method, *args)
    task = asyncio.ensure_future(work)
    timeout = activity.info().heartbeat_timeout
    every = max(timeout.total_seconds() / 3, 0.05) if timeout else 10.0
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=every)
            if done:
                break
            activity.heartbeat()
    except asyncio.CancelledError:
        task.cancel()
        raise
    result = task.result()
    return await result if inspect.isawaitable(result) else result


class Activities:
    """The user's objects, as the activities a run workflow schedules (`all()` lists them)."""

    def __init__(
        self,
        *,
        model: Any,
        tools: Any = None,
        summarizer: Any = None,
        workers: Any = None,
        children: Any = None,
    ) -> None:
        self.model, self.tools, self.summarizer = model, tools, summarizer
        self.workers, self.children = workers, children

    def all(self) -> list[Callable[..., Any]]:
        return [self.infer, self.route, self.summarize, self.run_tool, self.work_item, self.wait_children]

    @activity.defn(name=INFER)
    async def infer(self, call: InferCall) -> dict[str, Any]:
        action = action_of(call.action)
        try:
            reply = await _call(self.model.infer, action, context_of(call.context))
        except ModelError as failure:
            raise ApplicationError(str(failure), failure.kind, type=MODEL_ERROR, non_retryable=True) from None
        if not isinstance(reply, ModelReply):
            raise ApplicationError(
                f"the model client's infer returned {type(reply).__name__}, not a ModelReply", non_retryable=True
            )
        return {"text": reply.text, "calls": [{"name": c.name, "args": c.args} for c in reply.calls]}

    @activity.defn(name=ROUTE)
    async def route(self, call: InferCall) -> str:
        return str(await _call(self.model.route, action_of(call.action), context_of(call.context)))

    @activity.defn(name=SUMMARIZE)
    async def summarize(self, call: SummaryCall) -> str | None:
        if self.summarizer is None:
            return None
        return str(await _call(self.summarizer.summarize, call.region, call.entries))

    @activity.defn(name=RUN_TOOL)
    async def run_tool(self, call: ToolCallInput) -> dict[str, Any] | None:
        if self.tools is None:
            return None
        use = ToolUse(call.name, call.args, call.key, call.stage, call.permission)
        result = await _call(self.tools.run, use)
        if not isinstance(result, ToolResult):
            raise ApplicationError(
                f"the tool box's run returned {type(result).__name__}, not a ToolResult", non_retryable=True
            )
        return {"text": result.text, "outcome": result.outcome, "started": list(result.started)}

    @activity.defn(name=WORK_ITEM)
    async def work_item(self, call: ItemInput) -> str:
        if self.workers is None:
            raise ApplicationError("this worker was given no fan-out workers", non_retryable=True)
        action = action_of(call.action)
        if not isinstance(action, AwaitWorkers):
            raise ApplicationError(
                f"a fan-out item belongs to an await_workers action, not {action}", non_retryable=True
            )
        return str(await _call(self.workers.work, action, call.item, call.key))

    @activity.defn(name=WAIT_CHILDREN)
    async def wait_children(self, action: str) -> list[str]:
        if self.children is None:
            raise ApplicationError("this worker was given no child runs to wait on", non_retryable=True)
        awaited = action_of(action)
        if not isinstance(awaited, AwaitChildren):
            raise ApplicationError(f"a wait on children is an await_children action, not {awaited}", non_retryable=True)
        return [str(name) for name in await _call(self.children.wait, awaited)]
