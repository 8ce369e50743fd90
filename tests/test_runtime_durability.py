"""The durability contract of docs/runner.md: what a host that persists runs may rely on.

Action ids, answers that name their request, withdrawn requests, forced moves made visible,
the pinned blueprint digest, the dispatched mark, host data, and self-contained actions.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import compiler
from compiler.runtime import (
    AskInteraction,
    AskRoute,
    BlueprintMismatch,
    Cancel,
    CancelRequest,
    Complete,
    Dispatched,
    InferenceFinished,
    InteractionAnswered,
    RoutingAnswer,
    RunInference,
    RunnerError,
    RunState,
    StateError,
    TakeEdge,
    Tick,
    ToolCall,
    WorkspaceLost,
    action_to_dict,
    next_actions,
    rebind,
    start,
    step,
)
from compiler.runtime.actions import REQUESTS
from tests.runtime.harness import Driver, blueprint

REVIEW = """
[stages.draft]
available_tools = ["write_file"]
max_revisits = 1
[stages.draft.transitions.review]
[stages.review]
available_tools = ["read_file"]
[stages.review.transitions.draft]
hint = "needs changes"
[stages.review.transitions.publish]
hint = "approved"
[stages.publish]
transitions = {}
"""

STUCK = """
[stages.work]
available_tools = ["edit_file", "read_file"]
[stages.work.transitions.rethink]
condition = "stuck"
stuck_after_minutes = 10
[stages.work.transitions.done]
[stages.rethink]
available_tools = ["read_file"]
[stages.rethink.transitions.done]
[stages.done]
transitions = {}
"""


# --- ids ---------------------------------------------------------------------------------------


def test_every_action_has_an_id_of_its_run_numbered_in_order_and_the_outstanding_one_keeps_it():
    ir = blueprint(REVIEW)
    state, first = start(ir, 0.0, run_id="job-7")
    assert [a.id for a in first] == ["job-7:1"]
    state, actions = step(ir, state, InferenceFinished(text="drafted", request=1, now=1))
    assert [a.id for a in actions] == ["job-7:2", "job-7:3"]
    assert isinstance(actions[0], TakeEdge) and isinstance(actions[1], RunInference)
    # Asked again (after a restart, from JSON), the outstanding request is the same action.
    again = next_actions(ir, RunState.from_json(state.to_json()))
    assert again == (actions[1],) and again[0].id == "job-7:3"


def test_a_run_id_must_be_a_non_empty_string():
    ir = blueprint(REVIEW)
    for bad in ("", None, 7):
        with pytest.raises(TypeError, match="run_id"):
            start(ir, 0.0, run_id=bad)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["text", "tool", "route:draft", "route:publish", "route:nonsense"]), max_size=25))
def test_ids_are_unique_increasing_and_next_actions_repeats_the_latest(moves):
    ir = blueprint(REVIEW)
    state, actions = start(ir, 0.0, run_id="r")
    seen = [a.id for a in actions]
    for move in moves:
        if state.terminal:
            break
        if move.startswith("route:"):
            event = RoutingAnswer(reply=move[6:], request=state.requests)
        elif move == "tool":
            event = InferenceFinished(tool_calls=(ToolCall("read_file"),), request=state.requests)
        else:
            event = InferenceFinished(text="done", request=state.requests)
        state, actions = step(ir, RunState.from_json(state.to_json()), event)
        seen += [a.id for a in actions]
        outstanding = next_actions(ir, state)
        assert all(a.id == f"r:{state.seq}" for a in outstanding)
        if actions and outstanding:
            assert outstanding[-1] == actions[-1]
    numbers = [int(i.split(":")[1]) for i in seen]
    assert numbers == list(range(1, len(numbers) + 1))


# --- answers name their request ------------------------------------------------------------------


def test_an_answer_that_names_no_request_or_another_one_changes_nothing_but_the_clock():
    ir = blueprint(REVIEW)
    state, _ = start(ir, 0.0)
    for event in (InferenceFinished(text="x", now=5), InferenceFinished(text="x", request=2, now=5)):
        after, actions = step(ir, state, event)
        assert actions == () and replace(after, clock=state.clock) == state and after.clock == 5


def test_an_interaction_answer_names_its_request_too():
    d = Driver(
        """
        [stages.plan]
        mode = "interactive_points"
        [[stages.plan.interaction_points]]
        name = "ok"
        prompt = "OK?"
        [stages.plan.transitions.next]
        [stages.next]
        transitions = {}
        """
    )
    d.T("the plan")
    [ask] = d.last
    assert isinstance(ask, AskInteraction)
    assert d.feed(InteractionAnswered(answer="yes"), address=False) == ()
    assert d.feed(InteractionAnswered(answer="yes", request=ask.request - 1)) == ()
    assert isinstance(d.feed(InteractionAnswered(answer="yes", request=ask.request))[0], TakeEdge)


def test_a_late_reply_after_a_stuck_interrupt_is_not_counted_in_the_next_stage():
    ir = blueprint(STUCK)
    state, _ = start(ir, 0.0)
    state, _ = step(ir, state, InferenceFinished(tool_calls=(ToolCall("read_file"),), request=1, now=1))
    asked = next_actions(ir, state)[0]
    state, actions = step(ir, state, Tick(now=11 * 60))
    withdrawn, edge, inference = actions
    assert isinstance(withdrawn, CancelRequest) and withdrawn.reason == "stuck"
    assert withdrawn.request == asked.request and withdrawn.cancels == asked.id
    assert isinstance(edge, TakeEdge) and edge.target == "rethink" and isinstance(inference, RunInference)
    # The abandoned request's reply arrives late: it is dropped, not applied to 'rethink'.
    late = InferenceFinished(tool_calls=(ToolCall("edit_file", "a.py"),), request=asked.request, now=700)
    after, caused = step(ir, state, late)
    assert caused == () and after.visit.tool_calls == 0 and after.visit.edits == {}


def test_cancelling_or_losing_the_workspace_withdraws_what_is_outstanding():
    ir = blueprint(REVIEW)
    state, [asked] = start(ir, 0.0)
    _, actions = step(ir, state, Cancel())
    assert isinstance(actions[0], CancelRequest) and actions[0].cancels == asked.id and actions[0].reason == "cancelled"
    _, actions = step(ir, state, WorkspaceLost())
    assert isinstance(actions[0], CancelRequest) and actions[0].reason == "workspace_lost"


# --- forced moves ----------------------------------------------------------------------------------


def test_a_move_nobody_chose_is_marked_on_the_edge_in_the_flags_and_in_the_timeline():
    d = Driver(REVIEW)
    d.T("v1")  # draft → review
    d.T("needs work")
    d.R("draft")
    d.T("v2")
    d.T("looks the same")  # draft has spent its revisit: the only way on is publish
    [edge] = [a for a in d.last if isinstance(a, TakeEdge)]
    assert edge.target == "publish" and edge.forced == ("revisits_spent",) and edge.condition == "llm_choice"
    d.T("published")
    [done] = d.last
    assert isinstance(done, Complete) and done.flags["revisits_forced"] == 1
    assert done.flags["forced_moves"] == ["revisits_spent"]


def test_a_routing_reply_that_names_nothing_is_a_forced_fallback():
    d = Driver(REVIEW)
    d.T("v1")
    d.T("hmm")
    d.R("I cannot decide")
    [edge] = [a for a in d.last if isinstance(a, TakeEdge)]
    assert edge.target == "draft" and edge.forced == ("routing_fallback",)
    assert d.state.flags.routing_fallbacks == 1


def test_blueprint_run_shows_forced_moves_and_withdrawn_requests(tmp_path):
    from compiler.runtime.timeline import render_json, render_text, replay

    ir = blueprint(REVIEW)
    events = [
        InferenceFinished(text="v1", now=1),
        InferenceFinished(text="hmm", now=2),
        RoutingAnswer(reply="draft", now=3),
        InferenceFinished(text="v2", now=4),
        InferenceFinished(text="same", now=5),
        Cancel(now=6),
    ]
    trace = replay(ir, events)
    text = render_text(ir, trace)
    assert "edge review → publish (llm-choice, forced: revisits spent)" in text
    assert "✗ withdraw request 6 (cancelled)" in text
    assert "forced_moves=[revisits_spent]" in text
    data = json.loads(render_json(ir, trace))
    edges = [a for s in data["steps"] for a in s["actions"] if a["action"] == "take_edge"]
    assert edges[-1]["forced"] == ["revisits_spent"] and data["result"]["flags"]["revisits_forced"] == 1
    # Each stage's spec is written once, and the requests name it.
    inferences = [a for s in data["steps"] for a in s["actions"] if a["action"] == "run_inference"]
    assert {a["spec"] for a in inferences} == set(data["stages"]) == {"draft", "review", "publish"}


# --- the pinned blueprint -------------------------------------------------------------------------


def test_a_state_pins_its_blueprint_and_an_edited_blueprint_is_refused_until_rebound():
    ir = blueprint(REVIEW)
    state, _ = start(ir, 0.0)
    assert state.blueprint == compiler.digest(ir)
    edited = blueprint(REVIEW.replace("max_revisits = 1", "max_revisits = 2"))
    with pytest.raises(BlueprintMismatch, match="changed since the run started"):
        step(edited, state, InferenceFinished(text="x", request=1))
    with pytest.raises(BlueprintMismatch):
        next_actions(edited, state)
    moved = rebind(edited, state)
    assert moved.blueprint == compiler.digest(edited) and moved.visits == state.visits
    _, actions = step(edited, moved, InferenceFinished(text="x", request=1))
    assert isinstance(actions[0], TakeEdge)
    # The same blueprint rebuilt (comments, formatting) has the same digest: no refusal.
    same = blueprint("# a comment\n" + REVIEW)
    step(same, state, InferenceFinished(text="x", request=1))


def test_a_version_2_state_is_pinned_to_the_blueprint_it_is_next_stepped_with():
    ir = blueprint(REVIEW)
    state, _ = start(ir, 0.0)
    old = json.loads(state.to_json())
    old["state_version"] = 2
    for name in ("run_id", "blueprint", "seq", "dispatched", "reply", "host"):
        del old[name]
    legacy = RunState.from_json(json.dumps(old))
    assert legacy.blueprint == "" and legacy.run_id == "run"
    after, _ = step(ir, legacy, InferenceFinished(text="x", request=1))
    assert after.blueprint == compiler.digest(ir)


def test_rebinding_to_a_blueprint_without_a_visited_stage_is_a_runner_error():
    ir = blueprint(REVIEW)
    state, _ = start(ir, 0.0)
    with pytest.raises(RunnerError, match="'draft'"):
        rebind(blueprint("[stages.other]\n"), state)


# --- dispatched and host data ---------------------------------------------------------------------


def test_the_dispatched_mark_survives_a_restart_and_a_new_request_starts_without_it():
    ir = blueprint(REVIEW)
    state, [asked] = start(ir, 0.0)
    assert asked.dispatched is False
    assert step(ir, state, Dispatched(request=2))[0].dispatched is False  # another request: ignored
    state, actions = step(ir, state, Dispatched(request=asked.request))
    assert actions == () and state.dispatched
    [again] = next_actions(ir, RunState.from_json(state.to_json()))
    assert again.dispatched and again.id == asked.id
    state, actions = step(ir, state, InferenceFinished(text="x", request=asked.request))
    assert not state.dispatched and not actions[-1].dispatched


def test_host_data_is_carried_through_steps_and_json_and_never_read():
    ir = blueprint(REVIEW)
    state, _ = start(ir, 0.0)
    data = {"regions": {"conversation": ["hello"]}, "attempt": 2, "ratio": 0.5, "ok": True, "none": None}
    state = state.with_host(data)
    data["attempt"] = 99  # a copy was taken
    state, _ = step(ir, state, InferenceFinished(text="x", request=1))
    back = RunState.from_json(state.to_json())
    assert back.host == {**data, "attempt": 2} and back == state
    for bad, error in ((object(), TypeError), ({1: "x"}, TypeError), (math.nan, ValueError), ([[]] * 1, None)):
        if error is None:
            state.with_host(bad)
            continue
        with pytest.raises(error):
            state.with_host(bad)
    deep: list = []
    for _ in range(100):
        deep = [deep]
    with pytest.raises(ValueError, match="levels deep"):
        state.with_host(deep)
    broken = json.loads(state.to_json())
    broken["host"] = {"x": float("nan")}
    with pytest.raises(StateError, match="host"):
        RunState.from_json(json.dumps(broken))


# --- self-contained actions -------------------------------------------------------------------------


def test_an_inference_request_carries_what_performing_it_needs():
    ir = blueprint(
        """
        [tool_permissions]
        web_fetch = "allow"
        shell = "allow"
        [context.regions]
        conversation = { kind = "sliding_window", max_items = 50, max_tokens = 20000 }
        notes = { kind = "pinned", max_tokens = 1000 }
        tool_results = { kind = "temporary", max_tokens = 4000 }
        [stages.work]
        system_prompt = "Fix the bug."
        available_tools = ["read_file", "bash", "web_fetch", "write_file"]
        required_tools = ["write_file"]
        model = { models = [{ provider = "anthropic", model = "m1" }, { provider = "openai", model = "m2" }], temperature = 0.3 }
        [stages.work.tool_permissions]
        write_file = "deny"
        [stages.work.tool_routing]
        max_result_tokens = 500
        overrides = { read_file = { region = "notes", max_result_tokens = 100 } }
        """
    )
    _, [request] = start(ir, 0.0)
    spec = request.spec
    assert request.tools == ("read_file", "shell", "web_fetch", "write_file")  # as the model is offered them
    assert spec.instructions == "Fix the bug." and spec.instructions_region == "notes"
    assert [r.name for r in spec.regions] == ["conversation", "notes", "tool_results"]
    tools = {t.name: t for t in spec.tools}
    assert tools["read_file"].permission == "allow" and tools["read_file"].results_region == "notes"
    assert tools["read_file"].max_result_tokens == 100
    assert tools["shell"].permission == "ask"  # a blueprint cannot loosen shell on its own
    assert tools["web_fetch"].permission == "allow"  # but may pre-approve web_fetch
    assert tools["write_file"].permission == "deny" and tools["write_file"].required
    assert tools["shell"].results_region == "tool_results" and tools["shell"].max_result_tokens == 500
    assert [(m.provider, m.model) for m in spec.models] == [("anthropic", "m1"), ("openai", "m2")]
    assert request.provider == "anthropic" and request.model == "m1"
    plain = action_to_dict(request)
    assert plain["spec"]["tools"][0]["name"] == "read_file" and json.dumps(plain)


def test_a_routing_request_names_the_model_it_is_asked_of():
    d = Driver(REVIEW)
    d.T("v1")
    d.T("hmm")
    [route] = d.last
    assert isinstance(route, AskRoute) and (route.provider, route.model) == ("anthropic", "claude-sonnet-4-6")


def test_a_call_to_an_alias_of_an_offered_tool_is_the_offered_tool():
    d = Driver(
        '[stages.a]\navailable_tools = ["bash"]\n[stages.a.transitions.b]\ngate = { require_modifications = true, tools = ["bash"] }\n[stages.b]\ntransitions = {}\n'
    )
    d.feed(InferenceFinished(tool_calls=(ToolCall("shell", "x.sh"),)))
    assert d.state.visit.modifications == 1


def test_every_request_kind_has_a_dispatched_mark_and_an_id():
    for cls in REQUESTS:
        names = [f for f in cls.__dataclass_fields__]
        assert "dispatched" in names and names[-1] == "id"


def test_an_inference_under_a_stuck_clock_says_when_it_trips():
    ir = blueprint(STUCK)
    state, [first] = start(ir, 100.0)
    assert first.deadline == 100.0 + 10 * 60
    state, actions = step(ir, state, InferenceFinished(tool_calls=(ToolCall("read_file"),), request=1, now=130))
    assert actions[-1].deadline == 700.0  # the clock started when the visit was first looked at
    state, actions = step(ir, state, Tick(now=actions[-1].deadline))
    assert isinstance(actions[0], CancelRequest) and actions[-1].stage == "rethink" and actions[-1].deadline is None
    _, [plain] = start(blueprint(REVIEW), 0.0)
    assert plain.deadline is None
