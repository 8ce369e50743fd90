"""runner.md §8: every acceptance scenario S01–S34, driven from TOML through the public API.

Each `Driver.feed` also replays the event on the state read back from JSON, so every scenario
checks persistence too. Where one of our documented deviations (docs/runner.md) changes the
expected result, the test's docstring says which.
"""

from __future__ import annotations

from dataclasses import replace

from compiler.ir.model import NudgeConfig
from compiler.runtime import (
    AskInteraction,
    AskRoute,
    AwaitChildren,
    Cancel,
    ChildFinished,
    ChildStarted,
    Complete,
    Fail,
    InteractionAnswered,
    Paused,
    Resumed,
    RoutingAnswer,
    RunInference,
    TakeEdge,
    Tick,
    next_actions,
)
from compiler.runtime.ending import resolve
from compiler.runtime.run import Run
from compiler.runtime.state import Outcome
from tests.runtime.harness import C, Driver, blueprint

DEFAULT_NUDGE = "[System] You have tools available."


# --- S01–S06: the text-only path and its nudge ------------------------------------------------------


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


# --- S07–S11: normal resolution and routing ---------------------------------------------------------


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


# --- S12–S18: errors and dead ends -----------------------------------------------------------------------


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
    d = Driver("[stages.a]\nmax_iterations = 3\navailable_tools = [\"read_file\"]\n[stages.b]\n")
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
    d = Driver('[stages.a]\navailable_tools = ["read_file"]\nmax_iterations = 9\n[stages.b]\n', default_max_iterations=2)
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


# --- S19–S21: stuck detection --------------------------------------------------------------------------


S19 = """
[stages.implement]
available_tools = ["edit_file", "read_file"]
max_iterations = 30
[stages.implement.transitions.review]
hint = "done"
[stages.implement.transitions.reassess]
condition = "stuck"
stuck_after_same_file_edits = 3
stuck_after_iterations = 20
[stages.reassess]
max_revisits = 2
[stages.reassess.transitions.implement]
hint = "new plan"
[stages.review]
transitions = {}
"""


def test_s19_same_file_churn_trips_the_stuck_edge():
    d = Driver(S19)
    d.C(C("edit_file", "where.py"))
    d.C(C("edit_file", "where.py"))
    assert d.stage == "implement"
    d.C(C("edit_file", "where.py"))
    assert d.edges() == [("implement", "reassess", "stuck")] and not d.of(AskRoute)
    (note,) = d.injected()
    assert note.startswith("[Stuck detected in stage 'implement']") and "where.py" in note
    (edge,) = d.of(TakeEdge)
    assert edge.notes[0].region == "conversation" and edge.notes[0].kind == "stuck" and edge.gate is None


def test_s19_edits_count_when_requested_even_when_they_fail():
    d = Driver(S19)
    for _ in range(3):
        d.C(C("edit_file", "where.py", outcome="error", result="[error] no match"))
    assert d.stage == "reassess"


def test_s20_an_exhausted_stuck_target_means_no_interrupt():
    d = Driver(S19)
    for visit in (1, 2, 3):
        for _ in range(3):
            d.C(C("edit_file", "where.py"))
        assert d.stage == "reassess" and d.state.visits["reassess"] == visit
        d.T()
        assert d.stage == "implement"
    for _ in range(5):
        d.C(C("edit_file", "where.py"))
    assert d.stage == "implement" and not d.visit.stuck_fired and d.inference.turn == 6


def test_s20_a_stuck_outcome_whose_edge_vanished_resumes_the_stage():
    """(unit) Detection and resolution are one step here, so the vanished edge is set up by hand."""
    ir = blueprint(S19)
    d = Driver(ir)
    state = replace(d.state, visits={**d.state.visits, "reassess": 3}, visit=replace(d.state.visit, stuck_fired=True))
    run = Run(ir, state)
    resolve(run, Outcome("stuck", "x"))
    assert run.state.stage == "implement" and run.state.phase == "infer" and run.state.visit.stuck_fired
    assert [type(a) for a in run.actions] == [RunInference]


