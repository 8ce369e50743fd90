"""How a host performs the runner's actions, shared by every host the library ships.

`Driver` drives one run: after every step it applies the actions' effects to the context once
(the state's `seq` says which are applied), keeps a journal of what performing the
outstanding request has produced, keyed by the action id, and performs the request: the
model's reply, then each tool call, judged first (`judge_tool`) — a tool the stage does not
offer is `unavailable`, a denied one `denied`, one that asks runs only when a person approves
it — with the context tools, `submit_output` and `fan_out` carried out here. The journal and
the context travel in the state's host data, so a run resumed from a saved state takes what
the journal holds instead of asking again.

What differs from host to host is how an outside call is made and where the run is kept: a
subclass says it in the hooks below (`clock`, `save`, `checkpoint`, `call_model`,
`call_route`, `call_summarizer`, `call_tool`, `approve`, `ask_person`, `run_workers`,
`wait_children`). `compiler.host.loop` makes them plain calls of the user's objects and saves
to a store; `compiler.host.temporal` makes them activities, updates and child workflows.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..ir.model import Blueprint
from ..runtime import (
    Action,
    AskInteraction,
    AskRoute,
    AwaitChildren,
    AwaitWorkers,
    CancelRequest,
    ChildFinished,
    ChildStarted,
    Complete,
    Dispatched,
    Event,
    Fail,
    InferenceFinished,
    InteractionAnswered,
    RoutingAnswer,
    RunInference,
    RunState,
    TakeEdge,
    ToolCall,
    WorkersFinished,
    judge_tool,
    step,
)
from ..runtime.events import FAILURE_KINDS
from .context import Context
from .protocols import Answer, Call, ModelReply, ToolResult, ToolUse, WorkersDone

#: Tools the host carries out itself, on its context.
CONTEXT_TOOLS = frozenset({"context_write", "context_append", "context_read", "todo_add", "todo_done"})


class HostError(RuntimeError):
    """The run needs something this host was not given (a person, workers, child runs)."""


class ModelError(Exception):
    """A model call that failed: `kind` is `error`, or `credits`, `auth`, `forbidden` or
    `unreachable` for a provider that cannot serve the stage (the runner then tries the stage's
    next model, or pauses the run)."""

    def __init__(self, message: str, kind: str = "error") -> None:
        super().__init__(message)
        self.kind = kind if kind in FAILURE_KINDS else "error"


@dataclass
class RunResult:
    """How a run ended (or stopped: `paused`), with its final state and context."""

    run_id: str
    status: str
    stage: str
    reason: str | None
    output: str | None
    state: RunState
    context: Context


async def settle(value: Any) -> Any:
    """`value`, awaited when it is awaitable (a protocol method may be a coroutine function)."""
    return await value if inspect.isawaitable(value) else value


class Driver:
    """One run being driven: its state, context and journal, and how each action is performed."""

    def __init__(
        self,
        ir: Blueprint,
        run_id: str,
        *,
        user_permissions: Mapping[str, str] | None = None,
        launch_permissions: Mapping[str, str] | None = None,
    ) -> None:
        self.ir, self.run_id = ir, run_id
        self.user_permissions, self.launch_permissions = user_permissions, launch_permissions
        self.state: RunState
        self.context = Context()
        #: The seq number of the last action whose effects are in the context.
        self.applied = 0
        #: Action id → what performing it has produced so far (see the module docstring).
        self.journal: dict[str, dict[str, Any]] = {}
        #: Stage → the items its last `fan_out` call handed out.
        self.fan_out: dict[str, list[Any]] = {}

    # --- the hooks: how this host makes its outside calls -----------------------------------

    def clock(self) -> float:
        """The run's clock, in seconds."""
        raise NotImplementedError

    def save(self) -> None:
        """Keep the run as it now is (`self.state`, whose host data `host_data` fills)."""

    async def checkpoint(self) -> None:
        """Called after each step's save, with nothing outstanding being performed."""

    async def call_model(self, action: RunInference, view: Mapping[str, Sequence[str]]) -> ModelReply | Event:
        """The model's reply, or the event that ends the wait instead: `InferenceFailed` for a
        failed call, `Tick` when `action.deadline` passed first (the call is then stopped)."""
        raise NotImplementedError

    async def call_route(self, action: AskRoute, view: Mapping[str, Sequence[str]]) -> str | Event:
        """The model's raw reply, or `InferenceFailed` for a failed call."""
        raise NotImplementedError

    async def call_summarizer(self, region: str, entries: list[str]) -> str | None:
        """One entry standing for `entries`, or None for the host's plain summary."""
        return None

    async def call_tool(self, use: ToolUse) -> ToolResult | None:
        """Run a tool the blueprint allows; None when this host runs no tools."""
        return None

    async def approve(self, use: ToolUse) -> bool:
        """Whether a person lets a call whose permission is `ask` run."""
        return False

    async def ask_person(self, action: AskInteraction) -> Answer:
        raise HostError(f"the run asks a person at interaction point '{action.point}', and this host has no person")

    async def run_workers(self, action: AwaitWorkers, items: list[Any]) -> WorkersDone:
        raise HostError(f"stage '{action.stage}' fanned out, and this host has no workers")

    async def wait_children(self, action: AwaitChildren) -> list[str]:
        raise HostError(f"stage '{action.stage}' waits for child runs, and this host has no children to wait on")

    # --- the state and its host data ----------------------------------------------------------

    def load(self, state: RunState) -> None:
        data = state.host if isinstance(state.host, dict) else {}
        self.state = state
        self.context = Context.from_dict(data.get("context"))
        self.applied = data.get("applied", 0)
        self.journal = data.get("journal", {})
        self.fan_out = data.get("fan_out", {})

    def host_data(self) -> RunState:
        """The state carrying the context, the applied mark, the journal and the fan-out items."""
        data = {"context": self.context.to_dict(), "applied": self.applied, "journal": self.journal}
        data["fan_out"] = self.fan_out
        return self.state.with_host(data)

    def advance(self, event: Event) -> tuple[Action, ...]:
        self.state, actions = step(self.ir, self.state, event)
        return actions

    # --- the loop ----------------------------------------------------------------------------------

    async def drive(self, actions: tuple[Action, ...]) -> RunResult:
        while True:
            self.apply(actions)
            self.save()
            last = actions[-1] if actions else None
            if isinstance(last, (Complete, Fail)) or last is None:
                return self.result()
            await self.checkpoint()
            event = await self.perform(last)
            for change in self.context.changes(self.clock()):  # the regions first: gates read them
                self.advance(change)
            actions = self.advance(event)

    def result(self) -> RunResult:
        state = self.state
        return RunResult(self.run_id, state.status, state.stage, state.reason, self.context.output, state, self.context)

    def apply(self, actions: tuple[Action, ...]) -> None:
        """The effects of actions not yet applied, in order (the runner numbers them)."""
        first = self.state.seq - len(actions) + 1
        for seq, action in enumerate(actions, start=first):
            if seq <= self.applied:
                continue
            if isinstance(action, (TakeEdge, Complete, Fail)):
                self.context.inject(action.notes)
            if isinstance(action, TakeEdge):
                self.context.clear(action.clear)
            elif isinstance(action, (RunInference, AskRoute, AskInteraction)):
                self.context.inject(action.inject)
            if isinstance(action, AskRoute):
                self.context.append("conversation", action.prompt)
            elif isinstance(action, AskInteraction):
                self.context.document(action.document_region, action.body, action.revised)
            elif isinstance(action, CancelRequest):
                self.journal.pop(action.cancels, None)
            self.applied = seq

    async def perform(self, action: Action) -> Event:
        if isinstance(action, RunInference):
            return await self.infer(action)
        if isinstance(action, AskRoute):
            return await self.route(action)
        if isinstance(action, AskInteraction):
            return await self.ask(action)
        if isinstance(action, AwaitWorkers):
            return await self.await_workers(action)
        if isinstance(action, AwaitChildren):
            return await self.await_children(action)
        raise HostError(f"nothing to perform for {type(action).__name__}")

    async def journaled(self, action_id: str, key: str, produce: Callable[[], Awaitable[Any]]) -> Any:
        """What `produce` gave for this action before (a resumed run), or its answer now, saved."""
        entry = self.journal.setdefault(action_id, {})
        if key not in entry:
            entry[key] = await produce()
            self.save()
        return entry[key]

    async def route(self, action: AskRoute) -> Event:
        entry = self.journal.setdefault(action.id, {})
        if "reply" not in entry:
            reply = await self.call_route(action, self.context.view())
            if not isinstance(reply, str):
                self.journal.pop(action.id, None)
                return reply  # the routing call failed: the runner fails the stage
            entry["reply"] = reply
            self.save()
        reply = self.journal.pop(action.id)["reply"]
        self.context.append("conversation", f"Transitioning to: {reply.strip()}")
        return RoutingAnswer(reply=reply, request=action.request, now=self.clock())

    # --- an inference ---------------------------------------------------------------------------------

    async def infer(self, action: RunInference) -> Event:
        entry = self.journal.setdefault(action.id, {})
        if action.summarize and not entry.get("summarized"):
            for region in action.summarize:
                entries = self.context.regions.get(region, [])
                if entries:
                    summary = await self.call_summarizer(region, list(entries))
                    self.context.replace(region, [summary if summary is not None else plain_summary(entries)])
            entry["summarized"] = True
            self.save()
        if "reply" not in entry:
            if not action.dispatched:
                self.advance(Dispatched(request=action.request, now=self.clock()))
                self.save()
            reply = await self.call_model(action, self.context.view())
            if not isinstance(reply, ModelReply):
                self.journal.pop(action.id, None)
                return reply  # an event: the model failed, or the stuck clock ran out first
            entry["reply"] = {"text": reply.text, "calls": [{"name": c.name, "args": c.args} for c in reply.calls]}
            self.save()
        calls = []
        for number, call in enumerate(entry["reply"]["calls"]):
            results = entry.setdefault("results", {})
            done = results.get(str(number))
            if done is None:
                done = await self.run_tool(action, Call(call["name"], dict(call["args"])), f"{action.id}/{number}")
                results[str(number)] = done
                self.save()
            path = call["args"].get("path", call["args"].get("file_path"))
            calls.append(ToolCall(call["name"], path if isinstance(path, str) else None, done["outcome"], done["text"]))
        for child in entry.get("started", ()):
            self.advance(ChildStarted(child, now=self.clock()))
        self.journal.pop(action.id, None)
        return InferenceFinished(entry["reply"]["text"], tuple(calls), request=action.request, now=self.clock())

    async def run_tool(self, action: RunInference, call: Call, key: str) -> dict[str, str]:
        """Judge the call, then run it: the host's own tools here, the others with `call_tool`."""
        context = self.context
        path = call.args.get("path", call.args.get("file_path"))
        verdict = judge_tool(
            self.ir,
            self.state,
            call.name,
            path if isinstance(path, str) else None,
            user=self.user_permissions,
            launch=self.launch_permissions,
        )
        use = ToolUse(call.name, call.args, key, action.stage, verdict.permission)
        offered = {tool.name: tool for tool in action.spec.tools} if action.spec is not None else {}
        result: ToolResult | None = None
        if not verdict.offered:
            outcome, text = "unavailable", f"[unavailable] stage '{action.stage}' does not offer {call.name}"
        elif verdict.canonical in CONTEXT_TOOLS:
            outcome, text = context.context_tool(verdict.canonical, call.args) or ("error", "")
        elif verdict.canonical == "submit_output":
            content = call.args.get("content")
            outcome, text = ("ok", "output accepted") if isinstance(content, str) else ("error", "[error] no content")
            if outcome == "ok":
                context.output = content
        elif verdict.canonical == "fan_out":
            handed = call.args.get("items")
            if isinstance(handed, list):
                outcome, text = "ok", f"{len(handed)} item(s) handed out"
                self.fan_out[action.stage] = handed
            else:
                outcome, text = "error", "[error] items must be a list"
        elif verdict.inline:
            outcome, text = "unavailable", f"[unavailable] this host does not carry out {call.name}"
        elif verdict.permission == "deny":
            outcome, text = "denied", f"[denied] {call.name} is denied here"
        elif verdict.permission == "ask" and not await self.approve(use):
            outcome, text = "denied", f"[denied] {call.name} needs a person's approval, and none gave it"
        elif (result := await self.call_tool(use)) is None:
            outcome, text = "unavailable", f"[unavailable] this host runs no tools ({call.name})"
        else:
            if not isinstance(result, ToolResult):
                raise TypeError(f"the tool box's run returned {type(result).__name__}, not a ToolResult")
            outcome, text = result.outcome, result.text
            if result.started:
                self.journal[action.id].setdefault("started", []).extend(result.started)
        context.result(offered.get(verdict.canonical), call.name, text)
        return {"outcome": outcome, "text": text}

    # --- people, workers and child runs -----------------------------------------------------------------

    async def ask(self, action: AskInteraction) -> Event:
        async def answer() -> dict[str, Any]:
            given = await self.ask_person(action)
            if not isinstance(given, Answer):
                raise TypeError(f"the person's ask returned {type(given).__name__}, not an Answer")
            return {"text": given.text, "choice": given.choice, "edited": given.edited, "approved": given.approved}

        said = await self.journaled(action.id, "answer", answer)
        self.journal.pop(action.id, None)
        return InteractionAnswered(
            answer=said["text"],
            choice=said["choice"],
            edited=said["edited"],
            approved=said["approved"],
            request=action.request,
            now=self.clock(),
        )

    async def await_workers(self, action: AwaitWorkers) -> Event:
        items: list[Any] = self.fan_out.get(action.stage) or []
        if not items:
            return WorkersFinished(completed=0, now=self.clock())

        async def run_workers() -> dict[str, Any]:
            done = await self.run_workers(action, items)
            if not isinstance(done, WorkersDone):
                raise TypeError(f"the workers' fan_out returned {type(done).__name__}, not WorkersDone")
            return {"completed": done.completed, "failed": done.failed, "report": done.report}

        done = await self.journaled(action.id, "workers", run_workers)
        if action.results_region is not None and done["report"]:
            self.context.append(action.results_region, done["report"])
        self.journal.pop(action.id, None)
        self.fan_out.pop(action.stage, None)
        return WorkersFinished(completed=done["completed"], failed=done["failed"], now=self.clock())

    async def await_children(self, action: AwaitChildren) -> Event:
        finished = list(await self.wait_children(action))
        if not finished:
            raise HostError(f"the children of stage '{action.stage}' are still running and nothing reported an end")
        *before, last = finished
        for child in before:
            self.advance(ChildFinished(child, now=self.clock()))
        return ChildFinished(last, now=self.clock())


def plain_summary(entries: Sequence[str]) -> str:
    """The summary a host without a summarizer writes: the entries joined, cut."""
    return "(summary) " + " / ".join(entries)[:2000]
