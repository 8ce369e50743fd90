"""Declaration lints: the corpus, bad input, and the stage-declaration, output, gate and
placeholder rules. (Every rule's examples and cases: tests/test_rule_contract.py.)"""

from __future__ import annotations

from dataclasses import replace

import pytest

from compiler.config import Settings
from compiler.pipeline import validate_file
from tests.helpers import CORPUS, assert_codes, requires_shared, rules_of, run

#: The declaration lints: every rule of these modules.
DECL_MODULES = ("declarations", "deliverables", "gates", "outputs", "placeholders", "security", "seeds", "spawn",
                "tool_policies", "tools")  # fmt: skip
DECL = Settings(select=rules_of(*(f"lint.{m}" for m in DECL_MODULES)))
MODEL = 'model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }'


def only(code: str) -> Settings:
    return Settings(select=(code,))


def stage(name: str, body: str = "", mode: str = "autonomous") -> str:
    return f'[stages.{name}]\nmode = "{mode}"\n{MODEL}\nmax_iterations = 10\n{body}\n'


# --- corpus, bad input ---------------------------------------------------------------------


@requires_shared
@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/agent.leviath")), ids=lambda p: p.parent.name)
def test_corpus_has_no_declaration_error_or_warning(path):
    """Every finding on the real blueprints was read and judged real: two notes per seed kind."""
    found = validate_file(path, DECL).diagnostics
    assert [(d.line, d.code, d.message) for d in found if d.severity != "note"] == []
    assert {d.code for d in found} <= {"command-seed", "tool-seed"}
    seeds_commands = "seed = { command" in path.read_text(encoding="utf-8")
    assert ("command-seed" in {d.code for d in found}) == seeds_commands
    assert all("pre-approves it" in d.message for d in found if d.code == "command-seed")


@requires_shared
def test_corpus_script_tools_are_found_beside_the_blueprint():
    path = CORPUS / "researcher" / "agent.leviath"
    assert [d for d in validate_file(path, only("unknown-tool")).diagnostics] == []
    copy_without_tools = run(path.read_text(encoding="utf-8"), settings=only("unknown-tool"))
    assert {d.message.split("'")[3] for d in copy_without_tools.diagnostics} == {"web_search", "web_fetch"}


WEIRD = ["5", '"x"', "[]", "{}", '[1, "a", {}]', "{ a = 1 }", "true", "1.5", '["shell:ls", "ls -la", ">x"]']
STAGE_KEYS = ["available_tools", "required_tools", "tool_permissions", "tool_routing", "model", "mode",
              "max_iterations", "output", "nudge", "available_connectors", "interaction_points", "transitions"]  # fmt: skip


@pytest.mark.parametrize("value", WEIRD)
def test_any_value_anywhere_never_crashes(value):
    sources = [f"[stages.a]\n{key} = {value}\n[stages.b]\n" for key in STAGE_KEYS]
    sources += [
        f"{key} = {value}\n[agent]\nname = 'x'\n"
        for key in ("model", "read_paths", "safe_commands", "tool_permissions")
    ]
    sources += [f"[context.regions.r]\n{key} = {value}\n" for key in ("seed", "required", "required_message")]
    sources += [
        f"[stages.a.context.regions.r]\nseed = {{ {key} = {value} }}\n"
        for key in ("tools", "tool", "command", "refresh")
    ]
    sources += [f"[stages.a.transitions.b]\n{key} = {value}\n[stages.b]\n" for key in ("gate", "transform_config")]
    sources += [f"[stages.a.transitions.b]\ngate = {{ tools = {value}, max_attempts = {value} }}\n[stages.b]\n"]
    sources += [f"[read_paths]\nallow = {value}\n[safe_commands]\nshell = {value}\ntools = {value}\n"]
    sources += [f"[agent]\nname = 'x'\nnudge = {{ text = {value} }}\n[stages.a.tool_routing]\noverrides = {value}\n"]
    for source in sources:
        codes = [d.code for d in run(source, agent="[agent]" not in source).diagnostics]
        assert "internal-error" not in codes, source


# --- stage declarations -------------------------------------------------------------------


def test_each_missing_declaration_is_reported_once():
    assert_codes(
        "[stages.a]\n", "stage-missing-mode", "stage-missing-model", "stage-missing-max-iterations", settings=DECL
    )
    assert_codes(stage("a"), settings=DECL)


def test_a_model_table_that_names_nothing_runs_the_default():
    for model in (
        "model = {}",
        "model = { models = [] }",
        "model = { models = [{}] }",
        "model = { parameters = { t = 1 } }",
    ):
        assert_codes(
            f'[stages.a]\nmode = "autonomous"\nmax_iterations = 3\n{model}\n', "stage-missing-model", settings=DECL
        )
    for model in (
        'model = { provider = "openai" }',
        'model = { models = [{ model = "m" }] }',
        'model = { fallbacks = [{ provider = "x" }] }',
    ):
        assert_codes(f'[stages.a]\nmode = "autonomous"\nmax_iterations = 3\n{model}\n', settings=DECL)


