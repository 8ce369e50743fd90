"""The schema layer's findings: which code, how many, where, and what they say.

Runs with only the schema family selected, so structure and lint rules (tested elsewhere)
never change these expectations.
"""

from __future__ import annotations

import datetime as dt

import pytest

from compiler.config import Settings
from compiler.rules.schema.findings import schema_findings
from tests.helpers import assert_codes, run

SCHEMA_ONLY = Settings(select=("schema",))


def check(source: str, *expected: str) -> None:
    """`assert_codes` restricted to the schema layer."""
    assert_codes(source, *expected, settings=SCHEMA_ONLY)


def only(source: str, **kwargs):
    """The single schema diagnostic of a snippet (lines start at 4 after the added [agent])."""
    result = run(source, settings=SCHEMA_ONLY, **kwargs)
    assert len(result.diagnostics) == 1, [d.message for d in result.diagnostics]
    return result.diagnostics[0]


# --- clean input ----------------------------------------------------------------------------


def test_minimal_blueprint_is_clean():
    check('[agent]\nname = "t"')


def test_empty_agent_table_is_enough():
    check("[agent]")


def test_aliases_and_case_insensitive_values_are_accepted():
    check(
        """
        [tool_permissions]
        bash = "DENY"
        read_file = "Allow"

        [stages.a.transitions.b]
        transform = "summarize"

        [stages.b.context.regions]
        index = { kind = "hash_map", seed = { tool = "ls", refresh = " Each_Stage " } }
        other = { seed = { tools = ["ls", { name = "read_file", args = { path = "x" } }], refresh = "SPAWN" } }
        """
    )


def test_root_schema_key_and_top_level_model_are_not_unknown():
    check('"$schema" = "./blueprint.schema.json"\n[agent]\n[model]\nprovider = "openai"')


def test_values_the_schema_leaves_open_accept_any_toml_type():
    check(
        """
        [stages.a.model]
        parameters = { top_p = 0.9, stop = ["x"], when = 2024-01-01, nested = { a = 1 } }

        [stages.a.output]
        schema = { type = "object", required = ["x"] }
        """
    )


# --- missing-agent --------------------------------------------------------------------------


def test_missing_agent_is_reported_at_the_top_of_the_file():
    d = only('\n[stages.a]\nmode = "autonomous"', agent=False)
    assert d.code == "missing-agent"
    assert (d.line, d.column) == (1, 1)


def test_missing_agent_in_an_empty_file():
    result = run("", agent=False, settings=SCHEMA_ONLY)
    assert [d.code for d in result.diagnostics] == ["missing-agent"]
    assert result.diagnostics[0].line == 1


@pytest.mark.parametrize("value", ['"x"', "5", "[]", "2024-01-01"])
def test_agent_of_the_wrong_type_is_not_missing(value):
    """Leviath only needs the key; any value reads as an [agent] with every default (a lint says so)."""
    assert run(f"agent = {value}", agent=False, settings=SCHEMA_ONLY).diagnostics == ()
    assert "non-canonical-value" in [d.code for d in run(f"agent = {value}", agent=False).diagnostics]


# --- invalid-type ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "max_iterations = 10.0",  # float for int (R6)
        "max_iterations = true",  # bool for int
        'max_iterations = "10"',
        "max_revisits = 1979-05-27T07:32:00Z",  # offset date-time
        "description = 1979-05-27",  # local date for a string
        "system_prompt = 07:32:00",  # local time
        "description = 1979-05-27T07:32:00",  # local date-time
        "mode = 5",
        'allow_complete = "true"',
        'available_tools = "bash"',
        'available_tools = ["bash", 5]',
        'model = "gpt-4o"',  # a non-table model is silently dropped by the reference
        'model = [{ provider = "openai" }]',  # array where a table is expected
        "transitions = []",
        'interaction_points = { name = "x" }',  # table where an array is expected
        "hooks = { on_error = 5 }",
        "tool_permissions = { bash = false }",
        "max_workers = 2.5",
    ],
)
def test_wrong_types_on_a_stage(line):
    check(f"[stages.a]\n{line}", "invalid-type")


