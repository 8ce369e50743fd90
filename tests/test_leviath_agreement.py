"""What `validate` says where Leviath's own reading decides: keys it refuses, choices it leaves
to a hash map, values it accepts in another type, old spellings. Each test states the Leviath
fact it pins (read from its parser, `crates/leviath-core/src/manifest/stage.rs`, and its
runtime, `crates/leviath-runtime/src/pipeline/transition_choice.rs`)."""

from __future__ import annotations

import pytest

from compiler.config import Settings
from tests.conftest import invoke_cli
from tests.helpers import run


def found(source: str, *only: str) -> list[str]:
    """Sorted codes of the findings, restricted to `only` when given."""
    settings = Settings(select=only) if only else None
    return sorted(d.code for d in run(source, settings=settings).diagnostics)


# --- a gate allows exactly Leviath's eight keys --------------------------------------------


@pytest.mark.parametrize(
    "gate",
    [
        'gate = { require_region_entries = { region = "notes", at_least = 2 } }',
        'gate = { require_region_entries = "notes" }',
    ],
)
def test_require_region_entries_is_refused_like_any_unknown_gate_key(gate):
    source = f"[stages.a]\n[stages.a.transitions.b]\n{gate}\n[stages.b]\ntransitions = {{}}"
    assert found(source, "schema") == ["rejected-key"]


def test_the_gate_model_has_no_entry_count():
    from compiler.ir.model import Gate

    assert "require_region_entries" not in Gate.__dataclass_fields__


# --- edges whose order Leviath leaves to a hash map ----------------------------------------

EDGE_ORDER = ("ambiguous-edge-order", "unordered-routing-fallback")


def _stage_with(*edges: str, extra: str = "") -> str:
    targets = sorted({line.split("]")[0].rsplit(".", 1)[1] for line in edges})
    body = "\n".join(f"[stages.{t}]\ntransitions = {{}}" for t in targets if t != "a")
    return f"[stages.a]\n{extra}\n" + "\n".join(edges) + "\n" + body


@pytest.mark.parametrize("condition", ["error", "dead_end", "max_iterations"])
def test_two_edges_of_one_condition_are_ambiguous(condition):
    source = _stage_with(
        "[stages.a.transitions.done]",
        f'[stages.a.transitions.x]\ncondition = "{condition}"',
        f'[stages.a.transitions.y]\ncondition = "{condition}"',
    )
    assert found(source, *EDGE_ORDER) == ["ambiguous-edge-order"]


def test_two_stuck_edges_are_ambiguous_and_say_only_one_is_watched():
    source = _stage_with(
        "[stages.a.transitions.done]",
        '[stages.a.transitions.x]\ncondition = "stuck"\nstuck_after_iterations = 3',
        '[stages.a.transitions.y]\ncondition = "stuck"\nstuck_after_minutes = 3',
    )
    (finding,) = [d for d in run(source).diagnostics if d.code == "ambiguous-edge-order"]
    assert "only the drawn edge's thresholds are watched" in finding.message


def test_one_edge_per_condition_is_determined():
    source = _stage_with(
        "[stages.a.transitions.done]",
        '[stages.a.transitions.x]\ncondition = "error"',
        '[stages.a.transitions.y]\ncondition = "dead_end"',
    )
    assert found(source, *EDGE_ORDER) == []


def test_targets_differing_only_in_ascii_case_match_one_answer():
    source = _stage_with("[stages.a.transitions.Done]", "[stages.a.transitions.done]", extra="allow_complete = true")
    assert found(source, *EDGE_ORDER) == ["ambiguous-edge-order"]


def test_a_branching_stage_whose_targets_can_be_named_has_no_finding():
    """The fallback's order is Leviath's, the same for every branching stage: docs, not a report."""
    two = ("[stages.a.transitions.x]", "[stages.a.transitions.y]")
    assert found(_stage_with(*two), *EDGE_ORDER) == []


