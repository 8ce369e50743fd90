"""The runner against Leviath's own source: the places an audit found them apart.

Each test pins one behaviour, matched to Leviath or kept as a documented difference
(docs/leviath-mapping.md, "Run-time behaviour").
"""

from __future__ import annotations

import json

import pytest

from compiler.runtime import AskInteraction, InteractionAnswered, WorkersFinished
from tests.runtime.harness import Driver, Fail, TakeEdge

# --- the fan-out hand-off into the merge stage ---------------------------------------------

CHAINED_FAN_OUTS = """
[stages.split]
mode = "fan_out"
worker_agent = "helper"
merge_stage = "combine"
[stages.split.transitions]
[stages.combine]
mode = "fan_out"
worker_agent = "helper"
[stages.combine.transitions.report]
[stages.report]
transitions = {}
"""


def test_a_merge_stage_that_is_a_fan_out_stage_is_never_asked_to_fan_out():
    """Leviath's forced move into the merge stage keeps the fanned-out mark."""
    d = Driver(CHAINED_FAN_OUTS)
    d.C("fan_out")
    d.feed(WorkersFinished(completed=2, now=d.tick()))
    assert d.edges() == [("split", "combine", "merge")]
    assert d.visit.fanned_out and d.visit.iterations == 0
    d.T()
    assert d.stage == "report" and d.flags.splits_degraded == 0
    assert not [i for a in d.log for i in getattr(a, "inject", ()) if i.kind == "fan_out"]


def test_the_merge_stage_keeps_the_re_run_counters_and_starts_its_own_progress():
    d = Driver(
        CHAINED_FAN_OUTS.replace(
            'worker_agent = "helper"\nmerge_stage', 'worker_agent = "helper"\nmax_attempts = 5\nmerge_stage'
        )
    )
    d.T()
    d.T()
    assert d.stage == "split" and d.visit.fan_out_rounds == 2 and d.visit.iterations == 2
    d.C("fan_out")
    d.feed(WorkersFinished(completed=1, now=d.tick()))
    assert d.stage == "combine"
    assert (d.visit.fan_out_rounds, d.visit.fanned_out, d.visit.iterations, d.visit.tool_calls) == (2, True, 0, 0)


def test_an_ordinary_edge_still_starts_a_fresh_visit():
    d = Driver(CHAINED_FAN_OUTS)
    d.C("fan_out")
    d.feed(WorkersFinished(completed=1, now=d.tick()))
    d.T()
    assert d.stage == "report" and not d.visit.fanned_out and d.visit.fan_out_rounds == 0


# --- interaction points: the holds run again, and an error ends the run ---------------------

REVIEWED = """
[context.regions]
conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
plan = { kind = "pinned", max_tokens = 2000, required = true }
[stages.plan]
mode = "interactive_points"
available_tools = ["context_write"]
interaction_points = [{ name = "ok", prompt = "Approve?", style = "multiple_choice", options = ["Approve", "Revise"], directives = { Revise = "again" } }]
[stages.plan.transitions.build]
[stages.plan.transitions.rescue]
condition = "error"
[stages.build]
transitions = {}
[stages.rescue]
transitions = {}
"""


def test_after_an_approval_the_holds_run_again():
    """Leviath sends an approved stage back through its end-of-stage holds before it resolves."""
    d = Driver(REVIEWED)
    d.region("plan", 1)
    d.T()
    assert isinstance(d.last[0], AskInteraction)
    d.region("plan", 0)  # emptied while the person was reading
    d.feed(InteractionAnswered(answer="Approve", now=d.tick()))
    assert d.stage == "plan" and d.state.phase == "infer" and d.visit.required_rounds == 1
    assert any("'plan' is required" in text for text in d.injected())
    d.region("plan", 1)
    d.T()  # the point was answered for this visit: not asked again
    assert d.stage == "build"


def test_an_owed_output_is_counted_at_each_pass_through_the_holds():
    snippet = """
    [stages.answer]
    mode = "interactive_points"
    require_output = true
    available_tools = ["submit_output"]
    interaction_points = [{ name = "ok", prompt = "Send it?", style = "multiple_choice", options = ["Yes"] }]
    [stages.answer.transitions]
    """
    d = Driver(snippet)
    for _ in range(4):
        d.T()
    assert d.flags.output_forced == 1 and isinstance(d.last[0], AskInteraction)
    d.feed(InteractionAnswered(answer="Yes", now=d.tick()))
    assert d.flags.output_forced == 2 and d.status == "error"


