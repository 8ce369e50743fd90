"""A Leviath run log (its host's world events) checked against the blueprint it ran.

Golden timelines of three recorded runs (`tests/runtime/*.events.ndjson`), a departure of each
kind on the example blueprints, both wire forms (control socket and gateway WebSocket), the
choice of the run, telling a log from an agent stream, and hostile input.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import compiler
from compiler.runtime import InferenceFinished, ToolCall
from compiler.runtime.leviath_log import GATEWAY_EVENTS, LogError, read_log
from compiler.runtime.log_check import check_log, render_json, render_text
from compiler.runtime.streamfile import AGENT_STREAM, LEVIATH_LOG, read_log_file, sniff_format
from tests.conftest import invoke_cli
from tests.helpers import ROOT
from tests.runtime.harness import blueprint

RUNTIME = ROOT / "tests" / "runtime"
EXAMPLES = ROOT / "blueprints"
GOLDEN = [
    ("review-loop.leviath", "reviewed-writer", 0),
    ("fan-out.leviath", "parallel-survey", 0),
    ("stuck-detection.leviath", "careful-implementer", 1),
]


def example(name: str):
    return compiler.load(str(EXAMPLES / name))


def run(*args: str, input: bytes | None = None):
    return invoke_cli("run", *args, input=input)


# --- the recorded runs ----------------------------------------------------------------------------


@pytest.mark.parametrize(("source", "name", "status"), GOLDEN)
def test_the_recorded_runs_print_the_expected_timelines(source: str, name: str, status: int) -> None:
    result = run(str(EXAMPLES / source), "--events", str(RUNTIME / f"{name}.events.ndjson"))
    expected = RUNTIME / f"{name}.events.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        expected.write_text(result.output, encoding="utf-8")
    assert result.exit_code == status, result.output
    assert result.output == expected.read_text(encoding="utf-8")


def test_a_conforming_run_in_json_has_its_steps_runner_events_and_result() -> None:
    result = run(
        str(EXAMPLES / "review-loop.leviath"),
        "--events",
        str(RUNTIME / "reviewed-writer.events.ndjson"),
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["departure"] is None and document["run_id"] == "run-2026-03-01-7f3a" and document["other_runs"] == 1
    assert document["result"] == {
        "within_blueprint": True,
        "outcome": "complete",
        "finished": True,
        "stage": "publish",
        "visits": {"draft": 2, "review": 2, "publish": 1},
        "inferences": 12,
    }
    assert document["skipped_line_numbers"] == [24]
    moves = [(s["stage"], s["target"], s["condition"]) for s in document["steps"] if s["kind"] == "move"]
    assert moves == [
        ("draft", "review", "llm_choice"),
        ("review", "draft", "llm_choice"),
        ("draft", "review", "llm_choice"),
        ("review", "publish", "llm_choice"),
    ]
    inference = next(s for s in document["steps"] if s["kind"] == "inference" and s["line"] == 34)
    assert inference["event"]["tool_calls"][0] == {
        "name": "edit_file",
        "outcome": "ok",
        "result": "Edited notes.md (+18 -2)",
    }
    assert document["not_judged"][0]["what"] == "reply texts"


def test_the_departure_in_json_names_its_line_kind_and_stage() -> None:
    result = run(
        str(EXAMPLES / "stuck-detection.leviath"),
        "--events",
        str(RUNTIME / "careful-implementer.events.ndjson"),
        "--format",
        "json",
    )
    assert result.exit_code == 1
    departure = json.loads(result.output)["departure"]
    assert (departure["line"], departure["kind"], departure["stage"]) == (97, "over-budget", "diagnose")
    assert "'summary' (dead-end)" in departure["message"]


def test_inferences_become_runner_events_with_their_tool_calls() -> None:
    lines = (RUNTIME / "reviewed-writer.events.ndjson").read_text(encoding="utf-8").splitlines()
    check = check_log(example("review-loop.leviath"), lines)
    events = [s.event for s in check.steps if s.event is not None]
    assert events[0] == InferenceFinished(
        tool_calls=(ToolCall("read_file", None, "ok", "# Brief: release notes for 2.4, one page, user-facing"),)
    )
    assert events[4].tool_calls == (ToolCall("edit_file", None, "error", "[error] old_string not found in notes.md"),)
    assert len(events) == 6 and check.inferences == 12


def gateway_form(line: str, agents: dict[str, str]) -> str:
    """One world event as `lev serve`'s WebSocket forwards it."""
    data = json.loads(line)
    if not isinstance(data, dict) or "event" not in data:
        return line
    kind = data.pop("event")
    renamed = {v: k for k, v in GATEWAY_EVENTS.items()}[kind]
    agents[data["run_id"]] = data["agent_id"]
    if kind == "spawned":
        parent = data.pop("parent_run_id", None)
        data["parent_id"] = agents.get(parent) if parent else None
    return json.dumps({"type": renamed, **data})


