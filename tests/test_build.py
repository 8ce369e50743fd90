"""The model builder: defaults, aliases, legacy spellings and leniency of format.md §1–§3."""

from __future__ import annotations

import textwrap
import tomllib

import pytest

from compiler.ir.build import build_blueprint
from compiler.ir.model import (
    DEFAULT_NUDGE_TEXT,
    FALLBACK_LAYOUT,
    CustomTransform,
    Edge,
    FanOut,
    Gate,
    InteractionPoint,
    ModelConfig,
    ModelEntry,
    NudgeConfig,
    RegionSeed,
    ResolvedNudge,
    RoutingOverride,
    SeedToolCall,
    StuckThresholds,
    ToolPermission,
    ToolRouting,
)
from tests.helpers import CORPUS, requires_shared


def build(source: str):
    return build_blueprint(tomllib.loads(textwrap.dedent(source)))


def stage(source: str, name: str = "s"):
    return build(source).stage(name)


# --- blueprint level ----------------------------------------------------------------------


def test_empty_document_gets_defaults_and_one_default_stage():
    bp = build("")
    assert (bp.name, bp.version, bp.description) == ("unnamed", "0.1.0", "")
    assert bp.stage_names == ("main",)
    assert bp.default_stage is True
    assert bp.layout == FALLBACK_LAYOUT
    assert bp.entry == "main"
    assert not bp.graph_mode


@pytest.mark.parametrize("stages", ["stages = 5", "[[stages]]\nx = 1", "[stages]"])
def test_stages_that_are_not_a_non_empty_table_give_the_default_stage(stages):
    bp = build(stages)
    assert bp.stage_names == ("main",) and bp.default_stage


def test_agent_that_is_not_a_table_is_all_defaults():
    bp = build('agent = "x"\n[stages.a]')
    assert bp.name == "unnamed" and bp.entry_stage is None and not bp.default_stage


def test_agent_fields_and_wrong_types_fall_back():
    bp = build(
        """
        [agent]
        name = "coder"
        version = 3
        entry_stage = "b"
        max_child_depth = 2.0
        dynamic_tools = true
        [stages.a]
        [stages.b]
        """
    )
    assert (bp.name, bp.version, bp.entry_stage, bp.max_child_depth, bp.dynamic_tools) == (
        "coder",
        "0.1.0",
        "b",
        None,
        True,
    )
    assert bp.entry == "b"


def test_stages_keep_document_order_and_non_table_stage_is_all_defaults():
    bp = build("[stages.zeta]\n[stages.alpha]\n[stages]\nmid = 5\n")
    assert bp.stage_names == ("zeta", "alpha", "mid")
    assert bp.stage("mid").mode == "autonomous"
    assert bp.next_stage(bp.stage("zeta")).name == "alpha"


def test_unicode_and_quoted_names():
    bp = build('[stages."два слова"]\n[stages."two.words".transitions."два слова"]\n')
    assert bp.stage_names == ("два слова", "two.words")
    assert bp.stage("two.words").transitions == (Edge(target="два слова"),)


# --- stages: mode sugar -------------------------------------------------------------------


def test_output_mode_grants_submit_output_requires_output_and_allows_complete():
    s = stage('[stages.s]\nmode = "output"\navailable_tools = ["read_file"]\nrequire_output = false')
    assert s.available_tools == ("read_file", "submit_output")
    assert s.require_output is True
    assert s.allow_complete is True


def test_output_mode_does_not_duplicate_submit_output_and_keeps_written_allow_complete():
    s = stage('[stages.s]\nmode = "output"\navailable_tools = ["submit_output", "x"]\nallow_complete = false')
    assert s.available_tools == ("submit_output", "x")
    assert s.allow_complete is False


def test_output_mode_with_non_bool_allow_complete_leaves_it_false():
    assert stage('[stages.s]\nmode = "output"\nallow_complete = "yes"').allow_complete is False


def test_fan_out_grants_its_tool_and_reads_fan_out_keys():
    s = stage(
        """
        [stages.s]
        mode = "fan_out"
        available_tools = []
        worker_stage = "w"
        max_workers = 0
        max_items = 0
        max_attempts = 0
        on_worker_failure = "fail_all"
        """
    )
    assert s.available_tools == ("fan_out",)
    assert s.fan_out == FanOut(
        worker_stage="w", max_workers=0, max_items=None, max_attempts=0, on_worker_failure="fail_all"
    )


