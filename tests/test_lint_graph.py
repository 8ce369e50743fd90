"""The graph, escape and budget lints: each rule alone, its near misses, and the real corpus."""

from __future__ import annotations

from dataclasses import replace

import pytest

from compiler.config import Settings
from compiler.pipeline import validate_file
from tests.helpers import CORPUS, ROOT, assert_codes, requires_shared, rules_of, run

GRAPH_CODES = rules_of("lint.graph", "lint.escapes", "lint.budgets")
#: These rules plus every structure rule (so a shape the structure layer rejects shows too).
MINE = Settings(select=GRAPH_CODES + ("structure",))


def check(source: str, *expected: str) -> None:
    assert_codes(source, *expected, settings=MINE)


def findings(source: str, code: str):
    return [d for d in run(source, settings=MINE).diagnostics if d.code == code]


# --- unreachable-stage / output-unreachable -----------------------------------------------


def test_a_stage_nothing_leads_to_is_unreachable():
    check(
        """
        [stages.a.transitions.b]
        [stages.b.transitions]
        [stages.orphan.transitions]
        """,
        "unreachable-stage",
    )


def test_fall_through_reaches_the_next_stage():
    # Leviath's lint warns here; its runtime does enter 'orphan' after 'b'.
    check("[stages.a.transitions.b]\n[stages.b]\n[stages.orphan]")


def test_worker_and_merge_stages_are_reached():
    check(
        """
        [stages.split]
        mode = "fan_out"
        worker_stage = "item"
        merge_stage = "merge"
        [stages.split.transitions]
        [stages.item]
        allow_as_worker = true
        [stages.item.transitions]
        [stages.merge.transitions]
        """
    )


def test_an_unreachable_stage_says_who_leads_to_it():
    source = """
        [stages.a.transitions]
        [stages.b.transitions.c]
        [stages.c.transitions]
        """
    b, c = findings(source, "unreachable-stage")
    assert b.stage == "b" and "no transition, fall-through or fan-out hand-off leads to it" in b.message
    assert c.stage == "c" and "only 'b' leads to it, and it cannot be reached either" in c.message
    assert (c.line, c.column) == (6, 9)


def test_reachability_is_searched_from_the_first_declared_stage_where_runs_start():
    # A stage declared before a non-first entry_stage runs (first); it is not unreachable.
    check('[agent]\nname = "t"\nentry_stage = "b"\n[stages.a]\n[stages.b]\n[stages.c]', "entry-stage-not-first")
    # The stage entry_stage names, when nothing leads to it from the first, never runs.
    source = '[agent]\nname = "t"\nentry_stage = "b"\n[stages.a.transitions]\n[stages.b.transitions]'
    check(source, "unreachable-stage", "entry-stage-not-first")
    (d,) = findings(source, "unreachable-stage")
    assert d.stage == "b" and "cannot be reached from 'a', where runs start" in d.message


def test_an_output_stage_nothing_leads_to_fails_both_questions():
    # Leviath's lint (no transition targets it) and ours (no run enters it) both say so.
    source = '[stages.a.transitions]\n[stages.report]\nmode = "output"'
    check(source, "output-unreachable", "unreachable-output-stage")
    for code in ("output-unreachable", "unreachable-output-stage"):
        (d,) = findings(source, code)
        assert d.severity == "error" and d.stage == "report" and (d.line, d.column) == (5, 9)


def test_linear_work_then_output_is_leviaths_error_and_the_message_says_the_run_gets_there():
    source = '[stages.work]\n[stages.report]\nmode = "output"'
    check(source, "output-unreachable")
    (d,) = findings(source, "output-unreachable")
    assert "`lev validate` refuses the blueprint" in d.message
    assert "runs do enter it: 'work' falls through to 'report'" in d.message
    assert d.fix == "add a transition to it from 'work' ([stages.work.transitions.report])"
    check('[stages.work.transitions.report]\n[stages.report]\nmode = "output"')