@pytest.mark.parametrize(("source", "name", "status"), GOLDEN)
def test_the_gateway_websocket_form_checks_the_same(source: str, name: str, status: int) -> None:
    lines = (RUNTIME / f"{name}.events.ndjson").read_text(encoding="utf-8").splitlines()
    agents: dict[str, str] = {}
    forwarded = [gateway_form(line, agents) if line.endswith("}") else line for line in lines]
    forwarded.insert(5, json.dumps({"type": "daemon_link", "connected": True}))
    forwarded.insert(0, json.dumps({"type": "daemon_link", "connected": True}))  # shifts every line by one
    ir = example(source)
    direct, via_gateway = check_log(ir, lines), check_log(ir, forwarded)
    assert [(s.line + 1 + (s.line > 5), s.kind, s.lines) for s in direct.steps] == [
        (s.line, s.kind, s.lines) for s in via_gateway.steps
    ]
    assert via_gateway.ok == direct.ok and via_gateway.visits == direct.visits and via_gateway.notes == direct.notes


# --- a departure of each kind, on the example blueprints ------------------------------------------


class Log:
    """A run log written a pass at a time, as Leviath's host emits it."""

    def __init__(self, blueprint_name: str, stage: str, run_id: str = "r1", agent: str = "a1") -> None:
        self.run_id, self.agent = run_id, agent
        self.iteration = self.tool_calls = 0
        self.stage = stage
        self.lines: list[str] = []
        self.event("spawned", blueprint=blueprint_name)
        self.status()

    def event(self, kind: str, **fields: Any) -> Log:
        self.lines.append(json.dumps({"event": kind, "run_id": self.run_id, "agent_id": self.agent, **fields}))
        return self

    def status(self, status: str = "active", **fields: Any) -> Log:
        return self.event(
            "status",
            status=status,
            stage=self.stage,
            iteration=self.iteration,
            tool_calls=self.tool_calls,
            accepts_messages=True,
            wait_reason=None,
            **fields,
        )

    def tools(self, *names: str, ok: bool = True) -> Log:
        """One inference whose calls run on the tool lane."""
        self.iteration += 1
        self.tool_calls += len(names)
        ids = [f"c{len(self.lines)}-{i}" for i in range(len(names))]
        for call_id, name in zip(ids, names, strict=True):
            self.event("tool_call_started", call_id=call_id, tool=name)
        self.status()
        for call_id, name in zip(ids, names, strict=True):
            self.event("tool_call_finished", call_id=call_id, tool=name, ok=ok, summary="done")
        return self

    def text(self, replies: int = 1) -> Log:
        self.iteration += replies
        return self.status()

    def move(self, target: str, *, visit: int = 1, status: bool = True) -> Log:
        """The stage ends on a text reply, and the transition is pushed before the status."""
        self.iteration += 1
        self.event("stage_transition", **{"from": self.stage, "to": target, "iteration": visit})
        self.stage = target
        return self.status() if status else self

    def complete(self, status: str = "complete", final_output: bool = True) -> Log:
        fields = {"final_output": {"content": "x", "format": "text"}} if final_output else {}
        return self.event("completed", status=status, **fields)

    def check(self, ir, **options: Any):
        return check_log(ir, self.lines, **options)