def test_a_target_no_answer_can_name_is_reached_only_by_the_unordered_fallback():
    unnamable = ("[stages.a.transitions.x]", "[stages.a.transitions.code-review]")
    (finding,) = [d for d in run(_stage_with(*unnamable)).diagnostics if d.code == "unordered-routing-fallback"]
    assert finding.severity == "warning" and "'code-review'" in finding.message
    assert finding.path == ("stages", "a", "transitions", "code-review")
    # Following the fix line (a name an answer can be) silences it.
    renamed = ("[stages.a.transitions.x]", "[stages.a.transitions.code_review]")
    assert found(_stage_with(*renamed), *EDGE_ORDER) == []
    # An answer naming no stage ends the run under allow_complete, and a lone edge is not asked about.
    assert found(_stage_with(*unnamable, extra="allow_complete = true"), *EDGE_ORDER) == []
    assert found(_stage_with(unnamable[1]), *EDGE_ORDER) == []


@pytest.mark.parametrize(("name", "routable"), [("étape", True), ("deep.dive", False), ("step 2", False)])
def test_a_name_beyond_ascii_is_read_as_leviath_reads_words(name, routable):
    source = (
        f'[stages.a]\n[stages.a.transitions.x]\n[stages.a.transitions."{name}"]\n'
        f'[stages.x]\ntransitions = {{}}\n[stages."{name}"]\ntransitions = {{}}'
    )
    assert found(source, *EDGE_ORDER) == ([] if routable else ["unordered-routing-fallback"])


def test_shadowed_edge_says_it_follows_declaration_order():
    source = _stage_with(
        "[stages.a.transitions.done]",
        '[stages.a.transitions.x]\ncondition = "error"',
        '[stages.a.transitions.y]\ncondition = "error"',
    )
    (finding,) = [d for d in run(source).diagnostics if d.code == "shadowed-edge"]
    assert finding.message.startswith("in declaration order") and "ambiguous-edge-order" in finding.message


# --- values of another type -----------------------------------------------------------------


@pytest.mark.parametrize("value", ['"true"', "false", "5", "[1]"])
def test_a_transition_written_as_a_value_is_an_edge_with_a_warning(value):
    source = f"[stages.a]\n[stages.a.transitions]\nb = {value}\n[stages.b]\ntransitions = {{}}"
    result = run(source)
    assert [d.code for d in result.diagnostics if d.severity != "note" and d.code.startswith(("invalid", "non-"))] == [
        "non-canonical-value"
    ]
    (edge,) = result.blueprint.stage("a").transitions
    assert (edge.target, edge.condition, edge.transform, edge.gate) == ("b", "always", "direct", None)


@pytest.mark.parametrize(
    "source, path",
    [
        ('agent = "x"\n[stages.a]', ("agent",)),
        ("[stages]\nsolo = 5", ("stages", "solo")),
        ("[stages.a]\n[context.regions]\nr = 5", ("context", "regions", "r")),
        ("[stages.a.context.regions]\nr = true", ("stages", "a", "context", "regions", "r")),
        ('[stages.a]\nmode = "interactive_points"\ninteraction_points = [5]', ("stages", "a", "interaction_points", 0)),
    ],
)
def test_tables_written_as_values_are_read_as_defaults(source, path):
    result = run(source, agent=False) if source.startswith("agent") else run(source)
    found_here = [d for d in result.diagnostics if tuple(d.path) == path and not d.code.startswith("stage-missing")]
    assert [(d.code, d.severity) for d in found_here] == [("non-canonical-value", "warning")]


@pytest.mark.parametrize("seed", ["42", "true", '["a"]', "1.5"])
def test_a_seed_of_another_type_is_region_seed_not_understood(seed):
    source = f"[stages.a]\n[context.regions]\ntask = {{ seed = {seed} }}"
    codes = [d.code for d in run(source).diagnostics if d.path[-1:] == ("seed",)]
    assert codes == ["region-seed-not-understood"]


def test_a_dropped_value_stays_an_error():
    assert found("[stages.a]\nmax_iterations = 10.0", "invalid-type") == ["invalid-type"]
    assert found('[stages.a]\nmodel = "gpt-4o"', "invalid-type") == ["invalid-type"]