def test_fan_out_keys_are_ignored_on_other_modes_and_bad_values_default():
    assert stage('[stages.s]\nworker_stage = "w"').fan_out is None
    s = stage(
        '[stages.s]\nmode = "fan_out"\nmax_workers = -1\nmax_items = 2.5\nworker_agent = 5\non_worker_failure = "x"'
    )
    assert s.fan_out == FanOut()


@pytest.mark.parametrize("mode", ["5", '"fan_out_merge"', '"outupt"', "true"])
def test_unknown_or_unreadable_mode_is_autonomous(mode):
    assert stage(f"[stages.s]\nmode = {mode}").mode == "autonomous"


def test_available_tools_keep_only_strings_in_order():
    s = stage('[stages.s]\navailable_tools = ["b", 1, "a", true]\nrequired_tools = "x"')
    assert s.available_tools == ("b", "a")
    assert s.required_tools == ()


def test_trimming_and_integer_leniency():
    s = stage(
        '[stages.s]\ndescription = "  d  "\nsystem_prompt = """\n  hi\n"""\n'
        'transition_prompt = " t "\nmax_iterations = 10.0\nmax_revisits = -1\n'
    )
    assert (s.description, s.system_prompt, s.transition_prompt) == ("d", "hi", "t")
    assert s.max_iterations is None
    assert s.max_revisits == -1  # kept as written; the schema layer reports it


# --- models -------------------------------------------------------------------------------


def test_model_current_form_with_per_field_defaults_and_non_tables_skipped():
    s = stage(
        '[stages.s]\nmodel = { models = [{ provider = "openai" }, "x", { model = "m" }], allow_user_default = false }'
    )
    assert s.model.entries == (ModelEntry("openai", "claude-sonnet-4-6"), ModelEntry("anthropic", "m"))
    assert s.model.allow_user_default is False


def test_legacy_provider_model_then_fallbacks():
    s = stage(
        '[stages.s.model]\nprovider = "openai"\nmodel = "gpt"\n'
        'fallbacks = [{ provider = "google", model = "g" }, 3]\nrequest_timeout_secs = 0\n'
    )
    assert s.model.entries == (ModelEntry("openai", "gpt"), ModelEntry("google", "g"))
    assert s.model.request_timeout_secs == 0


def test_legacy_model_without_provider_is_dropped():
    assert stage('[stages.s.model]\nmodel = "gpt"').model.entries == (ModelEntry(),)


def test_models_hide_legacy_keys_and_empty_models_do_not():
    hidden = stage('[stages.s.model]\nprovider = "openai"\nmodels = [{ provider = "google", model = "g" }]')
    assert hidden.model.entries == (ModelEntry("google", "g"),)
    shown = stage('[stages.s.model]\nprovider = "openai"\nmodels = []')
    assert shown.model.entries == (ModelEntry("openai", "claude-sonnet-4-6"),)


def test_non_table_model_is_the_default_config_and_parameters_become_json():
    assert stage('[stages.s]\nmodel = "gpt-4o"').model == ModelConfig()
    s = stage("[stages.s.model]\nrequest_timeout_secs = -5\nparameters = { t = 0.5, when = 1979-05-27, n = nan }")
    assert s.model.request_timeout_secs is None
    assert s.model.parameters == {"t": 0.5, "when": "1979-05-27", "n": None}


# --- regions ------------------------------------------------------------------------------


def regions(source: str):
    return {r.name: r for r in build(source).layout.regions}


def test_region_defaults_alias_and_non_table_region():
    r = regions('[context.regions]\nmap = { kind = "hash_map", max_entries = 4 }\nplain = 5\nodd = { kind = "weird" }')
    assert list(r) == ["map", "plain", "odd"]
    assert (r["map"].kind, r["map"].max_entries) == ("hashmap", 4)
    assert (r["plain"].kind, r["plain"].max_tokens) == ("temporary", 5000)
    assert r["odd"].kind == "temporary"


def test_empty_global_regions_fall_back_but_a_stage_layout_may_be_empty():
    bp = build("[context.regions]\n[stages.s.context.regions]\n[stages.t.context]\nregions = 3\n")
    assert bp.layout == FALLBACK_LAYOUT
    assert bp.stage("s").layout is not None and bp.stage("s").layout.regions == ()
    assert bp.stage("t").layout is None


