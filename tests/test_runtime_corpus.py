"""The runner on real blueprints, and on the IR read back from JSON (what runtimes consume).

Every corpus blueprint is driven by a simple scripted model (a tool call, then text, routing
answers cycling through the offered stages) for a bounded number of steps: nothing raises,
and the run read back from the IR JSON behaves exactly like the one built from TOML.
"""

from __future__ import annotations

import pytest

from compiler import load
from compiler.ir.serialize import dumps, load_ir, to_ir
from compiler.runtime import (
    AskInteraction,
    AskRoute,
    AwaitChildren,
    AwaitWorkers,
    ChildFinished,
    InferenceFinished,
    InteractionAnswered,
    RunInference,
    RunState,
    ToolCall,
    WorkersFinished,
    next_actions,
    start,
    step,
)
from tests.helpers import CORPUS, requires_shared

BLUEPRINTS = sorted(CORPUS.glob("*/agent.leviath")) if CORPUS.is_dir() else []


def drive(ir, steps: int = 200) -> list[tuple]:
    """A scripted model: alternate a tool call and a text reply; route to each option in turn."""
    state, actions = start(ir, 0)
    trail = [tuple(actions)]
    for n in range(steps):
        if state.terminal:
            break
        (waiting,) = next_actions(ir, state)
        if isinstance(waiting, RunInference):
            tool = waiting.tools[n % len(waiting.tools)] if waiting.tools and n % 3 else None
            calls = (ToolCall(tool, "f.py"),) if tool else ()
            event = InferenceFinished(text="ok", tool_calls=calls, now=n)
        elif isinstance(waiting, AskRoute):
            event = InferenceFinished(text=waiting.options[n % len(waiting.options)].target, now=n)
        elif isinstance(waiting, AskInteraction):
            event = InteractionAnswered(answer=waiting.options[0] if waiting.options else "ok", now=n)
        elif isinstance(waiting, AwaitChildren):
            event = ChildFinished(waiting.children[0], now=n)
        else:
            assert isinstance(waiting, AwaitWorkers)
            event = WorkersFinished(completed=2, now=n)
        restored = RunState.from_json(state.to_json())
        state, actions = step(ir, state, event)
        assert step(ir, restored, event) == (state, actions)
        trail.append(actions)
    return trail


@requires_shared
@pytest.mark.parametrize("path", BLUEPRINTS, ids=lambda p: p.parent.name)
def test_real_blueprints_run_and_the_ir_json_runs_the_same(path):
    ir = load(path)
    from_json = load_ir(dumps(to_ir(ir, path=str(path), sha256="0" * 64)))
    trail = drive(ir)
    assert len(trail) > 5
    assert drive(from_json) == trail