def test_the_fixer_writes_the_table_and_keeps_the_comment():
    from compiler.fix import fix_bytes

    text = (
        '[agent]\nname = "t"\n\n[stages.a]\nmode = "autonomous"\n\n[stages.a.transitions]\n'
        'b = "true"  # go on\nc = false\n\n[stages.b]\ntransitions = {}\n\n[stages.c]\ntransitions = {}\n'
    )
    outcome = fix_bytes("a.leviath", text.encode())
    assert outcome.problem is None
    assert b"b = {}  # go on\nc = {}\n" in outcome.data


def test_the_type_sites_table_in_the_docs_is_current():
    import os

    from compiler.render.type_sites import BEGIN, END, render
    from tests.helpers import ROOT

    def generated_table(text: str) -> tuple[int, int]:
        """(start, end) offsets of the one generated table in the document, markers included."""
        start = text.find(BEGIN)
        end = text.find(END, start) + len(END)
        assert start != -1 and end >= len(END) and text.find(BEGIN, end) == -1, "one generated table expected"
        return start, end

    doc = ROOT / "docs" / "leviath-mapping.md"
    text = doc.read_text(encoding="utf-8")
    span = generated_table(text)
    if os.environ.get("UPDATE_GOLDEN"):
        text = text[: span[0]] + render() + text[span[1] :]
        doc.write_text(text, encoding="utf-8")
        span = generated_table(text)
    assert text[span[0] : span[1]] == render(), "run UPDATE_GOLDEN=1 pytest tests/test_leviath_agreement.py"


def test_every_type_site_has_a_known_outcome():
    from compiler.render.type_sites import type_sites

    sites = type_sites()
    assert len(sites) > 200
    assert {s.outcome.split(":")[0] for s in sites} <= {"drops", "defaults", "no-seed", "ours", "refuses"}
    assert {s.path for s in sites if s.outcome == "defaults"} == {
        "agent",
        "stages.<stage>",
        "stages.<stage>.transitions.<target>",
        "context.regions.<region>",
        "stages.<stage>.context.regions.<region>",
        "stages.<stage>.interaction_points[]",
    }


# --- old blueprints -------------------------------------------------------------------------


def test_next_stage_is_refused_and_the_message_names_the_transition():
    result = run('[stages.a]\nnext_stage = "b"\n[stages.b]')
    (d,) = [d for d in result.diagnostics if d.code == "rejected-key"]
    assert "[stages.<name>.transitions.<target>]" in d.fix


def test_tool_result_routing_is_refused_and_renamed_by_the_fixer():
    from compiler.fix import fix_bytes

    text = (
        '[agent]\nname = "t"\n\n[stages.a]\nmode = "autonomous"\n\n'
        '[stages.a.tool_result_routing]  # where results go\ndefault_region = "conversation"\n'
    )
    assert [d.code for d in run(text, agent=False).diagnostics if d.path[-1:] == ("tool_result_routing",)] == [
        "rejected-key"
    ]
    outcome = fix_bytes("a.leviath", text.encode())
    assert outcome.problem is None and b"[stages.a.tool_routing]  # where results go\n" in outcome.data
    fixed = run(outcome.data.decode(), agent=False).blueprint.stage("a")
    assert fixed.tool_routing is not None and fixed.tool_routing.default_region == "conversation"


@pytest.mark.parametrize(
    "source, path",
    [
        ('[stages.a.model]\nsystem_prompt = "Be brief."', ("stages", "a", "model", "system_prompt")),
        ("[stages.a]\n[context.repetition_detection]\nmax_repeat_calls = 4", ("context", "repetition_detection")),
    ],
)
def test_keys_in_their_old_place_are_outdated_and_moved(source, path):
    from compiler.fix import fix_bytes

    result = run(source)
    assert [d.code for d in result.diagnostics if tuple(d.path) == path] == ["outdated-key"]
    outcome = fix_bytes("a.leviath", ('[agent]\nname = "t"\n\n' + source + "\n").encode())
    assert outcome.problem is None and [d.code for d in outcome.fixed].count("outdated-key") == 1
    after = run(outcome.data.decode(), agent=False)
    assert "outdated-key" not in [d.code for d in after.diagnostics]
    if path[0] == "stages":
        assert after.blueprint.stage("a").system_prompt == "Be brief."
    else:
        assert after.blueprint.repetition_detection.max_repeat_calls == 4


