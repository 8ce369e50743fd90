"""What the runner asks a host to do: typed actions, each convertible to plain JSON.

`step` returns the actions an event caused, in the order the host must carry them out.
Three of them are *requests* the run then waits on (`RunInference`, `AskRoute`,
`AskInteraction`), two are *waits* on other runs (`AwaitChildren`, `AwaitWorkers`), and at
most one is current at a time: `next_actions` returns it again, unchanged, for a host that
restarted. `TakeEdge` is an instruction carried out once; `CancelRequest` withdraws a request
the run no longer waits on; `Complete` and `Fail` end the run.

Every action has an `id`, `"<run id>:<number>"`, numbered in the order the run emitted its
actions: the same action has the same id when `next_actions` returns it again, so a host can
key side effects on it and never repeat one. Requests carry everything performing them needs
(`RunInference.spec`: the stage's prompt, tools with their permissions, where tool results
go, its regions and models), so a host never reads the IR to act.

`inject` and `notes` hold text the host appends to the named regions first, once per action
id.
"""

from __future__ import annotations

from dataclasses import MISSING, field, fields, is_dataclass
from typing import Any, TypeVar

from compiler.records import record

from ..ir.model import ModelEntry, OutputSpec, Region
from .state import Injection


@record
class OfferedTool:
    """A tool a stage offers, as the blueprint sets it up.

    `permission` is what the blueprint's permission layers resolve to (`allow`, `ask` or
    `deny`: the stage's `tool_permissions`, then the agent's, held to the built-in default
    a blueprint may not loosen on its own); a host applies the user's own settings on top
    (`tools.judge_tool`). `results_region` is where the tool's results go (`conversation`
    when the stage routes nothing; `scratch` for results kept one turn, `persist` False, when
    the layout has that region), cut to `max_result_tokens` when set.
    """

    name: str
    permission: str
    required: bool = False
    results_region: str = "conversation"
    max_result_tokens: int | None = None
    persist: bool = True


@record
class StageSpec:
    """Everything fixed about performing one stage's inferences, worked out once per stage.

    - `instructions`: the stage's `system_prompt`, written as pinned context
      (`[Stage instructions: …]`) into `instructions_region`;
    - `output`: what a `submit_output` must look like, when the stage owes an output;
    - `regions`: the stage's context layout (every region it sees, with its kind and budget);
    - `tools`: the tools offered, in order, with their permissions and result routing;
    - `models`: the model candidates in fallback order (the current one is the action's
      `provider`/`model`), with their shared `parameters` and `request_timeout_secs`;
    - `batch_tool_hint`, `shell_hint`: the prompt hints, the stage's over the agent's.
    """

    stage: str
    instructions: str | None
    instructions_region: str
    output: OutputSpec | None
    regions: tuple[Region, ...]
    tools: tuple[OfferedTool, ...]
    models: tuple[ModelEntry, ...]
    parameters: dict[str, Any]
    request_timeout_secs: int | None = None
    batch_tool_hint: bool | None = None
    shell_hint: bool | None = None


@record
class RunInference:
    """Run one inference of `stage` with `tools` on the model `provider`/`model`.

    Before it: summarize the regions in `summarize` (a compacting edge led here), then append
    `inject`. `turn` is this inference's number within the visit, `visit` the visit's.
    `spec` says how the stage is performed. `dispatched` is set once the host reported
    sending it (`Dispatched`): after a restart, wait for its answer instead of sending again.
    `deadline` is the time (on the run's clock) at which the stage's stuck clock trips: send
    a `Tick` then if the inference has not answered, and the runner interrupts the stage.
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
    spec: StageSpec | None = field(default=None, repr=False)
    dispatched: bool = False
    deadline: float | None = None
    id: str = ""


@record
class RouteOption:
    target: str
    hint: str | None = None


@record
class AskRoute:
    """Ask the stage's model (`provider`/`model`, no tools, temperature 0) which edge to take;
    answer with `RoutingAnswer`.

    Append `prompt` to `conversation` as a user message, and the trimmed reply as an
    assistant turn `Transitioning to: <reply>`.
    """

    stage: str
    request: int
    options: tuple[RouteOption, ...]
    prompt: str
    allow_done: bool
    inject: tuple[Injection, ...] = ()
    provider: str = ""
    model: str = ""
    dispatched: bool = False
    id: str = ""


@record
class AskInteraction:
    """Present an interaction point to a person; answer with `InteractionAnswered`.

    `body` is the document under review at this round: the text a person put in at the
    round before (`revised`), shown once, or else the stage's latest reply. When the point
    has a `document_region`, write `body` into it first, replacing what it held (marked as
    the person's revision when `revised`), so later turns build on the reviewed text.
    """

    stage: str
    request: int
    point: str
    prompt: str
    style: str
    options: tuple[str, ...]
    round: int
    body: str | None = None
    document_region: str | None = None
    inject: tuple[Injection, ...] = ()
    revised: bool = False
    dispatched: bool = False
    id: str = ""


@record
class AwaitChildren:
    """The stage requires its children to finish; report each with `ChildFinished`."""

    stage: str
    children: tuple[str, ...]
    id: str = ""


@record
class AwaitWorkers:
    """The stage fanned out; report the workers' end with `WorkersFinished`, after writing
    their report into `results_region` (when the stage names one)."""

    stage: str
    results_region: str | None = None
    id: str = ""


@record
class CancelRequest:
    """The run no longer waits on request `request` (the action `cancels`; `request` None: a
    wait on children or fan-out workers): stop it if it is still running, and drop its answer
    if one comes. `reason`: `stuck` (the stage was interrupted), `workspace_lost`, or
    `cancelled` (the run was)."""

    stage: str
    request: int | None
    cancels: str
    reason: str
    id: str = ""


@record
class TakeEdge:
    """Leave `source` for `target`: append `notes`, empty `clear`, then enter the target.

    `condition` is the edge's (`fall_through` for a stage without transitions, `merge` for
    a fan-out hand-off); `gate` is `passed` or `forced` when a gate was checked. The regions in
    `summarize` are summarized before the target's first inference (its `RunInference` names
    them again). `forced` names why the edge was taken although nobody chose it:
    `gate_attempts`, `revisits_spent`, `iteration_cap`, `routing_fallback`, `dead_end`.
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
    forced: tuple[str, ...] = ()
    id: str = ""


