"""What a host is given to run a blueprint: a model client, tools, a person, workers, children.

Each is a typed protocol, so any object with the right methods serves; a method may be a
plain function or a coroutine function (the host awaits what it returns when it is awaitable).
The values passed in and out are frozen records: a model's reply names the tool calls it
wants, the host judges and runs them (`ToolUse` carries the call's idempotency key: the
action's id and the call's place in the reply), and a person's answer says what they chose.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from compiler.records import record

if TYPE_CHECKING:
    from ..runtime.actions import AskInteraction, AskRoute, AwaitChildren, AwaitWorkers, RunInference

#: A run's context as a model sees it: region name → entries, in order.
ContextView = Mapping[str, Sequence[str]]


@record
class Call:
    """One tool call a model asked for: the tool's name and its arguments (JSON values)."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)


@record
class ModelReply:
    """A model's reply to an inference: its text, and the tool calls it asked for, in order."""

    text: str = ""
    calls: tuple[Call, ...] = ()


@record
class ToolUse:
    """A tool call the host is about to run: `key` is unique to this call of this run
    (`"<action id>/<n>"`), for an implementation that must never do the same work twice."""

    name: str
    args: dict[str, Any]
    key: str
    stage: str
    permission: str


@record
class ToolResult:
    """What a tool did: its text, and `ok`, `error`, `denied`, `blocked` or `unavailable`;
    `started` names the child runs it spawned (the host reports them to the runner)."""

    text: str = ""
    outcome: str = "ok"
    started: tuple[str, ...] = ()


@record
class Answer:
    """A person's answer at an interaction point: an option's text or index, the text they
    edited, or a confirm-style yes or no (`approved`); all None is no answer."""

    text: str | None = None
    choice: int | None = None
    edited: str | None = None
    approved: bool | None = None


@record
class WorkersDone:
    """The fan-out's end: how many workers completed and failed, and the report for the
    stage's `results_region`."""

    completed: int
    failed: int = 0
    report: str = ""


@runtime_checkable
class ModelClient(Protocol):
    def infer(self, action: "RunInference", context: ContextView) -> ModelReply | Any:
        """One inference of `action.stage` on `action.provider`/`action.model`, with
        `action.spec` (prompt, tools, parameters) and the context as it now is."""

    def route(self, action: "AskRoute", context: ContextView) -> str | Any:
        """The model's raw reply to a routing question (no tools, temperature 0)."""


@runtime_checkable
class Summarizer(Protocol):
    def summarize(self, region: str, entries: Sequence[str]) -> str | Any:
        """One entry that stands for `entries` (a compacting edge led to a new stage)."""


@runtime_checkable
class ToolBox(Protocol):
    def run(self, use: ToolUse) -> ToolResult | Any:
        """Run one tool call the blueprint allows (context tools are the host's own)."""


@runtime_checkable
class Person(Protocol):
    def ask(self, action: "AskInteraction") -> Answer | Any:
        """Show `action.prompt` and `action.body` to a person; their answer."""

    def approve(self, use: ToolUse) -> bool | Any:
        """Whether a person lets a call whose permission is `ask` run."""


@runtime_checkable
class Workers(Protocol):
    def fan_out(self, action: "AwaitWorkers", items: Sequence[Any]) -> WorkersDone | Any:
        """Run the fan-out's workers over `items` and say how they ended."""


@runtime_checkable
class Children(Protocol):
    def wait(self, action: "AwaitChildren") -> Sequence[str] | Any:
        """Wait for some of `action.children` to end; the names of those that did."""