def test_percentage_budget_with_cap_and_floor():
    r = regions(
        "[context.regions]\n"
        'a = { budget = " 35 % ", max_tokens = 900, min_tokens = 10 }\n'
        'b = { min_tokens = 10 }\nc = { budget = "0%" }'
    )
    assert (r["a"].budget_percent, r["a"].max_tokens, r["a"].min_tokens) == (35.0, 900, 10)
    assert (r["b"].budget_percent, r["b"].max_tokens, r["b"].min_tokens) == (None, 5000, None)
    assert (r["c"].budget_percent, r["c"].max_tokens) == (None, 5000)  # invalid budget: absent


@pytest.mark.parametrize(
    ("spec", "compact_at", "threshold", "trigger_at_1000"),
    [
        ('budget = "10%", compact_at = "50%", threshold_tokens = 300', 50.0, 300, 300),
        ('budget = "10%", compact_at = "50%"', 50.0, None, 500),
        ('budget = "10%", threshold_tokens = 300', None, 300, 300),
        ('budget = "10%"', 80.0, None, 800),
        ("max_tokens = 1001", None, 800, 800),
        ("", None, 4000, 4000),
        ('max_tokens = 1000, compact_at = "25%"', 25.0, None, 250),
    ],
)
def test_compacting_threshold_reconciliation(spec, compact_at, threshold, trigger_at_1000):
    r = regions(f'[context.regions]\nc = {{ kind = "compacting"{", " + spec if spec else ""} }}')["c"]
    assert (r.compact_at_percent, r.threshold_tokens) == (compact_at, threshold)
    assert r.compaction_trigger(1000) == trigger_at_1000


def test_compaction_trigger_rounds_half_away_from_zero():
    r = regions('[context.regions]\nc = { kind = "compacting", budget = "10%", compact_at = "50%" }')["c"]
    assert r.compaction_trigger(5) == 3


def test_kind_specific_keys_are_read_only_for_their_kind():
    r = regions(
        "[context.regions]\n"
        'p = { kind = "pinned", max_items = 3, compact_at = "50%", script = "x.rhai" }\n'
        'w = { kind = "sliding_window", max_items = 3, strategy = "bulk", overflow = 4, compact_count = 7 }\n'
        'h = { kind = "compact_history" }\n'
        'c = { kind = "custom", script = "  r.rhai ", persistent = true }\n'
        'b = { kind = "custom", script = "   " }\n'
    )
    assert (r["p"].max_items, r["p"].compact_at_percent, r["p"].script) == (10, None, None)
    assert (r["w"].max_items, r["w"].strategy, r["w"].overflow, r["w"].compact_count) == (3, "bulk", 4, 10)
    assert r["h"].source_region == ""
    assert (r["c"].script, r["c"].persistent, r["c"].is_fixed) == ("r.rhai", True, True)
    assert r["b"].script is None


def test_region_common_keys():
    r = regions(
        "[context.regions]\n"
        'a = { required = true, required_message = " m ", summarizable = false, admission = "reject", '
        'volatility = "grows", description = "   ", describe_in_prompt = 1 }\n'
        'b = { admission = "x", volatility = 3, description = " d " }\n'
    )
    a, b = r["a"], r["b"]
    assert (a.required, a.required_message, a.summarizable, a.admission, a.volatility) == (
        True,
        " m ",
        False,
        "reject",
        "grows",
    )
    assert (a.description, a.describe_in_prompt) == (None, False)
    assert (b.admission, b.volatility, b.description) == ("evict", "rewritten", "d")


# --- seeds --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seed", "expected"),
    [
        ('"task_input"', RegionSeed(kind="caller", caller_key="task")),
        ('"input"', RegionSeed(kind="caller", caller_key="notes")),
        ('"task"', RegionSeed(kind="caller", caller_key="task")),
        ('{ glob = "*.md", files = ["a"] }', RegionSeed(kind="glob", glob="*.md")),
        ('{ glob = 1, files = ["a", 2, "b"] }', RegionSeed(kind="files", files=("a", "b"))),
        ('{ literal = "x", rhai = "y" }', RegionSeed(kind="literal", literal="x")),
        ('{ command = "git ls-files" }', RegionSeed(kind="command", command="git ls-files")),
        (
            '{ tool = "list_dir", refresh = " Each_Stage " }',
            RegionSeed(kind="tools", tools=(SeedToolCall("list_dir"),), refresh="each_stage"),
        ),
        (
            '{ tools = ["a", { name = "b", args = { p = 1 } }, { args = {} }, 3, { name = "c", args = "x" }], '
            'refresh = "sometimes" }',
            RegionSeed(kind="tools", tools=(SeedToolCall("a"), SeedToolCall("b", {"p": 1}), SeedToolCall("c"))),
        ),
        ('{ tools = [1, {}] , caller = "x" }', None),
        ('{ caller = "brief" }', RegionSeed(kind="caller", caller_key="brief")),
        ('{ caller_input = "task" }', None),
        ("42", None),
    ],
)
def test_seed_forms_and_precedence(seed, expected):
    assert regions(f"[context.regions]\nnotes = {{ seed = {seed} }}")["notes"].seed == expected


