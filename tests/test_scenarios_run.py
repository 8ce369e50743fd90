"""Playing scenarios: scripts that fit and scripts that no longer do, every expectation both ways,
recorded runs that replay the same, and the library's selection and reports."""

from __future__ import annotations

import json
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.pipeline import validate_text
from compiler.runtime.events import (
    InferenceFailed,
    InferenceFinished,
    InteractionAnswered,
    RegionChanged,
    RoutingAnswer,
    Tick,
    ToolCall,
    WorkersFinished,
)
from compiler.scenarios.record import record, scenario_toml
from compiler.scenarios.report import render_json, render_text
from compiler.scenarios.runner import run_file
from tests.helpers import ROOT

LOOP = """
[agent]
name = "loop"
[stages.draft]
available_tools = ["read_file", "write_file"]
max_revisits = 1
[stages.draft.transitions.review]
[stages.draft.transitions.fallback]
condition = "error"
[stages.review]
available_tools = ["read_file"]
[stages.review.transitions.draft]
hint = "changes"
[stages.review.transitions.done]
hint = "approved"
[stages.review.transitions.fallback]
hint = "give up"
[stages.fallback]
transitions = {}
[stages.done]
transitions = {}
"""


def play(scenarios: str, blueprint: str = LOOP, **kwargs):
    """Run scenario text against blueprint text; the single result."""
    text = textwrap.dedent(blueprint)
    outcome = run_file(
        "t.scenarios.toml", textwrap.dedent(scenarios).encode(), loader=lambda path: validate_text(text, path), **kwargs
    )
    assert outcome.problems == (), outcome.problems
    return outcome


def only(scenarios: str, blueprint: str = LOOP):
    (result,) = play(scenarios, blueprint).results
    return result


APPROVED = """
[[scenario]]
name = "approved"
script = [
  { stage = "draft", do = ["call write_file a.md", "text"] },
  { stage = "review", do = ["call read_file a.md", "text", "route done"] },
  { stage = "done", do = ["call read_file a.md", "text"] },
]
"""


def with_expect(expect: str, script: str = APPROVED) -> str:
    return script + "\n[scenario.expect]\n" + textwrap.dedent(expect)


# --- scripts that fit ------------------------------------------------------------------------------


def test_a_fitting_script_plays_to_the_end() -> None:
    result = only(APPROVED)
    assert result.passed and result.played.path == ["draft", "review", "done"] and result.played.status == "complete"


@pytest.mark.parametrize(
    ("expect", "passes"),
    [
        ('status = "complete"', True),
        ('status = "error"', False),
        ('stage = "done"', True),
        ('via = "terminal"', True),
        ('path = ["draft", "review", "done"]', True),
        ('path = ["draft", "done"]', False),
        ('path_includes = ["draft", "done"]', True),
        ('path_includes = ["done", "draft"]', False),
        ("visits = { draft = 1, review = 1 }", True),
        ('visits = { draft = ">= 2" }', False),
        ("inferences = 6", True),
        ('inferences = "< 6"', False),
        ("output = false", True),
        ("holds = { nudge = 0, gate_held = false }", True),
        ("holds = { nudge = true }", False),
        ('budgets = { draft = 1, review = "unlimited" }', True),
        ("budgets = { draft = 0 }", False),
        ('flags = { modified_files = ["a.md"], modified_file_count = 1 }', True),
        ("flags = { gates_forced = 1 }", False),
        ("bounded = true", True),
        ('notes = ["anything"]', False),
        ('reason = "dead"', False),
    ],
)
def test_each_expectation_holds_or_fails(expect: str, passes: bool) -> None:
    result = only(with_expect(expect))
    assert result.passed == passes, result.failures
    negated = only(APPROVED + "\n[scenario.expect_not]\n" + expect)
    assert negated.passed == (not passes), negated.failures


def test_a_failure_points_at_its_expectation_and_says_expected_and_actual() -> None:
    result = only(with_expect('status = "complete"\npath = ["draft", "done"]\n'))
    (failure,) = result.failures
    assert failure.key == "path" and (failure.where.span.line, failure.where.span.column) == (12, 8)
    assert failure.expected == "draft → done" and failure.actual == "draft → review → done"
    text = render_text([play(with_expect('path = ["draft", "done"]'))])
    assert "t.scenarios.toml:11:8: error[expectation-failed] scenario 'approved': path: expected draft → done" in text
    assert "≠ │ review (visit 1)" in text