def test_s21_the_wall_clock_threshold_starts_lazily():
    snippet = """
        [stages.a]
        available_tools = ["read_file"]
        [stages.a.transitions.b]
        condition = "stuck"
        stuck_after_minutes = 10
        [stages.b]
    """
    d = Driver(snippet, now=100.0)
    assert d.visit.stuck_since == 100.0
    d.C("read_file", at=160.0)
    assert d.stage == "a"
    d.C("read_file", at=100.0 + 11 * 60)
    assert d.stage == "b"
    assert "11 minutes" in d.injected()[0]


def test_s21_a_tick_trips_the_clock_while_the_inference_waits():
    d = Driver('[stages.a.transitions.b]\ncondition = "stuck"\nstuck_after_minutes = 10\n[stages.b]\n')
    d.feed(Tick(now=300.0))
    assert d.stage == "a" and not d.last
    d.feed(Tick(now=601.0))
    assert d.stage == "b" and d.edges() == [("a", "b", "stuck")]


# --- S22–S28: gates -------------------------------------------------------------------------------------


S22 = """
[stages.impl]
available_tools = ["write_file", "bash"]
[stages.impl.transitions.review]
hint = "implemented"
gate = {{ require_modifications = true{extra} }}
[stages.review]
transitions = {{}}
"""


def test_s22_a_modifications_gate_holds_three_times_then_gives_way():
    d = Driver(S22.format(extra=""))
    d.C(C("bash", result="ok"))
    for n in (1, 2, 3):
        d.T()
        assert d.stage == "impl" and d.visit.gate_reentries == n
        (text,) = d.injected()
        assert text.startswith("[System] ") and "edit_file or write_file" in text
    d.T()
    assert d.stage == "review" and d.flags.gates_forced == 1
    assert d.of(TakeEdge)[-1].gate == "forced"
    d.T()
    assert d.status == "complete"


def test_s22_what_passes_and_what_still_blocks():
    for outcome, result, passes in (
        ("ok", "Successfully wrote", True),
        ("denied", "[denied] by policy", True),
        ("ok", "[denied] by policy", True),
        ("error", "[error] disk full", False),
        ("blocked", "[blocked] tainted", False),
    ):
        d = Driver(S22.format(extra=""))
        d.C(C("write_file", "a.rs", outcome=outcome, result=result))
        d.T()
        assert (d.stage == "review") is passes, (outcome, result)
        if passes:
            assert d.of(TakeEdge)[-1].gate == "passed" and d.flags.gates_forced == 0


def test_s22_max_attempts_one_forces_at_the_second_attempt():
    d = Driver(S22.format(extra=", max_attempts = 1"))
    d.C("bash")
    d.T()
    assert d.stage == "impl"
    d.T()
    assert d.stage == "review" and d.flags.gates_forced == 1


def test_s23_the_evidence_region_satisfies_require_modifications():
    snippet = """
        [context.regions]
        conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
        implementation = { kind = "pinned", max_tokens = 2000 }
        [stages.impl]
        available_tools = ["write_file", "context_write"]
        [stages.impl.transitions.review]
        gate = { require_modifications = true, region = "implementation" }
        [stages.review]
        transitions = {}
    """
    d = Driver(snippet)
    d.C("context_write")
    d.T()
    assert d.stage == "impl"
    d.region("implementation", 1)
    d.T()
    assert d.stage == "review"


def test_s23_a_stage_that_cannot_modify_passes_unless_the_gate_lists_its_tool():
    snippet = """
        [stages.impl]
        available_tools = ["read_file"]
        [stages.impl.transitions.review]
        gate = {{ require_modifications = true{tools} }}
        [stages.review]
        transitions = {{}}
    """
    d = Driver(snippet.format(tools=""))
    d.T()
    assert d.stage == "review"
    d = Driver(snippet.format(tools=', tools = ["read_file"]'))
    d.T()
    assert d.stage == "impl"