@record
class Complete:
    """The run is complete: `via` is `terminal` (no edge left) or `done` (the model said DONE).

    `forced` names why this ending came without anyone choosing it (`routing_fallback`,
    `iteration_cap`); `flags["forced_moves"]` lists every kind of forced move the run made.
    """

    stage: str
    via: str
    flags: dict[str, Any]
    notes: tuple[Injection, ...] = ()
    forced: tuple[str, ...] = ()
    id: str = ""


@record
class Fail:
    """The run ended without completing: `status` is `error` or `cancelled`."""

    stage: str
    status: str
    reason: str
    flags: dict[str, Any]
    notes: tuple[Injection, ...] = ()
    id: str = ""


Action = (
    RunInference | AskRoute | AskInteraction | AwaitChildren | AwaitWorkers | CancelRequest | TakeEdge | Complete | Fail
)
#: The actions a run then waits on, answered by an event naming their `request`.
REQUESTS = (RunInference, AskRoute, AskInteraction)

ACTION_NAMES: dict[type, str] = {
    RunInference: "run_inference",
    AskRoute: "ask_route",
    AskInteraction: "ask_interaction",
    AwaitChildren: "await_children",
    AwaitWorkers: "await_workers",
    CancelRequest: "cancel_request",
    TakeEdge: "take_edge",
    Complete: "complete",
    Fail: "fail",
}


_A = TypeVar("_A")
#: Field names per action class, in declaration order, and the defaults of the trailing ones
#: (for `build`).
_FIELD_NAMES: dict[type, tuple[str, ...]] = {cls: tuple(f.name for f in fields(cls)) for cls in ACTION_NAMES}
_DEFAULTS: dict[type, tuple[Any, ...]] = {cls: tuple(f.default for f in fields(cls)) for cls in ACTION_NAMES}


def build(cls: type[_A], *values: Any) -> _A:
    """`cls(*values)` for an action class, given its fields in declaration order (the trailing
    ones may be left to their defaults).

    A frozen dataclass's `__init__` sets each field through `object.__setattr__`; the runner
    emits an action on almost every event, and assembling it directly costs a third as much.
    Too many values still fail (`zip(strict=True)`).
    """
    names = _FIELD_NAMES[cls]
    if len(values) < len(names):
        values = values + _DEFAULTS[cls][len(values) :]
        if MISSING in values:
            raise TypeError(f"{cls.__name__} needs a value for every field without a default")
    action: _A = object.__new__(cls)
    object.__setattr__(action, "__dict__", dict(zip(names, values, strict=True)))
    return action


def action_to_dict(action: Action, *, spec: bool = True) -> dict[str, Any]:
    """An action as plain JSON values, named by `"action"` (`"run_inference"` …); `TypeError`
    for anything that is not an action. `spec=False` writes a `RunInference`'s spec as its
    stage's name (a trace lists every spec once instead)."""
    name = ACTION_NAMES.get(type(action))
    if name is None:
        raise TypeError(f"not a runner action: {type(action).__name__}")
    out: dict[str, Any] = {"action": name}
    for f in fields(action):
        value = getattr(action, f.name)
        if f.name == "spec" and not spec and isinstance(value, StageSpec):
            out[f.name] = value.stage
        else:
            out[f.name] = plain(value)
    return out


def plain(value: Any) -> Any:
    """A record (action, spec, IR value), or a tuple or dict of them, as plain JSON values."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


#: Action name → class, the inverse of `ACTION_NAMES`.
ACTION_CLASSES: dict[str, type] = {name: cls for cls, name in ACTION_NAMES.items()}


def action_from_dict(data: Any) -> Action:
    """The action `action_to_dict` wrote (with its spec), read back: equal to the one written.

    `ValueError` names what does not fit (an unknown `"action"`, a missing or unknown field,
    a value of the wrong type). It is how a host that passes actions through a queue or a
    durable-execution engine as JSON gets them back typed.
    """
    from ..ir.codec import Invalid, codec_for

    if not isinstance(data, dict):
        raise ValueError(f"an action is a JSON object, not {type(data).__name__}")
    name = data.get("action")
    cls = ACTION_CLASSES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"unknown action {name!r}")
    fields_only = {key: value for key, value in data.items() if key != "action"}
    try:
        action: Action = codec_for(cls).decode(fields_only)
    except Invalid as exc:
        where = f"{exc.where()}: " if exc.path else ""
        raise ValueError(f"{name}: {where}{exc}") from None
    return action
