"""Data flow over context regions (`compiler.analysis.dataflow`): a read is reported only on a
run where nothing before the reader could have filled the region, with that run replayed; what
Leviath fills on its own (seeds, the task, the runtime's reports, routed tool results) and what
could fill anything (context tools, hooks, child agents, dynamic tools) silences it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import compiler
from tests.conftest import invoke_cli
from tests.helpers import ROOT

MODEL = 'model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }'


def blueprint(
    regions: str, first: str = "", reader: str = 'system_prompt = "Build what `plan` says."', top: str = ""
) -> str:
    return f"""[agent]
name = "flow"
{top}
[context.regions]
{regions}

[stages.research]
mode = "autonomous"
{MODEL}
max_iterations = 4
available_tools = ["read_file"]
{first}

[stages.research.transitions.build]

[stages.build]
mode = "autonomous"
{MODEL}
max_iterations = 4
available_tools = ["read_file", "write_file"]
{reader}
transitions = {{}}
"""


PLAN = 'task = { kind = "pinned", max_tokens = 1000 }\nplan = { kind = "temporary", max_tokens = 2000 }'


def findings(text: str) -> list[compiler.analysis.Finding]:
    result = compiler.check_text(text, "flow.leviath")
    assert result.analysis is not None, [d.message for d in result.result.diagnostics if d.severity == "error"]
    return [f for f in result.analysis.findings if f.code in ("region-read-before-written", "output-region-empty")]


def test_the_run_that_reads_the_empty_region_is_replayed_into_the_reader() -> None:
    [finding] = findings(blueprint(PLAN))
    assert finding.code == "region-read-before-written" and finding.stage == "build"
    assert finding.path == ("stages", "build", "system_prompt")
    trace = finding.trace
    assert trace is not None and trace.verified and trace.outcome == "enters"
    assert [step.stage for step in trace.steps] == ["research"] and trace.steps[-1].exit[1] == "build"


def test_a_read_in_the_first_stage_needs_no_run_before_it() -> None:
    text = blueprint(PLAN, first='system_prompt = "Start from `plan`."', reader="")
    [finding] = findings(text)
    assert finding.stage == "research" and finding.trace is None and "it is where runs start" in finding.message


@pytest.mark.parametrize(
    ("regions", "first", "top", "why"),
    [
        (PLAN, 'available_tools = ["read_file", "context_append"]', "", "a context tool may fill any region"),
        (PLAN, 'available_tools = ["read_file", "todo_add"]', "", "a checklist tool writes too"),
        (PLAN, 'available_tools = ["read_file", "spawn_agent"]', "", "a child agent is out of sight"),
        (PLAN, "", "dynamic_tools = true", "dynamic tools may be context tools"),
        (PLAN, '[stages.research.tool_routing]\ndefault_region = "plan"', "", "its tool results land in plan"),
        (
            PLAN,
            '[stages.research.tool_routing.overrides]\nread_file = { region = "plan" }',
            "",
            "one tool's results land in plan",
        ),
        ('plan = { kind = "pinned", max_tokens = 2000 }', "", "", "the first pinned region gets the task"),
        (PLAN.replace("max_tokens = 2000 }", 'max_tokens = 2000, seed = { literal = "x" } }'), "", "", "seeded"),
    ],
)
def test_whatever_could_fill_the_region_silences_the_read(regions: str, first: str, top: str, why: str) -> None:
    if first.startswith("[stages"):
        first = 'available_tools = ["read_file", "context_read"]\n\n' + first
    else:
        first = first or 'available_tools = ["read_file"]'
    text = blueprint(regions, "", top=top).replace('available_tools = ["read_file"]\n', first + "\n", 1)
    assert findings(text) == [], why


def test_regions_the_runtime_fills_are_never_reported() -> None:
    regions = PLAN + '\nerror_report = { kind = "pinned", max_tokens = 500 }'
    assert findings(blueprint(regions, reader='system_prompt = "Read `error_report` and `conversation`."')) == []


def test_a_reader_that_can_fill_the_region_itself_is_not_reported() -> None:
    reader = 'system_prompt = "Write the plan into `plan`."\navailable_tools = ["context_write"]'
    text = blueprint(PLAN, reader=reader).replace(
        'available_tools = ["read_file", "write_file"]\nsystem_prompt', "system_prompt"
    )
    assert findings(text) == []


def test_json_carries_the_run_that_enters_the_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "flow.leviath").write_text(blueprint(PLAN), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    report = json.loads(invoke_cli("check", "--format", "json", "flow.leviath").output)
    jsonschema.validate(report, json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8")))
    [trace] = report["files"][0]["analysis"]["traces"]
    assert trace["code"] == "region-read-before-written" and trace["outcome"] == "enters" and trace["verified"]
