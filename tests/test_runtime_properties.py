"""Property-based checks of the runner: random blueprints × random event sequences.

At every step: persisting the state to JSON and stepping the restored copy gives the same
state and actions as never stopping; `next_actions` is pure; and no budget is ever exceeded
(revisits, gate blocks, nudges, iteration caps, the re-run budgets).
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.ir.model import Blueprint, Edge, Gate, ModelConfig, ModelEntry, ResolvedNudge, Stage
from compiler.runtime import (
    Cancel,
    ChildFinished,
    ChildStarted,
    InferenceFailed,
    InferenceFinished,
    InteractionAnswered,
    Paused,
    RegionChanged,
    Resumed,
    RoutingAnswer,
    RunState,
    TakeEdge,
    Tick,
    ToolCall,
    WorkersFinished,
    WorkspaceLost,
    next_actions,
    start,
    step,
)
from compiler.runtime.ndjson import read_events
from compiler.runtime.policy import MAX_REVISION_ROUNDS, OUTPUT_REENTRY_CAP, resolved_nudge
from tests import ir_strategies
from tests.ir_strategies import LAYOUT, NAMES, review_point

TOOLS = ["read_file", "write_file", "edit_file", "context_write", "submit_output", "shell", "fan_out"]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def gates():
    simple = st.builds(Gate, require_modifications=st.just(True), max_attempts=st.integers(0, 3))
    return st.one_of(
        st.none(),
        simple,
        simple,
        st.builds(
            Gate,
            require_modifications=st.booleans(),
            max_attempts=st.integers(0, 3),
            region=st.sampled_from([None, "notes"]),
            tools=st.sampled_from([(), ("shell",), ("bash",)]),
            require_region_updated=st.sampled_from([None, "plan"]),
            require_regions=st.sampled_from([(), ("plan",), ("ghost", "notes")]),
            require_no_open_items=st.sampled_from([None, "todos"]),
        ),
    )


def edges(names: list[str]):
    return ir_strategies.edges(
        names,
        gates=gates(),
        spread=3,
        conditions=["always", "llm_choice", "llm_choice", "llm_choice", "error", "max_iterations", "stuck", "dead_end"],
        stuck_iterations=[None, 2, 4],
        stuck_fallback=3,
        transforms=["direct", "clear", "compact"],
        hints=True,
    )


@st.composite
def blueprints(draw) -> Blueprint:
    names = NAMES[: draw(st.integers(1, len(NAMES)))]
    stages = []
    for name in names:
        mode = draw(
            st.sampled_from(["autonomous", "autonomous", "autonomous", "output", "interactive_points", "fan_out"])
        )
        tools = tuple(draw(st.lists(st.sampled_from(TOOLS), unique=True, max_size=4)))
        if draw(st.booleans()) and "write_file" not in tools:
            tools += ("write_file",)
        points = ()
        if mode == "interactive_points":
            points = (review_point(draw(st.sampled_from(["auto_approve", "ask"]))),)
        transitions = draw(st.one_of(st.none(), st.just(()), edges(names), edges(names)))
        stages.append(
            Stage(
                name=name,
                mode=mode,
                model=ModelConfig(entries=(ModelEntry("p1", "m1"), ModelEntry("p2", "m2"))[: draw(st.integers(1, 2))]),
                available_tools=tools
                + (("submit_output",) if mode == "output" and "submit_output" not in tools else ()),
                max_iterations=draw(st.sampled_from([None, 0, 1, 2, 4])),
                max_revisits=draw(st.sampled_from([None, 0, 1, 2])),
                allow_complete=draw(st.booleans()) or mode == "output",
                requires_children=draw(st.booleans()),
                require_output=mode == "output",
                effective_nudge=ResolvedNudge(enabled=draw(st.booleans()), max=draw(st.integers(0, 3))),
                transitions=transitions,
                interaction_points=points,
            )
        )
    entry = draw(st.sampled_from([None, *names]))
    return Blueprint(name="random", entry_stage=entry, stages=tuple(stages), layout=LAYOUT)


@st.composite
def gated_blueprints(draw) -> Blueprint:
    """A stage whose one or two exits are gated: the family that stresses the block budget."""
    full_gate = st.builds(
        Gate,
        require_modifications=st.booleans(),
        max_attempts=st.integers(0, 3),
        region=st.sampled_from([None, "notes"]),
        require_region_updated=st.sampled_from([None, "plan"]),
        require_regions=st.sampled_from([(), ("plan",)]),
        require_no_open_items=st.sampled_from([None, "todos"]),
    )
    exits = [Edge(target="next", gate=draw(full_gate))]
    if draw(st.booleans()):
        exits.append(Edge(target="other", gate=draw(st.one_of(st.none(), full_gate))))
    work = Stage(
        name="work",
        available_tools=("write_file", "context_write", "shell"),
        max_iterations=draw(st.sampled_from([None, 3, 8])),
        max_revisits=draw(st.sampled_from([None, 1])),
        allow_complete=draw(st.booleans()),
        effective_nudge=ResolvedNudge(enabled=draw(st.booleans()), max=draw(st.integers(0, 2))),
        transitions=tuple(exits),
    )
    quiet = ResolvedNudge(enabled=False)
    back = Stage(name="next", effective_nudge=quiet, transitions=(Edge(target="work"),))
    stages = (work, back, Stage(name="other", effective_nudge=quiet, transitions=()))
    return Blueprint(name="gated", stages=stages, layout=LAYOUT)


def calls():
    return st.builds(
        ToolCall,
        name=st.sampled_from(TOOLS + ["bash", "web_search"]),
        path=st.sampled_from([None, "a.py", "b.py"]),
        outcome=st.sampled_from(["ok", "ok", "denied", "error", "unavailable", "blocked"]),
        result=st.sampled_from([None, "done", "[denied] no", ""]),
    )


def any_event():
    replies = st.sampled_from(NAMES + ["DONE", "done\nnot really", "nonsense", "go to s1 please", ""])
    return st.one_of(
        st.builds(
            InferenceFinished,
            text=st.sampled_from(["", "ok", "s2"]),
            tool_calls=st.lists(calls(), max_size=3).map(tuple),
        ),
        st.builds(
            InferenceFailed, message=st.just("boom"), kind=st.sampled_from(["error", "credits", "auth", "unreachable"])
        ),
        st.builds(RoutingAnswer, reply=replies),
        st.builds(
            RegionChanged,
            region=st.sampled_from(["plan", "todos", "notes", "conversation"]),
            hash=st.sampled_from(["h1", "h2"]),
            entries=st.integers(0, 3),
            open_items=st.sampled_from([(), (("1", "x"),)]),
        ),
        st.builds(Tick),
        st.builds(ChildStarted, child=st.sampled_from(["c1", "c2"])),
        st.builds(ChildFinished, child=st.sampled_from(["c1", "c2"])),
        st.builds(WorkersFinished, completed=st.integers(0, 2), failed=st.integers(0, 1)),
        st.builds(
            InteractionAnswered,
            answer=st.sampled_from([None, "", "Approve", "Revise", "Edit", "Abort"]),
            edited=st.sampled_from([None, "new"]),
        ),
        st.builds(Paused),
        st.builds(Resumed),
        st.builds(WorkspaceLost),
        st.builds(Cancel),
    )


def fitting_event(state: RunState):
    """An event the run is waiting for (so runs go deep), with some region reports mixed in."""
    if state.status == "paused":
        return st.builds(Resumed)
    replies = st.sampled_from(NAMES + ["next", "other", "DONE", "nonsense", "go to s1 please"])
    region = st.builds(
        RegionChanged,
        region=st.sampled_from(["plan", "todos", "notes"]),
        hash=st.sampled_from(["h1", "h2"]),
        entries=st.integers(0, 3),
        open_items=st.sampled_from([(), (("1", "x"),)]),
    )
    by_phase = {
        "infer": st.one_of(
            st.builds(InferenceFinished, text=st.just("done")),
            st.builds(InferenceFinished, text=st.just("done")),
            st.builds(InferenceFinished, tool_calls=st.lists(calls(), min_size=1, max_size=3).map(tuple)),
            st.builds(InferenceFinished, tool_calls=st.lists(calls(), min_size=1, max_size=3).map(tuple)),
            region,
        ),
        "route": st.builds(RoutingAnswer, reply=replies),
        "interact": st.builds(
            InteractionAnswered,
            answer=st.sampled_from(["Approve", "Approve", "Revise", "Edit", "", None]),
            edited=st.sampled_from([None, "new"]),
        ),
        "children": st.builds(ChildFinished, child=st.sampled_from(["c1", "c2"])),
        "workers": st.builds(WorkersFinished, completed=st.integers(0, 2), failed=st.integers(0, 1)),
    }
    return by_phase.get(state.phase, any_event())


def check_budgets(ir: Blueprint, state: RunState, actions) -> None:
    for action in actions:
        if isinstance(action, TakeEdge) and action.condition not in ("fall_through", "merge"):
            target = ir.stage(action.target)
            if target.max_revisits is not None:
                assert action.visit <= target.max_revisits + 1, action
    if state.terminal:
        return
    stage = ir.stage(state.stage)
    visit = state.visit
    caps = [e.gate.max_attempts for e in stage.edges() if e.gate is not None]
    assert visit.gate_reentries <= max(caps, default=0)
    nudge = resolved_nudge(ir, stage, state.global_nudge)
    assert visit.nudges <= (nudge.max if nudge.enabled else 0)
    if stage.mode != "fan_out" and (stage.max_iterations or 0) > 0:
        assert visit.iterations <= stage.max_iterations
    required_cap = 3 if stage.max_revisits is None else stage.max_revisits
    assert visit.required_rounds <= required_cap
    assert visit.output_rounds <= OUTPUT_REENTRY_CAP
    assert visit.point_rounds < MAX_REVISION_ROUNDS
    assert state.status in ("active", "waiting", "paused")


@SETTINGS
@given(ir=st.one_of(blueprints(), gated_blueprints()), data=st.data())
def test_resuming_from_json_at_any_step_changes_nothing_and_budgets_hold(ir, data):
    now = 0
    state, actions = start(ir, now)
    check_budgets(ir, state, actions)
    for _ in range(data.draw(st.integers(0, 60), label="steps")):
        if state.terminal:
            break
        odd = data.draw(st.integers(0, 9), label="odd") == 0
        event = data.draw(any_event() if odd else fitting_event(state), label="event")
        now += data.draw(st.integers(0, 90), label="elapsed")
        event = type(event)(**{**event.__dict__, "now": now})
        restored = RunState.from_json(state.to_json())
        assert restored == state
        assert next_actions(ir, restored) == next_actions(ir, state)
        new_state, actions = step(ir, state, event)
        assert step(ir, restored, event) == (new_state, actions)
        assert new_state.to_json() == RunState.from_json(new_state.to_json()).to_json()
        # the encoder's shortcut (records' own `__dict__`) writes what the field-by-field form does
        assert new_state.to_json() == json.dumps(new_state.to_dict(), ensure_ascii=False, separators=(",", ":"))
        check_budgets(ir, new_state, actions)
        if not new_state.terminal and new_state.status != "paused":
            assert len(next_actions(ir, new_state)) == 1  # exactly one thing is awaited
        state = new_state


@SETTINGS
@given(
    st.lists(
        st.one_of(st.text(max_size=40), st.builds(str, st.dictionaries(st.text(max_size=8), st.integers()))),
        max_size=20,
    )
)
def test_the_stream_reader_never_fails(lines):
    _, skipped = read_events(lines)
    assert skipped <= len(lines)


@SETTINGS
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(
                    [
                        "assistant",
                        "user",
                        "tool_use",
                        "tool_result",
                        "message_start",
                        "content_block_start",
                        "content_block_delta",
                        "content_block_stop",
                        "message_stop",
                        "error",
                        "result",
                        "stream_event",
                    ]
                )
            },
            optional={
                "message": st.one_of(
                    st.none(),
                    st.integers(),
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "id": st.sampled_from(["m1", "m2", 3]),
                            "content": st.one_of(
                                st.text(max_size=5),
                                st.lists(
                                    st.dictionaries(
                                        st.sampled_from(
                                            ["type", "text", "name", "id", "input", "tool_use_id", "content"]
                                        ),
                                        st.one_of(
                                            st.sampled_from(["text", "tool_use", "tool_result", "t1", "Write"]),
                                            st.integers(),
                                            st.none(),
                                        ),
                                        max_size=4,
                                    ),
                                    max_size=3,
                                ),
                            ),
                        },
                    ),
                ),
                "index": st.one_of(st.integers(0, 2), st.text(max_size=2)),
                "content_block": st.one_of(
                    st.none(),
                    st.dictionaries(
                        st.sampled_from(["type", "name", "id", "text"]),
                        st.sampled_from(["text", "tool_use", "Edit", "t1"]),
                    ),
                ),
                "delta": st.one_of(
                    st.none(),
                    st.dictionaries(
                        st.sampled_from(["type", "text", "partial_json"]),
                        st.sampled_from(["text_delta", "input_json_delta", '{"pa', 'th": 1}']),
                    ),
                ),
                "name": st.one_of(st.sampled_from(["Write", "edit_file"]), st.integers()),
                "id": st.sampled_from(["t1", "t2"]),
                "tool_use_id": st.sampled_from(["t1", "t2"]),
                "is_error": st.booleans(),
                "event": st.one_of(
                    st.none(), st.dictionaries(st.just("type"), st.sampled_from(["message_stop", "error"]))
                ),
            },
        ),
        max_size=25,
    )
)
def test_the_stream_reader_survives_odd_stream_shapes(objects):
    import json

    events, _ = read_events([json.dumps(o) for o in objects])
    for event in events:
        assert isinstance(event, (InferenceFinished, InferenceFailed))