def departure(log: Log, ir) -> tuple[int, str, str, str] | None:
    found = log.check(ir).departure
    return None if found is None else (found.line, found.kind, found.stage, found.message)


def test_a_tool_the_stage_does_not_offer() -> None:
    log = Log("reviewed-writer", "draft").tools("write_file").move("review").tools("read_file", "write_file")
    line, kind, stage, message = departure(log, example("review-loop.leviath"))
    assert (kind, stage, line) == ("tool-not-offered", "review", len(log.lines) - 3)
    assert message == "tool 'write_file' started in 'review', which does not offer it (it offers read_file)"


def test_a_tool_a_connector_may_offer_is_a_note_not_a_departure() -> None:
    ir = blueprint('[stages.a]\navailable_tools = ["read_file"]\navailable_connectors = ["github"]\ntransitions = {}\n')
    check = Log("t", "a").tools("github__create_issue").complete().check(ir)
    assert check.ok and "its connectors or dynamic tools may offer it" in check.notes[0]


def test_an_edge_the_blueprint_does_not_have_and_a_stage_it_does_not_have() -> None:
    ir = example("review-loop.leviath")
    assert departure(Log("reviewed-writer", "draft").move("draft", visit=2), ir)[1:3] == ("no-edge", "draft")
    _, kind, _, message = departure(Log("reviewed-writer", "draft").move("polish"), ir)
    assert kind == "unknown-stage" and message.startswith("the run entered 'polish', which is not a stage")
    _, kind, _, message = departure(Log("reviewed-writer", "draft").move("review").move("publish").move("draft"), ir)
    assert kind == "no-edge" and "the blueprint has no edge publish → draft (it is terminal)" in message


def test_a_visit_beyond_the_revisit_budget_and_the_dead_end_it_leads_to() -> None:
    ir = example("review-loop.leviath")  # draft: max_revisits 3, review: max_revisits 3
    log = Log("reviewed-writer", "draft")
    for visit in range(1, 5):
        log.move("review", visit=visit).move("draft", visit=visit + 1)
    assert departure(log, ir)[1:3] == ("over-budget", "review")
    # Four reviews spend review's budget: the fourth visit to draft may dead-end to publish.
    log = Log("reviewed-writer", "draft")
    for visit in range(1, 4):
        log.move("review", visit=visit).move("draft", visit=visit + 1)
    assert departure(log.move("review", visit=4).move("draft", visit=5), ir)[1] == "over-budget"
    log = Log("reviewed-writer", "draft")
    for visit in range(1, 4):
        log.move("review", visit=visit).move("draft", visit=visit + 1)
    early = Log("reviewed-writer", "draft").move("publish")
    _, kind, _, message = departure(early, ir)
    assert kind == "edge-not-taken" and "only when no normal edge is within its budget ('review' still is)" in message
    log.move("review", visit=4).move("draft", visit=4)  # the log may number visits its own way
    check = log.move("review", visit=5).check(ir)
    assert check.departure is not None and check.departure.kind == "over-budget"


def test_the_dead_end_edge_is_allowed_once_every_normal_edge_is_spent() -> None:
    ir = example("review-loop.leviath")
    log = Log("reviewed-writer", "draft")
    for visit in range(1, 4):
        log.move("review", visit=visit).move("draft", visit=visit + 1)
    log.move("review", visit=4)  # review: 4 of its 4 visits
    log.move("draft", visit=4 + 1)  # draft: 5th visit, beyond draft's budget of 4
    assert departure(log, ir)[1] == "over-budget"
    spent = blueprint(
        """
        [stages.a]
        [stages.a.transitions.b]
        [stages.a.transitions.c]
        condition = "dead_end"
        [stages.b]
        max_revisits = 0
        [stages.b.transitions.a]
        [stages.c]
        transitions = {}
        """
    )
    log = Log("t", "a").move("b").move("a", visit=2).move("c").complete()
    check = log.check(spent)
    assert check.ok and [s.fields.get("condition") for s in check.steps if s.kind == "move"][-1] == "dead_end"


