"""Structure rules: each check alone, several defects together, and the real corpus."""

from __future__ import annotations

import pytest

from compiler.config import Settings
from compiler.ir.build_regions import parse_percent
from compiler.pipeline import validate_file
from compiler.rules.structure.read_paths import entry_problem
from tests.helpers import CORPUS, assert_codes, requires_shared, run

STRUCTURE = Settings(select=("structure",))


def structure_codes(source: str) -> list[str]:
    return sorted(d.code for d in run(source, settings=STRUCTURE).diagnostics)


def assert_structure(source: str, *expected: str) -> None:
    assert_codes(source, *expected, settings=STRUCTURE)


# --- budgets and read paths: the exact syntax ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("35%", (35.0, None)),
        (" 35 % ", (35.0, None)),
        ("0.5%", (0.5, None)),
        ("100%", (100.0, None)),
        ("+5.%", (5.0, None)),
        (".5%", (0.5, None)),
        ("1e1%", (10.0, None)),
        ("35", (None, "no-percent")),
        ("%35", (None, "no-percent")),
        ("%", (None, "not-a-number")),
        ("3 5%", (None, "not-a-number")),
        ("1_0%", (None, "not-a-number")),
        ("0x10%", (None, "not-a-number")),
        ("0%", (None, "out-of-range")),
        ("-5%", (None, "out-of-range")),
        ("100.01%", (None, "out-of-range")),
        ("nan%", (None, "out-of-range")),
        ("inf%", (None, "out-of-range")),
    ],
)
def test_parse_percent(text, expected):
    assert parse_percent(text) == expected


@pytest.mark.parametrize(
    "entry",
    [
        "/var/log",
        "relative/dir",
        "~",
        "~/x",
        "~\\x",
        "C:/data",
        "glob:*.md",
        "glob:./a/**",
        "glob:**",
        "glob:/a/**/b",
        "glob:[]]",
        "glob:/x/[!.]*",
        "glob:C:\\data\\**",
        "regex:/a/.*",
        "regex:~",
        "regex:c:/x",
        "regex:/\\p{Greek}+",
        "regex:/a(?i)b",
        "regex:/a\\(?=b",
    ],
)
def test_read_path_entries_accepted(entry):
    assert entry_problem(entry) is None


@pytest.mark.parametrize(
    ("entry", "fragment"),
    [
        ("  ", "empty"),
        ("~bob", "'~/'"),
        ("regex:", "empty"),
        ("regex:~bob/.*", "'~/'"),
        ("regex:a/b", "must start with"),
        ("regex:/a[", "invalid regex"),
        ("regex:/(?<=a)b", "look-around"),
        ("regex:/(a)\\1", "back-references"),
        ("glob:", "empty"),
        ("glob:~bob/x", "'~/'"),
        ("glob:/a/***", "'*' or '**'"),
        ("glob:/a**/b", "whole path component"),
        ("glob:/a/**b", "whole path component"),
        ("glob:/a/[]", "not closed"),
        ("glob:/a/[!]", "not closed"),
        ("glob:/a/./b", "'.' or '..'"),
        ("glob:a/../b", "'.' or '..'"),
        ("glob:..", "'.' or '..'"),
        ("glob:" + "../" * 10 + "x", "above the filesystem root"),
    ],
)
def test_read_path_entries_refused(entry, fragment):
    problem = entry_problem(entry)
    assert problem is not None and fragment in problem


def test_relative_glob_may_climb_nine_levels():
    assert entry_problem("glob:" + "../" * 9 + "x") is None


# --- each check, and near misses ----------------------------------------------------------


def test_stuck_edges():
    assert_structure(
        '[stages.a.transitions.a]\ncondition = "stuck"\n',
        "stuck-without-threshold",
        "self-loop-without-max-revisits",
        "no-terminal-path",
    )
    assert_structure('[stages.a.transitions.b]\ncondition = "stuck"\nstuck_after_tool_calls = 1\n[stages.b]')
    assert_structure("[stages.a.transitions.b]\nstuck_after_iterations = 2\n[stages.b]", "threshold-without-stuck")
    # An unset (0) threshold on a normal edge is not armed; an unreadable condition is the schema's.
    assert_structure("[stages.a.transitions.b]\nstuck_after_iterations = 0\n[stages.b]")
    assert_structure('[stages.a.transitions.b]\ncondition = "stuk"\nstuck_after_iterations = 2\n[stages.b]')