def test_non_table_stage_and_edge_are_left_to_the_lint():
    """Leviath reads them as a stage and an edge with every key at its default: non-canonical-value."""
    check('[stages]\na = 5\nb = { transitions = { a = "true" } }')


def test_condition_true_is_one_type_error_not_also_a_bad_value():
    d = only("[stages.a.transitions.b]\ncondition = true")
    assert d.code == "invalid-type"
    assert "always" in d.fix and "dead_end" in d.fix


def test_mode_5_is_one_finding():
    assert only("[stages.a]\nmode = 5").code == "invalid-type"


@pytest.mark.parametrize(
    "source",
    [
        "stages = 5\n\n[agent]",
        '[[stages]]\nmode = "autonomous"',
        '[transforms]\nfrom_blueprint = "x"',  # must be [[transforms]]
        '[context]\nregions = ["a"]',
        "[compaction]\ntemperature = 1",  # integer for float (R6)
        "[compaction]\nmax_summary_tokens = 2000.0",
        '[read_paths]\nallow = ["~/x", 1]',  # P41
        '[safe_commands]\nshell = [["ls"]]',  # P43
        "[tool_permissions]\nbash = 1",  # P44
        '[sandbox]\nmount = "/data"',
        '[security]\ntaint_tracking = "yes"',
        "[repetition_detection]\nenabled = 1",
        "[agent]\nname = 5",
        "[agent]\nnudge = true",
        "[context.file_tracking]\nmax_file_tokens = 1.5",
    ],
)
def test_wrong_types_outside_stages(source):
    check(source, "invalid-type")


@pytest.mark.parametrize(
    "value",
    ["5", "1.5", "true", '["tool_results"]', "2024-01-01"],
)
def test_routing_override_must_be_a_string_or_a_table(value):
    d = only(f"[stages.a.tool_routing.overrides]\nbash = {value}")
    assert d.code == "invalid-type"
    assert "must be a string or a table" in d.message


@pytest.mark.parametrize("value", ["42", "true", '["task"]', "1.0"])
def test_seed_must_be_a_string_or_a_table(value):
    """Leviath reads no seed from it: its own lint's region-seed-not-understood, not a type error."""
    check(f"[context.regions.notes]\nseed = {value}")
    (d,) = [d for d in run(f"[context.regions.notes]\nseed = {value}").diagnostics if d.path[-1:] == ("seed",)]
    assert d.code == "region-seed-not-understood" and "must be a string (a caller input) or a table" in d.message


def test_seed_tool_entries_are_names_or_tables():
    check('[context.regions.notes]\nseed = { tools = [5, "ls"] }', "invalid-type")


def test_type_messages_name_the_key_the_types_and_the_value():
    d = only("[stages.plan]\nmax_iterations = 10.0")
    assert d.message == "'stages.plan.max_iterations' must be an integer, not a float (10.0)"
    assert d.fix == "write 10 (an integer has no decimal point)"
    assert d.stage == "plan"


def test_quoted_numbers_and_booleans_get_a_concrete_fix():
    assert only('[stages.a]\nmax_iterations = "12"').fix == "remove the quotes: 12"
    assert only('[stages.a]\nallow_complete = "True"').fix == "remove the quotes: true"
    assert only("[compaction]\ntemperature = 1").fix == "write 1.0 (a float needs a decimal point)"


def test_array_of_strings_is_named_in_the_message():
    d = only('[stages.a]\navailable_tools = "bash"')
    assert "must be an array of strings, not a string ('bash')" in d.message


def test_datetime_values_fail_type_checks_without_crashing():
    findings = schema_findings({"agent": {"name": dt.datetime(2024, 1, 1, tzinfo=dt.UTC)}})
    assert [(f.code, f.path) for f in findings] == [("invalid-type", ("agent", "name"))]
    assert "an offset date-time" in findings[0].message