def test_implicit_task_seed_and_its_suppression():
    r = regions('[context.regions]\ntask = { kind = "pinned" }')
    assert r["task"].seed == RegionSeed(kind="caller", caller_key="task", implicit=True)
    assert regions("[context.regions]\ntask = 5")["task"].seed is not None
    assert regions("[context.regions]\ntask = { seed = 42 }")["task"].seed is None
    assert regions("[context.regions]\ntask = { seed = { what = 1 } }")["task"].seed is None
    assert regions('[context.regions]\nTask = { kind = "pinned" }')["Task"].seed is None


# --- edges --------------------------------------------------------------------------------


def test_edges_keep_declaration_order_and_fall_through_uses_file_order():
    bp = build(
        """
        [stages.a.transitions]
        zed = { hint = "z" }
        beta = { condition = "error" }
        alpha = {}
        [stages.b]
        [stages.c.transitions]
        """
    )
    a, b, c = bp.stages
    assert [e.target for e in a.transitions] == ["zed", "beta", "alpha"]
    assert b.transitions is None and bp.next_stage(b) is c
    assert c.transitions == () and bp.next_stage(c) is None
    assert bp.graph_mode


@pytest.mark.parametrize(
    ("edge", "expected"),
    [
        ('t = { hint = "go" }', Edge("t", condition="llm_choice", hint="go")),
        ("t = {}", Edge("t")),
        ('t = "true"', Edge("t")),
        ("t = false", Edge("t")),
        ('t = { condition = true, hint = "h" }', Edge("t", condition="llm_choice", hint="h")),
        ('t = { condition = "always", hint = "h" }', Edge("t", condition="always", hint="h")),
        ('t = { condition = "dead_end", hint = 5 }', Edge("t", condition="dead_end")),
        ('t = { transform = "summarize" }', Edge("t", transform="compact")),
        ('t = { transform = "nonsense" }', Edge("t")),
        ('t = { gate = "yes" }', Edge("t")),
        ("t = { gate = {} }", Edge("t", gate=Gate())),
    ],
)
def test_edge_forms(edge, expected):
    assert stage(f"[stages.s.transitions]\n{edge}").transitions == (expected,)


def test_transform_config_read_only_for_custom():
    s = stage(
        """
        [stages.s.transitions.a]
        transform = "custom"
        transform_config = { carry = ["x", 1], clear = "y", compact_prompt = "p" }
        [stages.s.transitions.b]
        transform = "compact"
        transform_config = { compact_prompt = "p" }
        [stages.s.transitions.c]
        transform = "custom"
        """
    )
    a, b, c = s.transitions
    assert a.custom == CustomTransform(carry=("x",), compact_prompt="p")
    assert b.custom is None and b.transform == "compact"
    assert c.custom == CustomTransform()


def test_stuck_thresholds_keep_positive_integers_only():
    s = stage(
        '[stages.s.transitions.a]\ncondition = "stuck"\nstuck_after_iterations = 0\n'
        "stuck_after_minutes = 5\nstuck_after_same_file_edits = -2\nstuck_after_tool_calls = 3.0\n"
        "[stages.s.transitions.b]\nstuck_after_iterations = 0\n"
    )
    a, b = s.transitions
    assert a.stuck == StuckThresholds(minutes=5)
    assert b.stuck is None


def test_gate_fields_defaults_and_max_attempts():
    s = stage(
        """
        [stages.s.transitions.a.gate]
        require_modifications = true
        message = "  wait  "
        region = "r"
        tools = ["t", 1]
        max_attempts = 0
        require_region_updated = "u"
        require_regions = ["x", false]
        require_no_open_items = "todo"
        [stages.s.transitions.b.gate]
        max_attempts = -1
        [stages.s.transitions.c.gate]
        max_attempts = 2.0
        """
    )
    a, b, c = s.transitions
    assert a.gate == Gate(
        require_modifications=True,
        message="wait",
        region="r",
        tools=("t",),
        max_attempts=0,
        require_region_updated="u",
        require_regions=("x",),
        require_no_open_items="todo",
    )
    assert b.gate == Gate() and b.gate.max_attempts == 3
    assert c.gate == Gate()