def test_inferences_beyond_the_iteration_cap() -> None:
    ir = example("review-loop.leviath")  # review: max_iterations 10
    log = Log("reviewed-writer", "draft").move("review")
    for _ in range(11):
        log.tools("read_file")
    line, kind, stage, message = departure(log, ir)
    assert (kind, stage) == ("over-cap", "review") and line == len(log.lines) - 2
    assert message == "inference 11 of 'review' (visit 1) is beyond its iteration cap of 10"
    # Replies without lane calls count too when a status places them in the visit.
    log = Log("reviewed-writer", "draft").move("review").tools("read_file").text(9).text(1)
    assert departure(log, ir)[1] == "over-cap"


def test_replies_a_status_cannot_place_are_not_counted_against_a_cap() -> None:
    ir = example("review-loop.leviath")
    log = Log("reviewed-writer", "draft").move("review", status=False)
    log.iteration += 12  # the daemon ran fast: twelve replies reported after the move
    check = log.status().check(ir)
    assert check.ok
    assert "13 replies without lane tool calls (in 'draft' or after it" in render_text(check)


def test_the_default_cap_applies_to_a_stage_without_its_own(tmp_path: Path) -> None:
    ir = blueprint('[stages.a]\navailable_tools = ["read_file"]\ntransitions = {}\n')
    log = Log("t", "a")
    for _ in range(4):
        log.tools("read_file")
    assert log.check(ir).ok
    check = log.check(ir, default_max_iterations=3)
    assert check.departure is not None and check.departure.kind == "over-cap"
    assert "(the default cap: pass the daemon's default_max_iterations if it differs)" in check.departure.message
    events = tmp_path / "capped.events.ndjson"
    events.write_text("\n".join(log.lines) + "\n", encoding="utf-8")
    source = tmp_path / "capped.leviath"
    source.write_text(
        '[agent]\nname = "t"\n[stages.a]\navailable_tools = ["read_file"]\ntransitions = {}\n', encoding="utf-8"
    )
    assert run(str(source), "--events", str(events)).exit_code == 0
    result = run(str(source), "--events", str(events), "--default-max-iterations", "3")
    assert result.exit_code == 1 and "(over-cap)" in result.output


def test_a_max_iterations_edge_before_the_cap_and_a_stuck_edge_that_is_not_the_first() -> None:
    ir = blueprint(
        """
        [stages.a]
        available_tools = ["read_file"]
        max_iterations = 3
        [stages.a.transitions.b]
        [stages.a.transitions.c]
        condition = "max_iterations"
        [stages.a.transitions.d]
        condition = "stuck"
        stuck_after_iterations = 2
        [stages.a.transitions.e]
        condition = "stuck"
        stuck_after_iterations = 2
        [stages.b]
        transitions = {}
        [stages.c]
        transitions = {}
        [stages.d]
        transitions = {}
        [stages.e]
        transitions = {}
        """
    )
    _, kind, _, message = departure(Log("t", "a").tools("read_file").move("c"), ir)
    assert kind == "edge-not-taken" and "taken at the iteration cap: the visit made 2 of its 3 inferences" in message
    assert Log("t", "a").tools("read_file").tools("read_file").move("c").complete().check(ir).ok
    _, kind, _, message = departure(Log("t", "a").move("e"), ir)
    assert kind == "edge-not-taken" and "only the first stuck edge within budget counts (it leads to 'd')" in message
    assert Log("t", "a").move("d").complete().check(ir).ok


def test_a_completion_the_runner_would_not_reach() -> None:
    ir = example("review-loop.leviath")
    _, kind, stage, message = departure(Log("reviewed-writer", "draft").move("review").complete(), ir)
    assert (kind, stage) == ("completion", "review")
    assert "has normal edges within budget ('draft', 'publish') and no allow_complete" in message
    _, kind, _, message = departure(
        Log("reviewed-writer", "draft").move("review").move("publish").complete(final_output=False), ir
    )
    assert kind == "completion" and "with no final output, which 'publish', 'report_failure' require" in message
    assert Log("reviewed-writer", "draft").move("review").move("publish").complete().check(ir).ok
    failed = Log("reviewed-writer", "draft").complete(status="error", final_output=False).check(ir)
    assert failed.ok and failed.outcome == "error"  # why it failed is not in the log