def test_output_reached_by_merge_is_leviaths_error_and_first_or_entry_is_clean():
    merged = """
        [stages.split]
        mode = "fan_out"
        worker_agent = "helper"
        merge_stage = "report"
        [stages.split.transitions]
        [stages.report]
        mode = "output"
        [stages.report.transitions]
        """
    check(merged, "output-unreachable")
    (d,) = findings(merged, "output-unreachable")
    assert "fan-out stage 'split' hands over to its merge stage 'report'" in d.message
    check('[stages.report]\nmode = "output"\n[stages.work]')
    # entry_stage exempts it from Leviath's lint; runs start at 'work', which never gets there
    named = '[agent]\nname = "t"\nentry_stage = "report"\n[stages.work.transitions]\n[stages.report]\nmode = "output"'
    check(named, "entry-stage-not-first", "unreachable-output-stage")


def test_output_reached_only_from_an_unreachable_stage_is_ours_alone():
    # Leviath counts the edge from 'b', which no run reaches; its lint is silent here.
    check(
        """
        [stages.a.transitions]
        [stages.b.transitions.report]
        [stages.report]
        mode = "output"
        """,
        "unreachable-stage",
        "unreachable-output-stage",
    )


def test_a_self_loop_does_not_count_as_a_way_in():
    source = (
        '[stages.a.transitions]\n[stages.report]\nmode = "output"\nmax_revisits = 1\n[stages.report.transitions.report]'
    )
    check(source, "output-unreachable", "unreachable-output-stage")


def test_unknown_targets_do_not_crash_the_graph_rules():
    check(
        "[stages.a.transitions.ghost]\n[stages.b.transitions]",
        "unknown-stage",
        "unreachable-stage",
        "no-terminal-path",
    )
    check(
        """
        [stages.a]
        max_revisits = 1
        [stages.a.transitions.ghost]
        [stages.a.transitions.a]
        [stages.b]
        """,
        "unknown-stage",
        "no-terminal-path",
        "unreachable-stage",
    )


# --- cycle-without-max-revisits -----------------------------------------------------------


def test_a_three_stage_cycle_is_reported_once_at_its_smallest_name():
    source = """
        [stages.c.transitions.a]
        [stages.a.transitions.b]
        [stages.b.transitions.c]
        [stages.b.transitions.done]
        [stages.done.transitions]
        """
    (d,) = findings(source, "cycle-without-max-revisits")
    assert d.stage == "a" and (d.line, d.column) == (5, 9)
    assert "stages 'c', 'a' and 'b' form a cycle" in d.message and "('a' → 'b' → 'c' → 'a')" in d.message
    expected = ["transition 'a' → 'b'", "transition 'b' → 'c'", "transition 'c' → 'a'"]
    assert [r.message for r in d.related] == expected
    assert [r.span.line for r in d.related] == [5, 6, 4]
    assert d.fix == "set max_revisits on 'a' (or on another stage of the cycle that a transition enters)"


def test_one_capped_stage_bounds_a_cycle():
    check(
        """
        [stages.a]
        max_revisits = 2
        [stages.a.transitions.b]
        [stages.b.transitions.a]
        [stages.b.transitions.done]
        [stages.done.transitions]
        """
    )


@pytest.mark.parametrize(
    "condition", ['"error"', '"stuck"\nstuck_after_iterations = 5', '"max_iterations"', '"dead_end"']
)
def test_cycles_closed_by_conditioned_edges_count(condition):
    source = f"""
[stages.a]
max_iterations = 9
[stages.a.transitions.b]
[stages.b.transitions.a]
condition = {condition}
[stages.b.transitions.done]
[stages.done.transitions]
"""
    assert len(findings(source, "cycle-without-max-revisits")) == 1


def test_a_capped_stage_entered_by_fall_through_does_not_bound_the_cycle():
    source = """
        [stages.a]
        [stages.b]
        max_revisits = 1
        [stages.b.transitions.a]
        [stages.b.transitions.c]
        [stages.c.transitions]
        """
    (d,) = findings(source, "cycle-without-max-revisits")
    assert "'b' sets max_revisits, but the cycle enters it by fall-through" in d.message
    assert d.related[0].message == "'a' falls through to 'b' (it has no transitions table)"
    assert d.fix.startswith("set max_revisits on 'a'")