# --- routing, points, permissions, hooks --------------------------------------------------


def test_tool_routing_defaults_and_overrides():
    assert stage("[stages.s]").tool_routing is None
    s = stage(
        """
        [stages.s.tool_routing]
        persist = "no"
        max_result_tokens_per_tool = { a = 5, b = -1, c = "x" }
        [stages.s.tool_routing.overrides]
        bash = "scratch"
        read = { max_result_tokens = 100 }
        grep = { region = "r", max_result_tokens = -3 }
        bad = 5
        empty = {}
        """
    )
    assert s.tool_routing == ToolRouting(
        overrides=(
            RoutingOverride("bash", region="scratch"),
            RoutingOverride("read", max_result_tokens=100),
            RoutingOverride("grep", region="r"),
        ),
        max_result_tokens_per_tool=(("a", 5),),
    )


def test_interaction_points_aliases_and_blank_points():
    s = stage(
        """
        [stages.s]
        mode = "interactive_points"
        interaction_points = [
          { name = "a", choices = ["x"], followups = { x = "do", y = 1 }, style = "confirm", unattended = "ask" },
          { options = 5, choices = ["ignored"], directives = {}, followups = { z = "no" }, style = "bogus" },
          "not a table",
        ]
        """
    )
    a, b, c = s.interaction_points
    assert a == InteractionPoint(name="a", options=("x",), directives=(("x", "do"),), style="confirm", unattended="ask")
    assert (b.options, b.directives, b.style) == ((), (), "free_text")
    assert c == InteractionPoint()
    assert s.is_reviewed


def test_interaction_points_only_for_their_mode():
    assert stage('[stages.s]\ninteraction_points = [{ name = "a" }]').interaction_points == ()


def test_tool_permissions_lower_cased_and_unreadable_dropped():
    bp = build(
        '[tool_permissions]\nbash = "ASK"\nread = "Allow"\nx = "never"\ny = 1\n[stages.s.tool_permissions]\nz = "deny"'
    )
    assert bp.tool_permissions == (ToolPermission("bash", "ask"), ToolPermission("read", "allow"))
    assert bp.stage("s").tool_permissions == (ToolPermission("z", "deny"),)


def test_non_ascii_policy_is_not_folded():
    # U+212A KELVIN SIGN lower-cases to "k" in Python, but the reference compares ASCII only.
    assert build('[tool_permissions]\nx = "as\u212a"').tool_permissions == ()


def test_hooks_keep_known_names_with_string_values():
    s = stage('[stages.s.hooks]\non_stage_enter = "a.rhai"\non_lunch = "b.rhai"\non_error = 5')
    assert [(h.event, h.script) for h in s.hooks] == [("on_stage_enter", "a.rhai")]


# --- nudge cascade ------------------------------------------------------------------------


def test_nudge_cascade_field_by_field():
    bp = build(
        """
        [agent.nudge]
        max = 5
        text = " agent text "
        [stages.a.nudge]
        enabled = false
        [stages.b.nudge]
        text = "stage text"
        max = -1
        [stages.c]
        """
    )
    assert bp.nudge == NudgeConfig(max=5, text="agent text")
    assert bp.stage("a").effective_nudge == ResolvedNudge(enabled=False, max=5, text="agent text")
    assert bp.stage("b").effective_nudge == ResolvedNudge(enabled=True, max=5, text="stage text")
    assert bp.stage("c").effective_nudge == ResolvedNudge(enabled=True, max=5, text="agent text")


def test_reviewed_stage_is_not_nudged_by_default_unless_a_level_says_so():
    reviewed = '[stages.r]\nmode = "interactive_points"\ninteraction_points = [{ name = "p" }]\n'
    assert build(reviewed).stage("r").effective_nudge == ResolvedNudge(enabled=False)
    assert build("[agent.nudge]\nenabled = true\n" + reviewed).stage("r").effective_nudge.enabled is True
    no_points = '[stages.r]\nmode = "interactive_points"\n'
    assert build(no_points).stage("r").effective_nudge.enabled is True