def test_holds_and_notes_of_a_nudge_and_an_error() -> None:
    script = """
    [[scenario]]
    name = "nudged then failed"
    script = [
      { stage = "draft", do = ["text", "call read_file", "fail: boom"] },
      { stage = "fallback", do = ["text"] },
    ]
    expect = { status = "unfinished", holds = { nudge = 2, error = 1 }, notes = ["[Inference error in stage 'draft'] boom"] }
    """
    assert only(script).passed


def test_a_loop_that_spends_no_budget_is_not_bounded() -> None:
    blueprint = LOOP.replace("max_revisits = 1\n", "")
    script = """
    [[scenario]]
    name = "round and round"
    script = [
      { stage = "draft", do = ["call write_file a.md", "text"] },
      { stage = "review", do = ["call read_file a.md", "text", "route draft"] },
      { stage = "draft", do = ["call write_file a.md", "text"] },
    ]
    expect = { bounded = true }
    """
    result = only(script, blueprint)
    assert [f.key for f in result.failures] == ["bounded"]
    assert "'draft' (visit 2) was entered in the same run state as visit 1" in result.failures[0].actual
    assert only(script).passed  # with max_revisits, the second entry has spent a revisit


# --- scripts that no longer fit ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "at", "message"),
    [
        (
            '{ stage = "drift", do = ["text"] }',
            '"drift"',
            "the script visits 'drift' is not a stage of the blueprint (stages: draft, review, fallback, done)",
        ),
        (
            '{ stage = "draft", do = ["call read_file", "text"] }, { stage = "review", do = ["call read_file", "text", "route publish"] }',
            '"route publish"',
            "'review' has no edge to 'publish' (its edges lead to: draft, done, fallback)",
        ),
        (
            '{ stage = "draft", do = ["call read_file", "fill nowhere"] }',
            '"fill nowhere"',
            "the blueprint has no region 'nowhere'",
        ),
        ('{ stage = "review", do = ["text"] }', '"review"', "the run starts in 'draft', not in 'review'"),
        (
            '{ stage = "draft", do = ["route review"] }',
            '"route review"',
            "the run waits for a reply here (text, call, submit, fan_out or fail), not 'route review'",
        ),
        (
            '{ stage = "draft", do = ["call read_file", "text", "fail"] }',
            '"fail"',
            "the run has already left 'draft' for 'review' (visit 1) by its always edge; 'fail' would happen in a new visit",
        ),
        (
            '{ stage = "draft", do = ["call read_file"] }, { stage = "review", do = ["text"] }',
            '"review"',
            "the run is still in 'draft' (visit 1), waiting for a reply; the script moves on to a visit of 'review'",
        ),
        (
            '{ stage = "draft", do = ["call read_file", "text"] }, { stage = "review", do = ["call read_file", "text", "done"] }',
            '"done"',
            "'review' has no allow_complete, so DONE is not offered (offered: draft, done, fallback)",
        ),
        (
            '{ stage = "draft", do = ["fail"] }, { stage = "fallback", do = ["call read_file", "text", "text"] }',
            '"text"]',
            "the run has already ended (complete in 'fallback'); nothing is left for 'text'",
        ),
    ],
)
def test_a_script_that_no_longer_fits_fails_at_the_step(script: str, at: str, message: str) -> None:
    line = f"  {script},"
    result = only(f'[[scenario]]\nname = "misfit"\nscript = [\n{line}\n]\n')
    (failure,) = result.failures
    assert failure.key == "script" and not failure.updatable
    assert failure.message == message
    assert (failure.where.span.line, failure.where.span.column) == (4, line.rindex(at) + 1)


def test_a_routing_answer_to_a_spent_target_is_not_offered() -> None:
    script = """
    [[scenario]]
    name = "spent"
    script = [
      { stage = "draft", do = ["call write_file a.md", "text"] },
      { stage = "review", do = ["call read_file a.md", "text", "route draft"] },
      { stage = "draft", do = ["call write_file a.md", "text"] },
      { stage = "review", do = ["call read_file a.md", "text", "route draft"] },
    ]
    """
    (failure,) = only(script).failures
    assert failure.message == "'draft' is not offered: it has used up its max_revisits (offered: done, fallback)"


