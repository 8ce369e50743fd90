"""`blueprint run`: the timeline of a recorded stream (golden), JSON output, and exit statuses."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import invoke_cli

HERE = Path(__file__).parent / "runtime"
BLUEPRINT = HERE / "review-loop.leviath"
EVENTS = HERE / "review-loop.ndjson"
EXPECTED = HERE / "review-loop.txt"


def invoke(*args: str):
    return invoke_cli("run", *args)


def test_the_recorded_stream_prints_the_expected_timeline():
    result = invoke(str(BLUEPRINT), "--events", str(EVENTS))
    if os.environ.get("UPDATE_GOLDEN"):
        EXPECTED.write_text(result.output, encoding="utf-8")
    assert result.exit_code == 0, result.output
    assert result.output == EXPECTED.read_text(encoding="utf-8")


def test_json_output_carries_every_step_and_the_result():
    result = invoke(str(BLUEPRINT), "--events", str(EVENTS), "--format", "json")
    assert result.exit_code == 0
    document = json.loads(result.output)
    assert document["result"]["status"] == "complete" and document["result"]["finished"] is True
    assert document["result"]["visits"] == {"plan": 1, "implement": 2, "reassess": 1, "review": 1, "ship": 1}
    assert document["skipped_lines"] == 1 and document["skipped_line_numbers"] == [14]
    kinds = [a["action"] for step in document["steps"] for a in step["actions"]]
    assert kinds.count("take_edge") == 5 and kinds.count("ask_route") == 1 and kinds[-1] == "complete"
    edges = [
        (a["source"], a["target"], a["condition"])
        for s in document["steps"]
        for a in s["actions"]
        if a["action"] == "take_edge"
    ]
    assert edges[1] == ("implement", "reassess", "stuck")


def test_events_that_run_out_exit_1_and_say_so(tmp_path):
    events = tmp_path / "short.ndjson"
    events.write_text("\n".join(EVENTS.read_text().splitlines()[:6]) + "\n")
    result = invoke(str(BLUEPRINT), "--events", str(events))
    assert result.exit_code == 1
    assert "result: unfinished: the events ran out" in result.output


def test_a_failed_run_exits_1(tmp_path):
    events = tmp_path / "fail.ndjson"
    events.write_text('{"event": "inference_failed", "message": "provider exploded", "now": 1}\n')
    result = invoke(str(BLUEPRINT), "--events", str(events))
    assert result.exit_code == 1 and "result: error in stage 'plan': provider exploded" in result.output


def test_a_blueprint_with_errors_is_refused(tmp_path):
    bad = tmp_path / "bad.leviath"
    bad.write_text('[agent]\nname = "t"\n[stages.a.transitions.nowhere]\n')
    result = invoke(str(bad), "--events", str(EVENTS))
    assert result.exit_code == 1
    assert "refusing to run" in result.stderr and "unknown-stage" in result.stderr
    assert "start in" not in result.stdout


def test_usage_and_io_errors_exit_2(tmp_path):
    assert invoke(str(BLUEPRINT)).exit_code == 2  # --events missing
    assert invoke(str(tmp_path / "missing.leviath"), "--events", str(EVENTS)).exit_code == 2
    assert invoke(str(BLUEPRINT), "--events", str(tmp_path / "missing.ndjson")).exit_code == 2
    assert invoke(str(BLUEPRINT), "--events", str(EVENTS), "--format", "xml").exit_code == 2


LOOPING = """[agent]
name = "loop"
[agent.nudge]
enabled = false
[stages.work]
mode = "autonomous"
model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
available_tools = ["read_file"]
[stages.wrap]
mode = "autonomous"
model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
max_iterations = 5
"""


def test_the_default_iteration_cap_comes_from_the_configuration_and_the_flag(tmp_path):
    blueprint = tmp_path / "agent.leviath"
    blueprint.write_text(LOOPING)
    events = tmp_path / "calls.ndjson"
    call = '{"event": "inference", "tool_calls": [{"name": "read_file", "outcome": "ok"}]}'
    events.write_text("\n".join([call] * 4) + "\n")

    def stages(*flags: str) -> list[str]:
        result = invoke(str(blueprint), "--events", str(events), "--format", "json", *flags)
        document = json.loads(result.output)
        return [a["target"] for s in document["steps"] for a in s["actions"] if a["action"] == "take_edge"]

    assert stages() == []  # 4 turns stay below the default cap of 50
    assert stages("--default-max-iterations", "3") == ["wrap"]
    (tmp_path / "pyproject.toml").write_text("[tool.blueprint]\ndefault-max-iterations = 2\n")
    assert stages() == ["wrap"]
    assert stages("--default-max-iterations", "0") == []
    result = invoke(str(blueprint), "--events", str(events), "--default-max-iterations", "-1")
    assert result.exit_code == 2