def test_a_start_elsewhere_and_a_move_from_a_stage_the_run_was_not_in() -> None:
    ir = example("review-loop.leviath")
    log = Log("reviewed-writer", "review")
    assert departure(log, ir)[1:3] == ("start", "review")
    log = Log("reviewed-writer", "draft")
    log.event("stage_transition", **{"from": "review", "to": "publish", "iteration": 1})
    _, kind, _, message = departure(log, ir)
    assert kind == "stage-mismatch" and message == "the run left 'review', but by the log it was in 'draft'"


def test_the_merge_hand_off_is_read_from_a_status_and_only_there() -> None:
    ir = example("fan-out.leviath")
    log = Log("parallel-survey", "split").text()
    log.stage = "merge"
    check = log.status().check(ir)
    assert check.ok and [s.fields.get("condition") for s in check.steps if s.kind == "move"] == ["merge"]
    log = Log("parallel-survey", "split").text()
    log.stage = "research_item"  # a status in a stage no move leads to
    assert departure(log.status(), ir)[1] == "no-edge"


# --- the run, and what the log is ------------------------------------------------------------------


def test_the_root_run_of_the_blueprint_is_chosen_or_the_one_named() -> None:
    ir = example("review-loop.leviath")
    first = Log("reviewed-writer", "draft", run_id="r1", agent="a1").move("review")
    second = Log("reviewed-writer", "draft", run_id="r2", agent="a2").move("publish")
    child = Log("reviewed-writer", "draft", run_id="r3", agent="a3")
    child.lines[0] = child.lines[0].replace('"blueprint"', '"parent_run_id": "r1", "blueprint"')
    lines = first.lines + child.lines
    assert check_log(ir, lines).run_id == "r1"  # the child is not a root run
    with pytest.raises(LogError, match=r"2 runs of 'reviewed-writer' \(r1, r2\): choose one by its run id"):
        check_log(ir, first.lines + second.lines)
    assert check_log(ir, first.lines + second.lines, run_id="r2").departure.kind == "edge-not-taken"
    with pytest.raises(LogError, match="no events of run 'r9'"):
        check_log(ir, lines, run_id="r9")
    with pytest.raises(LogError, match="no world events"):
        check_log(ir, ["not json", '{"type": "assistant"}'])
    other = check_log(ir, Log("triage", "draft").lines, run_id="r1")
    assert other.notes[0] == "the run is of 'triage', the blueprint is named 'reviewed-writer'"


def test_a_log_that_begins_mid_run_counts_from_its_first_status() -> None:
    ir = example("review-loop.leviath")
    log = Log("reviewed-writer", "draft")
    log.lines = log.lines[1:]  # no spawned event
    log.lines[0] = log.lines[0].replace('"iteration": 0', '"iteration": 7')
    log.iteration = 7
    check = log.tools("read_file").check(ir)
    assert check.ok and check.notes[0].startswith("the log begins after the run started")
    assert [s.kind for s in check.steps] == ["start", "inference"]


def test_a_lost_daemon_link_is_noted() -> None:
    lines = [*Log("t", "a").lines, json.dumps({"type": "daemon_link", "connected": False})]
    check = check_log(blueprint("[stages.a]\ntransitions = {}\n"), lines)
    assert "the gateway lost its link to the daemon at line 3" in check.notes[-1]


def test_sniffing_tells_a_log_from_an_agent_stream() -> None:
    def kind(*lines: str) -> str:
        found, rest = sniff_format(iter([line.encode() for line in lines]))
        assert [line.decode() for line in rest] == list(lines)  # nothing is lost by looking
        return found

    world = Log("t", "a").lines[0]
    assert kind("junk", "", "[1]", world) == LEVIATH_LOG
    assert kind(json.dumps({"type": "agent_status", "run_id": "r", "stage": "a"})) == LEVIATH_LOG
    assert kind('{"event": "interaction", "answer": "yes"}', world) == AGENT_STREAM  # native: no run id
    assert kind('{"type": "assistant", "message": {}}', world) == AGENT_STREAM
    assert kind(": comment", "data: {}", world) == AGENT_STREAM
    assert kind("junk only") == AGENT_STREAM


