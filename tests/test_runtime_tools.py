"""`judge_tool`: a host asks before it runs a call, and gets Leviath's policy resolution."""

from __future__ import annotations

import pytest

from compiler.runtime import RunState, judge_tool, start
from compiler.runtime.tools import default_policy, read_path_declared
from tests.runtime.harness import blueprint

BLUEPRINT = """
[tool_permissions]
web_fetch = "allow"
bash = "allow"
read_file = "deny"
[read_paths]
allow = ["~/notes", "glob:/data/**/*.csv", "regex:/var/log/app-[0-9]+\\\\.log", "docs"]
[stages.work]
available_tools = ["read_file", "shell", "web_fetch", "write_file", "todo_add"]
required_tools = ["write_file"]
[stages.work.tool_permissions]
read_file = "allow"
write_file = "ask"
[stages.work.transitions.done]
[stages.done]
available_tools = ["read_file"]
transitions = {}
"""


@pytest.fixture
def run():
    ir = blueprint(BLUEPRINT)
    state, _ = start(ir, 0.0)
    return ir, state


def test_the_stage_offers_a_tool_under_any_of_its_names(run):
    ir, state = run
    assert judge_tool(ir, state, "bash").offered and judge_tool(ir, state, "shell").canonical == "shell"
    verdict = judge_tool(ir, state, "edit_file")
    assert not verdict.offered and not verdict.runs and verdict.stage == "work"


def test_the_stage_layer_comes_before_the_agent_layer(run):
    ir, state = run
    assert judge_tool(ir, state, "read_file").permission == "allow"
    assert judge_tool(ir, state, "read_file").source == "stage"
    done = RunState.from_dict({**state.to_dict(), "stage": "done", "visits": {"work": 1, "done": 1}})
    assert judge_tool(ir, done, "read_file").permission == "deny"  # the agent's layer there


def test_a_blueprint_cannot_loosen_a_risky_tool_on_its_own_but_may_pre_approve_web_fetch(run):
    ir, state = run
    shell = judge_tool(ir, state, "shell")  # the agent says `bash = "allow"`: read under any spelling
    assert (shell.permission, shell.source) == ("ask", "default")
    assert judge_tool(ir, state, "shell", blueprint_may_loosen=True).permission == "allow"
    assert judge_tool(ir, state, "web_fetch").permission == "allow"


def test_the_users_settings_are_a_ceiling_the_blueprint_may_only_tighten(run):
    ir, state = run
    assert judge_tool(ir, state, "read_file", user={"read_file": "ask"}).permission == "ask"
    assert judge_tool(ir, state, "write_file", user={"write_file": "allow"}).permission == "ask"
    assert judge_tool(ir, state, "shell", user={"bash": "allow"}).permission == "allow"
    # The runtime's own tools are answered with no permission check at all, as in Leviath.
    todo = judge_tool(ir, state, "todo_add", user={"todo_add": "deny"})
    assert todo.inline and (todo.permission, todo.source) == ("allow", "inline") and todo.runs


def test_a_launch_flag_relaxes_anything_but_a_deny(run):
    ir, state = run
    assert judge_tool(ir, state, "write_file", launch={"*": "allow"}).permission == "allow"
    verdict = judge_tool(ir, state, "shell", user={"shell": "deny"}, launch={"*": "allow"})
    assert (verdict.permission, verdict.source) == ("deny", "user")
    assert judge_tool(ir, state, "write_file", launch={"write_file": "deny"}).permission == "deny"


def test_required_tools_are_marked(run):
    ir, state = run
    assert judge_tool(ir, state, "write_file").required and not judge_tool(ir, state, "shell").required


def test_built_in_defaults():
    assert [default_policy(t) for t in ("read_file", "list_dir", "context_write", "ask_user_text")] == ["allow"] * 4
    assert [default_policy(t) for t in ("write_file", "edit_file", "shell", "bash", "mcp__x__y")] == ["ask"] * 5


def test_read_paths_are_matched_as_leviath_matches_them(run):
    ir, state = run
    home, workdir = "/home/u", "/work/repo"

    def declared(path: str) -> bool | None:
        return judge_tool(ir, state, "read_file", path, home=home, workdir=workdir).read_path

    assert declared("/home/u/notes") and declared("/home/u/notes/a/b.md")
    assert not declared("/home/u/notesbook/x")  # on component boundaries
    assert declared("/data/2024/q1/sales.csv") and declared("/data/x.csv")  # `**/` is any number of folders
    assert not declared("/data/2024/sales.txt")
    assert declared("/var/log/app-12.log") and not declared("/var/log/app-12.log.1")  # anchored
    assert declared("/work/repo/docs/a.md") and not declared("/work/other/docs")
    assert judge_tool(ir, state, "read_file").read_path is None


def test_read_path_entries_that_cannot_be_resolved_cover_nothing():
    assert not read_path_declared(("~/x",), "/h/x", workdir=None, home=None)
    assert not read_path_declared(("rel",), "/w/rel", workdir=None, home="/h")
    assert read_path_declared(("../sibling",), "/w/sibling/f", workdir="/w/repo", home=None)
    assert not read_path_declared(("regex:relative",), "relative", workdir="/w", home="/h")
    assert not read_path_declared(("regex:/(unclosed",), "/(unclosed", workdir="/w", home="/h")
    assert read_path_declared(("/",), "/anything", workdir=None, home=None)


def test_a_wrong_argument_is_a_type_error(run):
    ir, state = run
    with pytest.raises(TypeError):
        judge_tool(ir, state, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        judge_tool({}, state, "x")  # type: ignore[arg-type]
