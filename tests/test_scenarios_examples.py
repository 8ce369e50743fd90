"""The example blueprints' scenarios: they pass, they cover every edge a run can take, and they
catch changes: retargeting an edge they exercise, or lowering a budget, makes one fail.

The mutation test edits each example (as TOML data) one way at a time, keeps only mutants that
still validate, and plays every scenario of the example against each: a mutant that no
scenario notices is a hole in the examples' scenarios.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path

import pytest
import tomlkit

from compiler.pipeline import validate_bytes, validate_text
from compiler.scenarios.coverage import coverage
from compiler.scenarios.runner import run_file
from tests.helpers import ROOT

BLUEPRINTS = sorted((ROOT / "blueprints").glob("*.leviath"))
#: Edges no run of the example can take, with the reason (the coverage report lists them).
UNREACHABLE = {
    "gates.leviath": {("implement", "finish", "dead_end")},  # review is spent no sooner than implement
    "review-loop.leviath": {("draft", "publish", "dead_end")},  # review is spent no sooner than draft
}


def scenario_file(blueprint: Path) -> Path:
    return blueprint.with_name(blueprint.name.removesuffix(".leviath") + ".scenarios.toml")


def play(blueprint: Path, text: str | None = None):
    path = scenario_file(blueprint)
    display = path.relative_to(ROOT).as_posix()
    source = text if text is not None else blueprint.read_text(encoding="utf-8")
    return run_file(display, path.read_bytes(), loader=lambda p: validate_text(source, p))


@pytest.mark.parametrize("blueprint", BLUEPRINTS, ids=lambda p: p.name)
def test_every_scenario_of_the_examples_passes(blueprint: Path) -> None:
    outcome = play(blueprint)
    assert outcome.problems == ()
    assert len(outcome.results) >= 4
    assert [r.scenario.name for r in outcome.results if not r.passed] == []
    fired = set()
    for result in outcome.results:
        fired |= {name for name, n in result.played.holds().items() if n}
    assert fired & {"nudge", "gate_held", "gate_forced", "stuck"}, "show a hold firing: a nudge, a gate or stuck"


@pytest.mark.parametrize("blueprint", BLUEPRINTS, ids=lambda p: p.name)
def test_the_scenarios_cover_every_stage_and_every_reachable_edge(blueprint: Path) -> None:
    outcome = play(blueprint)
    report = coverage(blueprint.name, outcome.blueprint, [outcome])
    assert report.missed_stages == []
    assert set(report.missed_branches) == UNREACHABLE.get(blueprint.name, set())


# --- mutants ---------------------------------------------------------------------------------------


def _valid(document: dict) -> str | None:
    text = tomlkit.dumps(document)
    return text if validate_bytes("mutant.leviath", text.encode()).ok else None


def _retargets(document: dict, source: str, target: str, condition: str):
    stages = [name for name in document["stages"] if name != source] + [source]  # a self-loop last
    for other in stages:
        if other == target:
            continue
        mutant = copy.deepcopy(document)
        stage = mutant["stages"][source]
        if condition == "fall_through":
            stage["transitions"] = {other: {}}
        elif condition == "merge":
            stage["merge_stage"] = other
        else:
            if other in stage["transitions"]:
                continue
            stage["transitions"] = {
                other if key == target else key: value for key, value in stage["transitions"].items()
            }
        text = _valid(mutant)
        if text is not None:
            return f"{source} → {target} ({condition}) retargeted to {other}", text
    return None


def _lowered(document: dict, taken: set, capped: set):
    """Each revisit budget, each gate's block budget, and each iteration cap a scenario hits, lowered by one."""
    for name, stage in document["stages"].items():
        if stage.get("max_revisits", 0) >= 1:
            mutant = copy.deepcopy(document)
            mutant["stages"][name]["max_revisits"] -= 1
            yield f"{name}.max_revisits lowered", mutant
        if name in capped:
            mutant = copy.deepcopy(document)
            mutant["stages"][name]["max_iterations"] -= 1
            yield f"{name}.max_iterations lowered", mutant
        for target, edge in (stage.get("transitions") or {}).items():
            gate = edge.get("gate")
            if gate is not None and (name, target) in taken and gate.get("max_attempts", 3) >= 1:
                mutant = copy.deepcopy(document)
                mutant["stages"][name]["transitions"][target]["gate"]["max_attempts"] = gate.get("max_attempts", 3) - 1
                yield f"{name} → {target} gate max_attempts lowered", mutant


def mutants(blueprint: Path):
    document = tomllib.loads(blueprint.read_text(encoding="utf-8"))
    outcome = play(blueprint)
    report = coverage(blueprint.name, outcome.blueprint, [outcome])
    capped = {v.stage for r in outcome.results for v in r.played.visits if r.played.holds(v)["cap"]}
    found = []
    for source, target, condition in report.branches:
        if (source, target, condition) in report.taken:
            mutant = _retargets(document, source, target, condition)
            if mutant is not None:
                found.append(mutant)
    for label, mutant in _lowered(document, {(s, t) for s, t, _ in report.taken}, capped):
        text = _valid(mutant)
        if text is not None:
            found.append((label, text))
    return found


@pytest.mark.parametrize("blueprint", BLUEPRINTS, ids=lambda p: p.name)
def test_retargeting_an_edge_or_lowering_a_budget_makes_a_scenario_fail(blueprint: Path) -> None:
    found = mutants(blueprint)
    assert any("retargeted" in label for label, _ in found)
    survivors = [label for label, text in found if play(blueprint, text).ok]
    assert survivors == [], f"no scenario of {scenario_file(blueprint).name} notices: {survivors}"