def test_a_cap_on_one_side_does_not_bound_the_other_loop():
    check(
        """
        [stages.a]
        max_revisits = 1
        [stages.a.transitions.b]
        [stages.b.transitions.a]
        [stages.b.transitions.c]
        [stages.c.transitions.b]
        [stages.c.transitions.done]
        [stages.done.transitions]
        """,
        "cycle-without-max-revisits",
    )


def test_separate_cycles_are_separate_findings():
    source = """
        [stages.a.transitions.b]
        [stages.b.transitions.a]
        [stages.b.transitions.c]
        [stages.c.transitions.d]
        [stages.d.transitions.c]
        [stages.d.transitions.done]
        [stages.done.transitions]
        """
    assert [d.stage for d in findings(source, "cycle-without-max-revisits")] == ["a", "c"]


def test_a_self_loop_inside_a_longer_cycle_does_not_hide_it():
    source = """
        [stages.a.transitions.a]
        [stages.a.transitions.b]
        [stages.b.transitions.a]
        [stages.b.transitions.done]
        [stages.done.transitions]
        """
    check(source, "self-loop-without-max-revisits", "cycle-without-max-revisits")
    (d,) = findings(source, "cycle-without-max-revisits")
    assert "('a' → 'b' → 'a')" in d.message


def test_self_loops_and_unreachable_cycles_are_left_to_other_rules():
    check(
        "[stages.a.transitions.a]\n[stages.a.transitions.b]\n[stages.b.transitions]",
        "self-loop-without-max-revisits",
    )
    check(
        "[stages.a.transitions]\n[stages.x.transitions.y]\n[stages.y.transitions.x]",
        "unreachable-stage",
        "unreachable-stage",
    )


def test_a_merge_hand_off_cycle_needs_a_transition_to_be_bounded():
    source = """
        [stages.merge]
        [stages.split]
        mode = "fan_out"
        worker_agent = "helper"
        merge_stage = "merge"
        max_revisits = 3
        """
    (d,) = findings(source, "cycle-without-max-revisits")
    assert d.fix.startswith("no max_revisits can bound a cycle of fall-through and merge hand-offs")


# --- allow-complete-skips-output ----------------------------------------------------------

OUTPUT = '\n[stages.report]\nmode = "output"\n[stages.report.transitions]\n'
EARLY_DONE = "[stages.work]\nallow_complete = true\n[stages.work.transitions.report]" + OUTPUT


def test_done_before_the_output_stage():
    check(EARLY_DONE, "allow-complete-skips-output")
    (d,) = findings(EARLY_DONE, "allow-complete-skips-output")
    assert (d.line, d.column, d.key_path) == (5, 1, "stages.work.allow_complete")


def test_done_after_the_output_stage_or_off_its_path_is_fine():
    check(
        """
        [stages.report]
        mode = "output"
        [stages.report.transitions.polish]
        [stages.polish]
        allow_complete = true
        [stages.polish.transitions.done]
        [stages.done.transitions]
        """
    )
    check(
        """
        [stages.a.transitions.report]
        [stages.a.transitions.side]
        [stages.side]
        allow_complete = true
        [stages.side.transitions.end]
        [stages.end.transitions]
        """
        + OUTPUT
    )


def test_done_is_only_offered_by_a_routing_stage():
    # No transitions table (falls through), or no normal edge: allow_complete is ignored-key there.
    check("[stages.work]\nallow_complete = true" + OUTPUT, "ignored-key", "output-unreachable")
    check(
        '[stages.work]\nallow_complete = true\n[stages.work.transitions.report]\ncondition = "error"' + OUTPUT,
        "ignored-key",
    )
    check("[stages.work]\nallow_complete = true\n[stages.work.transitions.done]\n[stages.done.transitions]")


# --- entry-stage-not-first ----------------------------------------------------------------


