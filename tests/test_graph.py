"""The stage graph: its edge model, its algorithms, and its networkx view."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from itertools import pairwise

import networkx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.graph import StageGraph, by_condition, by_kind, run_edge, to_networkx
from compiler.ir.build import build_blueprint
from compiler.ir.model import Blueprint, Edge, FanOut, Stage
from compiler.pipeline import validate_file
from tests.helpers import CORPUS, ROOT, requires_shared

EXAMPLES = sorted((ROOT / "blueprints").glob("*.leviath"))


def load(snippet: str) -> Blueprint:
    text = textwrap.dedent(snippet).strip() + "\n"
    if "[agent]" not in text:
        text = '[agent]\nname = "t"\n' + text
    return build_blueprint(tomllib.loads(text))


def graph_of(snippet: str) -> StageGraph:
    return StageGraph.from_blueprint(load(snippet))


def edges(graph: StageGraph, kind: str | None = None) -> list[tuple[str, str, str]]:
    return [(e.source, e.target, e.kind) for e in graph.edges if kind is None or e.kind == kind]


def chain(n: int, back: int = 1, **stage_fields) -> Blueprint:
    """s0 → s1 → … with an error edge back from each stage to the one `back` before it."""
    stages = []
    for i in range(n):
        out = [Edge(f"s{i + 1}")] if i + 1 < n else []
        if i >= back:
            out.append(Edge(f"s{i - back}", condition="error"))
        stages.append(Stage(name=f"s{i}", transitions=tuple(out), **stage_fields))
    return Blueprint(stages=tuple(stages))


def from_pairs(n: int, pairs) -> Blueprint:
    """Stages s0..s{n-1}, each with a transitions table holding the given (source, target) edges."""
    out: dict[int, list[Edge]] = {i: [] for i in range(n)}
    for a, b in pairs:
        if all(e.target != f"s{b}" for e in out[a]):
            out[a].append(Edge(f"s{b}"))
    return Blueprint(stages=tuple(Stage(name=f"s{i}", transitions=tuple(out[i])) for i in range(n)))


# --- the edge model ---------------------------------------------------------------------------


def test_linear_blueprint_falls_through_in_file_order():
    graph = graph_of("[stages.a]\n[stages.b]\n[stages.c]")
    assert graph.names == ("a", "b", "c")
    assert edges(graph) == [("a", "b", "fall_through"), ("b", "c", "fall_through")]
    assert [n.terminal for n in graph.nodes] == [False, False, True]
    assert graph.entry == "a" and graph.node("a").entry


def test_mixed_blueprint_falls_through_only_from_stages_without_a_table():
    graph = graph_of(
        """
        [stages.plan.transitions.work]
        [stages.work]
        [stages.check.transitions.done]
        condition = "error"
        [stages.spare]
        [stages.done.transitions]
        [stages.last]
        """
    )
    assert edges(graph, "fall_through") == [("work", "check", "fall_through"), ("spare", "done", "fall_through")]
    terminal = [n.name for n in graph.nodes if n.terminal]
    assert terminal == ["check", "done", "last"]  # only conditioned edges; empty table; last


def test_transitions_keep_their_ir_edge_and_declaration_order():
    graph = graph_of(
        """
        [stages.a.transitions.c]
        hint = "go"
        [stages.a.transitions.b]
        condition = "stuck"
        stuck_after_iterations = 4
        transform = "clear"
        [stages.b.transitions]
        [stages.c.transitions]
        """
    )
    first, second = graph.out_edges("a")
    assert (first.target, first.condition, first.hint, first.kind) == ("c", "llm_choice", "go", "transition")
    assert (second.target, second.condition, second.transform, second.stuck.iterations) == ("b", "stuck", "clear", 4)
    assert first.path == ("stages", "a", "transitions", "c")
    assert first.is_normal and not second.is_normal and first.budget_checked


def test_fan_out_hand_offs_and_external_workers():
    graph = graph_of(
        """
        [stages.split]
        mode = "fan_out"
        worker_stage = "item"
        merge_stage = "merge"
        [stages.split.transitions.report]
        condition = "error"
        [stages.item]
        allow_as_worker = true
        [stages.item.transitions]
        [stages.merge]
        [stages.ext]
        mode = "fan_out"
        worker_agent = "researcher"
        merge_stage = "report"
        [stages.report.transitions]
        """
    )
    assert edges(graph) == [
        ("split", "report", "transition"),
        ("split", "merge", "merge"),
        ("split", "item", "worker"),
        ("merge", "ext", "fall_through"),
        ("ext", "report", "fall_through"),
        ("ext", "report", "merge"),
    ]
    assert [(w.stage, w.kind, w.name) for w in graph.external_workers] == [("ext", "agent", "researcher")]
    merge = graph.out_edges("split", by_kind("merge"))[0]
    assert merge.path == ("stages", "split", "merge_stage") and not merge.budget_checked and merge.condition is None


def test_fan_out_keys_on_other_modes_and_missing_targets_make_no_edges():
    graph = graph_of(
        """
        [stages.a]
        worker_stage = "b"
        merge_stage = "b"
        [stages.a.transitions.ghost]
        [stages.a.transitions.b]
        [stages.b]
        mode = "fan_out"
        worker_stage = "nowhere"
        merge_stage = "gone"
        [stages.b.transitions]
        """
    )
    assert edges(graph) == [("a", "b", "transition")]


def test_no_stages_and_wrong_values_do_not_crash():
    empty = StageGraph.from_blueprint(Blueprint(stages=()))
    assert empty.entry is None and empty.reachable() == [] and empty.sccs() == []
    assert not empty.dominators().dominates("a", "a")
    weird = Blueprint(stages=(Stage(name="a", mode="fan_out", fan_out=FanOut(merge_stage="a", worker_stage="a")),))
    graph = StageGraph.from_blueprint(weird)
    assert edges(graph) == [("a", "a", "merge"), ("a", "a", "worker")]
    assert graph.cycles(run_edge) == [("a",)]


def _settle(ir: Blueprint, stage: str):
    """The first edge the runner takes when `stage` ends normally (after one tool call)."""
    from compiler.runtime import Complete, InferenceFinished, RunState, TakeEdge, ToolCall, replay_step

    state = RunState(stage=stage, phase="infer", requests=1, visits={stage: 1})  # waiting on its first reply
    state, _ = replay_step(ir, state, InferenceFinished(tool_calls=(ToolCall(name="read_file", path="x"),), now=1.0))
    state, actions = replay_step(ir, state, InferenceFinished(text="done", now=2.0))
    for action in actions:
        if isinstance(action, TakeEdge):
            return (action.condition, action.target)
        if isinstance(action, Complete):
            return ("complete", None)
    return ("other", None)


@pytest.mark.parametrize(
    "snippet",
    [
        "[stages.a]\n[stages.b]\n[stages.c]",
        "[stages.a]\n[stages.b.transitions.d]\n[stages.c]\n[stages.d]",
        '[stages.a.transitions.b]\ncondition = "error"\n[stages.b]\n[stages.c.transitions]\n[stages.d]',
        "[stages.a.transitions.c]\n[stages.b]\n[stages.c]\n[stages.d.transitions]",
    ],
)
def test_fall_through_edges_are_exactly_where_the_runner_falls_through(snippet):
    ir = load(snippet)
    graph = StageGraph.from_blueprint(ir)
    for node in graph.nodes:
        taken = _settle(ir, node.name)
        modelled = graph.out_edges(node.name, by_kind("fall_through"))
        if taken[0] == "fall_through":
            assert [e.target for e in modelled] == [taken[1]], node.name
        else:
            assert modelled == (), node.name
        assert node.terminal == (taken[0] == "complete"), node.name


# --- real blueprints ----------------------------------------------------------------------------


def _blueprints():
    paths = list(EXAMPLES)
    if CORPUS.is_dir():
        paths += sorted(CORPUS.glob("*/agent.leviath"))
    return paths


@pytest.mark.parametrize("path", _blueprints(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_real_blueprints_build_and_agree_with_networkx(path):
    blueprint = validate_file(path).blueprint
    graph = StageGraph.from_blueprint(blueprint)
    assert graph.names == blueprint.stage_names
    for stage in blueprint.stages:
        modelled = [e.edge for e in graph.out_edges(stage.name, by_kind("transition"))]
        assert modelled == [e for e in stage.transitions or () if blueprint.stage(e.target)]
    nx_graph = to_networkx(blueprint)
    assert list(nx_graph.nodes) == list(graph.names)
    assert sorted(nx_graph.edges(keys=True)) == sorted((e.source, e.target, e.kind) for e in graph.edges)
    for edge in graph.edges:
        data = nx_graph.edges[edge.source, edge.target, edge.kind]
        assert (data["condition"], data["hint"], data["gate"], data["stuck"]) == (
            edge.condition,
            edge.hint,
            edge.gate,
            edge.stuck,
        )
    for node in graph.nodes:
        data = nx_graph.nodes[node.name]
        assert (data["entry"], data["terminal"], data["max_revisits"], data["mode"]) == (
            node.entry,
            node.terminal,
            node.stage.max_revisits,
            node.stage.mode,
        )
    assert set(graph.reachable()) == {graph.entry} | networkx.descendants(nx_graph, graph.entry)


@requires_shared
def test_corpus_fan_out_workers_are_shown():
    blueprint = validate_file(CORPUS / "deep-researcher" / "agent.leviath").blueprint
    nx_graph = to_networkx(blueprint)
    assert nx_graph.nodes["investigate"]["external_workers"] == ("agent:researcher",)
    assert nx_graph.edges["investigate", "analyze", "merge"]["kind"] == "merge"


def test_blueprint_graph_is_a_multidigraph():
    blueprint = load(
        """
        [stages.a]
        mode = "fan_out"
        merge_stage = "b"
        worker_agent = "x"
        [stages.b.transitions]
        """
    )
    graph = to_networkx(blueprint)
    assert isinstance(graph, networkx.MultiDiGraph)
    assert sorted(graph.edges(keys=True)) == [("a", "b", "fall_through"), ("a", "b", "merge")]
    assert graph.graph == {"entry": "a", "name": "t", "graph_mode": True}


def test_validate_never_imports_networkx():
    code = (
        "import sys\n"
        "from compiler.pipeline import validate_text\n"
        "r = validate_text('[agent]\\nname = \"t\"\\n[stages.a.transitions.b]\\n[stages.b.transitions.a]\\n')\n"
        "assert any(d.code == 'cycle-without-max-revisits' for d in r.diagnostics), r.diagnostics\n"
        "assert 'networkx' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# --- algorithms ---------------------------------------------------------------------------------


def test_sccs_of_hand_made_graphs():
    graph = StageGraph.from_blueprint(from_pairs(6, [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3), (5, 5)]))
    assert graph.sccs() == [("s0", "s1", "s2"), ("s3", "s4"), ("s5",)]
    assert graph.cycles() == [("s0", "s1", "s2"), ("s3", "s4"), ("s5",)]
    acyclic = StageGraph.from_blueprint(from_pairs(3, [(0, 1), (1, 2), (0, 2)]))
    assert acyclic.cycles() == [] and len(acyclic.sccs()) == 3


def test_cycle_witness_starts_at_the_smallest_name_and_is_shortest():
    ir = Blueprint(
        stages=(
            Stage(name="zeta", transitions=(Edge("alpha"),)),
            Stage(name="alpha", transitions=(Edge("mid"), Edge("zeta"))),
            Stage(name="mid", transitions=(Edge("zeta"),)),
        )
    )
    graph = StageGraph.from_blueprint(ir)
    (component,) = graph.cycles()
    witness = graph.cycle_witness(component)
    assert [(e.source, e.target) for e in witness] == [("alpha", "zeta"), ("zeta", "alpha")]
    assert graph.cycle_witness(()) == ()


def test_filters_by_condition_and_kind():
    graph = graph_of(
        """
        [stages.a.transitions.b]
        [stages.a.transitions.c]
        condition = "error"
        [stages.b]
        [stages.c.transitions]
        """
    )
    assert graph.reachable(where=by_condition("always")) == ["a", "b"]
    assert graph.reachable(where=by_condition("error")) == ["a", "c"]
    assert graph.reachable() == ["a", "b", "c"]
    assert graph.reachable("c", reverse=True) == ["c", "a", "b"]
    assert graph.reachable(stop=["b"]) == ["a", "b", "c"]
    assert graph.reachable("a", by_kind("fall_through")) == ["a"]


def test_dominators():
    graph = StageGraph.from_blueprint(from_pairs(5, [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (4, 1)]))
    dom = graph.dominators()
    assert dom.immediate("s3") == "s0" and dom.immediate("s4") == "s3" and dom.immediate("s0") is None
    assert dom.dominates("s3", "s4") and dom.dominates("s0", "s4") and dom.dominates("s4", "s4")
    assert not dom.dominates("s1", "s3") and not dom.dominates("s4", "s1")


pairs = st.integers(min_value=1, max_value=9).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=25))
)


@settings(max_examples=150, deadline=None)
@given(pairs)
def test_algorithms_agree_with_networkx(case):
    n, edge_pairs = case
    graph = StageGraph.from_blueprint(from_pairs(n, edge_pairs))
    reference = networkx.DiGraph()
    reference.add_nodes_from(graph.names)
    reference.add_edges_from((f"s{a}", f"s{b}") for a, b in edge_pairs)
    assert sorted(map(set, graph.sccs()), key=sorted) == sorted(
        networkx.strongly_connected_components(reference), key=sorted
    )
    assert set(graph.reachable()) == {"s0"} | networkx.descendants(reference, "s0")
    idom = networkx.immediate_dominators(reference, "s0")
    dom = graph.dominators()
    for name in graph.names:
        assert dom.immediate(name) == (None if name == "s0" or name not in idom else idom[name])
    for component in graph.cycles():
        witness = graph.cycle_witness(component)
        assert witness[0].source == min(component) and witness[-1].target == min(component)
        assert all(a.target == b.source for a, b in pairwise(witness))
        assert {e.source for e in witness} <= set(component)


def test_ten_thousand_stages_with_back_edges():
    """Linear, iterative work: no recursion limit at 10,000 stages (speed lives in benchmarks/)."""
    blueprint = chain(10_000, back=3)
    graph = StageGraph.from_blueprint(blueprint)
    assert len(graph.reachable()) == 10_000
    components = graph.cycles(graph.unbudgeted)
    assert [len(c) for c in components] == [10_000]
    witness = graph.cycle_witness(components[0], graph.unbudgeted)
    assert witness[0].source == "s0" and len(witness) == 4  # s0 → s1 → s2 → s3 → s0 (error)
    assert graph.dominators(run_edge).dominates("s0", "s9999")


def test_caps_cut_unbudgeted_cycles():
    capped = chain(4, back=1, max_revisits=2)
    graph = StageGraph.from_blueprint(capped)
    assert graph.cycles(graph.unbudgeted) == []
    # 'b' is capped, but the cycle enters it by fall-through, which its budget does not limit.
    fall = load(
        """
        [stages.a]
        [stages.b]
        max_revisits = 1
        [stages.b.transitions.a]
        [stages.b.transitions.c]
        [stages.c.transitions]
        """
    )
    graph = StageGraph.from_blueprint(fall)
    assert graph.cycles(graph.unbudgeted) == [("a", "b")]
    capped_a = load(
        """
        [stages.a]
        max_revisits = 1
        [stages.b.transitions.a]
        [stages.b.transitions.c]
        [stages.c.transitions]
        """
    )
    graph = StageGraph.from_blueprint(capped_a)
    assert graph.cycles(graph.unbudgeted) == []  # b → a is refused once 'a' is spent


def test_the_library_examples_in_docs_run():
    import re

    text = (ROOT / "docs" / "graph.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 2
    namespace: dict = {}
    example = (ROOT / "blueprints" / "fan-out.leviath").as_posix()
    for block in blocks:
        exec(block.replace('"agent.leviath"', repr(example)), namespace)
    assert namespace["g"].edges["split", "merge", "merge"]["kind"] == "merge"