def test_an_error_before_the_points_are_answered_ends_the_run():
    """Leviath routes the errored stage to its interaction point, never opens it for a run that
    is no longer active, and never consults the error edge: the run ends in error."""
    d = Driver(REVIEWED)
    d.E("boom")
    assert d.status == "error" and d.state.reason == "boom"
    assert isinstance(d.last[-1], Fail) and not d.of(TakeEdge) and not d.of(AskInteraction)


def test_an_error_after_the_points_are_answered_takes_the_error_edge():
    d = Driver(REVIEWED)
    d.region("plan", 1)
    d.T()
    d.feed(InteractionAnswered(answer="Revise", now=d.tick()))  # a directive: the stage runs again
    d.T()
    d.feed(InteractionAnswered(answer="Approve", now=d.tick()))
    assert d.stage == "build"
    d = Driver(
        REVIEWED.replace(
            "[stages.plan.transitions.build]", "[stages.plan.transitions.build]\n[stages.plan.transitions.other]"
        )
        + "[stages.other]\ntransitions = {}\n"
    )
    d.region("plan", 1)
    d.T()
    d.feed(InteractionAnswered(answer="Approve", now=d.tick()))
    assert d.state.phase == "route"
    d.E("the routing call failed")
    assert d.edges() == [("plan", "rescue", "error")]


# --- the default iteration cap ----------------------------------------------------------------


def test_the_default_cap_is_part_of_the_state_and_a_resumed_run_keeps_it():
    import json

    import pytest

    from compiler.runtime import STATE_VERSION, InferenceFinished, RunState, ToolCall, replay_step, start
    from tests.runtime.harness import blueprint

    ir = blueprint('[stages.a]\navailable_tools = ["read_file"]\n[stages.b]\n')
    state, _ = start(ir, 0.0, default_max_iterations=3)
    call = InferenceFinished(tool_calls=(ToolCall("read_file"),), now=1.0)
    state, _ = replay_step(ir, state, call)
    text = state.to_json()
    assert json.loads(text)["state_version"] == STATE_VERSION == 3
    resumed = RunState.from_json(text)
    assert resumed.default_max_iterations == 3
    for _ in range(2):
        resumed, _ = replay_step(ir, resumed, call)
    assert resumed.stage == "b" and resumed.flags.max_iterations_hit == 1
    # A state written before the setting existed (version 1) ran with no default cap: it keeps none.
    old = json.loads(state.to_json())
    old["state_version"] = 1
    del old["default_max_iterations"]
    legacy = RunState.from_json(json.dumps(old))
    assert legacy.default_max_iterations == 0
    for _ in range(10):
        legacy, _ = replay_step(ir, legacy, call)
    assert legacy.stage == "a" and legacy.flags.max_iterations_hit == 0 and legacy.visit.iterations == 11
    for bad in (-1, True, 2.5, "50"):
        with pytest.raises(ValueError, match="default_max_iterations"):
            start(ir, 0.0, default_max_iterations=bad)


# --- edge order: a deliberate difference -------------------------------------------------------


def test_first_means_declaration_order():
    """Leviath keeps a stage's edges in a hash map, so which of two edges of one condition it
    takes varies from process to process; the runner takes the first declared, always."""
    twin_errors = """
    [stages.a.transitions.done]
    [stages.a.transitions.second]
    condition = "error"
    [stages.a.transitions.first]
    condition = "error"
    [stages.done]
    transitions = {}
    [stages.first]
    transitions = {}
    [stages.second]
    transitions = {}
    """
    d = Driver(twin_errors)
    d.E("boom")
    assert d.edges() == [("a", "second", "error")]
    routed = """
    [stages.a.transitions.zeta]
    [stages.a.transitions.alpha]
    [stages.zeta]
    transitions = {}
    [stages.alpha]
    transitions = {}
    """
    d = Driver(routed)
    d.T()
    assert d.state.offer == ("zeta", "alpha")
    d.R("no stage named here")
    assert d.edges() == [("a", "zeta", "always")]


