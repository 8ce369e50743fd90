"""Tool lints: the catalog, script tools beside the blueprint, names used outside
`available_tools`, permissions, blocking tools, the shell policy and routed results."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from compiler.config import Settings
from compiler.discover import local_tools
from compiler.pipeline import validate_bytes, validate_file
from compiler.rules.lint.tool_catalog import CATALOG, canonical, spellings
from tests.helpers import assert_codes, run

MODEL = 'model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }'
TOOLS = Settings(
    select=(
        "unknown-tool",
        "unknown-tool-reference",
        "orphan-stage-permission",
        "blocking-tool-in-autonomous-stage",
        "implicit-shell-policy",
        "routing-without-region-read",
    )
)


def stage(name: str, body: str = "", mode: str = "autonomous") -> str:
    return f'[stages.{name}]\nmode = "{mode}"\n{MODEL}\nmax_iterations = 10\n{body}\n'


def grants(*tools: str, body: str = "", mode: str = "autonomous") -> str:
    listed = ", ".join(f'"{t}"' for t in tools)
    return stage("a", f"available_tools = [{listed}]\n{body}", mode=mode)


# --- the catalog --------------------------------------------------------------------------


def test_catalog_holds_the_reference_inventory_and_the_alias():
    for name in ("read_file", "shell", "bash", "ask_user_choice", "context_list", "todo_note", "current_time",
                 "locale_info", "submit_output", "fan_out", "spawn_agent", "kill_agent"):  # fmt: skip
        assert name in CATALOG, name
    assert canonical("bash") == "shell" and canonical("read_file") == "read_file"
    assert spellings("shell") == spellings("bash") == {"shell", "bash"}
    assert "web_search" not in CATALOG  # a script tool of the corpus, not a built-in


def test_known_names_pass_and_unknown_ones_fail_at_the_entry():
    assert_codes(
        grants("read_file", "bash", "github__create_issue", body='[stages.a.tool_permissions]\nbash = "deny"'),
        settings=TOOLS,
    )
    (d,) = run(grants("read_file", "raed_file"), settings=TOOLS).diagnostics
    assert (d.code, d.key_path, d.line, d.column, d.end_column) == (
        "unknown-tool",
        "stages.a.available_tools[1]",
        8,
        33,
        44,
    )
    assert d.fix == "did you mean 'read_file'?" and d.severity == "error"


def test_auto_granted_tools_are_known():
    assert_codes(
        grants("read_file", mode="output") + '[stages.b]\nmode = "fan_out"\nworker_agent = "x"\n', settings=TOOLS
    )
    assert_codes(grants("submit_output", "fan_out"), settings=TOOLS)


def test_configured_known_tools_are_accepted():
    source = grants("company_search")
    assert_codes(source, "unknown-tool", settings=TOOLS)
    assert_codes(source, settings=Settings(select=TOOLS.select, known_tools=("company_search",)))


def test_script_tools_beside_the_file_count(tmp_path: Path):
    blueprint = tmp_path / "agent.leviath"
    blueprint.write_text('[agent]\nname = "s"\n\n' + grants("web_search", "ask_the_oracle"), encoding="utf-8")
    found = [d.message for d in validate_file(blueprint, TOOLS).diagnostics]
    assert len(found) == 2
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "web_search.rhai").write_text("// tool\n", encoding="utf-8")
    (tmp_path / "tools" / "notes.txt").write_text("not a tool\n", encoding="utf-8")
    found = [d.message for d in validate_file(blueprint, TOOLS).diagnostics]
    assert len(found) == 1 and "'ask_the_oracle'" in found[0]
    assert local_tools(str(blueprint)) == ("web_search",)
    # bytes and text read nothing from disk, even under the real path: the scripts come as data
    assert len(validate_bytes(str(blueprint), blueprint.read_bytes(), TOOLS).diagnostics) == 2
    assert len(validate_bytes("elsewhere/agent.leviath", blueprint.read_bytes(), TOOLS).diagnostics) == 2
    given = replace(TOOLS, local_tools=("web_search",))
    assert len(validate_bytes("elsewhere/agent.leviath", blueprint.read_bytes(), given).diagnostics) == 1
    assert local_tools("<string>") == () and local_tools("\0bad") == ()


# --- names outside available_tools -------------------------------------------------------


def test_every_place_a_tool_is_named_is_checked():
    source = (
        '[tool_permissions]\nbassh = "deny"\n\n[safe_commands]\ntools = ["grepp", "shell:ls", "read_file"]\n\n'
        '[context.regions.c]\nseed = { tools = ["curent_time", { name = "lokale_info" }, "locale_info"] }\n\n'
        '[context.regions.d]\nseed = { tool = "sytem_info" }\n\n'
        + grants("write_file", "bash", body='[stages.a.tool_permissions]\nbash = "allow"\n'
                 '[stages.a.tool_routing]\noverrides = { rg = "tool_results" }\nmax_result_tokens_per_tool = { grep = 10, bash = 5 }\n'
                 '[stages.a.transitions.b]\ngate = { require_modifications = true, tools = ["bash", "edit_fiel"] }')
        + stage("b", "[stages.b.transitions]")
    )  # fmt: skip
    found = run(source, settings=Settings(select=("unknown-tool-reference",))).diagnostics
    assert sorted(d.key_path for d in found) == [
        "context.regions.c.seed.tools[0]",
        "context.regions.c.seed.tools[1].name",
        "context.regions.d.seed.tool",
        "safe_commands.tools[0]",
        "safe_commands.tools[1]",
        "stages.a.tool_routing.max_result_tokens_per_tool.grep",
        "stages.a.tool_routing.overrides.rg",
        "stages.a.transitions.b.gate.tools[1]",
        "tool_permissions.bassh",
    ]
    assert all(d.severity == "warning" for d in found)
    assert next(d for d in found if d.key_path == "safe_commands.tools[1]").fix == "move 'ls' to [safe_commands] shell"


def test_stage_permissions_are_left_to_the_orphan_rule_unless_a_connector_grants_tools():
    orphan = grants("read_file", body='[stages.a.tool_permissions]\nbassh = "deny"')
    assert_codes(orphan, "orphan-stage-permission", settings=TOOLS)
    connector = stage(
        "a", 'available_connectors = ["github"]\n[stages.a.tool_permissions]\nbassh = "deny"\ngithub__x = "deny"'
    )
    assert_codes(connector, "unknown-tool-reference", settings=TOOLS)


# --- permissions, blocking tools, shell policy, routing ------------------------------------


def test_orphan_permissions_compare_canonical_names():
    assert_codes(grants("bash", body='[stages.a.tool_permissions]\nshell = "deny"'), settings=TOOLS)
    assert_codes(grants("shell", body='[stages.a.tool_permissions]\nbash = "deny"'), settings=TOOLS)
    assert_codes(
        grants("read_file", mode="output", body='[stages.a.tool_permissions]\nsubmit_output = "allow"'), settings=TOOLS
    )
    found = run(
        grants("read_file", body='[stages.a.tool_permissions]\nwrite_file = "allow"'), settings=TOOLS
    ).diagnostics
    assert [(d.code, d.key_path, d.severity) for d in found] == [
        ("orphan-stage-permission", "stages.a.tool_permissions.write_file", "error")
    ]


@pytest.mark.parametrize(
    "tools, body, mode, expected",
    [
        (("ask_user_text", "present_for_review"), "", "autonomous", 2),
        (("ask_user_text",), 'required_tools = ["ask_user_text"]', "autonomous", 0),
        (("ask_user_text", "edit_document"), 'required_tools = ["ask_user_text"]', "autonomous", 1),
        (("ask_user_text",), "allow_blocking_tools = true", "autonomous", 0),
        (("ask_user_confirm",), "", "interactive", 0),
        (("read_file",), "", "autonomous", 0),
    ],
)
def test_blocking_tools_in_autonomous_stages(tools, body, mode, expected):
    assert_codes(
        grants(*tools, body=body, mode=mode), *["blocking-tool-in-autonomous-stage"] * expected, settings=TOOLS
    )


def test_a_default_mode_counts_as_autonomous():
    assert_codes(
        '[stages.a]\navailable_tools = ["ask_user_text"]\n', "blocking-tool-in-autonomous-stage", settings=TOOLS
    )


@pytest.mark.parametrize(
    "agent_policy, stage_policy, expected",
    [
        ("", "", 1),
        ('[tool_permissions]\nshell = "deny"\n', "", 0),
        ('[tool_permissions]\nbash = "allow"\n', "", 0),
        ("", '[stages.a.tool_permissions]\nshell = "ask"', 0),
        ('[tool_permissions]\nread_file = "allow"\n', "", 1),
    ],
)
def test_shell_without_a_policy(agent_policy, stage_policy, expected):
    source = agent_policy + "\n" + grants("read_file", "bash", body=stage_policy)
    assert_codes(source, *["implicit-shell-policy"] * expected, settings=TOOLS)


@pytest.mark.parametrize(
    "tools, routing, expected",
    [
        (("read_file",), 'default_region = "tool_results"', 1),
        (("read_files",), "", 1),  # the default region is tool_results
        (("read_file",), 'default_region = "conversation"', 0),
        (("read_file",), 'default_region = "conversation"\noverrides = { read_file = { max_result_tokens = 9 } }', 0),
        (("read_file",), 'default_region = "conversation"\noverrides = { read_file = "tool_results" }', 1),
        (("read_file", "context_read"), "", 0),
        (("list_dir",), "", 0),
    ],
)
def test_routed_results_need_a_way_back(tools, routing, expected):
    source = grants(*tools, body=f"[stages.a.tool_routing]\n{routing}")
    assert_codes(source, *["routing-without-region-read"] * expected, settings=TOOLS)
    assert_codes(grants(*tools), settings=TOOLS)  # no routing table: results stay in the conversation
