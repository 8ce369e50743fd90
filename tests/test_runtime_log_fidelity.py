"""The log check agrees with the stage-runner: a run the runner itself makes never departs.

Random blueprints × random fitting events are driven through `step`; what the run did is
then written as the world events Leviath's host would broadcast for it (a batch of
`tool_call_started` per reply with lane calls, a `status` per pass, a `stage_transition` per
edge except the fan-out hand-off, `completed` at the end), and `check_log` must find no
departure and count the same visits.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.ir.model import FAN_OUT_TOOL, SUBMIT_OUTPUT_TOOL
from compiler.runtime import Complete, Fail, InferenceFailed, InferenceFinished, TakeEdge, start, step
from compiler.runtime.log_check import check_log, render_text
from compiler.runtime.tables import tables
from tests.test_runtime_properties import any_event, blueprints, fitting_event, gated_blueprints

#: Tools Leviath runs inline: they are never announced on the world-event stream.
INLINE = frozenset({"context_write", "context_append", "context_read", SUBMIT_OUTPUT_TOOL, FAN_OUT_TOOL})


class Host:
    """Writes the world events of one run, pass by pass."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.calls = 0

    def event(self, kind: str, **fields) -> None:
        self.lines.append(json.dumps({"event": kind, "run_id": "r", "agent_id": "a", **fields}))

    def status(self, stage: str, iteration: int) -> None:
        """A status frame, sent only when something it shows changed (as Leviath's host does)."""
        shown = (stage, iteration, self.calls)
        if shown != getattr(self, "shown", None):
            self.shown = shown
            self.event("status", status="active", stage=stage, iteration=iteration, tool_calls=self.calls)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ir=st.one_of(blueprints(), gated_blueprints()), data=st.data())
def test_every_run_of_the_runner_is_within_the_blueprint_by_the_log_check(ir, data):
    host = Host()
    moves: list[tuple[str, str, str]] = []
    state, _ = start(ir, 0)
    host.event("spawned", blueprint=ir.name)
    host.status(state.stage, state.iteration)
    for _ in range(data.draw(st.integers(0, 60), label="steps")):
        if state.terminal:
            break
        odd = data.draw(st.integers(0, 5), label="odd")  # now and then a failure, a cancel, a tick …
        failed = InferenceFailed(message="boom") if state.phase == "infer" else None
        event = data.draw(any_event() if odd == 0 else st.just(failed) if odd == 1 and failed else fitting_event(state))
        before = state
        state, actions = step(ir, state, event)
        if state.iteration > before.iteration and isinstance(event, InferenceFinished):
            offered = tables(ir).stages[before.stage].offered
            lane = [c for c in event.tool_calls if c.name in offered and c.name not in INLINE]
            host.calls += sum(c.count for c in event.tool_calls)
            ids = [f"c{len(host.lines)}-{number}" for number in range(len(lane))]
            for call_id, call in zip(ids, lane, strict=True):
                host.event("tool_call_started", call_id=call_id, tool=call.name)
            if event.tool_calls:  # the calls are dispatched in the pass that read the reply
                host.status(before.stage, state.iteration)
            for call_id, call in zip(ids, lane, strict=True):
                host.event("tool_call_finished", call_id=call_id, tool=call.name, ok=call.outcome == "ok", summary="")
        for action in actions:  # moves are pushed as they happen; the pass's status comes after them
            if isinstance(action, TakeEdge):
                moves.append((action.source, action.target, action.condition))
            if isinstance(action, TakeEdge) and action.condition != "merge":
                host.event(
                    "stage_transition", **{"from": action.source, "to": action.target, "iteration": action.visit}
                )
        host.status(state.stage, state.iteration)
        for action in actions:  # and the end after the status
            if isinstance(action, Complete):
                output = {"final_output": {"content": "x"}} if state.final_output is not None else {}
                host.event("completed", status="complete", **output)
            elif isinstance(action, Fail):
                host.event("completed", status=action.status)
    check = check_log(ir, host.lines)
    assert check.ok, render_text(check) + "\n".join(host.lines)
    assert check.visits == dict(state.visits)
    assert check.inferences == state.iteration
    # Each move the runner made is allowed by the condition it was made by.
    checked = [(s.stage, s.fields["target"], s.fields["allowed_by"]) for s in check.steps if s.kind == "move"]
    assert len(checked) == len(moves)
    for (source, target, condition), (stage, allowed_target, allowed_by) in zip(moves, checked, strict=True):
        assert (source, target) == (stage, allowed_target) and condition in allowed_by, (condition, allowed_by)