def test_s23_a_gate_listed_bash_counts_shell_calls():
    d = Driver(
        """
        [stages.impl]
        available_tools = ["shell"]
        [stages.impl.transitions.review]
        gate = { require_modifications = true, tools = ["bash"] }
        [stages.review]
        transitions = {}
        """
    )
    d.C(C("shell", result="done"))
    assert d.flags.modified_files == ("<unknown>",) and d.flags.modified_file_count == 1
    d.T()
    assert d.stage == "review"


S24 = """
[context.regions]
conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
plan = { kind = "pinned", max_tokens = 2000 }
risks = { kind = "pinned", max_tokens = 2000 }
[stages.plan]
available_tools = ["write_file", "context_write"]
[stages.plan.transitions.build]
gate = { require_modifications = true, require_regions = ["plan", "risks"] }
[stages.build]
transitions = {}
"""


def test_s24_require_regions_blocks_even_after_a_file_write():
    d = Driver(S24)
    d.C(C("write_file", "a.py"), C("context_write"))
    d.region("plan")
    d.T()
    (text,) = d.injected()
    assert "'risks'" in text and "'plan'" not in text and d.stage == "plan"


def test_s24_regions_written_but_no_file_modification_still_blocks():
    d = Driver(S24)
    d.C("context_write")
    d.region("plan")
    d.region("risks")
    d.T()
    (text,) = d.injected()
    assert "edit_file or write_file" in text and d.stage == "plan"
    d.C(C("write_file", "a.py"))
    d.T()
    assert d.stage == "build"


def test_s24_region_alternative_and_unheld_names():
    d = Driver(S24.replace('require_regions = ["plan", "risks"]', 'region = "plan"'))
    d.C(C("write_file", "a.py"))
    d.T()
    assert d.stage == "build"
    d = Driver(S24.replace('require_regions = ["plan", "risks"]', 'require_regions = ["ghost"]'))
    d.C(C("write_file", "a.py"))
    d.T()
    assert d.stage == "build"


S25 = """
[context.regions]
conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
plan = { kind = "pinned", max_tokens = 2000 }
[stages.intake]
[stages.plan]
available_tools = ["context_write"]
max_revisits = 3
[stages.plan.transitions.check]
gate = { require_region_updated = "plan", message = "Change the plan before re-checking." }
[stages.check]
[stages.check.transitions.plan]
hint = "plan rejected"
[stages.check.transitions.done]
hint = "plan accepted"
[stages.done]
transitions = {}
"""


def test_s25_require_region_updated_revise_loop():
    d = Driver(S25)
    d.T()
    assert d.stage == "plan" and d.visit.entry_digests == {"plan": ""}
    d.C("context_write")
    d.region("plan", 1, "v1")
    d.T()
    assert d.stage == "check"
    d.T()
    d.R("plan")
    assert d.stage == "plan" and d.visit.entry_digests == {"plan": "v1"}
    d.T()
    assert d.stage == "plan" and d.visit.gate_reentries == 1
    assert d.injected() == ["[System] Change the plan before re-checking."]
    d.C("context_write")
    d.region("plan", 2, "v2")
    d.T()
    assert d.stage == "check"


def test_s25_an_unchanged_region_gives_way_after_the_budget():
    d = Driver(S25)
    d.T()
    for _ in range(3):
        d.T()
        assert d.stage == "plan"
    d.T()
    assert d.stage == "check" and d.flags.gates_forced == 1