def test_gates_need_a_modifying_tool_the_stage_offers():
    gate = "[stages.a.transitions.b]\ngate = {{ require_modifications = true{extra} }}\n[stages.b]\n"
    tools = '[stages.a]\navailable_tools = ["bash"]\n'
    assert_structure(tools + gate.format(extra=""), "gate-without-modifying-tool")
    assert_structure(tools + gate.format(extra=', tools = ["bash"]'))
    assert_structure(tools + gate.format(extra=', tools = ["sed"]'), "gate-without-modifying-tool")
    assert_structure('[stages.a]\navailable_tools = ["write_file"]\n' + gate.format(extra=""))
    # Applies to conditioned edges too.
    assert_structure(
        tools + '[stages.a.transitions.b]\ncondition = "error"\ngate = { require_modifications = true }\n[stages.b]',
        "gate-without-modifying-tool",
    )


def test_fan_out_worker_presence_counts_not_value():
    assert_structure('[stages.f]\nmode = "fan_out"\nworker_agent = ""')
    assert_structure('[stages.f]\nmode = "fan_out"\nworker_agent = 5', "fan-out-needs-one-worker")
    assert_structure(
        '[stages.f]\nmode = "fan_out"\nworker_agent = "a"\nworker_query = "q"\nworker_stage = "f"',
        "fan-out-needs-one-worker",
        "worker-stage-not-allowed",
    )


def test_fan_out_keys_on_other_modes_are_only_ignored():
    assert_structure('[stages.f]\nworker_stage = "nowhere"\nmerge_stage = "none"', "ignored-key", "ignored-key")


def test_visibility_is_narrower_than_known():
    source = """
    [stages.a.context.regions]
    mine = {}
    [stages.a.tool_routing]
    default_region = "theirs"
    [stages.a.transitions.b]
    gate = { require_region_updated = "theirs" }
    [stages.b.context.regions]
    theirs = {}
    """
    assert_structure(source, "region-not-visible")


def test_routing_defaults_to_an_always_visible_region():
    assert_structure("[stages.a.context.regions]\nmine = {}\n[stages.a.tool_routing]\npersist = false")


def test_transforms_target_the_global_layout_only_including_the_fallback():
    assert_structure('[[transforms]]\nmappings = [{ to_region = "conversation" }, { to_region = "system" }]')
    assert_structure(
        '[context.regions]\nnotes = {}\n[[transforms]]\nmappings = [{ to_region = "conversation" }]', "unknown-region"
    )


def test_file_tracking_region_is_checked_only_when_written():
    assert_structure("[context.file_tracking]\ntrack_reads = true")
    assert_structure('[context.file_tracking]\nregion = "files"', "unknown-region")
    assert_structure('[context.regions]\nfiles = {}\n[context.file_tracking]\nregion = "files"')


def test_working_budget_skips_percentage_layouts_and_small_totals():
    pinned = (
        '[context.regions]\nbig = {{ kind = "pinned", max_tokens = 30000 }}\nwork = {{ max_tokens = 1000{extra} }}\n'
    )
    assert_structure(pinned.format(extra=""), "working-budget-too-small")
    assert_structure(pinned.format(extra=', budget = "5%"'))
    assert_structure('[context.regions]\nbig = { kind = "pinned", max_tokens = 15000 }\nwork = { max_tokens = 4000 }')
    assert_structure(
        '[context.regions]\nbig = { kind = "custom", script = "s.rhai", max_tokens = 30000 }\n'
        "work = { max_tokens = 1000 }"
    )


def test_terminal_path_follows_fall_through_and_merge_stages():
    # Graph mode; 'b' has no transitions and is last: terminal.
    assert_structure("[stages.a.transitions.b]\n[stages.b]")
    # 'b' has no transitions but is not last: it falls through to 'c', which loops back.
    assert_structure("[stages.a.transitions.b]\n[stages.b]\n[stages.c.transitions.a]", "no-terminal-path")
    # A fan-out stage with a merge stage leads only there (its own terminal edge is ignored).
    fan_out = '[stages.f]\nmode = "fan_out"\nworker_agent = "w"\nmerge_stage = "m"\n[stages.f.transitions.end]\n'
    assert_structure(fan_out + "[stages.m.transitions.f]\n[stages.end.transitions]", "no-terminal-path")
    assert_structure(fan_out + "[stages.m.transitions.end]\n[stages.end.transitions]")