def test_an_answer_that_is_no_option_does_not_fit() -> None:
    blueprint = """
    [agent]
    name = "ask"
    [stages.plan]
    mode = "interactive_points"
    available_tools = ["read_file"]
    [[stages.plan.interaction_points]]
    name = "ok"
    prompt = "Fine?"
    style = "multiple_choice"
    options = ["Approve", "Abort"]
    abort_options = ["Abort"]
    [stages.plan.transitions]
    """
    base = '[[scenario]]\nname = "a"\nscript = [{ stage = "plan", do = ["call read_file", "text", "answer %s"] }]\n'
    assert only(base % "Approve" + 'expect = { status = "complete" }\n', blueprint).passed
    assert only(base % "Abort" + 'expect = { status = "cancelled" }\n', blueprint).passed
    (failure,) = only(base % "Accept", blueprint).failures
    assert failure.message == "'Accept' is not an option of interaction point 'ok' (Approve, Abort)"


# --- selection, NDJSON scripts, reports ----------------------------------------------------------------


def test_k_selects_by_part_of_the_name_or_a_glob() -> None:
    two = APPROVED + APPROVED.replace('"approved"', '"second try"')
    assert [r.scenario.name for r in play(two, pattern="SECOND").results] == ["second try"]
    assert [r.scenario.name for r in play(two, pattern="app*").results] == ["approved"]
    assert play(two, pattern="nothing").results == ()


def test_an_ndjson_file_is_a_script(tmp_path) -> None:
    events = [
        {"event": "inference", "tool_calls": [{"name": "read_file"}], "now": 100},
        {"event": "inference", "text": "done", "now": 101},
        {"event": "inference", "tool_calls": [{"name": "read_file"}]},
        {"event": "inference", "text": "looks good"},
        {"event": "routing", "reply": "I approve: done"},
    ]
    (tmp_path / "run.ndjson").write_text("\n".join(map(json.dumps, events)) + "\nnot json\n", encoding="utf-8")
    (tmp_path / "a.scenarios.toml").write_text(
        '[[scenario]]\nname = "recorded"\nscript = "run.ndjson"\nexpect = { path = ["draft", "review", "done"] }\n',
        encoding="utf-8",
    )
    path = str(tmp_path / "a.scenarios.toml")
    outcome = run_file(path, (tmp_path / "a.scenarios.toml").read_bytes(), loader=lambda p: validate_text(LOOP, p))
    assert [r.passed for r in outcome.results] == [True]
    (tmp_path / "a.scenarios.toml").write_text(
        '[[scenario]]\nname = "gone"\nscript = "missing.ndjson"\n', encoding="utf-8"
    )
    outcome = run_file(path, (tmp_path / "a.scenarios.toml").read_bytes(), loader=lambda p: validate_text(LOOP, p))
    (failure,) = outcome.results[0].failures
    assert failure.message.startswith("cannot read the events") and failure.where.span.line == 3


def test_a_blueprint_with_errors_is_a_positioned_problem() -> None:
    outcome = run_file(
        "t.scenarios.toml",
        b'blueprint = "x.leviath"\n' + APPROVED.encode(),
        loader=lambda p: validate_text("[stages.a]\n[stages.a.transitions.nowhere]\n", p),
    )
    (problem,) = outcome.problems
    assert problem.code == "scenario-blueprint" and problem.span.line == 1 and not outcome.ok
    assert "has errors" in problem.message


def test_the_json_report_has_failures_with_positions_and_the_run() -> None:
    document = json.loads(render_json([play(with_expect('status = "error"'))]))
    (scenario,) = document["files"][0]["scenarios"]
    assert scenario["passed"] is False and scenario["run"]["path"] == ["draft", "review", "done"]
    (failure,) = scenario["failures"]
    assert failure == {
        "expectation": "status",
        "message": "status: expected error, got complete",
        "line": 11,
        "column": 10,
        "expected": "error",
        "actual": "complete",
    }
    assert document["summary"] == {"files": 1, "scenarios": 1, "passed": 0, "failed": 1, "problems": 0}


# --- recording a run --------------------------------------------------------------------------------------


