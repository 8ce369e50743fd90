"""Fan-out stages in the analysis: the empty `fan_out` call, and the fix for a split that strands."""

from __future__ import annotations

import shutil
from pathlib import Path

from compiler.analysis import analyze
from compiler.check import check_bytes
from compiler.config import Settings
from tests.helpers import CORPUS, requires_shared, run
from tests.runtime.harness import Driver

SPLIT = """
[stages.split]
mode = "fan_out"
worker_agent = "helper"
merge_stage = "merge"
max_attempts = 1
[stages.split.transitions.oops]
condition = "error"
[stages.merge]
max_iterations = 3
[stages.merge.transitions.answer]
[stages.answer]
mode = "output"
max_iterations = 3
transitions = {}
[stages.oops]
max_iterations = 3
[stages.oops.transitions.answer]
"""


def test_the_missing_fan_out_nudge_offers_an_empty_items_list():
    d = Driver(SPLIT)
    d.T()
    (text,) = d.injected()
    assert "fan_out" in text and "empty items list" in text and d.visit.fan_out_rounds == 1


def test_an_empty_fan_out_call_goes_through_to_the_merge_stage():
    """Leviath parks the stage on no workers and finishes the split at once: the merge follows."""
    from compiler.runtime import WorkersFinished

    d = Driver(SPLIT)
    d.C("fan_out")
    d.feed(WorkersFinished(completed=0, failed=0, now=d.tick()))
    assert d.edges() == [("split", "merge", "merge")] and d.flags.splits_degraded == 0


def test_the_analysis_takes_the_empty_call_as_the_way_to_the_merge_stage():
    result = run(SPLIT)
    analysis = analyze(result.blueprint)
    graph = analysis.graph
    merges = [data["moves"] for _, _, data in graph.edges(data=True) if data.get("condition") == "merge"]
    assert merges and merges[0][-1] == "calls fan_out with an empty items list"
    (skipped,) = [f for f in analysis.findings if f.code == "output-can-be-skipped"]
    assert skipped.stage == "split" and "normal edge to its merge_stage 'merge'" in skipped.fix


def test_a_normal_edge_to_the_merge_stage_clears_the_finding():
    fixed = SPLIT.replace(
        "[stages.split.transitions.oops]", "[stages.split.transitions.merge]\n[stages.split.transitions.oops]"
    )
    assert not [f for f in analyze(run(fixed).blueprint).findings if f.code == "output-can-be-skipped"]


@requires_shared
def test_the_corpus_data_analyst_fix_names_the_merge_stage_and_clears_the_finding(tmp_path: Path):
    folder = tmp_path / "data-analyst"
    shutil.copytree(CORPUS / "data-analyst", folder)  # with its tools/, which the check reads
    source = folder / "agent.leviath"

    def skipped(data: bytes) -> list:
        checked = check_bytes(str(source), data, Settings().for_file(source))
        assert checked.analysis is not None
        return [d for d in checked.result.diagnostics if d.code == "output-can-be-skipped"]

    (finding,) = skipped(source.read_bytes())
    assert finding.stage == "split"
    assert finding.fix.startswith("give fan-out stage 'split' a normal edge to its merge_stage 'build'")
    assert skipped(source.read_bytes() + b"\n[stages.split.transitions.build]\n") == []


def test_an_edge_no_routing_answer_can_name_is_explained():
    source = """
    [stages.a.transitions.plan]
    [stages.a.transitions.deep-dive]
    [stages.plan]
    max_iterations = 3
    transitions = {}
    [stages.deep-dive]
    max_iterations = 3
    transitions = {}
    """
    (finding,) = analyze(run(source).blueprint).findings
    assert (finding.code, finding.stage) == ("stage-never-entered", "deep-dive")
    assert "no routing answer can name it" in finding.message
    assert finding.fix == "rename the stage with letters, digits and underscores only"
    # An edge out of a stage that is entered otherwise is the edge's own finding.
    both = source.replace("[stages.plan]\n", "[stages.plan.transitions.deep-dive]\n[stages.plan]\n").replace(
        "transitions = {}\n    [stages.deep-dive]", "[stages.deep-dive]", 1
    )
    (edge,) = [f for f in analyze(run(both).blueprint).findings if f.code == "edge-never-taken"]
    assert edge.stage == "a" and "no routing answer can name 'deep-dive'" in edge.message
    assert edge.fix == "rename the stage with letters, digits and underscores only"