def test_a_batch_of_inline_tools_counts_its_modifications():
    """Deliberate difference: Leviath records no modification for a batch made only of tools it
    handles inline (context tools among them); the runner records every call alike."""
    snippet = """
    [stages.notes]
    available_tools = ["context_write"]
    [stages.notes.transitions.done]
    gate = { require_modifications = true, tools = ["context_write"] }
    [stages.done]
    transitions = {}
    """
    d = Driver(snippet)
    d.C("context_write")
    assert d.visit.modifications == 1
    d.T()
    assert d.stage == "done" and d.flags.gates_forced == 0


# --- behaviours Leviath has that a host meets rarely (docs/leviath-mapping.md, "Run-time behaviour") ---


CONFIRM = """
[stages.a]
mode = "interactive_points"
[[stages.a.interaction_points]]
name = "go"
prompt = "Go ahead?"
style = "confirm"
unattended = "ask"
[stages.a.transitions.b]
[stages.b]
transitions = {}
"""


@pytest.mark.parametrize("approved", [True, False])
def test_a_confirm_answer_approves_even_where_a_blank_answer_stops_the_run(approved):
    from compiler.runtime import InteractionAnswered, TakeEdge

    d = Driver(CONFIRM)
    d.T("the plan")
    [edge, _] = d.feed(InteractionAnswered(approved=approved))
    assert isinstance(edge, TakeEdge) and edge.target == "b"  # as Leviath routes a yes or a no: approve
    blank = Driver(CONFIRM)
    blank.T("the plan")
    blank.feed(InteractionAnswered())
    assert blank.status == "error" and "'go'" in (blank.state.reason or "")


def test_a_confirm_answer_reads_from_a_recording():
    from compiler.runtime import InteractionAnswered, event_from_dict, event_to_dict

    event = event_from_dict({"event": "interaction", "approved": False, "request": 3})
    assert event == InteractionAnswered(approved=False, request=3)
    assert event_to_dict(event) == {"event": "interaction", "request": 3, "approved": False}
    assert event_from_dict({"event": "interaction", "approved": "yes"}) == InteractionAnswered()


CHILDREN_ERROR = """
[stages.a]
requires_children = true
[stages.a.transitions.b]
{escape}
[stages.b]
transitions = {{}}
[stages.rescue]
transitions = {{}}
"""


def test_an_errored_stage_waits_for_its_children_then_takes_its_error_edge():
    from compiler.runtime import ChildFinished, ChildStarted

    d = Driver(CHILDREN_ERROR.format(escape='[stages.a.transitions.rescue]\ncondition = "error"'))
    d.feed(ChildStarted("c1"))
    d.E("provider down")
    assert d.state.phase == "children" and d.status == "waiting"  # the hold applies whatever the outcome
    d.feed(ChildFinished("c1"))
    assert d.edges()[-1] == ("a", "rescue", "error") and d.status == "active"


def test_an_errored_stage_without_an_error_edge_ends_in_its_error_once_the_children_are_done():
    """A deliberate difference: Leviath's hold overwrites the error status, and with no escape the
    run is left active with nothing to do; here it ends with the stage's error."""
    from compiler.runtime import ChildFinished, ChildStarted, Fail

    d = Driver(CHILDREN_ERROR.format(escape=""))
    d.feed(ChildStarted("c1"))
    d.E("provider down")
    d.feed(ChildFinished("c1"))
    assert d.status == "error" and d.state.reason == "provider down" and isinstance(d.last[-1], Fail)


def test_a_stuck_interrupt_whose_escape_is_spent_at_resolution_resumes_the_stage():
    """No event can spend a target's budget between detection and resolution (a visit count
    moves only when the run enters a stage); a state written so resumes, as Leviath does."""
    from compiler.runtime import ChildFinished, RunState

    d = Driver(
        """
        [stages.a]
        requires_children = true
        available_tools = ["read_file"]
        [stages.a.transitions.b]
        condition = "stuck"
        stuck_after_iterations = 100
        [stages.a.transitions.c]
        [stages.b]
        max_revisits = 0
        [stages.c]
        transitions = {}
        """
    )
    held = json.loads(d.state.to_json())
    held.update(
        phase="children",
        status="waiting",
        children=["c1"],
        outcome={"kind": "stuck", "detail": "100 inference turns"},
        visits={"a": 1, "b": 1},
    )
    held["visit"]["stuck_fired"] = True
    d.state = RunState.from_dict(held)
    [inference] = d.feed(ChildFinished("c1"))
    assert d.stage == "a" and d.state.phase == "infer" and inference.stage == "a" and d.visit.stuck_fired