# --- invalid-value --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        '[stages.a]\nmode = "outupt"',  # P4
        '[stages.a]\nmode = "fan_out_merge"',  # P4: listed by the reference's schema, refused by its parser
        '[stages.a]\nmode = "Autonomous"',  # modes are case-sensitive
        '[[stages.a.interaction_points]]\nunattended = "never"',  # P5
        '[[stages.a.interaction_points]]\nstyle = "choice"',  # P6
        '[stages.a]\non_worker_failure = "abort"',  # P7
        '[stages.a.sandbox]\nkind = "docker"',  # P19
        '[stages.a.tool_permissions]\nbash = "maybe"',  # P23
        '[stages.a.transitions.b]\ncondition = "on_error"',  # P28
        '[stages.a.transitions.b]\ntransform = "summarise"',  # P31
        '[context.regions.r]\nstrategy = "fifo"',  # P34
        '[context.regions.r]\nkind = "scratch"',  # P36
        '[context.regions.r]\nadmission = "drop"',  # P37
        '[context.regions.r]\nvolatility = "static"',  # P38
        '[sandbox]\nkind = "vm"',  # P39
        '[sandbox]\non_unavailable = "ignore"',  # P40
        '[tool_permissions]\nbash = "allow "',  # P45: case is ignored, spaces are not
        '[context.regions.r]\nseed = { tool = "ls", refresh = "always" }',
        '[[transforms]]\nmappings = [{ transform = "copy" }]',
        '[stages.a.context.regions.r]\nkind = "compacted"',  # P25: inside a stage layout
    ],
)
def test_values_outside_their_enumeration(source):
    check(source, "invalid-value")


def test_enum_message_lists_values_and_suggests():
    d = only('[stages.plan]\nmode = "outupt"')
    assert d.message == (
        "'stages.plan.mode' = 'outupt' is not a valid stage mode; "
        "expected one of: autonomous, interactive, interactive_points, fan_out, output"
    )
    assert d.fix == "did you mean 'output'?"


def test_policy_suggestion_ignores_case():
    d = only('[tool_permissions]\nbash = "ALOW"')
    assert d.fix == "did you mean 'allow'?"
    assert "letter case is ignored" in d.message


def test_enum_without_close_match_falls_back_to_the_rule_fix():
    d = only('[sandbox]\nkind = "zzz"')
    assert d.fix == "use one of the values listed"


# --- out-of-range ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "[stages.a]\nmax_workers = -1",  # P9
        "[stages.a]\nmax_items = -1",
        "[stages.a]\nmax_attempts = -3",
        "[stages.a.tool_routing.overrides]\nbash = { max_result_tokens = -1 }",  # P15
        "[stages.a.tool_routing.max_result_tokens_per_tool]\nbash = -1",  # P18
        "[stages.a]\nmax_iterations = -1",  # R5 wraps
        "[stages.a]\nmax_revisits = -1",
        "[agent]\nmax_child_depth = -1",
        "[stages.a.tool_routing]\nmax_result_tokens = -5",
        "[context.regions.r]\nmax_tokens = -1",
        "[context.regions.r]\noverflow = -1",
        "[context.file_tracking]\nmax_file_tokens = -1",
        "[repetition_detection]\nmax_repeat_calls = -1",
        "[compaction]\nmax_summary_tokens = -1",
        "[stages.a.transitions.b]\ngate = { max_attempts = -1 }",
        "[stages.a.nudge]\nmax = -1",
        "[stages.a.model]\nrequest_timeout_secs = -1",
        '[stages.a.transitions.b]\ncondition = "stuck"\nstuck_after_minutes = 0',
        "[stages.a.transitions.b]\nstuck_after_tool_calls = -4",
    ],
)
def test_numbers_below_their_minimum(source):
    check(source, "out-of-range")