def test_entry_stage_not_first():
    source = '[agent]\nname = "t"\nentry_stage = "plan"\n[stages.review.transitions]\n[stages.plan.transitions.review]'
    (d,) = findings(source, "entry-stage-not-first")
    assert (d.line, d.column, d.end_column, d.stage) == (3, 15, 21, "plan")
    assert d.fix == "declare [stages.plan] first in the file, or drop entry_stage"
    assert "runs start at 'review', the first declared stage" in d.message
    assert "under the sandbox and tool permissions of 'plan'" in d.message
    check('[agent]\nname = "t"\nentry_stage = "plan"\n[stages.plan.transitions.review]\n[stages.review.transitions]')
    check('[agent]\nname = "t"\nentry_stage = "nope"\n[stages.plan]', "unknown-entry-stage")


# --- dead-end-possible / fanout-no-escape / dead-end-edge-to-itself ------------------------

LOOP = """
[stages.draft]
max_revisits = 2
[stages.draft.transitions.review]
{draft}
[stages.review]
max_revisits = 2
[stages.review.transitions.draft]
[stages.review.transitions.publish]
[stages.publish.transitions]
{extra}
"""


def loop(draft: str = "", extra: str = "") -> str:
    return LOOP.format(draft=draft, extra=extra)


DEAD_END_TO = '[stages.draft.transitions.{}]\ncondition = "dead_end"'


def test_a_loop_whose_targets_can_all_be_spent_can_dead_end():
    (d,) = findings(loop(), "dead-end-possible")
    assert d.stage == "draft" and "its normal target 'review' has max_revisits" in d.message


def test_a_stage_entered_once_cannot_spend_its_targets():
    # Leviath's `strandable` shape: 'b' is capped but the run never comes back to 'a'.
    check("[stages.a.transitions.b]\n[stages.b]\nmax_revisits = 1\n[stages.b.transitions]")


def test_escapes_that_stay_open():
    check(loop(DEAD_END_TO.format("publish")))
    check(loop('[stages.draft.transitions.publish]\ncondition = "error"'))
    # A capped escape the run never came back from is still unvisited at the dead end.
    check(loop(DEAD_END_TO.format("fix"), "[stages.fix]\nmax_revisits = 0\n[stages.fix.transitions]"))


def test_a_capped_escape_on_the_same_loop_may_be_spent():
    source = loop(DEAD_END_TO.format("fix"), "[stages.fix]\nmax_revisits = 1\n[stages.fix.transitions.draft]")
    draft, fix = findings(source, "dead-end-possible")  # 'fix' only leads back into the loop
    assert draft.stage == "draft" and "its escape edge to 'fix' may be spent too" in draft.message
    assert fix.stage == "fix" and "may be spent" not in fix.message


def test_unreachable_stages_do_not_dead_end():
    check(
        """
        [stages.a.transitions]
        [stages.x]
        max_revisits = 1
        [stages.x.transitions.y]
        [stages.y]
        max_revisits = 1
        [stages.y.transitions.x]
        """,
        "unreachable-stage",
        "unreachable-stage",
    )


FAN_OUT = """
[stages.split]
mode = "fan_out"
worker_agent = "helper"
on_worker_failure = "{policy}"
[stages.split.transitions.merge]
{edge}
[stages.merge.transitions]
[stages.recover.transitions]
"""
RECOVER = '[stages.split.transitions.recover]\ncondition = "{}"'


def test_fail_all_fan_out_without_an_escape():
    source = FAN_OUT.format(policy="fail_all", edge="")
    check(source, "fanout-no-escape", "unreachable-stage")
    (d,) = findings(source, "fanout-no-escape")
    assert d.key_path == "stages.split.on_worker_failure"


def test_fan_out_escapes():
    check(FAN_OUT.format(policy="fail_all", edge=RECOVER.format("error")))
    check(FAN_OUT.format(policy="fail_all", edge=RECOVER.format("dead_end")))
    check(FAN_OUT.format(policy="continue", edge=""), "unreachable-stage")


def test_a_dead_end_edge_back_to_its_own_stage():
    source = loop(DEAD_END_TO.format("draft"))
    check(source, "dead-end-edge-to-itself", "dead-end-possible")
    (d,) = findings(source, "dead-end-edge-to-itself")
    assert d.key_path == "stages.draft.transitions.draft" and "up to 2 more times" in d.message