def test_allow_complete_where_no_routing_question_is_asked():
    source = "[stages.a]\nallow_complete = true\n[stages.b]\n[stages.b.transitions]"
    (d,) = [d for d in run(source).diagnostics if d.code == "ignored-key"]
    assert "goes on to 'b'" in d.message and "[stages.a.transitions.b]" in d.fix
    routed = "[stages.a]\nallow_complete = true\n[stages.a.transitions.b]\n[stages.b]\n[stages.b.transitions]"
    assert "ignored-key" not in [d.code for d in run(routed).diagnostics]


# --- checks that need the user's installation ------------------------------------------------

INSTALLATION_CODES = (
    "read-paths-not-granted",
    "read-paths-grant-invalid",
    "no-reachable-provider",
    "unknown-model",
    "unbounded-percentage-budget",
)
NEEDY = """
[read_paths]
allow = ["/var/private/notes"]
[context.regions]
conversation = { kind = "sliding_window", budget = "30%" }
[stages.a]
model = { models = [{ provider = "openai", model = "gpt-nope" }] }
"""
LEVIATH_CONFIG = '[security]\nread_paths = ["/srv/docs"]\n[providers]\nanthropic_api_key = "x"\n'
LEV_MODELS = "PROVIDER MODEL ID TEMP TOOLS CTX OUTPUT\n-----\nopenai gpt-5.4 ✓ ✓ 400K 128K\n"


def test_installation_checks_stay_off_without_the_files():
    assert found(NEEDY, *INSTALLATION_CODES) == []


def test_installation_checks_run_on_the_files_named(tmp_path):
    config, models = tmp_path / "config.toml", tmp_path / "models.txt"
    config.write_text(LEVIATH_CONFIG, encoding="utf-8")
    models.write_text(LEV_MODELS, encoding="utf-8")
    settings = Settings(leviath_config=str(config), leviath_models=str(models))
    got = sorted(d.code for d in run(NEEDY, settings=settings).diagnostics if d.code in INSTALLATION_CODES)
    assert got == ["no-reachable-provider", "read-paths-not-granted", "unknown-model"]
    # a window of the user's own makes the percentage budget measurable
    window = '[model_capabilities."gpt-nope"]\nmax_context_tokens = 1000000\n'
    config.write_text(LEVIATH_CONFIG + window, encoding="utf-8")
    (d,) = [d for d in run(NEEDY, settings=settings).diagnostics if d.code == "unbounded-percentage-budget"]
    assert "300,000 tokens" in d.message