def test_zero_is_fine_where_it_means_something():
    check(
        """
        [stages.a]
        max_iterations = 0
        max_workers = 0
        max_attempts = 0
        max_revisits = 0

        [stages.a.transitions.b]
        gate = { max_attempts = 0 }
        stuck_after_iterations = 1
        condition = "stuck"
        """
    )


def test_huge_integers_do_not_crash():
    check("[stages.a]\nmax_iterations = 9223372036854775807")


# --- unknown-key / rejected-key -------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "[nudge]\nmax = 1",  # top level
        '[agent]\nmodel = "gpt"',
        "[agent.nudge]\nmaximum = 2",
        '[agent.output]\nformats = "md"',
        "[context]\nhidden = true",
        "[context.regions.r]\nmax_token = 5",
        '[context.regions.r]\nseed = { caller_input = "task" }',
        "[context.file_tracking]\ntrack = true",
        "[stages.a.model]\ntemperature = 0.2",
        '[[stages.a.model.models]]\nname = "x"',
        '[[stages.a.model.fallbacks]]\nname = "x"',
        '[[stages.a.interaction_points]]\noption = ["x"]',
        '[stages.a.transitions.b.transform_config]\nkeep = ["x"]',
        "[stages.a.nudge]\non = true",
        '[stages.a.output]\nshape = "x"',
        "[stages.a.security]\ntaint = true",
        '[stages.a.sandbox]\nmounts = ["/x"]',
        "[security]\ntaint = true",
        '[sandbox]\nmounts = ["/x"]',
        "[read_paths]\ndeny = []",
        "[safe_commands]\ndefaults = []",
        "[compaction]\nmax_tokens = 1",
        "[repetition_detection]\nmax = 1",
        '[[transforms]]\nfrom = "x"',
        '[[transforms]]\nmappings = [{ to = "x" }]',
        '[context.regions.r]\nseed = { tools = [{ name = "ls", arguments = {} }] }',
    ],
)
def test_unknown_keys_in_lenient_tables_are_warnings(source):
    check(source, "unknown-key")


@pytest.mark.parametrize(
    "source",
    [
        "[stages.a]\nmax_iteration = 5",  # P3
        '[stages.a.tool_routing]\ndefault = "x"',  # P10
        '[stages.a.tool_routing.overrides]\nbash = { region = "x", cap = 1 }',  # P12
        '[stages.a.hooks]\non_start = "x.rhai"',  # P21
        "[stages.a.context]\nfile_tracking = {}",  # P24
        '[stages.a.transitions.b]\ncondtion = "error"',  # P26
        "[stages.a.transitions.b.gate]\nrequire_modification = true",  # P27
        # Not a Leviath gate key: its gate table allows exactly the eight keys of GATE_KEYS.
        '[stages.a.transitions.b.gate]\nrequire_region_entries = { region = "r", at_least = 1 }',
        '[stages.a.transitions.b]\ngate = { require_region_entries = "r" }',
    ],
)
def test_unknown_keys_in_strict_tables_are_errors(source):
    check(source, "rejected-key")


def test_unknown_hook_with_a_wrong_value_is_one_finding():
    check("[stages.a.hooks]\non_start = 5", "rejected-key")


def test_every_extra_key_is_reported_at_its_own_key():
    result = run('[stages.plan]\nmodee = "x"\nmax_iteration = 5', settings=SCHEMA_ONLY)
    found = [(d.code, d.key_path, d.line, d.column, d.end_column) for d in result.diagnostics]
    assert found == [
        ("rejected-key", "stages.plan.modee", 5, 1, 6),
        ("rejected-key", "stages.plan.max_iteration", 6, 1, 14),
    ]


def test_unknown_key_messages_say_what_the_reference_does():
    lenient = only("[sandbox]\nmounts = []")
    assert lenient.severity == "warning"
    assert lenient.message == "unknown key 'mounts' in [sandbox]; the reference ignores it"
    assert lenient.fix == "did you mean 'mount'?"
    strict = only('[stages.plan.transitions.review]\ncondtion = "error"')
    assert strict.severity == "error"
    assert strict.message == (
        "unknown key 'condtion' in edge 'plan' → 'review'; the reference refuses to load the file"
    )
    assert strict.fix == "did you mean 'condition'?"


