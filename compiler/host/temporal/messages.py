"""What travels between a Temporal client, the workflows and the activities: plain dataclasses.

Temporal's data converter writes each as JSON, field by field, so every field is a JSON value
or another of these records. It writes an object's keys sorted, so what must keep its order
travels as JSON text: runner actions (`action_to_dict`, read back with `action_from_dict`:
a spec's parameters and a run's flags in their order), the context (regions in the order the
stage sees them), states (`RunState.to_json`) and a replay's steps. This module imports neither
Temporal nor anything with side effects, so workflow code may pass it through the sandbox.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...runtime.actions import Action, action_from_dict, action_to_dict

#: The names the workflows and activities are registered under.
RUN_WORKFLOW = "BlueprintRun"
ITEM_WORKFLOW = "BlueprintFanOutItem"
REPLAY_WORKFLOW = "BlueprintReplay"
INFER = "blueprint.infer"
ROUTE = "blueprint.route"
SUMMARIZE = "blueprint.summarize"
RUN_TOOL = "blueprint.run_tool"
WORK_ITEM = "blueprint.work_item"
WAIT_CHILDREN = "blueprint.wait_children"
#: The run workflow's updates and queries.
ANSWER_UPDATE = "answer"
APPROVE_UPDATE = "approve"
WAITING_QUERY = "waiting"
STATE_QUERY = "state"


@dataclass
class RunSettings:
    """How a run on Temporal performs its activities and children. Fixed when the run starts
    (and carried across continue-as-new), so every worker that replays it decides alike."""

    #: Seconds one model call may take (the stage's `request_timeout_secs` wins when set).
    model_timeout: float = 600.0
    #: Seconds one tool run, summary or fan-out item may take.
    tool_timeout: float = 600.0
    #: Seconds without a heartbeat before Temporal counts an activity's worker as gone and
    #: retries it elsewhere (the activities heartbeat at a third of this).
    heartbeat_timeout: float = 30.0
    #: Attempts of an activity before its failure is reported to the runner.
    attempts: int = 3
    #: Fan-out children that run at once.
    max_children: int = 4
    #: Consecutive child failures after which no more children are started (the circuit breaker).
    breaker: int = 3
    #: Continue as new once the history holds this many events (or when Temporal suggests it).
    history_events: int = 5000
    #: Whether a person answers this run (the `answer` and `approve` updates). Without one, a
    #: call whose permission is `ask` is denied and an interaction point fails the run.
    person: bool = True
    #: The user's own tool permissions and this launch's, as `runtime.judge_tool` takes them.
    user_permissions: dict[str, str] | None = None
    launch_permissions: dict[str, str] | None = None


@dataclass
class RunInput:
    """One run of a blueprint: started fresh (`state` None) or from a saved state."""

    run_id: str
    #: `compiler.digest` of the blueprint: the worker must hold a blueprint of this digest.
    blueprint: str
    regions: dict[str, list[str]] | None = None
    unattended: bool = False
    default_max_iterations: int | None = None
    #: A saved `RunState` JSON to go on from (continue-as-new passes the run's state here).
    state: str | None = None
    settings: RunSettings = field(default_factory=RunSettings)
    #: Answers that arrived for the outstanding request before a continue-as-new.
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: How many times the run has continued as new.
    continued: int = 0


@dataclass
class RunOutput:
    """How a run ended (or stopped: `paused`): its status, stage, reason, accepted output and
    final state (JSON, with the context in its host data)."""

    run_id: str
    status: str
    stage: str
    reason: str | None
    output: str | None
    state: str
    continued: int = 0


@dataclass
class Reply:
    """A person's answer at an interaction point (the `answer` update): the fields of
    `InteractionAnswered`, and the request it answers."""

    request: int
    answer: str | None = None
    choice: int | None = None
    edited: str | None = None
    approved: bool | None = None


@dataclass
class Approval:
    """A person's word on a tool call whose permission is `ask` (the `approve` update)."""

    key: str
    approved: bool


@dataclass
class Waiting:
    """What the run waits on from a person (the `waiting` query): an interaction point
    (`action`: the `AskInteraction` as a dict) or a tool call to approve (`use`)."""

    kind: str
    action: dict[str, Any] | None = None
    use: dict[str, Any] | None = None


@dataclass
class InferCall:
    """An inference (or routing) activity's input: the action and the context as it is, as
    JSON text (`action_to_dict`; region name → entries), and the idempotency key (the action id)."""

    action: str
    context: str
    key: str


@dataclass
class ToolCallInput:
    """A tool activity's input: the `ToolUse`'s fields (`key` is its idempotency key)."""

    name: str
    args: dict[str, Any]
    key: str
    stage: str
    permission: str


@dataclass
class SummaryCall:
    region: str
    entries: list[str]
    key: str


@dataclass
class ItemInput:
    """One fan-out item for a child workflow: the `AwaitWorkers` as JSON text, the item, its
    key (`"<action id>/<n>"`) and the run's settings."""

    action: str
    item: Any
    key: str
    settings: RunSettings = field(default_factory=RunSettings)


@dataclass
class ReplayInput:
    """A recording replayed as a workflow: events are read and steps written by activities
    of the worker that holds the recording (`source`), `offset` events at a time."""

    blueprint: str
    source: str
    first: float
    run_id: str = "run"
    regions: list[dict[str, Any]] | None = None
    unattended: bool = False
    default_max_iterations: int | None = None
    state: str | None = None
    offset: int = 0
    batch: int = 0
    unused: int = 0
    history_events: int = 5000
    #: The most events one page brings.
    page_events: int = 500
    continued: int = 0


@dataclass
class ReplayOutput:
    steps: int
    unused: int
    batches: int
    continued: int


@dataclass
class EventPage:
    """Recorded events (native dicts) from `offset` on; `end` when none are left after them."""

    events: list[dict[str, Any]]
    end: bool


@dataclass
class StepBatch:
    """Steps of a replay, numbered `batch`: each the JSON text of
    `{"event": …, "actions": […], "state": "…"}`."""

    source: str
    batch: int
    steps: list[str]


def action_text(action: Action) -> str:
    """An action as the JSON text activities carry (its spec included)."""
    return json.dumps(action_to_dict(action), ensure_ascii=False)


def action_of(text: str) -> Action:
    """The action `action_text` wrote."""
    return action_from_dict(json.loads(text))


def context_text(view: Mapping[str, Sequence[str]]) -> str:
    """A context view (region name → entries, in the stage's order) as JSON text."""
    return json.dumps({name: list(entries) for name, entries in view.items()}, ensure_ascii=False)


def context_of(text: str) -> dict[str, list[str]]:
    view: dict[str, list[str]] = json.loads(text)
    return view