def test_failure_self_loops_without_revisits_are_left_to_other_rules():
    # Without max_revisits it is the structure error; with 0 the edge is never taken at all.
    for condition in ("dead_end", "error"):
        edges = f'[stages.a.transitions.b]\n[stages.a.transitions.a]\ncondition = "{condition}"\n[stages.b.transitions]'
        check(edges, "self-loop-without-max-revisits")
        check("[stages.a]\nmax_revisits = 0\n" + edges, "edge-target-always-spent")
    # A capped error self-loop is a bounded retry.
    check("[stages.a]\nmax_revisits = 2\n" + edges)


# --- budgets ------------------------------------------------------------------------------


def stuck(threshold: str, stage: str = "max_iterations = 20") -> str:
    return f"""
[stages.work]
{stage}
[stages.work.transitions.done]
[stages.work.transitions.rethink]
condition = "stuck"
{threshold}
[stages.rethink.transitions]
[stages.done.transitions]
"""


def test_stuck_after_iterations_at_or_past_the_cap():
    check(stuck("stuck_after_iterations = 20"), "stuck-threshold-after-cap")
    check(stuck("stuck_after_iterations = 25"), "stuck-threshold-after-cap")
    (d,) = findings(stuck("stuck_after_iterations = 20"), "stuck-threshold-after-cap")
    assert d.key_path == "stages.work.transitions.rethink.stuck_after_iterations"
    assert "the edge never fires" in d.message
    (d,) = findings(stuck("stuck_after_iterations = 20\nstuck_after_minutes = 5"), "stuck-threshold-after-cap")
    assert "the edge never fires" not in d.message


def test_stuck_thresholds_the_cap_leaves_alone():
    check(stuck("stuck_after_iterations = 19"))
    check(stuck("stuck_after_iterations = 49", stage="max_iterations = 0"))
    check(stuck("stuck_after_iterations = 20", stage='mode = "fan_out"\nworker_agent = "x"\nmax_iterations = 20'))
    uncapped = replace(MINE, default_max_iterations=0)
    assert_codes(stuck("stuck_after_iterations = 500", stage=""), settings=uncapped)


def test_the_default_cap_pre_empts_a_stuck_threshold_at_or_above_it():
    check(stuck("stuck_after_iterations = 50", stage=""), "stuck-threshold-after-cap")
    (d,) = findings(stuck("stuck_after_iterations = 60", stage="max_iterations = 0"), "stuck-threshold-after-cap")
    assert "stops at the default cap of 50 (default-max-iterations) first" in d.message
    assert_codes(
        stuck("stuck_after_iterations = 8", stage=""),
        "stuck-threshold-after-cap",
        settings=replace(MINE, default_max_iterations=8),
    )


CAPPED_EDGE = """
[stages.work.transitions.done]
[stages.work.transitions.wrap]
condition = "max_iterations"
[stages.wrap.transitions]
[stages.done.transitions]
"""


def test_max_iterations_edges_need_a_cap():
    # An unset or 0 max_iterations takes the default cap (50), which fires the edge.
    check("[stages.work]" + CAPPED_EDGE)
    check("[stages.work]\nmax_iterations = 0" + CAPPED_EDGE)
    fan_out = '[stages.work]\nmode = "fan_out"\nworker_agent = "x"\nmax_iterations = 5'
    check(fan_out + CAPPED_EDGE, "max-iterations-edge-without-cap")
    check("[stages.work]\nmax_iterations = 5" + CAPPED_EDGE)
    # With no default cap configured, nothing ends such a stage.
    uncapped = replace(MINE, default_max_iterations=0)
    for own in ("", "\nmax_iterations = 0"):
        assert_codes("[stages.work]" + own + CAPPED_EDGE, "max-iterations-edge-without-cap", settings=uncapped)
    (d,) = [d for d in run("[stages.work]" + CAPPED_EDGE, settings=uncapped).diagnostics]
    assert "sets no max_iterations and default-max-iterations is 0" in d.message
    assert_codes("[stages.work]\nmax_iterations = 5" + CAPPED_EDGE, settings=uncapped)