def test_s25_the_first_stage_never_has_a_baseline():
    """As in Leviath: the run's first visit takes no revision baselines, seeded regions or not,
    so a `require_region_updated` gate passes on it unchanged."""
    snippet = S25.replace("[stages.intake]\n", "")
    for regions in (None, {}):
        d = Driver(snippet) if regions is None else Driver(snippet, regions=regions)
        assert d.visit.entry_digests == {}
        d.T()
        assert d.stage == "check" and d.visit.gate_reentries == 0


S26 = """
[context.regions]
conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
todos = { kind = "checklist", max_tokens = 2000 }
[stages.implement]
available_tools = ["todo_add", "todo_done"]
[stages.implement.transitions.report]
gate = { require_no_open_items = "todos" }
[stages.report]
transitions = {}
"""


def test_s26_open_checklist_items_block_and_are_named():
    d = Driver(S26)
    items = [("1", "a"), ("2", "b"), ("3", "c")]
    for n in range(3):
        d.C("todo_add")
        d.region("todos", n + 1, open_items=items[: n + 1])
    for n in range(2):
        d.C("todo_done")
        d.region("todos", 3, hash=f"done{n}", open_items=items[n + 1 :])
    d.T()
    (text,) = d.injected()
    assert "1 item(s)" in text and "3 c" in text and d.stage == "implement"
    d.C("todo_done")
    d.region("todos", 3, hash="all", open_items=())
    d.T()
    assert d.stage == "report"


def test_s26_an_empty_checklist_passes_and_open_items_give_way():
    d = Driver(S26)
    d.T()
    assert d.stage == "report"
    d = Driver(S26)
    d.region("todos", 1, open_items=[("1", "a")])
    for _ in range(3):
        d.T()
    assert d.stage == "implement"
    d.T()
    assert d.stage == "report" and d.flags.gates_forced == 1


def test_s27_a_routed_gated_edge_holds_before_its_transform():
    d = Driver(
        """
        [stages.impl]
        available_tools = ["write_file"]
        [stages.impl.transitions.review]
        transform = "compact"
        gate = { require_modifications = true }
        [stages.impl.transitions.plan]
        [stages.review]
        transitions = {}
        [stages.plan]
        transitions = {}
        """
    )
    d.T()
    d.R("review")
    assert d.stage == "impl" and d.state.phase == "infer" and d.visit.gate_reentries == 1
    assert d.state.compact == () and d.inference.summarize == () and not d.of(TakeEdge)


def test_s28_conditioned_edges_are_never_gated():
    d = Driver(
        """
        [stages.impl]
        available_tools = ["write_file"]
        [stages.impl.transitions.recover]
        condition = "error"
        gate = { require_modifications = true }
        [stages.recover]
        """
    )
    d.E("boom")
    assert d.stage == "recover" and d.of(TakeEdge)[0].gate is None and d.flags.gates_forced == 0


# --- S29–S31: required regions, required output, transforms --------------------------------------


S29 = """
[context.regions]
conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
plan = { kind = "pinned", max_tokens = 4000, required = true, required_message = "Fill {region} via context_write first." }
[stages.gather]
available_tools = ["context_write", "read_file"]
[stages.analyze]
available_tools = ["context_write"]
"""


def test_s29_required_region_reruns_then_abandons_and_records():
    d = Driver(S29)
    d.C("read_file")
    for n in (1, 2, 3):
        d.T()
        assert d.stage == "gather" and d.visit.required_rounds == n
        assert d.injected() == ["[System] Fill plan via context_write first."]
    d.T()
    assert d.stage == "analyze" and d.flags.required_regions_abandoned == ("plan",)
    d.C("context_write")
    d.region("plan", 1)
    d.T()
    assert d.status == "complete" and d.flags.required_regions_abandoned == ()


def test_s29_max_revisits_zero_abandons_at_once_and_an_outcome_skips_the_rerun():
    d = Driver(S29.replace("[stages.gather]\n", "[stages.gather]\nmax_revisits = 0\n"))
    d.T()
    assert d.stage == "analyze" and d.flags.required_regions_abandoned == ("plan",)
    d = Driver(S29.replace("[stages.gather]\n", "[stages.gather]\nmax_iterations = 1\n"))
    d.C("read_file")
    assert d.stage == "analyze" and d.flags.max_iterations_hit == 1


