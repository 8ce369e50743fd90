"""What `check` found, on a blueprint's docs page: the heat scale, the traced runs and the
chart of the ceilings, all from one exploration."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from compiler.check import check_file
from compiler.graph import StageGraph
from compiler.render.blueprint_docs import page_data, render_html, render_markdown
from compiler.render.diagram import drawing
from compiler.render.run_facts import HEAT, UNBOUNDED_HEAT, run_facts
from tests.conftest import invoke_cli
from tests.helpers import ROOT

CASES = ROOT / "tests" / "check_cases"
STRAND = CASES / "run-can-strand" / "review-loop.leviath"
LOOP = CASES / "run-can-loop-forever" / "two-stage.leviath"
SVG = "{http://www.w3.org/2000/svg}"


def checked(path: Path):
    result = check_file(path)
    assert result.analysis is not None and result.result.blueprint is not None
    return result


def test_each_stage_gets_its_worst_case_and_a_heat_colour() -> None:
    result = checked(STRAND)
    picture = drawing(StageGraph.from_blueprint(result.result.blueprint), "t")
    facts = run_facts(result.analysis, picture)
    ceilings = result.analysis.ceilings
    assert [(s.stage, s.visits, s.inferences) for s in facts.stages] == [
        (s.stage, s.visits, s.inferences) for s in ceilings.stages
    ]
    assert (facts.visits, facts.inferences) == (ceilings.visits, ceilings.inferences) == (5, 28)
    heat = {s.stage: s.heat for s in facts.stages}
    assert heat["draft"] == HEAT[-1]  # the most inferences: the hottest colour
    assert heat["publish"] == HEAT[0]
    # the legend's bins cover 0 … the hottest stage without gaps
    bins = facts.scale
    assert bins[0][1] == 0 and bins[-1][2] == 18
    assert all(a[2] + 1 == b[1] for a, b in itertools.pairwise(bins))


def test_an_unbounded_stage_is_drawn_in_the_unbounded_colour() -> None:
    result = checked(LOOP)
    page = page_data(result.result.blueprint, "loop", "builtin", result.analysis)
    assert page.runs is not None and page.runs.heat_of("work") == UNBOUNDED_HEAT
    root = ElementTree.fromstring(page.svg)
    fills = {
        group.find(f"{SVG}text").text: group.find(f"{SVG}rect").get("fill")
        for group in root.iter(f"{SVG}g")
        if "stage" in (group.get("class") or "").split()
    }
    assert fills["work"] == fills["check"] == UNBOUNDED_HEAT
    assert "unbounded visits · unbounded inferences" in page.svg
    assert ">no limit</text>" in page.svg  # the legend says what the colour means


def test_a_traced_run_is_a_path_over_the_diagrams_arrows() -> None:
    result = checked(STRAND)
    page = page_data(result.result.blueprint, "strand", "builtin", result.analysis)
    (trace,) = page.runs.traces
    assert trace.code == "run-can-strand" and len(trace.steps) == 5
    picture = drawing(StageGraph.from_blueprint(result.result.blueprint), "t")
    names = {node.id: node.name for node in picture.nodes}
    taken = [(names[picture.arrows[s.arrow].source], names[picture.arrows[s.arrow].target]) for s in trace.steps[:4]]
    assert taken == [("draft", "review"), ("review", "draft")] * 2
    assert trace.steps[4].arrow is None  # the last visit strands: it leaves by no arrow
    html = render_html(page)
    for arrow in trace.arrows:
        assert f'class="edge a{arrow}"' in page.svg
    assert f"#trace-1:checked ~ .diagram :is(.a{trace.arrows[0]}, .a{trace.arrows[1]})" in html
    assert html.count("<li>") >= 5 and "the run fails: the stage dead-ended" in html
    markdown = render_markdown(page)
    assert "## Runs" in markdown and "   5. 'draft' (visit 3)" in markdown


def test_a_loop_marks_its_repeating_steps() -> None:
    result = checked(LOOP)
    page = page_data(result.result.blueprint, "loop", "builtin", result.analysis)
    (trace,) = page.runs.traces
    assert trace.code == "run-can-loop-forever" and all(step.repeats for step in trace.steps)
    html = render_html(page)
    assert "then round again for ever" in html and "(then round again from step 1)" in html
    assert "A run can go on without end: no ceiling" in html


def test_the_chart_has_a_bar_per_stage_as_long_as_its_inferences() -> None:
    result = checked(STRAND)
    page = page_data(result.result.blueprint, "strand", "builtin", result.analysis)
    root = ElementTree.fromstring(page.chart)
    bars = {
        group.find(f"{SVG}text").text: float(group.find(f"{SVG}rect").get("width"))
        for group in root.iter(f"{SVG}g")
        if group.get("class") == "bar"
    }
    assert set(bars) == {"draft", "review", "publish"}
    assert bars["draft"] / bars["publish"] == pytest.approx(18 / 3, rel=0.01)


def test_docs_explores_each_blueprint_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import compiler.analysis.core as core

    calls: list[str] = []
    real = core.analyze

    def counting(blueprint, **kwargs):
        calls.append(blueprint.name)
        return real(blueprint, **kwargs)

    monkeypatch.setattr(core, "analyze", counting)
    result = invoke_cli("docs", str(STRAND), "-o", str(tmp_path / "site"), "--diagram", "builtin")
    assert result.exit_code == 0, result.output
    assert calls == ["review-loop"]
    (html,) = [p for p in (tmp_path / "site").glob("*.html") if p.name != "index.html"]
    page = html.read_text(encoding="utf-8")
    assert "Every run ends within 5 stage visits and 28 inferences" in page
    assert re.search(r'<input type="radio" name="trace" id="trace-1"', page)


def test_page_data_without_an_analysis_explores_unless_told_not_to() -> None:
    blueprint = checked(STRAND).result.blueprint
    assert page_data(blueprint, engine="builtin").runs is not None
    quiet = page_data(blueprint, engine="builtin", explore=False)
    assert quiet.runs is None and quiet.chart == "" and "## Runs" not in render_markdown(quiet)


def test_an_exploration_cut_short_says_so_and_draws_no_heat() -> None:
    result = check_file(ROOT / "blueprints" / "review-loop.leviath", max_states=3)
    assert result.analysis is not None and not result.analysis.complete
    page = page_data(result.result.blueprint, "cut", "builtin", result.analysis)
    assert page.chart == "" and page.runs.stages == ()
    assert "The exploration stopped at its state limit after" in render_markdown(page)
    assert "heat-legend" not in page.svg and "inferences" not in page.svg
