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
withdrawn.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Mapping
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
    InferenceFailed,
    InferenceFinished,
    InteractionAnswered,
    RoutingAnswer,
    RunInference,
    RunState,
    TakeEdge,
    Tick,
    ToolCall,
    WorkersFinished,
    judge_tool,
    next_actions,
    start,
    step,
)
from ..runtime.events import FAILURE_KINDS
from .context import Context
from .protocols import Answer, Call, ModelReply, ToolResult, ToolUse, WorkersDone
from .store import MemoryStore, Store

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


async def _settle(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


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
        run = _Run(self, run_id)
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
        run = _Run(self, run_id)
        run.load(RunState.from_json(saved))
        run.state, actions = step(self.ir, run.state, event)
        run.apply(actions)
        run.save()
        return run.state


class _Run:
    """One run being driven: its state, context and journal, and how each action is performed."""

    def __init__(self, host: Host, run_id: str) -> None:
        self.host, self.ir, self.run_id = host, host.ir, run_id
        self.state: RunState
        self.context = Context()
        #: The seq number of the last action whose effects are in the context.
        self.applied = 0
        #: Action id → what performing it has produced so far (see the module docstring).
        self.journal: dict[str, dict[str, Any]] = {}
        #: Stage → the items its last `fan_out` call handed out.
        self.fan_out: dict[str, list[Any]] = {}

    # --- persistence ----------------------------------------------------------------------------

    def load(self, state: RunState) -> None:
        data = state.host if isinstance(state.host, dict) else {}
        self.state = state
        self.context = Context.from_dict(data.get("context"))
        self.applied = data.get("applied", 0)
        self.journal = data.get("journal", {})
        self.fan_out = data.get("fan_out", {})

    def save(self) -> None:
        data = {"context": self.context.to_dict(), "applied": self.applied, "journal": self.journal}
        data["fan_out"] = self.fan_out
        self.state = self.state.with_host(data)
        self.host.store.save(self.run_id, self.state.to_json())

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
            event = await self.perform(last)
            for change in self.context.changes(self.host.clock()):  # the regions first: gates read them
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
            reply = await self.journaled(action.id, "reply", lambda: self.host.model.route(action, self.context.view()))
            self.context.append("conversation", f"Transitioning to: {str(reply).strip()}")
            return RoutingAnswer(reply=str(reply), request=action.request, now=self.host.clock())
        if isinstance(action, AskInteraction):
            return await self.ask(action)
        if isinstance(action, AwaitWorkers):
            return await self.await_workers(action)
        if isinstance(action, AwaitChildren):
            return await self.await_children(action)
        raise HostError(f"nothing to perform for {type(action).__name__}")

    async def journaled(self, action_id: str, key: str, produce: Callable[[], Any]) -> Any:
        """What `produce` gave for this action before (a resumed run), or its answer now, saved."""
        entry = self.journal.setdefault(action_id, {})
        if key not in entry:
            entry[key] = await _settle(produce())
            self.save()
        return entry[key]

    # --- an inference ---------------------------------------------------------------------------------

    async def infer(self, action: RunInference) -> Event:
        host, entry = self.host, self.journal.setdefault(action.id, {})
        if action.summarize and not entry.get("summarized"):
            for region in action.summarize:
                entries = self.context.regions.get(region, [])
                if entries:
                    summary = self.summarize(region, entries)
                    self.context.replace(region, [await _settle(summary)])
            entry["summarized"] = True
            self.save()
        if "reply" not in entry:
            if not action.dispatched:
                self.advance(Dispatched(request=action.request, now=host.clock()))
                self.save()
            reply = await self.call_model(action)
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
            self.advance(ChildStarted(child, now=host.clock()))
        self.journal.pop(action.id, None)
        return InferenceFinished(entry["reply"]["text"], tuple(calls), request=action.request, now=host.clock())

    def summarize(self, region: str, entries: list[str]) -> Any:
        summarizer = self.host.summarizer
        if summarizer is not None:
            return summarizer.summarize(region, list(entries))
        return "(summary) " + " / ".join(entries)[:2000]

    async def call_model(self, action: RunInference) -> ModelReply | Event:
        host = self.host
        view = self.context.view()

        async def infer() -> Any:  # a plain function's exception belongs to the task as well
            return await _settle(host.model.infer(action, view))

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

    async def run_tool(self, action: RunInference, call: Call, key: str) -> dict[str, str]:
        """Judge the call, then run it: the host's own tools here, the others with `tools`."""
        host, context = self.host, self.context
        path = call.args.get("path", call.args.get("file_path"))
        verdict = judge_tool(
            self.ir,
            self.state,
            call.name,
            path if isinstance(path, str) else None,
            user=host.user_permissions,
            launch=host.launch_permissions,
        )
        use = ToolUse(call.name, call.args, key, action.stage, verdict.permission)
        offered = {tool.name: tool for tool in action.spec.tools} if action.spec is not None else {}
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
        elif verdict.permission == "ask" and not (host.person is not None and await _settle(host.person.approve(use))):
            outcome, text = "denied", f"[denied] {call.name} needs a person's approval, and none gave it"
        elif host.tools is None:
            outcome, text = "unavailable", f"[unavailable] this host runs no tools ({call.name})"
        else:
            result = await _settle(host.tools.run(use))
            if not isinstance(result, ToolResult):
                raise TypeError(f"the tool box's run returned {type(result).__name__}, not a ToolResult")
            outcome, text = result.outcome, result.text
            if result.started:
                self.journal[action.id].setdefault("started", []).extend(result.started)
        context.result(offered.get(verdict.canonical), call.name, text)
        return {"outcome": outcome, "text": text}

    # --- people, workers and child runs -----------------------------------------------------------------

    async def ask(self, action: AskInteraction) -> Event:
        person = self.host.person
        if person is None:
            raise HostError(f"the run asks a person at interaction point '{action.point}', and this host has no person")

        async def answer() -> dict[str, Any]:
            given = await _settle(person.ask(action))
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
            now=self.host.clock(),
        )

    async def await_workers(self, action: AwaitWorkers) -> Event:
        workers = self.host.workers
        items: list[Any] = self.fan_out.get(action.stage) or []
        if not items:
            return WorkersFinished(completed=0, now=self.host.clock())
        if workers is None:
            raise HostError(f"stage '{action.stage}' fanned out, and this host has no workers")

        async def run_workers() -> dict[str, Any]:
            done = await _settle(workers.fan_out(action, items))
            if not isinstance(done, WorkersDone):
                raise TypeError(f"the workers' fan_out returned {type(done).__name__}, not WorkersDone")
            return {"completed": done.completed, "failed": done.failed, "report": done.report}

        done = await self.journaled(action.id, "workers", run_workers)
        if action.results_region is not None and done["report"]:
            self.context.append(action.results_region, done["report"])
        self.journal.pop(action.id, None)
        self.fan_out.pop(action.stage, None)
        return WorkersFinished(completed=done["completed"], failed=done["failed"], now=self.host.clock())

    async def await_children(self, action: AwaitChildren) -> Event:
        children = self.host.children
        if children is None:
            raise HostError(f"stage '{action.stage}' waits for child runs, and this host has no children to wait on")
        finished = list(await _settle(children.wait(action)))
        if not finished:
            raise HostError(f"the children of stage '{action.stage}' are still running and nothing reported an end")
        *before, last = finished
        for child in before:
            self.advance(ChildFinished(child, now=self.host.clock()))
        return ChildFinished(last, now=self.host.clock())
