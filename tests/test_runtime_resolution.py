"""runner.md §8, acceptance scenarios S07–S11: normal resolution and routing.

Driven through `tests/runtime/harness.py`, whose `feed` checks persistence at every step; a
documented deviation (docs/runner.md) is named in the test's docstring.
"""

from __future__ import annotations

from compiler.runtime import (
    AskRoute,
    Complete,
)
from tests.runtime.harness import Driver


def test_s07_a_conditioned_only_stage_is_terminal():
    d = Driver('[stages.a.transitions.b]\ncondition = "error"\n[stages.b]\n')
    d.T()
    assert d.status == "complete" and d.stages_run() == ["a"]


def test_s07_an_empty_transitions_table_is_terminal():
    d = Driver("[stages.a]\ntransitions = {}\n[stages.b]\n")
    d.T()
    assert d.status == "complete" and d.stages_run() == ["a"]


def test_s08_a_single_normal_edge_is_auto_taken():
    d = Driver('[stages.a.transitions.b]\nhint = "done with a"\n[stages.b]\n')
    d.T()
    assert d.edges() == [("a", "b", "llm_choice")] and not d.of(AskRoute)
    d.T()
    assert d.status == "complete"


S09 = """
[stages.a.transitions.b]
hint = "go to b"
[stages.a.transitions.c]
condition = "llm_choice"
[stages.b]
[stages.c]
"""


def test_s09_two_edges_make_a_routing_call():
    d = Driver(S09)
    d.T()
    (ask,) = d.last
    assert isinstance(ask, AskRoute) and [o.target for o in ask.options] == ["b", "c"]
    assert "- b: go to b" in ask.prompt.splitlines() and "- c" in ask.prompt.splitlines()
    assert not ask.allow_done and "DONE" not in ask.prompt
    iteration = d.state.iteration
    d.R("b")
    assert d.stage == "b" and d.state.visits["b"] == 1
    assert d.state.iteration == iteration  # routing calls are not inferences of the stage
    d.T()
    assert d.edges()[-1] == ("b", "c", "fall_through")
    d.T()
    assert d.status == "complete"


def test_s09_an_empty_table_makes_the_chosen_stage_terminal():
    d = Driver(S09.replace("[stages.b]\n", "[stages.b]\ntransitions = {}\n"))
    d.T()
    d.R("b")
    d.T()
    assert d.status == "complete" and d.stages_run() == ["a", "b"]


def test_s10_allow_complete_with_one_edge_and_done():
    d = Driver(
        """
        [stages.review]
        allow_complete = true
        [stages.review.transitions.implement]
        hint = "needs more work"
        [stages.implement]
        """
    )
    d.T()
    (ask,) = d.last
    assert isinstance(ask, AskRoute) and ask.allow_done and "DONE" in ask.prompt
    d.R("DONE\n\nSummary: all good")
    assert isinstance(d.ended, Complete) and d.ended.via == "done"
    assert d.stages_run() == ["review"]


def test_s11_routing_answers_are_read_as_the_reference_reads_them():
    """The matching itself is unit-tested in test_runtime_units; here it runs end to end."""
    snippet = """
        [stages.check]
        {allow}
        [stages.check.transitions.implement]
        [stages.check.transitions.error_recovery]
        [stages.implement]
        transitions = {{}}
        [stages.error_recovery]
        transitions = {{}}
    """
    reply = "The implementation follows the plan.\n\nAPPROVED."
    d = Driver(snippet.format(allow="allow_complete = true"))
    d.T()
    d.R(reply)
    assert d.status == "complete" and d.ended.via == "done"
    d = Driver(snippet.format(allow=""))
    d.T()
    d.R(reply)
    assert d.stage == "implement"
    d = Driver(snippet.format(allow=""))
    d.T()
    d.R("The tests still fail.\n\nerror_recovery")
    assert d.stage == "error_recovery"