def test_allow_blueprint_read_paths_grants_every_declaration(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[security]\nallow_blueprint_read_paths = true\n", encoding="utf-8")
    settings = Settings(leviath_config=str(config))
    assert "read-paths-not-granted" not in [d.code for d in run(NEEDY, settings=settings).diagnostics]


def test_rule_docs_say_how_to_turn_them_on():
    from compiler.rulebook.registry import REGISTRY

    for code in INSTALLATION_CODES:
        rationale = REGISTRY.get(code).rationale
        assert "--leviath-config" in rationale or "--leviath-models" in rationale, code


def test_the_cli_flag_and_the_pyproject_key(tmp_path):

    blueprint = tmp_path / "agent.leviath"
    blueprint.write_text('[agent]\nname = "t"\n' + NEEDY, encoding="utf-8")
    (tmp_path / "leviath.toml").write_text(LEVIATH_CONFIG, encoding="utf-8")
    plain = invoke_cli("validate", "--format", "json", blueprint)
    assert "no-reachable-provider" not in plain.output
    config = str(tmp_path / "leviath.toml")
    flagged = invoke_cli("validate", "--format", "json", "--leviath-config", config, blueprint)
    assert "no-reachable-provider" in flagged.output
    (tmp_path / "pyproject.toml").write_text('[tool.blueprint]\nleviath-config = "leviath.toml"\n', encoding="utf-8")
    keyed = invoke_cli("validate", "--format", "json", blueprint)
    assert "no-reachable-provider" in keyed.output
    missing = invoke_cli("validate", "--leviath-config", tmp_path / "absent.toml", blueprint)
    assert missing.exit_code == 2 and "absent.toml: cannot read" in missing.output
    not_a_list = invoke_cli("validate", "--leviath-models", tmp_path / "leviath.toml", blueprint)
    assert not_a_list.exit_code == 2 and "lev models list" in not_a_list.output


# --- output stages: Leviath's lint exactly, and our question beside it ----------------------

LINEAR_TO_OUTPUT = '[stages.work]\nmax_iterations = 5\n[stages.report]\nmode = "output"\nmax_iterations = 5'
FED_BY_AN_UNREACHABLE_STAGE = (
    "[stages.a]\nmax_iterations = 5\ntransitions = {}\n[stages.b]\nmax_iterations = 5\n[stages.b.transitions.report]\n"
    '[stages.report]\nmode = "output"\nmax_iterations = 5\ntransitions = {}'
)
OUTPUT_CODES = ("output-unreachable", "unreachable-output-stage")


def test_a_linear_blueprint_ending_in_an_output_stage_fails_as_lev_validate_fails_it():
    # Leviath's lint_output_reachable: no other stage's transition targets 'report', and it is
    # neither first nor entry_stage, so `lev validate` reports an error although 'work' falls
    # through to it at run time. We report the same error, and say that runs do enter it.
    (d,) = [d for d in run(LINEAR_TO_OUTPUT).diagnostics if d.code in OUTPUT_CODES]
    assert (d.code, d.severity) == ("output-unreachable", "error")
    assert "runs do enter it: 'work' falls through to 'report'" in d.message


def test_an_output_stage_fed_only_by_an_unreachable_stage_is_our_error_and_leviath_is_silent():
    # Leviath counts the transition from 'b', which no run reaches: its lint says nothing (its
    # unreachable-stage warning names 'b' and 'report'). No run can submit the output.
    found = sorted((d.code, d.stage) for d in run(FED_BY_AN_UNREACHABLE_STAGE).diagnostics if d.code.endswith("stage"))
    assert found == [("unreachable-output-stage", "report"), ("unreachable-stage", "b")]


def test_a_stale_suppression_of_the_old_code_says_what_the_finding_is_now():
    source = FED_BY_AN_UNREACHABLE_STAGE.replace(
        "[stages.report]", "[stages.report]  # blueprint: ignore[output-unreachable]"
    )
    result = run(source)
    codes = sorted(d.code for d in result.diagnostics if d.code in (*OUTPUT_CODES, "unused-suppression"))
    assert codes == ["unreachable-output-stage", "unused-suppression"]
    (stale,) = [d for d in result.diagnostics if d.code == "unused-suppression"]
    assert "'unreachable-output-stage', is one earlier versions reported as 'output-unreachable'" in stale.message
    assert stale.fix == "write 'unreachable-output-stage' instead of 'output-unreachable', or fix what it reports"
    renamed = source.replace("ignore[output-unreachable]", "ignore[unreachable-output-stage]")
    assert not [d for d in run(renamed).diagnostics if d.code in (*OUTPUT_CODES, "unused-suppression")]


def test_the_fixer_leaves_a_renamed_suppression_to_the_author():
    from compiler.fix import fix_bytes

    source = '[agent]\nname = "t"\n' + FED_BY_AN_UNREACHABLE_STAGE.replace(
        "[stages.report]", "[stages.report]  # blueprint: ignore[output-unreachable]"
    )
    outcome = fix_bytes("a.leviath", source.encode())
    assert b"ignore[output-unreachable]" in outcome.data


# --- cycles: one capped member bounds a cycle -------------------------------------------------


def test_a_two_stage_cycle_capped_by_one_member_is_not_reported():
    # Leviath's lint reports each uncapped side of a pair: here 'review' ("in a cycle with
    # draft"), although draft's max_revisits already bounds the loop. We report nothing.
    source = (
        "[stages.draft]\nmax_revisits = 2\n[stages.draft.transitions.review]\n"
        "[stages.review]\n[stages.review.transitions.draft]\n[stages.review.transitions.done]\n"
        "[stages.done]\ntransitions = {}"
    )
    assert found(source, "cycle-without-max-revisits") == []
    assert found(source.replace("max_revisits = 2\n", ""), "cycle-without-max-revisits") == [
        "cycle-without-max-revisits"
    ]
