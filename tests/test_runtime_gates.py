"""runner.md §8, acceptance scenarios S22–S28: gates.

Driven through `tests/runtime/harness.py`, whose `feed` checks persistence at every step; a
documented deviation (docs/runner.md) is named in the test's docstring.
"""

from __future__ import annotations

from compiler.runtime import (
    TakeEdge,
)
from tests.runtime.harness import C, Driver

S22 = """
[stages.impl]
available_tools = ["write_file", "bash"]
[stages.impl.transitions.review]
hint = "implemented"
gate = {{ require_modifications = true{extra} }}
[stages.review]
transitions = {{}}
"""


def test_s22_a_modifications_gate_holds_three_times_then_gives_way():
    d = Driver(S22.format(extra=""))
    d.C(C("bash", result="ok"))
    for n in (1, 2, 3):
        d.T()
        assert d.stage == "impl" and d.visit.gate_reentries == n
        (text,) = d.injected()
        assert text.startswith("[System] ") and "edit_file or write_file" in text
    d.T()
    assert d.stage == "review" and d.flags.gates_forced == 1
    assert d.of(TakeEdge)[-1].gate == "forced"
    d.T()
    assert d.status == "complete"


def test_s22_what_passes_and_what_still_blocks():
    for outcome, result, passes in (
        ("ok", "Successfully wrote", True),
        ("denied", "[denied] by policy", True),
        ("ok", "[denied] by policy", True),
        ("error", "[error] disk full", False),
        ("blocked", "[blocked] tainted", False),
    ):
        d = Driver(S22.format(extra=""))
        d.C(C("write_file", "a.rs", outcome=outcome, result=result))
        d.T()
        assert (d.stage == "review") is passes, (outcome, result)
        if passes:
            assert d.of(TakeEdge)[-1].gate == "passed" and d.flags.gates_forced == 0


def test_s22_max_attempts_one_forces_at_the_second_attempt():
    d = Driver(S22.format(extra=", max_attempts = 1"))
    d.C("bash")
    d.T()
    assert d.stage == "impl"
    d.T()
    assert d.stage == "review" and d.flags.gates_forced == 1


def test_s23_the_evidence_region_satisfies_require_modifications():
    snippet = """
        [context.regions]
        conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
        implementation = { kind = "pinned", max_tokens = 2000 }
        [stages.impl]
        available_tools = ["write_file", "context_write"]
        [stages.impl.transitions.review]
        gate = { require_modifications = true, region = "implementation" }
        [stages.review]
        transitions = {}
    """
    d = Driver(snippet)
    d.C("context_write")
    d.T()
    assert d.stage == "impl"
    d.region("implementation", 1)
    d.T()
    assert d.stage == "review"


def test_s23_a_stage_that_cannot_modify_passes_unless_the_gate_lists_its_tool():
    snippet = """
        [stages.impl]
        available_tools = ["read_file"]
        [stages.impl.transitions.review]
        gate = {{ require_modifications = true{tools} }}
        [stages.review]
        transitions = {{}}
    """
    d = Driver(snippet.format(tools=""))
    d.T()
    assert d.stage == "review"
    d = Driver(snippet.format(tools=', tools = ["read_file"]'))
    d.T()
    assert d.stage == "impl"


def test_s23_a_gate_listed_bash_counts_shell_calls():
    d = Driver(
        """
        [stages.impl]
        available_tools = ["shell"]
        [stages.impl.transitions.review]
        gate = { require_modifications = true, tools = ["bash"] }
        [stages.review]
        transitions = {}
        """
    )
    d.C(C("shell", result="done"))
    assert d.flags.modified_files == ("<unknown>",) and d.flags.modified_file_count == 1
    d.T()
    assert d.stage == "review"


S24 = """
[context.regions]
conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
plan = { kind = "pinned", max_tokens = 2000 }
risks = { kind = "pinned", max_tokens = 2000 }
[stages.plan]
available_tools = ["write_file", "context_write"]
[stages.plan.transitions.build]
gate = { require_modifications = true, require_regions = ["plan", "risks"] }
[stages.build]
transitions = {}
"""


def test_s24_require_regions_blocks_even_after_a_file_write():
    d = Driver(S24)
    d.C(C("write_file", "a.py"), C("context_write"))
    d.region("plan")
    d.T()
    (text,) = d.injected()
    assert "'risks'" in text and "'plan'" not in text and d.stage == "plan"


def test_s24_regions_written_but_no_file_modification_still_blocks():
    d = Driver(S24)
    d.C("context_write")
    d.region("plan")
    d.region("risks")
    d.T()
    (text,) = d.injected()
    assert "edit_file or write_file" in text and d.stage == "plan"
    d.C(C("write_file", "a.py"))
    d.T()
    assert d.stage == "build"


