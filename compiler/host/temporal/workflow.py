"""The run workflow: one Temporal workflow per run drives the stage-runner deterministically.

`RunWorkflow` is the reference host's loop (`compiler.host.driver.Driver`) with its outside
calls made durable: the model's replies, routing answers, summaries and tool runs are
activities keyed by the action id (`compiler.host.temporal.activities`); a person's answers
and approvals are workflow updates (`answer`, `approve`), checked against the request the
run waits on before they are accepted; fan-out items are child workflows
(`FanOutItemWorkflow`), started a few at a time, with a circuit breaker that starts no more
after `breaker` consecutive failures. The runner's clock is `workflow.now()`; an inference
with a stuck `deadline` races a durable timer, and when the timer wins the activity is
cancelled and the `Tick` that interrupts the stage is sent. Temporal's history is the
journal, so nothing is saved between steps; once the history is long (Temporal suggests it,
or `history_events` is reached) the run continues as new from its state.

The blueprint itself never travels: the run names its digest and the worker serves the
blueprint of that digest (`registry`), or refuses the run with `BlueprintMismatch`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, ChildWorkflowError, FailureError

with workflow.unsafe.imports_passed_through():
    from ...ir.model import Blueprint
    from ...runtime import (
        AskInteraction,
        AskRoute,
        AwaitChildren,
        AwaitWorkers,
        Cancel,
        Event,
        InferenceFailed,
        RunInference,
        RunState,
        Tick,
        next_actions,
        start,
    )
    from ...runtime.actions import action_to_dict
    from ..context import Context
    from ..driver import Driver, HostError
    from ..protocols import Answer, Call, ModelReply, ToolResult, ToolUse, WorkersDone
    from .activities import MODEL_ERROR
    from .messages import (
        ANSWER_UPDATE,
        APPROVE_UPDATE,
        INFER,
        ITEM_WORKFLOW,
        ROUTE,
        RUN_TOOL,
        RUN_WORKFLOW,
        STATE_QUERY,
        SUMMARIZE,
        WAIT_CHILDREN,
        WAITING_QUERY,
        WORK_ITEM,
        Approval,
        InferCall,
        ItemInput,
        Reply,
        RunInput,
        RunOutput,
        RunSettings,
        SummaryCall,
        ToolCallInput,
        Waiting,
        action_text,
        context_text,
    )
    from .registry import blueprint_for


def _seconds(value: float) -> timedelta:
    return timedelta(seconds=value)


def _retry(settings: RunSettings, *never: str) -> RetryPolicy:
    return RetryPolicy(maximum_attempts=max(settings.attempts, 1), non_retryable_error_types=list(never) or None)


def _failure(error: BaseException) -> str:
    """The innermost message of a failed activity or child (the user's own words, where any)."""
    while isinstance(error, FailureError) and error.cause is not None:
        error = error.cause
    return error.message if isinstance(error, FailureError) else str(error)


class _WorkflowRun(Driver):
    """The driver's hooks as workflow operations."""

    def __init__(self, flow: RunWorkflow, ir: Blueprint, given: RunInput) -> None:
        settings = given.settings
        super().__init__(
            ir,
            given.run_id,
            user_permissions=settings.user_permissions,
            launch_permissions=settings.launch_permissions,
        )
        self.flow, self.given, self.settings = flow, given, settings
        #: Waits on children in this execution (each wait is its own activity).
        self.waits = 0

    def clock(self) -> float:
        return workflow.now().timestamp()

    def _activity(self, timeout: float) -> dict[str, Any]:
        return {
            "start_to_close_timeout": _seconds(timeout),
            "heartbeat_timeout": _seconds(self.settings.heartbeat_timeout),
            "retry_policy": _retry(self.settings, MODEL_ERROR),
        }

    async def checkpoint(self) -> None:
        info = workflow.info()
        if info.is_continue_as_new_suggested() or info.get_current_history_length() >= self.settings.history_events:
            await workflow.wait_condition(workflow.all_handlers_finished)
            given = self.given
            workflow.continue_as_new(
                RunInput(
                    run_id=given.run_id,
                    blueprint=given.blueprint,
                    state=self.host_data().to_json(),
                    settings=given.settings,
                    answers=dict(self.flow.answers),
                    continued=given.continued + 1,
                )
            )

    async def call_model(self, action: RunInference, view: Mapping[str, Sequence[str]]) -> ModelReply | Event:
        if action.deadline is not None and action.deadline <= self.clock():
            return Tick(now=self.clock())  # the stuck clock ran out before the call was made
        spec_timeout = action.spec.request_timeout_secs if action.spec is not None else None
        handle = workflow.start_activity(
            INFER,
            InferCall(action_text(action), context_text(view), action.id),
            activity_id=action.id,
            result_type=dict,
            **self._activity(spec_timeout or self.settings.model_timeout),
        )
        if action.deadline is not None:
            timer = asyncio.ensure_future(workflow.sleep(action.deadline - self.clock()))
            await workflow.wait([handle, timer], return_when=asyncio.FIRST_COMPLETED)
            if not handle.done():  # the durable timer won: stop the call, interrupt the stage
                handle.cancel()
                return Tick(now=self.clock())
            timer.cancel()
        try:
            reply = await handle
        except ActivityError as error:
            return InferenceFailed(_failure(error), _kind(error), request=action.request, now=self.clock())
        calls = tuple(Call(c["name"], dict(c["args"])) for c in reply["calls"])
        return ModelReply(text=reply["text"], calls=calls)

    async def call_route(self, action: AskRoute, view: Mapping[str, Sequence[str]]) -> str | Event:
        try:
            reply: str = await workflow.execute_activity(
                ROUTE,
                InferCall(action_text(action), context_text(view), action.id),
                activity_id=action.id,
                result_type=str,
                **self._activity(self.settings.model_timeout),
            )
        except ActivityError as error:
            return InferenceFailed(_failure(error), _kind(error), request=action.request, now=self.clock())
        return reply

    async def call_summarizer(self, region: str, entries: list[str]) -> str | None:
        key = f"{self.state.action_id}/summary/{region}"
        summary: str | None = await workflow.execute_activity(
            SUMMARIZE,
            SummaryCall(region, entries, key),
            activity_id=key,
            **self._activity(self.settings.tool_timeout),
        )
        return summary

    async def call_tool(self, use: ToolUse) -> ToolResult | None:
        try:
            done: dict[str, Any] | None = await workflow.execute_activity(
                RUN_TOOL,
                ToolCallInput(use.name, use.args, use.key, use.stage, use.permission),
                activity_id=use.key,
                **self._activity(self.settings.tool_timeout),
            )
        except ActivityError as error:
            return ToolResult(f"[error] {_failure(error)}", "error")
        if done is None:
            return None
        return ToolResult(done["text"], done["outcome"], tuple(done.get("started", ())))

    async def approve(self, use: ToolUse) -> bool:
        if not self.settings.person:
            return False
        flow = self.flow
        flow.waiting = Waiting("approval", use={"name": use.name, "args": use.args, "key": use.key, "stage": use.stage})
        await workflow.wait_condition(lambda: use.key in flow.approvals)
        flow.waiting = None
        return flow.approvals.pop(use.key)

    async def ask_person(self, action: AskInteraction) -> Answer:
        if not self.settings.person:
            return await super().ask_person(action)
        flow, key = self.flow, str(action.request)
        flow.waiting = Waiting("interaction", action=action_to_dict(action))
        await workflow.wait_condition(lambda: key in flow.answers)
        flow.waiting = None
        said = flow.answers.pop(key)
        return Answer(text=said["answer"], choice=said["choice"], edited=said["edited"], approved=said["approved"])

    async def run_workers(self, action: AwaitWorkers, items: list[Any]) -> WorkersDone:
        """Each item a child workflow, `max_children` at a time, in order; after `breaker`
        consecutive failures no more are started (the rest count as failed)."""
        settings, parent = self.settings, workflow.info().workflow_id
        described = action_text(action)
        running: dict[Any, int] = {}
        lines: dict[int, str] = {}
        started = completed = consecutive = 0
        tripped = False
        while running or (started < len(items) and not tripped):
            while started < len(items) and len(running) < max(settings.max_children, 1) and not tripped:
                key = f"{action.id}/{started}"
                child = await workflow.start_child_workflow(
                    ITEM_WORKFLOW,
                    ItemInput(described, items[started], key, settings),
                    id=f"{parent}/{key}",
                    result_type=str,
                )
                running[child] = started
                started += 1
            done, _ = await workflow.wait(list(running), return_when=asyncio.FIRST_COMPLETED)
            for child in sorted(done, key=running.__getitem__):  # a set: put it in item order
                number = running.pop(child)
                try:
                    lines[number] = f"[{number + 1}] {child.result()}"
                    completed += 1
                    consecutive = 0
                except ChildWorkflowError as error:
                    lines[number] = f"[{number + 1}] failed: {_failure(error)}"
                    consecutive += 1
                    tripped = tripped or consecutive >= max(settings.breaker, 1)
        report = [lines[n] for n in sorted(lines)]
        if started < len(items):
            report.append(
                f"circuit breaker: {consecutive} consecutive failures; {len(items) - started} item(s) not started"
            )
        return WorkersDone(completed=completed, failed=len(items) - completed, report="\n".join(report))

    async def wait_children(self, action: AwaitChildren) -> list[str]:
        self.waits += 1
        ended: list[str] = await workflow.execute_activity(
            WAIT_CHILDREN,
            action_text(action),
            activity_id=f"{action.id}/wait/{self.waits}",
            result_type=list[str],
            **self._activity(self.settings.tool_timeout),
        )
        return ended


def _kind(error: ActivityError) -> str:
    cause = error.cause
    if isinstance(cause, ApplicationError) and cause.type == MODEL_ERROR and cause.details:
        return str(cause.details[0])
    return "error"


@workflow.defn(name=RUN_WORKFLOW)
class RunWorkflow:
    """One run of a blueprint (see the module docstring)."""

    def __init__(self) -> None:
        self.driver: _WorkflowRun | None = None
        #: Request number (as text) → a person's answer, accepted and not yet taken.
        self.answers: dict[str, dict[str, Any]] = {}
        #: Tool-call key → a person's word on it.
        self.approvals: dict[str, bool] = {}
        self.waiting: Waiting | None = None

    @workflow.run
    async def run(self, given: RunInput) -> RunOutput:
        self.answers = dict(given.answers)
        ir = blueprint_for(workflow.info().task_queue, given.blueprint, given.run_id)
        run = self.driver = _WorkflowRun(self, ir, given)
        if given.state is None:
            options: dict[str, Any] = {"unattended": given.unattended}
            if given.default_max_iterations is not None:
                options["default_max_iterations"] = given.default_max_iterations
            run.context = Context.seeded(given.regions or {})
            regions = run.context.changes()
            run.state, actions = start(ir, run.clock(), regions=regions, run_id=given.run_id, **options)
        else:
            run.load(RunState.from_json(given.state))
            actions = next_actions(ir, run.state)
        try:
            result = await run.drive(actions)
        except HostError as problem:
            raise ApplicationError(str(problem), type="HostError", non_retryable=True) from None
        except asyncio.CancelledError:  # the workflow was cancelled: so is the run
            run.apply(run.advance(Cancel(now=run.clock())))
            result = run.result()
        state = run.host_data()
        return RunOutput(
            result.run_id, state.status, state.stage, state.reason, result.output, state.to_json(), given.continued
        )

    @workflow.update(name=ANSWER_UPDATE)
    async def answer(self, reply: Reply) -> str:
        self.answers[str(reply.request)] = {
            "answer": reply.answer,
            "choice": reply.choice,
            "edited": reply.edited,
            "approved": reply.approved,
        }
        return f"request {reply.request} answered"

    @answer.validator
    def _check_answer(self, reply: Reply) -> None:
        run = self.driver
        waiting = next_actions(run.ir, run.state) if run is not None else ()
        asked = next((a for a in waiting if isinstance(a, AskInteraction)), None)
        if asked is None or asked.request != reply.request:
            now = f" (it waits on request {asked.request})" if asked is not None else ""
            raise ValueError(f"the run does not wait for an answer to request {reply.request}{now}")
        if str(reply.request) in self.answers:
            raise ValueError(f"request {reply.request} is answered already")

    @workflow.update(name=APPROVE_UPDATE)
    async def approve(self, approval: Approval) -> str:
        self.approvals[approval.key] = approval.approved
        return f"{approval.key} {'approved' if approval.approved else 'refused'}"

    @approve.validator
    def _check_approval(self, approval: Approval) -> None:
        waiting = self.waiting
        if waiting is None or waiting.use is None or waiting.use["key"] != approval.key:
            raise ValueError(f"the run does not wait for an approval of {approval.key}")
        if approval.key in self.approvals:
            raise ValueError(f"{approval.key} is answered already")

    @workflow.query(name=WAITING_QUERY)
    def what_waits(self) -> Waiting | None:
        return self.waiting

    @workflow.query(name=STATE_QUERY)
    def state(self) -> str | None:
        return self.driver.host_data().to_json() if self.driver is not None else None


@workflow.defn(name=ITEM_WORKFLOW)
class FanOutItemWorkflow:
    """One fan-out item: the worker's `work` as an activity keyed by the item's key."""

    @workflow.run
    async def run(self, given: ItemInput) -> str:
        settings = given.settings
        report: str = await workflow.execute_activity(
            WORK_ITEM,
            given,
            activity_id=given.key,
            start_to_close_timeout=_seconds(settings.tool_timeout),
            heartbeat_timeout=_seconds(settings.heartbeat_timeout),
            retry_policy=_retry(settings),
            result_type=str,
        )
        return report