def test_the_cli_reads_a_log_from_stdin_and_refuses_options_it_cannot_honour(tmp_path: Path) -> None:
    source = str(EXAMPLES / "review-loop.leviath")
    data = (RUNTIME / "reviewed-writer.events.ndjson").read_bytes()
    piped = run(source, "--events", "-", input=data)
    assert piped.exit_code == 0 and "result: within the blueprint; the run ended complete in 'publish'" in piped.output
    for option in (["--unattended"], ["--save-scenario", str(tmp_path / "s.toml")]):
        refused = run(source, "--events", "-", *option, input=data)
        assert refused.exit_code == 2 and f"{option[0]} applies to an agent stream" in refused.output
    stream = str(RUNTIME / "review-loop.ndjson")
    refused = run(str(RUNTIME / "review-loop.leviath"), "--events", stream, "--run-id", "r1")
    assert refused.exit_code == 2 and "--run-id chooses a run of a Leviath log" in refused.output
    forced = run(str(RUNTIME / "review-loop.leviath"), "--events", stream, "--events-format", "leviath")
    assert forced.exit_code == 2 and "the log holds no world events of any run" in forced.output
    two = tmp_path / "two.ndjson"
    two.write_text(
        "\n".join(Log("reviewed-writer", "draft").lines + Log("reviewed-writer", "draft", run_id="r2").lines)
    )
    ambiguous = run(source, "--events", str(two))
    assert ambiguous.exit_code == 2 and "choose one by its run id (--run-id)" in ambiguous.output
    assert run(source, "--events", str(two), "--run-id", "r2").exit_code == 0


# --- hostile input ---------------------------------------------------------------------------------


def test_lines_too_long_to_keep_are_skipped_and_counted(tmp_path: Path) -> None:
    lines = Log("t", "a").lines
    check = check_log(blueprint("[stages.a]\ntransitions = {}\n"), [lines[0], None, lines[1]])
    assert check.skipped == 1 and check.skipped_lines == [2]
    data = ("x" * 5000 + "\n" + "\n".join(lines) + "\n").encode()
    path = tmp_path / "long.events.ndjson"
    path.write_bytes(data)
    log = read_log_file(str(path), max_line=4096)
    assert log.skipped == 1 and len(log.events) == 2


_KINDS = st.sampled_from(
    [
        "spawned",
        "status",
        "stage_transition",
        "tool_call_started",
        "tool_call_finished",
        "completed",
        "interaction",
        "log",
        "tokens",
    ]
)
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 30),
    st.sampled_from(["draft", "review", "publish", "x", "c1", "complete", "error", ""]),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.sampled_from(["reason", "kind", "prompt", "outstanding"]), st.text(max_size=4), max_size=2),
)
_FIELDS = st.sampled_from(
    [
        "stage",
        "from",
        "to",
        "iteration",
        "tool_calls",
        "call_id",
        "tool",
        "ok",
        "summary",
        "status",
        "final_output",
        "request",
        "wait_reason",
        "parent_run_id",
        "blueprint",
    ]
)
_world = st.builds(
    lambda kind, run_id, fields, gateway: json.dumps(
        {
            ("type" if gateway else "event"): {v: k for k, v in GATEWAY_EVENTS.items()}[kind] if gateway else kind,
            "run_id": run_id,
            "agent_id": "a",
            **fields,
        }
    ),
    _KINDS,
    st.sampled_from(["r1", "r1", "r2"]),
    st.dictionaries(_FIELDS, _VALUES, max_size=6),
    st.booleans(),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_world, st.text(max_size=10), st.none()), max_size=25))
def test_any_log_is_checked_or_refused_with_a_log_error_never_a_crash(lines: list[str | None]) -> None:
    ir = example("review-loop.leviath")
    log = read_log(lines)
    assert log.skipped <= len(lines)
    try:
        check = check_log(ir, log, run_id="r1" if "r1" in log.runs else None)
    except LogError:
        return
    render_text(check)
    json.loads(render_json(check))
    assert check.departure is None or check.departure.line <= len(lines)