def test_an_edge_back_to_a_single_visit_entry():
    source = """
        [stages.plan]
        max_revisits = 0
        [stages.plan.transitions.review]
        [stages.review.transitions.plan]
        [stages.review.transitions.done]
        [stages.done.transitions]
        """
    (d,) = findings(source, "edge-target-always-spent")
    assert d.key_path == "stages.review.transitions.plan" and "as the stage every run starts in" in d.message


OTHER_PATH = """
[stages.start.transitions.plan]
[stages.start.transitions.fix]
[stages.plan]
max_revisits = 0
[stages.plan.transitions.fix]
[stages.fix.transitions.plan]
condition = "error"
[stages.fix.transitions.done]
[stages.done.transitions]
"""


def test_an_edge_to_a_single_visit_stage_is_dead_only_when_every_path_passes_it():
    check(OTHER_PATH)  # 'fix' is also reached straight from 'start'
    (d,) = findings(OTHER_PATH.replace("[stages.start.transitions.fix]\n", ""), "edge-target-always-spent")
    assert "every run reaches 'fix' through it" in d.message


def test_a_spent_stuck_target_is_not_even_watched():
    source = """
        [stages.plan]
        max_revisits = 0
        [stages.plan.transitions.work]
        [stages.work.transitions.done]
        [stages.work.transitions.plan]
        condition = "stuck"
        stuck_after_minutes = 10
        [stages.done.transitions]
        """
    (d,) = findings(source, "edge-target-always-spent")
    assert "stuck detection in 'work' does not even watch" in d.message


def test_a_self_loop_with_no_revisits_left():
    source = """
        [stages.a]
        max_revisits = 0
        [stages.a.transitions.a]
        hint = "again"
        [stages.a.transitions.b]
        [stages.b.transitions]
        """
    (d,) = findings(source, "edge-target-always-spent")
    assert "can never be re-entered" in d.message


TWO_EDGES = """
[stages.work.transitions.done]
[stages.work.transitions.first]
condition = "{first}"
{thresholds}
[stages.work.transitions.second]
condition = "{second}"
{thresholds}
[stages.first]
{cap}
[stages.first.transitions]
[stages.second.transitions]
[stages.done.transitions]
"""


def two_edges(first: str = "error", second: str = "error", cap: str = "", thresholds: str = "") -> str:
    return TWO_EDGES.format(first=first, second=second, cap=cap, thresholds=thresholds)


def test_a_second_edge_of_the_same_condition_is_shadowed():
    (d,) = findings(two_edges(), "shadowed-edge")
    assert d.key_path == "stages.work.transitions.second"
    (d,) = findings(two_edges("stuck", "stuck", thresholds="stuck_after_minutes = 5"), "shadowed-edge")
    assert d.message.endswith(
        "its thresholds are never evaluated; Leviath's order is not this one (ambiguous-edge-order)"
    )


def test_edges_that_are_not_shadowed():
    check(two_edges(cap="max_revisits = 1"))  # the second takes over once 'first' is spent
    check(two_edges("error", "dead_end"))  # different conditions never shadow each other


# --- determinism and the corpus -----------------------------------------------------------


def test_findings_are_deterministic():
    source = loop(DEAD_END_TO.format("draft")) + "[stages.x.transitions.y]\n[stages.y.transitions.x]\n"
    first = run(source, settings=MINE).diagnostics
    assert first == run(source, settings=MINE).diagnostics and len(first) >= 4


@requires_shared
@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/agent.leviath")), ids=lambda p: p.parent.name)
def test_corpus_has_no_graph_findings(path):
    result = validate_file(path, MINE)
    assert [(d.line, d.code, d.message) for d in result.diagnostics] == []


@pytest.mark.parametrize("path", sorted((ROOT / "blueprints").glob("*.leviath")), ids=lambda p: p.name)
def test_examples_have_no_graph_findings(path):
    assert validate_file(path, MINE).diagnostics == ()