def test_default_stage_inherits_agent_nudge():
    assert build('[agent.nudge]\ntext = "go"').stage("main").effective_nudge == ResolvedNudge(text="go")
    assert build("").stage("main").effective_nudge.text == DEFAULT_NUDGE_TEXT


# --- sections -----------------------------------------------------------------------------


def test_sections_present_only_when_written():
    bp = build("")
    assert (bp.security, bp.sandbox, bp.read_paths, bp.compaction, bp.file_tracking) == (None,) * 5
    bp = build(
        """
        [security]
        [sandbox]
        kind = "container"
        mounts = ["/x"]
        mount = ["/a", 1]
        on_unavailable = "explode"
        [read_paths]
        allow = ["~/a", 3]
        [safe_commands]
        shell = ["rg"]
        [compaction]
        temperature = 1
        max_summary_tokens = 10
        [context.file_tracking]
        track_reads = false
        [repetition_detection]
        enabled = false
        [[transforms]]
        to_blueprint = "b"
        mappings = [{ to_region = "x", transform = "extract", fields = ["f", 1] }, { transform = "weird" }, 7]
        """
    )
    assert bp.security.taint_tracking is True
    assert (bp.sandbox.kind, bp.sandbox.mount, bp.sandbox.on_unavailable) == ("container", ("/a",), "error")
    assert bp.read_paths.allow == ("~/a",)
    assert bp.safe_commands.shell == ("rg",)
    assert (bp.compaction.temperature, bp.compaction.max_summary_tokens) == (0.2, 10)
    assert (bp.file_tracking.region, bp.file_tracking.track_reads) == ("files", False)
    assert bp.repetition_detection.enabled is False
    (transform,) = bp.transforms
    m1, m2, m3 = transform.mappings
    assert (m1.to_region, m1.transform, m1.fields) == ("x", "extract", ("f",))
    assert (m2.transform, m3.to_region) == (None, "")


def test_a_plain_transforms_table_is_not_read():
    assert build('[transforms]\nto_blueprint = "b"').transforms == ()


# --- the real corpus ----------------------------------------------------------------------


@requires_shared
@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/agent.leviath")), ids=lambda p: p.parent.name)
def test_corpus_builds(path):
    bp = build_blueprint(tomllib.loads(path.read_text(encoding="utf-8")))
    assert bp.stages and not bp.default_stage
    assert bp.graph_mode
    assert bp.stage(bp.entry) is not None


@requires_shared
def test_corpus_coder_facts():
    bp = build_blueprint(tomllib.loads((CORPUS / "coder" / "agent.leviath").read_text(encoding="utf-8")))
    assert bp.stage_names == (
        "discover",
        "plan",
        "prototype",
        "implement",
        "review",
        "reassess",
        "error_recovery",
        "summary",
    )
    assert bp.entry == "discover"
    discover = bp.stage("discover")
    assert [(e.target, e.condition) for e in discover.transitions] == [
        ("plan", "llm_choice"),
        ("error_recovery", "error"),
        ("summary", "dead_end"),
    ]
    assert discover.tool_routing.default_region == "conversation"
    assert discover.model.entries[0] == ModelEntry("anthropic", "claude-sonnet-5")
    plan = bp.stage("plan")
    assert plan.mode == "interactive_points" and plan.effective_nudge.enabled is False
    assert plan.interaction_points[0].document_region == "plan"
    assert plan.interaction_points[0].directives[0][0] == "Revise - I'll describe changes"
    review_to_implement = bp.stage("review").transitions[1]
    assert review_to_implement.transform == "custom" and "conversation" in review_to_implement.custom.compact
    summary = bp.stage("summary")
    assert summary.transitions == () and summary.require_output and summary.available_tools == ("submit_output",)
    codebase = bp.layout.get("codebase")
    assert (codebase.kind, codebase.budget_percent, codebase.compact_at_percent) == ("compacting", 25.0, 80.0)
    assert bp.layout.get("task").seed.implicit


@requires_shared
def test_corpus_fan_out_facts():
    bp = build_blueprint(tomllib.loads((CORPUS / "data-analyst" / "agent.leviath").read_text(encoding="utf-8")))
    split = bp.stage("split")
    assert split.mode == "fan_out" and "fan_out" in split.available_tools
    assert split.fan_out.worker_stage == "gather_worker"
    assert bp.stage("gather_worker").allow_as_worker
