"""Drive the stage-runner from a TOML snippet with short event helpers (runner.md §8 notation).

`Driver` starts a run and feeds events; after every step it also replays the same event on
the state read back from JSON and checks both give the same state and actions, so every
scenario doubles as a persistence test.
"""

from __future__ import annotations

import textwrap
import tomllib
from typing import Any

from compiler.ir.build import build_blueprint
from compiler.ir.model import Blueprint
from compiler.runtime import (
    AskInteraction,
    AskRoute,
    Complete,
    Fail,
    InferenceFailed,
    InferenceFinished,
    RegionChanged,
    RoutingAnswer,
    RunInference,
    RunState,
    TakeEdge,
    ToolCall,
    answering,
    next_actions,
    start,
    step,
)

CONVERSATION = '[context.regions]\nconversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }\n'


def blueprint(snippet: str, *, nudge: bool = False) -> Blueprint:
    """The scenario conventions: an [agent] table, nudges off unless asked, a conversation region."""
    text = textwrap.dedent(snippet).strip() + "\n"
    head = "" if text.startswith("[agent]\n") else '[agent]\nname = "t"\n'
    if not nudge and "[agent.nudge]" not in text:
        head += "[agent.nudge]\nenabled = false\n"
    tail = CONVERSATION if "[context.regions]" not in text else ""
    return build_blueprint(tomllib.loads(head + text + tail))


def C(name: str, path: str | None = None, outcome: str = "ok", result: str | None = None) -> ToolCall:
    return ToolCall(name=name, path=path, outcome=outcome, result=result)


class Driver:
    def __init__(self, ir: Blueprint | str, *, now: float = 0.0, **options: Any) -> None:
        self.ir = blueprint(ir) if isinstance(ir, str) else ir
        self.now = now
        self.state, actions = start(self.ir, now, **options)
        self.log: list[Any] = list(actions)
        self.last: tuple[Any, ...] = actions

    # --- feeding ------------------------------------------------------------------------------

    def feed(self, event: Any, *, address: bool = True) -> tuple[Any, ...]:
        """Step with `event`, addressed to the outstanding request as a host does (unless it
        names one, or `address` is False), checking the resumed run agrees."""
        if address:
            event = answering(self.state, event)
        restored = RunState.from_json(self.state.to_json())
        assert restored == self.state
        state, actions = step(self.ir, self.state, event)
        again, actions_again = step(self.ir, restored, event)
        assert again == state and actions_again == actions, "a resumed run diverged"
        assert RunState.from_json(state.to_json()).to_json() == state.to_json()
        waiting = next_actions(self.ir, state)
        assert next_actions(self.ir, state) == waiting  # pure
        self.state, self.last = state, actions
        self.log.extend(actions)
        return actions

    def tick(self, seconds: float = 1.0) -> float:
        self.now += seconds
        return self.now

    def T(self, text: str = "done", *, at: float | None = None) -> tuple[Any, ...]:
        return self.feed(InferenceFinished(text=text, now=at if at is not None else self.tick()))

    def C(self, *calls: ToolCall | str, at: float | None = None) -> tuple[Any, ...]:
        parsed = tuple(C(c) if isinstance(c, str) else c for c in calls)
        return self.feed(InferenceFinished(tool_calls=parsed, now=at if at is not None else self.tick()))

    def R(self, reply: str) -> tuple[Any, ...]:
        return self.feed(RoutingAnswer(reply=reply, now=self.tick()))

    def E(self, message: str, kind: str = "error") -> tuple[Any, ...]:
        return self.feed(InferenceFailed(message=message, kind=kind, now=self.tick()))

    def region(self, name: str, entries: int = 1, hash: str | None = None, open_items=()) -> tuple[Any, ...]:
        digest = hash if hash is not None else f"{name}-{entries}"
        return self.feed(RegionChanged(region=name, hash=digest, entries=entries, open_items=tuple(open_items)))

    # --- reading ------------------------------------------------------------------------------

    @property
    def stage(self) -> str:
        return self.state.stage

    @property
    def status(self) -> str:
        return self.state.status

    @property
    def flags(self):
        return self.state.flags

    @property
    def visit(self):
        return self.state.visit

    def of(self, kind: type, actions=None) -> list[Any]:
        return [a for a in (self.log if actions is None else actions) if isinstance(a, kind)]

    @property
    def inference(self) -> RunInference:
        """The outstanding inference request (fails when the run waits on something else)."""
        (action,) = next_actions(self.ir, self.state)
        assert isinstance(action, RunInference), action
        return action

    def injected(self, actions=None) -> list[str]:
        """Text of every injection/note carried by the given (default: last) actions."""
        out = []
        for action in self.last if actions is None else actions:
            for item in getattr(action, "inject", ()) + getattr(action, "notes", ()):
                out.append(item.text)
        return out

    def edges(self) -> list[tuple[str, str, str]]:
        return [(a.source, a.target, a.condition) for a in self.of(TakeEdge)]

    def stages_run(self) -> list[str]:
        return list(dict.fromkeys(a.stage for a in self.of(RunInference)))

    @property
    def ended(self) -> Complete | Fail:
        (action,) = next_actions(self.ir, self.state)
        assert isinstance(action, (Complete, Fail)), action
        return action


__all__ = ["AskInteraction", "AskRoute", "C", "Complete", "Driver", "Fail", "RunInference", "TakeEdge", "blueprint"]
