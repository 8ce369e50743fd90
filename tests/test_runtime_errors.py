"""runner.md §8, acceptance scenarios S12–S18: errors and dead ends.

Driven through `tests/runtime/harness.py`, whose `feed` checks persistence at every step; a
documented deviation (docs/runner.md) is named in the test's docstring.
"""

from __future__ import annotations

from compiler.runtime import (
    AskRoute,
    Fail,
    RunInference,
    TakeEdge,
)
from tests.runtime.harness import Driver

S12 = """
[stages.a.transitions.b]
[stages.a.transitions.c]
[stages.a.transitions.rescue]
condition = "error"
[stages.b]
transitions = {}
[stages.c]
transitions = {}
[stages.rescue]
transitions = {}
"""


def test_s12_a_failed_routing_call_takes_the_error_edge():
    d = Driver(S12)
    d.T()
    assert isinstance(d.last[0], AskRoute)
    d.E("boom")
    assert d.edges() == [("a", "rescue", "error")]
    assert d.injected() == ["[Inference error in stage 'a'] boom"]
    assert d.stage == "rescue" and d.status == "active"


def test_s12_without_an_error_edge_the_run_fails():
    d = Driver(S12.replace('[stages.a.transitions.rescue]\ncondition = "error"\n', ""))
    d.T()
    d.E("boom")
    assert isinstance(d.ended, Fail) and d.ended.reason == "boom" and d.status == "error"


def test_s13_an_inference_error_routes_down_the_error_edge():
    for condition in ("error", "dead_end"):
        d = Driver(f'[stages.a.transitions.recovery]\ncondition = "{condition}"\n[stages.recovery]\n')
        d.E("boom")
        assert d.edges() == [("a", "recovery", condition)] and d.status == "active"
        assert any("boom" in text for text in d.injected())
        d.T()
        assert d.status == "complete"


def test_s13_without_an_escape_the_run_ends_in_error_where_it_was():
    d = Driver('[stages.a.transitions.b]\nhint = "next"\n[stages.b]\n')
    d.E("boom")
    assert d.status == "error" and d.stage == "a" and d.ended.reason == "boom"
    assert not d.injected() and not d.of(TakeEdge)


S14 = """
[stages.a]
max_iterations = 3
available_tools = ["read_file"]
[stages.a.transitions.recovery]
condition = "max_iterations"
[stages.recovery]
"""


def test_s14_the_iteration_cap_takes_the_max_iterations_edge():
    d = Driver(S14)
    d.C("read_file")
    d.C("read_file")
    d.C("read_file")
    assert d.flags.max_iterations_hit == 1
    assert d.edges() == [("a", "recovery", "max_iterations")]
    assert d.injected() == ["[Stage 'a' hit its iteration cap (3)] its output may be incomplete."]
    assert [a.stage for a in d.of(RunInference)].count("a") == 3


def test_s14_without_the_edge_the_cap_falls_through_with_the_note():
    d = Driver('[stages.a]\nmax_iterations = 3\navailable_tools = ["read_file"]\n[stages.b]\n')
    for _ in range(3):
        d.C("read_file")
    assert d.edges() == [("a", "b", "fall_through")] and d.flags.max_iterations_hit == 1
    assert d.injected()[0].startswith("[Stage 'a' hit its iteration cap (3)]")


def test_s14_a_text_reply_on_the_last_turn_ends_the_stage_normally():
    d = Driver(S14)
    d.C("read_file")
    d.C("read_file")
    d.T()
    assert d.status == "complete" and d.flags.max_iterations_hit == 0
    assert d.stages_run() == ["a"] and not d.injected()


def test_s14_zero_or_unset_takes_the_default_cap():
    """As Leviath's daemon does: an unset or 0 max_iterations takes the default cap (50)."""
    for cap in ("max_iterations = 0\n", ""):
        d = Driver(f'[stages.a]\n{cap}available_tools = ["read_file"]\n[stages.b]\n')
        for _ in range(50):
            d.C("read_file")
        assert d.flags.max_iterations_hit == 1 and d.stage == "b"
        assert "[Stage 'a' hit its iteration cap (50)]" in d.injected()[0]


def test_s14_the_default_cap_is_a_run_option_and_0_means_none():
    d = Driver('[stages.a]\navailable_tools = ["read_file"]\n[stages.b]\n', default_max_iterations=0)
    for _ in range(60):
        d.C("read_file")
    assert d.flags.max_iterations_hit == 0 and d.inference.turn == 61
    d = Driver(
        '[stages.a]\navailable_tools = ["read_file"]\nmax_iterations = 9\n[stages.b]\n', default_max_iterations=2
    )
    for _ in range(9):
        d.C("read_file")
    assert d.stage == "b" and d.flags.max_iterations_hit == 1  # a stage's own cap wins


def test_s15_a_fan_out_stage_ignores_the_iteration_cap():
    fan = '[stages.a]\nmode = "fan_out"\nworker_agent = "w"\nmax_iterations = 4\navailable_tools = ["read_file"]\n'
    d = Driver(fan)
    for _ in range(6):
        d.C("read_file")
    assert d.flags.max_iterations_hit == 0 and d.inference.turn == 7
    d = Driver(fan.replace('mode = "fan_out"\nworker_agent = "w"\n', ""))
    for _ in range(4):
        d.C("read_file")
    assert d.flags.max_iterations_hit == 1 and d.status == "complete"


S16 = """
[stages.a.transitions.b]
hint = "check"
[stages.b]
max_revisits = 0
[stages.b.transitions.a]
hint = "redo"
[stages.b.transitions.done]
hint = "finished"
[stages.done]
transitions = {}
"""


def test_s16_a_dead_end_without_escape_fails_the_run():
    d = Driver(S16)
    d.T()
    assert d.edges() == [("a", "b", "llm_choice")]
    d.T()
    d.R("a")
    assert d.stage == "a" and d.state.visits["a"] == 2
    d.T()
    assert d.status == "error" and "dead-ended" in d.ended.reason and "'a'" in d.ended.reason
    assert "done" not in d.stages_run()


S17 = S16 + '[stages.a.transitions.answer]\ncondition = "dead_end"\n[stages.answer]\ntransitions = {}\n'


def test_s17_a_dead_end_edge_catches_the_strand_and_is_never_offered():
    d = Driver(S17)
    d.T()
    assert d.edges() == [("a", "b", "llm_choice")] and not d.of(AskRoute)
    d.T()
    d.R("a")
    d.T()
    assert d.edges()[-1] == ("a", "answer", "dead_end") and d.status == "active"
    (note,) = d.injected()
    assert note.startswith("[Inference error in stage 'a'] stage 'a' dead-ended")
    d.T()
    assert d.status == "complete"


def test_s18_dead_end_beats_error_on_a_strand():
    d = Driver(S17 + '[stages.a.transitions.recover]\ncondition = "error"\n[stages.recover]\n')
    d.T()
    d.T()
    d.R("a")
    d.T()
    assert d.stage == "answer"


def test_s18_the_error_edge_is_used_when_it_is_the_only_escape():
    d = Driver(S16 + '[stages.a.transitions.recover]\ncondition = "error"\n[stages.recover]\n')
    d.T()
    d.T()
    d.R("a")
    d.T()
    assert d.stage == "recover" and d.status == "active"
    assert any("dead-ended" in text for text in d.injected())