def _events():
    calls = st.sampled_from(
        [
            ToolCall("read_file", "a.md"),
            ToolCall("write_file", "a.md"),
            ToolCall("write_file", "b c.md"),
            ToolCall("edit_file", "a.md", "denied"),
            ToolCall("read_file", None, "ok", "[error] nope"),
            ToolCall("web_search", None, "ok", "[]"),
        ]
    )
    return st.lists(
        st.one_of(
            st.builds(
                InferenceFinished,
                text=st.sampled_from(["", "done", "review", "I pick done"]),
                tool_calls=st.lists(calls, max_size=2).map(tuple),
                now=st.sampled_from([None, 5.0, 70.0, 2000.0]),
            ),
            st.builds(
                InferenceFailed,
                kind=st.sampled_from(["error", "credits", "auth"]),
                message=st.sampled_from(["boom", "a: b"]),
            ),
            st.builds(RoutingAnswer, reply=st.sampled_from(["review", "done", "draft", "DONE", "nonsense"])),
            st.builds(
                RegionChanged,
                region=st.sampled_from(["plan", "conversation"]),
                hash=st.sampled_from(["", "h1", "h2"]),
                entries=st.integers(0, 2),
            ),
            st.builds(Tick, now=st.sampled_from([None, 100.0, 5000.0])),
            st.builds(InteractionAnswered, answer=st.sampled_from([None, "ok", "Abort"])),
            st.builds(WorkersFinished, completed=st.integers(0, 2)),
        ),
        max_size=25,
    )


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(events=_events())
def test_a_recorded_run_replays_to_the_same_run(events) -> None:
    """Whatever the events, the scenario `record` writes plays to the same visits and state."""
    ir = validate_text(LOOP, "loop.leviath").blueprint
    recording = record(ir, events)
    text = scenario_toml("recorded", recording.visits)
    outcome = run_file("r.scenarios.toml", text.encode(), loader=lambda p: validate_text(LOOP, p))
    assert outcome.problems == (), text
    (result,) = outcome.results
    assert result.passed, (text, result.failures)
    original, replayed = recording.played, result.played
    assert replayed.path == original.path, text
    assert [v.exit for v in replayed.visits] == [v.exit for v in original.visits]
    assert replayed.state.visits == original.state.visits and replayed.state.status == original.state.status
    assert replayed.state.flags == original.state.flags
    assert replayed.holds() == original.holds()


def test_the_examples_are_documented_beside_their_blueprints() -> None:
    names = {p.name.removesuffix(".leviath") for p in (ROOT / "blueprints").glob("*.leviath")}
    assert names == {p.name.removesuffix(".scenarios.toml") for p in (ROOT / "blueprints").glob("*.scenarios.toml")}


CAPLESS = """
[agent]
name = "capless"
[stages.work]
available_tools = ["read_file"]
[stages.work.transitions.done]
condition = "max_iterations"
[stages.done]
transitions = {}
"""

THREE_REPLIES = """
[[scenario]]
name = "the cap ends the work"
{option}
script = [{{ stage = "work", do = ["call read_file a ×3"] }}]
expect = {{ stage = "done" }}
"""


def test_a_stage_without_a_cap_gets_the_projects_default_cap() -> None:
    scenario = THREE_REPLIES.format(option="")
    from compiler.config import Settings

    capped = play(scenario, CAPLESS, settings_of=lambda path: Settings(default_max_iterations=3)).results[0]
    assert capped.passed, capped.failures
    uncapped = play(scenario, CAPLESS).results[0]  # the usual cap of 50: three calls do not reach it
    assert not uncapped.passed


def test_a_scenario_can_pin_its_own_default_cap() -> None:
    (result,) = play(THREE_REPLIES.format(option="default_max_iterations = 3"), CAPLESS).results
    assert result.passed, result.failures


def test_a_negative_default_cap_is_a_format_error() -> None:
    outcome = run_file(
        "t.scenarios.toml",
        THREE_REPLIES.format(option="default_max_iterations = -1").encode(),
        loader=lambda path: validate_text(textwrap.dedent(CAPLESS), path),
    )
    assert [(d.code, d.line) for d in outcome.problems] == [("scenario-format", 4)]


def test_a_recorded_run_keeps_the_cap_it_ran_with() -> None:
    from compiler.scenarios.record import run_options

    assert run_options(False, 50) == {}
    assert run_options(True, 7) == {"unattended": True, "default_max_iterations": 7}