S30 = """
[stages.summary]
mode = "output"
max_revisits = 20
"""


def test_s30_required_output_three_reruns_then_forced_then_error():
    d = Driver(S30)
    for n in (1, 2, 3):
        d.T()
        (text,) = d.injected()
        assert "submit_output" in text and d.visit.output_rounds == n
    d.T()
    assert d.flags.output_forced == 1 and d.status == "error"
    assert "final output" in d.ended.reason and "submit_output" in d.ended.reason


def test_s30_a_submitted_output_completes():
    d = Driver(S30)
    d.C(C("submit_output", result="accepted"))
    d.T()
    assert d.status == "complete" and d.ended.flags["produced_output"] is True
    assert d.ended.flags["empty_output"] is False


def test_s30_an_earlier_stage_output_does_not_satisfy_this_one():
    d = Driver('[stages.draft]\navailable_tools = ["submit_output"]\n' + S30)
    d.C("submit_output")
    d.T()
    assert d.stage == "summary"
    d.T()
    assert d.stage == "summary" and d.visit.output_rounds == 1


def test_s30_a_capped_stage_records_the_missing_output_without_a_rerun():
    d = Driver(S30 + 'max_iterations = 1\navailable_tools = ["read_file"]\n')
    d.C("read_file")
    assert d.flags.output_forced == 1 and d.status == "error" and d.visit.output_rounds == 0


S31 = """
[context.regions]
sys = {{ kind = "pinned", max_tokens = 2000 }}
conversation = {{ kind = "sliding_window", max_items = 100, max_tokens = 20000 }}
keep = {{ kind = "temporary" }}
scratch = {{ kind = "temporary" }}
drop = {{ kind = "pinned" }}
[stages.a.transitions.b]
{transform}
[stages.b]
"""


def test_s31_transforms_on_the_way_out():
    d = Driver(S31.format(transform='transform = "clear"'))
    d.region("conversation", 3)
    d.region("sys", 1)
    d.T()
    (edge,) = d.of(TakeEdge)
    assert "conversation" in edge.clear and "sys" not in edge.clear and edge.summarize == ()
    assert d.state.region("conversation").empty and not d.state.region("sys").empty

    d = Driver(S31.format(transform='transform = "compact"'))
    d.region("conversation", 3)
    d.region("keep", 0)
    d.T()
    (edge,) = d.of(TakeEdge)
    assert edge.clear == () and "conversation" in edge.summarize and "keep" not in edge.summarize
    assert d.inference.summarize == edge.summarize and not d.state.region("conversation").empty

    custom = (
        'transform = "custom"\ntransform_config = { carry = ["keep"], compact = ["scratch", "keep", "ghost"], '
        'clear = ["drop", "keep", "missing"] }'
    )
    d = Driver(S31.format(transform=custom))
    for name in ("keep", "scratch", "drop"):
        d.region(name)
    d.T()
    (edge,) = d.of(TakeEdge)
    assert edge.clear == ("drop",) and edge.summarize == ("scratch",)
    assert d.state.compact == ("scratch",)
    d.T()
    assert d.state.compact == ()


# --- S32–S34: pause and cancel, children, interaction points -------------------------------------------


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
    d = Driver('[stages.a.transitions.b]\n[stages.b]\n')
    d.feed(Paused())
    d.T()
    assert d.stage == "a" and d.state.iteration == 0
    d.feed(Resumed())
    assert d.stage == "b"


def test_s32_a_reply_landing_on_a_cancelled_run_changes_nothing():
    d = Driver(S09)
    d.T()
    d.feed(Cancel())
    assert d.status == "cancelled" and isinstance(d.last[0], Fail)
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
