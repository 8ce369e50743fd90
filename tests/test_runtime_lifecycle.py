"""runner.md §8, acceptance scenarios S32–S34: pause and cancel, children, interaction points.

Driven through `tests/runtime/harness.py`, whose `feed` checks persistence at every step; a
documented deviation (docs/runner.md) is named in the test's docstring.
"""

from __future__ import annotations

from compiler.runtime import (
    AskInteraction,
    AwaitChildren,
    Cancel,
    CancelRequest,
    ChildFinished,
    ChildStarted,
    Fail,
    InteractionAnswered,
    Paused,
    Resumed,
    RoutingAnswer,
    next_actions,
)
from tests.runtime.harness import Driver
from tests.test_runtime_resolution import S09  # two edges: the run waits on a routing call


def test_s32_an_answer_landing_on_a_paused_run_waits_for_the_resume():
    d = Driver(S09)
    d.T()
    d.feed(Paused())
    assert d.status == "paused" and next_actions(d.ir, d.state) == ()
    d.feed(RoutingAnswer(reply="c"))
    assert d.stage == "a" and len(d.state.parked) == 1 and not d.last
    d.feed(Resumed())
    assert d.stage == "c" and d.state.parked == () and d.status == "active"


def test_s32_a_paused_reply_resolves_after_resume():
    d = Driver("[stages.a.transitions.b]\n[stages.b]\n")
    d.feed(Paused())
    d.T()
    assert d.stage == "a" and d.state.iteration == 0
    d.feed(Resumed())
    assert d.stage == "b"


def test_s32_a_reply_landing_on_a_cancelled_run_changes_nothing():
    d = Driver(S09)
    d.T()
    d.feed(Cancel())
    # The outstanding routing request is withdrawn, then the run ends.
    withdrawn, ended = d.last
    assert isinstance(withdrawn, CancelRequest) and withdrawn.reason == "cancelled" and withdrawn.request == 2
    assert d.status == "cancelled" and isinstance(ended, Fail)
    before = d.state
    d.R("b")
    assert d.state == before and d.last == ()


def test_s33_requires_children_holds_the_stage():
    d = Driver("[stages.a]\nrequires_children = true\n[stages.b]\n")
    d.feed(ChildStarted("c1"))
    d.feed(ChildStarted("c2"))
    d.T()
    assert d.status == "waiting" and isinstance(d.last[0], AwaitChildren) and d.stage == "a"
    d.feed(ChildFinished("c1"))
    assert d.status == "waiting" and d.stage == "a"
    d.feed(ChildFinished("c2"))
    assert d.status == "active" and d.stage == "b"


S34 = """
[stages.plan]
mode = "interactive_points"
[[stages.plan.interaction_points]]
name = "approval"
prompt = "Approve the plan?"
style = "multiple_choice"
options = ["Approve", "Revise", "Abort"]
abort_options = ["Abort"]
[stages.plan.interaction_points.directives]
Revise = "revise the plan"
[stages.build]
"""


def test_s34_the_directive_loop_is_bounded():
    d = Driver(S34)
    for rounds in (0, 1, 2, 3):
        d.T()
        (ask,) = d.last
        assert isinstance(ask, AskInteraction) and ask.round == rounds and d.status == "waiting"
        d.feed(InteractionAnswered(answer="Revise"))
        if rounds < 3:
            assert d.stage == "plan" and d.visit.point_rounds == rounds + 1
            assert d.injected() == ["User [approval] Revise", "User [approval] directive: revise the plan"]
    assert d.stage == "build" and d.edges() == [("plan", "build", "fall_through")]


def test_s34_abort_cancels_and_approve_proceeds():
    d = Driver(S34)
    d.T()
    d.feed(InteractionAnswered(choice=2))
    assert d.status == "cancelled"
    d = Driver(S34)
    d.T()
    d.feed(InteractionAnswered(answer="Approve"))
    assert d.stage == "build" and d.injected() == ["User [approval] Approve"]
