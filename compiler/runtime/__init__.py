"""The stage-runner: a pure, serializable state machine that enforces a blueprint.

Standard library only. A host feeds events and carries out actions::

    from compiler.runtime import start, step, InferenceFinished

    state, actions = start(ir, now=0.0)
    state, actions = step(ir, state, InferenceFinished(text="all done", now=2.0))

`RunState.to_json()` / `RunState.from_json()` persist a run between any two steps. See
`docs/runner.md` for the semantics, the deviations from the reference runtime and a complete
host loop.
"""

from __future__ import annotations

from ..ir.model import DEFAULT_MAX_ITERATIONS
from .actions import (
    Action,
    AskInteraction,
    AskRoute,
    AwaitChildren,
    AwaitWorkers,
    CancelRequest,
    Complete,
    Fail,
    OfferedTool,
    RouteOption,
    RunInference,
    StageSpec,
    TakeEdge,
    action_to_dict,
)
from .events import (
    Cancel,
    ChildFinished,
    ChildStarted,
    Dispatched,
    Event,
    InferenceFailed,
    InferenceFinished,
    InteractionAnswered,
    Paused,
    RegionChanged,
    Resumed,
    RoutingAnswer,
    Tick,
    ToolCall,
    WorkersFinished,
    WorkspaceLost,
    event_from_dict,
    event_to_dict,
)
from .machine import BlueprintMismatch, answering, next_actions, rebind, replay_step, start, step
from .run import RunnerError
from .state import STATE_VERSION, Flags, Injection, RegionSnapshot, RunState, StateError, Visit, flags_report
from .tools import ToolVerdict, judge_tool

__all__ = [
    "DEFAULT_MAX_ITERATIONS",
    "STATE_VERSION",
    "Action",
    "AskInteraction",
    "AskRoute",
    "AwaitChildren",
    "AwaitWorkers",
    "BlueprintMismatch",
    "Cancel",
    "CancelRequest",
    "ChildFinished",
    "ChildStarted",
    "Complete",
    "Dispatched",
    "Event",
    "Fail",
    "Flags",
    "InferenceFailed",
    "InferenceFinished",
    "Injection",
    "InteractionAnswered",
    "OfferedTool",
    "Paused",
    "RegionChanged",
    "RegionSnapshot",
    "Resumed",
    "RouteOption",
    "RoutingAnswer",
    "RunInference",
    "RunState",
    "RunnerError",
    "StageSpec",
    "StateError",
    "TakeEdge",
    "Tick",
    "ToolCall",
    "ToolVerdict",
    "Visit",
    "WorkersFinished",
    "WorkspaceLost",
    "action_to_dict",
    "answering",
    "event_from_dict",
    "event_to_dict",
    "flags_report",
    "judge_tool",
    "next_actions",
    "rebind",
    "replay_step",
    "start",
    "step",
]
