"""runner.md §8, acceptance scenarios S01–S06: the text-only path and its nudge.

Driven through `tests/runtime/harness.py`, whose `feed` checks persistence at every step; a
documented deviation (docs/runner.md) is named in the test's docstring.
"""

from __future__ import annotations

from compiler.ir.model import NudgeConfig
from compiler.runtime import (
    AskInteraction,
    AskRoute,
    Complete,
    InteractionAnswered,
    RunInference,
    TakeEdge,
)
from tests.runtime.harness import C, Driver, blueprint

DEFAULT_NUDGE = "[System] You have tools available."


def test_s01_linear_two_stages_tool_then_text():
    d = Driver(
        """
        [stages.a]
        available_tools = ["read_file"]
        [stages.b]
        """
    )
    d.C(C("read_file", "x"))
    assert d.stage == "a" and d.visit.iterations == 1 and d.visit.tool_calls == 1
    d.T()
    assert d.edges() == [("a", "b", "fall_through")]
    (edge,) = d.of(TakeEdge)
    assert edge.transform == "direct" and edge.gate is None
    assert d.stage == "b" and d.visit.iterations == 0 and d.visit.tool_calls == 0
    assert d.state.visits == {"a": 1, "b": 1}
    d.T()
    assert isinstance(d.ended, Complete) and d.status == "complete"
    assert d.state.iteration == 3
    assert not d.of(AskRoute)


def test_s01_a_call_to_a_tool_the_stage_does_not_offer_still_counts():
    d = Driver("[stages.a]\navailable_tools = []\n")
    d.C(C("read_file", "x", outcome="ok"))
    assert d.visit.tool_calls == 1 and d.visit.modifications == 0
    d.T()
    assert d.status == "complete"


def test_s02_text_only_model_exhausts_the_default_nudge_budget():
    d = Driver(blueprint('[stages.work]\navailable_tools = ["read_file"]\n', nudge=True))
    for n in (1, 2, 3):
        d.T()
        assert d.visit.nudges == n and d.stage == "work"
        (text,) = d.injected()
        assert text.startswith(DEFAULT_NUDGE)
    d.T()
    assert d.status == "complete" and d.state.iteration == 4
    assert len(d.of(RunInference)) == 4


def test_s03_agent_level_nudge_max():
    d = Driver(blueprint("[agent.nudge]\nmax = 1\n[stages.work]\n", nudge=True))
    d.T()
    assert d.status == "active" and d.visit.nudges == 1
    d.T()
    assert d.status == "complete" and d.state.iteration == 2


def test_s03_a_zero_max_completes_on_the_first_text():
    d = Driver(blueprint("[agent.nudge]\nmax = 0\n[stages.work]\n", nudge=True))
    d.T()
    assert d.status == "complete" and d.state.iteration == 1


def test_s04_nudge_text_placeholders():
    d = Driver(
        blueprint(
            """
            [context.regions]
            conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
            plan = { kind = "pinned", max_tokens = 1000, required = true }
            [stages.a.nudge]
            text = "Stage {stage} still owes: {regions}"
            """,
            nudge=True,
        )
    )
    d.T()
    assert d.injected() == ["[System] Stage a still owes: plan"]
    assert d.inference.inject[0].region == "conversation" and d.inference.inject[0].kind == "nudge"


REVIEWED = """
[stages.plan]
mode = "interactive_points"
interaction_points = [{ name = "plan_approval", prompt = "Review the plan.", style = "multiple_choice", options = ["Approve"] }]
"""


def test_s05_a_reviewed_stage_is_not_nudged():
    d = Driver(blueprint(REVIEWED, nudge=True))
    d.T()
    assert d.visit.nudges == 0 and not d.injected()
    (ask,) = d.last
    assert isinstance(ask, AskInteraction) and ask.point == "plan_approval"
    d.feed(InteractionAnswered(answer="Approve"))
    assert d.status == "complete"


def test_s05_an_explicit_enabled_nudges_a_reviewed_stage():
    d = Driver(blueprint(REVIEWED + "[stages.plan.nudge]\nenabled = true\n", nudge=True))
    d.T()
    assert d.visit.nudges == 1 and isinstance(d.last[0], RunInference)


def test_s05_a_disabled_nudge_at_any_level_ends_the_stage_at_once():
    for snippet in ("[stages.a.nudge]\nenabled = false\n", "[agent.nudge]\nenabled = false\n[stages.a]\n"):
        d = Driver(blueprint(snippet, nudge=True))
        d.T()
        assert d.status == "complete", snippet
    d = Driver(blueprint("[stages.a]\n", nudge=True), global_nudge=NudgeConfig(enabled=False))
    d.T()
    assert d.status == "complete"


def test_s06_any_tool_call_disables_the_nudge():
    d = Driver(blueprint('[stages.a]\navailable_tools = ["read_file"]\n', nudge=True))
    d.C(C("read_file", "x", outcome="error", result="[error] no such file"))
    assert d.visit.tool_calls == 1
    d.T()
    assert d.status == "complete" and d.visit.nudges == 0