def test_values_other_rules_explain_are_not_reported_again():
    # a wrong type is invalid-type; model.model without provider is ignored-key
    assert_codes('[stages.a]\nmode = 5\nmodel = "gpt"\nmax_iterations = 1.5\n', settings=DECL)
    assert_codes('[stages.a]\nmode = "autonomous"\nmax_iterations = 3\nmodel = { model = "gpt" }\n', settings=DECL)
    assert_codes('[stages.a]\nmode = "autonomous"\nmax_iterations = 3\nmodel = { models = ["gpt"] }\n', settings=DECL)


def test_zero_iterations_counts_as_unset_and_fan_out_needs_none():
    zero = stage("a").replace("max_iterations = 10", "max_iterations = 0")
    (d,) = run(zero, settings=DECL).diagnostics
    assert (d.code, d.key_path, d.line, d.column) == ("stage-missing-max-iterations", "stages.a.max_iterations", 7, 18)
    assert "counts as unset" in d.message and "default-max-iterations, 50 here" in d.message
    (d,) = run(zero, settings=replace(DECL, default_max_iterations=0)).diagnostics
    assert "default-max-iterations is 0, so nothing bounds how often it calls the model" in d.message
    fan_out = f'[stages.split]\nmode = "fan_out"\n{MODEL}\nworker_stage = "w"\n' + stage("w", "allow_as_worker = true")
    assert_codes(fan_out, settings=DECL)


def test_a_file_without_stages_stays_quiet_about_its_default_stage():
    assert_codes("", settings=DECL)


def test_top_level_model_table():
    assert_codes('[model]\nprovider = "openai"\n\n' + stage("a"), "agent-model-block-ignored", settings=DECL)
    (d,) = run('[model]\nprovider = "openai"\n', settings=only("agent-model-block-ignored"), agent=False).diagnostics
    assert (d.line, d.column, d.end_column) == (1, 2, 7)


# --- outputs ------------------------------------------------------------------------------


def test_output_shape_needs_a_requirement():
    shape = "\n[stages.a.output]\nformat = 'json'\n"
    assert_codes(stage("a", 'available_tools = ["submit_output"]' + shape), "output-shape-not-required", settings=DECL)
    assert_codes(stage("a", 'available_tools = ["submit_output"]\nrequire_output = true' + shape), settings=DECL)
    assert_codes(stage("a", shape, mode="output"), settings=DECL)


def test_output_stage_that_can_modify():
    assert_codes(stage("r", 'available_tools = ["edit_file", "write_file", "bash"]\n[stages.r.tool_permissions]\nbash = "deny"', mode="output"),
                 "output-stage-can-modify", "output-stage-can-modify", settings=DECL)  # fmt: skip
    assert_codes(stage("r", 'available_tools = ["edit_file"]'), settings=DECL)


# --- gates --------------------------------------------------------------------------------


def gated(gate: str, condition: str = "always") -> str:
    return stage(
        "a",
        f'available_tools = ["write_file"]\n[stages.a.transitions.b]\ncondition = "{condition}"\ngate = {{ {gate} }}',
    ) + stage("b", "[stages.b.transitions]")


@pytest.mark.parametrize(
    "gate, expected",
    [
        ("require_modifications = true, max_attempts = 0", ["gate-never-holds"]),
        ("require_modifications = true, max_attempts = 1", []),
        ("require_modifications = true", []),
        ("", ["gate-checks-nothing"]),
        ('message = "m", tools = ["write_file"], region = "conversation", max_attempts = 0', ["gate-checks-nothing"]),
        ("require_modifications = false", ["gate-checks-nothing"]),
        ("require_regions = []", ["gate-checks-nothing"]),
        ('require_regions = ["conversation"]', []),
        ('require_region_updated = "conversation"', []),
        ("require_modification = true", []),  # a typo is rejected-key, not a second finding
    ],
)
def test_gates_that_never_hold(gate, expected):
    assert_codes(gated(gate), *expected, settings=DECL)


def test_gates_on_conditioned_edges_are_left_to_their_own_rule():
    assert_codes(gated("max_attempts = 0", condition="error"), "gate-on-conditioned-edge", settings=DECL)


# --- placeholders -------------------------------------------------------------------------


def test_unknown_placeholders_with_suggestions():
    source = (
        '[agent.nudge]\ntext = "In {Stage}: {regions}"\n\n[context.regions.r]\nrequired = true\n'
        'required_message = "fill {regoin} in {stage} ({stage})"\n\n'
        + stage("a", '[stages.a.nudge]\ntext = "{stage} {json} { x }"')
    )
    found = run("[agent]\nname = 't'\n" + source, settings=only("unknown-placeholder")).diagnostics
    assert sorted((d.key_path, d.fix) for d in found) == [
        ("agent.nudge.text", "did you mean '{stage}'?"),
        ("context.regions.r.required_message", "did you mean '{region}'?"),
        ("context.regions.r.required_message", "use {region}, or write the text out"),
        ("stages.a.nudge.text", "use {stage} or {regions}, or write the text out"),
    ]
    assert_codes('[agent.nudge]\ntext = "{stage}: {regions} {\\"json\\": 1}"\n', settings=only("unknown-placeholder"))