def test_terminal_path_starts_at_the_entry_stage():
    source = (
        '[agent]\nname = "t"\nentry_stage = "{entry}"\n'
        "[stages.a.transitions.a]\n[stages.a]\nmax_revisits = 1\n[stages.b.transitions]\n"
    )
    assert_structure(source.format(entry="b"))
    assert_structure(source.format(entry="a"), "no-terminal-path")


def test_linear_blueprints_skip_graph_checks():
    assert_structure("[stages.a]\n[stages.b]\nmax_revisits = 1")


def test_ignored_keys_need_a_readable_condition():
    # An unknown mode, kind or transform is the schema layer's finding; no cascade here.
    assert_structure('[stages.s]\nmode = "fan_otu"\nworker_stage = "s"')
    assert_structure('[context.regions]\nr = { kind = "pined", max_items = 3 }')
    assert_structure('[stages.s.transitions.t]\ntransform = "compactt"\ntransform_config = {}\n[stages.t]')
    assert_structure('[context.regions]\nr = { kind = "sliding_window", strategy = "bluk", overflow = 3 }')


# --- independence: one broken reference hides nothing -------------------------------------

MANY_DEFECTS = """
[agent]
name = "many"
entry_stage = "strat"

[context.regions]
notes = { kind = "pinned", budget = "150%" }
board = { kind = "custom" }

[read_paths]
allow = ["regex:relative", "glob:/ok/**", ""]

[stages.start]
required_tools = ["ask_user_text"]
[stages.start.transitions.middel]
[stages.start.transitions.middle]
condition = "stuck"
[stages.start.transitions.start]
gate = { require_modifications = true, region = "nots", require_regions = ["notes", "nope"] }

[stages.middle]
mode = "fan_out"
worker_stage = "ghost"
merge_stage = "start"
results_region = "void"

[stages.middle.tool_routing]
default_region = "hidden"
"""


def test_independent_defects_are_all_reported():
    assert structure_codes(MANY_DEFECTS) == sorted(
        [
            "unknown-entry-stage",
            "invalid-budget",
            "custom-region-missing-script",
            "invalid-read-path",
            "invalid-read-path",
            "required-tool-not-available",
            "unknown-stage",  # middel
            "stuck-without-threshold",
            "self-loop-without-max-revisits",
            "gate-without-modifying-tool",
            "unknown-region",  # gate.region 'nots'
            "unknown-region",  # require_regions 'nope'
            "unknown-stage",  # worker_stage 'ghost'
            "unknown-region",  # results_region 'void'
            "region-not-visible",
            "no-terminal-path",
        ]
    )


def test_every_instance_is_reported_not_just_the_first():
    source = (
        "[stages.a.transitions]\nx = {}\ny = {}\nz = {}\n[stages.b.transitions]\nw = {}\n[stages.end.transitions]\n"
    )
    assert structure_codes(source).count("unknown-stage") == 4


def test_an_edge_to_a_missing_stage_does_not_hide_the_other_edges():
    source = (
        "[stages.a.transitions.ghost]\n[stages.a.transitions.b]\n"
        "[stages.b]\nmax_revisits = 1\n[stages.b.transitions.b]\n"
    )
    assert_structure(source, "unknown-stage", "no-terminal-path")
    assert_structure(source + "[stages.b.transitions.end]\n[stages.end.transitions]\n", "unknown-stage")


def test_findings_carry_exact_positions_and_stage():
    source = (
        '[stages.plan.transitions.reveiw]\nhint = "go"\n[stages.plan.transitions.review]\n[stages.review.transitions]\n'
    )
    (d,) = run(source, settings=STRUCTURE).diagnostics
    assert (d.code, d.line, d.column, d.end_column, d.stage) == ("unknown-stage", 4, 26, 32, "plan")
    assert d.key_path == "stages.plan.transitions.reveiw"
    assert d.fix == "did you mean 'review'?"


# --- the corpus ---------------------------------------------------------------------------


@requires_shared
@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/agent.leviath")), ids=lambda p: p.parent.name)
def test_corpus_has_no_structure_findings(path):
    result = validate_file(path, STRUCTURE)
    assert [(d.line, d.code, d.message) for d in result.diagnostics] == []