def test_s24_region_alternative_and_unheld_names():
    d = Driver(S24.replace('require_regions = ["plan", "risks"]', 'region = "plan"'))
    d.C(C("write_file", "a.py"))
    d.T()
    assert d.stage == "build"
    d = Driver(S24.replace('require_regions = ["plan", "risks"]', 'require_regions = ["ghost"]'))
    d.C(C("write_file", "a.py"))
    d.T()
    assert d.stage == "build"


S25 = """
[context.regions]
conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
plan = { kind = "pinned", max_tokens = 2000 }
[stages.intake]
[stages.plan]
available_tools = ["context_write"]
max_revisits = 3
[stages.plan.transitions.check]
gate = { require_region_updated = "plan", message = "Change the plan before re-checking." }
[stages.check]
[stages.check.transitions.plan]
hint = "plan rejected"
[stages.check.transitions.done]
hint = "plan accepted"
[stages.done]
transitions = {}
"""


def test_s25_require_region_updated_revise_loop():
    d = Driver(S25)
    d.T()
    assert d.stage == "plan" and d.visit.entry_digests == {"plan": ""}
    d.C("context_write")
    d.region("plan", 1, "v1")
    d.T()
    assert d.stage == "check"
    d.T()
    d.R("plan")
    assert d.stage == "plan" and d.visit.entry_digests == {"plan": "v1"}
    d.T()
    assert d.stage == "plan" and d.visit.gate_reentries == 1
    assert d.injected() == ["[System] Change the plan before re-checking."]
    d.C("context_write")
    d.region("plan", 2, "v2")
    d.T()
    assert d.stage == "check"


def test_s25_an_unchanged_region_gives_way_after_the_budget():
    d = Driver(S25)
    d.T()
    for _ in range(3):
        d.T()
        assert d.stage == "plan"
    d.T()
    assert d.stage == "check" and d.flags.gates_forced == 1


def test_s25_the_first_stage_never_has_a_baseline():
    """As in Leviath: the run's first visit takes no revision baselines, seeded regions or not,
    so a `require_region_updated` gate passes on it unchanged."""
    snippet = S25.replace("[stages.intake]\n", "")
    for regions in (None, {}):
        d = Driver(snippet) if regions is None else Driver(snippet, regions=regions)
        assert d.visit.entry_digests == {}
        d.T()
        assert d.stage == "check" and d.visit.gate_reentries == 0


S26 = """
[context.regions]
conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
todos = { kind = "checklist", max_tokens = 2000 }
[stages.implement]
available_tools = ["todo_add", "todo_done"]
[stages.implement.transitions.report]
gate = { require_no_open_items = "todos" }
[stages.report]
transitions = {}
"""


def test_s26_open_checklist_items_block_and_are_named():
    d = Driver(S26)
    items = [("1", "a"), ("2", "b"), ("3", "c")]
    for n in range(3):
        d.C("todo_add")
        d.region("todos", n + 1, open_items=items[: n + 1])
    for n in range(2):
        d.C("todo_done")
        d.region("todos", 3, hash=f"done{n}", open_items=items[n + 1 :])
    d.T()
    (text,) = d.injected()
    assert "1 item(s)" in text and "3 c" in text and d.stage == "implement"
    d.C("todo_done")
    d.region("todos", 3, hash="all", open_items=())
    d.T()
    assert d.stage == "report"


def test_s26_an_empty_checklist_passes_and_open_items_give_way():
    d = Driver(S26)
    d.T()
    assert d.stage == "report"
    d = Driver(S26)
    d.region("todos", 1, open_items=[("1", "a")])
    for _ in range(3):
        d.T()
    assert d.stage == "implement"
    d.T()
    assert d.stage == "report" and d.flags.gates_forced == 1


def test_s27_a_routed_gated_edge_holds_before_its_transform():
    d = Driver(
        """
        [stages.impl]
        available_tools = ["write_file"]
        [stages.impl.transitions.review]
        transform = "compact"
        gate = { require_modifications = true }
        [stages.impl.transitions.plan]
        [stages.review]
        transitions = {}
        [stages.plan]
        transitions = {}
        """
    )
    d.T()
    d.R("review")
    assert d.stage == "impl" and d.state.phase == "infer" and d.visit.gate_reentries == 1
    assert d.state.compact == () and d.inference.summarize == () and not d.of(TakeEdge)


def test_s28_conditioned_edges_are_never_gated():
    d = Driver(
        """
        [stages.impl]
        available_tools = ["write_file"]
        [stages.impl.transitions.recover]
        condition = "error"
        gate = { require_modifications = true }
        [stages.recover]
        """
    )
    d.E("boom")
    assert d.stage == "recover" and d.of(TakeEdge)[0].gate is None and d.flags.gates_forced == 0
