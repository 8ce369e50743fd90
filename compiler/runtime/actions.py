"""What the runner asks a host to do: typed actions, each convertible to plain JSON.

`step` returns the actions an event caused, in the order the host must carry them out.
Three of them are *requests* the run then waits on (`RunInference`, `AskRoute`,
`AskInteraction`), two are *waits* on other runs (`AwaitChildren`, `AwaitWorkers`), and at
most one is current at a time: `next_actions` returns it again, unchanged, for a host that
restarted. `TakeEdge` is an instruction carried out once; `Complete` and `Fail` end the run.

`inject` and `notes` hold text the host appends to the named regions first. A host must
apply a request's injections once per request number, so asking `next_actions` again after
a restart never duplicates them.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

from compiler.records import record

from .state import Injection


@record
class RunInference:
    """Run one inference of `stage` with `tools` on the model `provider`/`model`.

    Before it: summarize the regions in `summarize` (a compacting edge led here), then append
    `inject`. `turn` is this inference's number within the visit, `visit` the visit's.
    """

    stage: str
    request: int
    visit: int
    turn: int
    provider: str
    model: str
    tools: tuple[str, ...]
    inject: tuple[Injection, ...] = ()
    summarize: tuple[str, ...] = ()


@record
class RouteOption:
    target: str
    hint: str | None = None


@record
class AskRoute:
    """Ask the stage's model (no tools, temperature 0) which edge to take; answer with `RoutingAnswer`.

    Append `prompt` to `conversation` as a user message, and the trimmed reply as an
    assistant turn `Transitioning to: <reply>`.
    """

    stage: str
    request: int
    options: tuple[RouteOption, ...]
    prompt: str
    allow_done: bool
    inject: tuple[Injection, ...] = ()


@record
class AskInteraction:
    """Present an interaction point to a person; answer with `InteractionAnswered`."""

    stage: str
    request: int
    point: str
    prompt: str
    style: str
    options: tuple[str, ...]
    round: int
    #: The text under review when it is not the stage's last reply (a person edited it).
    body: str | None = None
    document_region: str | None = None
    inject: tuple[Injection, ...] = ()


@record
class AwaitChildren:
    """The stage requires its children to finish; report each with `ChildFinished`."""

    stage: str
    children: tuple[str, ...]


@record
class AwaitWorkers:
    """The stage fanned out; report the workers' end with `WorkersFinished`."""

    stage: str


@record
class TakeEdge:
    """Leave `source` for `target`: append `notes`, empty `clear`, then enter the target.

    `condition` is the edge's (`fall_through` for a stage without transitions, `merge` for
    a fan-out hand-off); `gate` is `passed` or `forced` when a gate was checked. The regions in
    `summarize` are summarized before the target's first inference (its `RunInference` names
    them again).
    """

    source: str
    target: str
    condition: str
    transform: str
    visit: int
    clear: tuple[str, ...] = ()
    summarize: tuple[str, ...] = ()
    gate: str | None = None
    notes: tuple[Injection, ...] = ()


@record
class Complete:
    """The run is complete: `via` is `terminal` (no edge left) or `done` (the model said DONE)."""

    stage: str
    via: str
    flags: dict[str, Any]
    notes: tuple[Injection, ...] = ()


@record
class Fail:
    """The run ended without completing: `status` is `error` or `cancelled`."""

    stage: str
    status: str
    reason: str
    flags: dict[str, Any]
    notes: tuple[Injection, ...] = ()


Action = RunInference | AskRoute | AskInteraction | AwaitChildren | AwaitWorkers | TakeEdge | Complete | Fail

ACTION_NAMES: dict[type, str] = {
    RunInference: "run_inference",
    AskRoute: "ask_route",
    AskInteraction: "ask_interaction",
    AwaitChildren: "await_children",
    AwaitWorkers: "await_workers",
    TakeEdge: "take_edge",
    Complete: "complete",
    Fail: "fail",
}


#: Field names per action class, in declaration order (for `build`).
_A = TypeVar("_A")
_FIELD_NAMES: dict[type, tuple[str, ...]] = {cls: tuple(f.name for f in fields(cls)) for cls in ACTION_NAMES}


def build(cls: type[_A], *values: Any) -> _A:
    """`cls(*values)` for an action class, given every field in declaration order.

    A frozen dataclass's `__init__` sets each field through `object.__setattr__`; the runner
    emits an action on almost every event, and assembling it directly costs a third as much.
    A wrong number of values still fails (`zip(strict=True)`).
    """
    action: _A = object.__new__(cls)
    object.__setattr__(action, "__dict__", dict(zip(_FIELD_NAMES[cls], values, strict=True)))
    return action


def action_to_dict(action: Action) -> dict[str, Any]:
    """An action as plain JSON values, named by `"action"` (`"run_inference"` …); `TypeError`
    for anything that is not an action."""
    name = ACTION_NAMES.get(type(action))
    if name is None:
        raise TypeError(f"not a runner action: {type(action).__name__}")
    out: dict[str, Any] = {"action": name}
    for f in fields(action):
        out[f.name] = _plain(getattr(action, f.name))
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, (Injection, RouteOption)):
        return {f.name: getattr(value, f.name) for f in fields(value)}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