def test_unknown_key_without_suggestion_lists_small_tables():
    d = only("[stages.a.context]\nzzz = 1")
    assert d.fix == "remove it (valid keys here: regions)"


def test_misplaced_keys_get_a_specific_hint():
    assert "each stage" in only('[agent]\nmodel = { provider = "x" }').fix
    assert "system_prompt" in only('[stages.a]\nprompt = "x"').fix
    assert "on_stage_enter" in only('[stages.a.hooks]\non_start = "x.rhai"').fix


def test_quoted_and_unicode_keys():
    result = run('[stages.a]\n"modèle" = 1\n"a.b" = 2\n\'x y\' = 3', settings=SCHEMA_ONLY)
    assert [(d.code, d.key_path, d.line, d.column) for d in result.diagnostics] == [
        ("rejected-key", 'stages.a."modèle"', 5, 1),
        ("rejected-key", 'stages.a."a.b"', 6, 1),
        ("rejected-key", 'stages.a."x y"', 7, 1),
    ]
    assert "'modèle'" in result.diagnostics[0].message


def test_unicode_stage_name_is_just_a_name():
    check('[stages."réviser"]\nmode = "autonomous"')


def test_system_prompt_inside_model_is_left_to_the_structure_rules():
    check('[stages.a.model]\nsystem_prompt = "x"')


# --- empty-routing-override / missing-key ---------------------------------------------------


def test_empty_routing_override():
    d = only("[stages.a.tool_routing.overrides]\nbash = {}")
    assert d.code == "empty-routing-override"
    assert (d.line, d.column, d.end_column) == (5, 8, 10)


def test_partial_routing_overrides_are_fine():
    check('[stages.a.tool_routing.overrides]\nbash = { region = "r" }\nls = { max_result_tokens = 0 }\nx = "r"')


@pytest.mark.parametrize(
    "source",
    [
        '[context.regions.r]\nseed = { tools = [{ args = { path = "x" } }] }',
    ],
)
def test_missing_required_keys(source):
    check(source, "missing-key")


# --- positions ------------------------------------------------------------------------------


def test_value_findings_point_at_the_value():
    d = only('[stages.a]\nmodel = { models = [{ provider = "x", model = 5 }] }')
    assert d.key_path == "stages.a.model.models[0].model"
    assert (d.line, d.column, d.end_line, d.end_column) == (5, 47, 5, 48)


def test_array_element_findings_point_at_the_element():
    d = only('[stages.a]\navailable_tools = ["bash", 5, "ls"]')
    assert d.key_path == "stages.a.available_tools[1]"
    assert (d.line, d.column, d.end_column) == (5, 28, 29)


def test_wrong_type_written_as_a_header_points_at_its_key():
    d = only("[stages.a.mode]\nx = 1")
    assert d.code == "invalid-type"
    assert (d.line, d.column, d.end_column) == (4, 11, 15)


def test_findings_under_a_stage_carry_the_stage():
    result = run('[stages.plan]\nmode = "x"\n\n[sandbox]\nkind = "y"', settings=SCHEMA_ONLY)
    assert [(d.code, d.stage) for d in result.diagnostics] == [("invalid-value", "plan"), ("invalid-value", None)]


def test_many_independent_problems_are_all_reported():
    result = run(
        """
        [stages.a]
        mode = "x"
        max_iterations = -1
        bogus = 1

        [stages.a.transitions.b]
        condition = 5
        gate = { wat = 1 }

        [sandbox]
        mounts = []
        """,
        settings=SCHEMA_ONLY,
    )
    assert sorted(d.code for d in result.diagnostics) == [
        "invalid-type",
        "invalid-value",
        "out-of-range",
        "rejected-key",
        "rejected-key",
        "unknown-key",
    ]
