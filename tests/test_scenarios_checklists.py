"""Writing scenarios, as `blueprint test` shows them: a step closes checklist items (as
`todo_done` does), a scenario with a step that cannot be read counts as failed, and the
actual run names a fan-out hold for what it is."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import invoke_cli
from tests.helpers import ROOT

EXAMPLES = ROOT / "blueprints"


def scenarios(tmp_path: Path, blueprint: str, text: str) -> Path:
    shutil.copy(EXAMPLES / f"{blueprint}.leviath", tmp_path / f"{blueprint}.leviath")
    path = tmp_path / f"{blueprint}.scenarios.toml"
    path.write_text(text, encoding="utf-8")
    return path


def play(path: Path, *args: str):
    return invoke_cli("test", str(path), *args)


CLOSING = """\
[[scenario]]
name = "one item closed, then the other"
regions = { todo = 0 }
script = [
  { stage = "plan", do = ["call context_write", "open todo 2", "text"] },
  { stage = "implement", do = ["call edit_file src/app.py", "text"] },
  { stage = "review", do = [
    "call read_file src/app.py", "text", "route finish",
    "close todo 1", "text", "route finish",
    "close todo 2", "text", "route finish",
  ] },
  { stage = "finish", do = ["submit", "text"] },
]
expect = { status = "complete", holds = { gate_held = 2 } }
"""


def test_closing_one_item_leaves_the_other_open_for_the_gate(tmp_path: Path) -> None:
    result = play(scenarios(tmp_path, "gates", CLOSING))
    assert result.exit_code == 0, result.output
    assert "Ran 1 scenario in 1 file: 1 passed, 0 failed" in result.output


def test_closing_an_item_that_is_not_open_does_not_fit(tmp_path: Path) -> None:
    text = CLOSING.replace('"close todo 2"', '"close todo 1"')
    result = play(scenarios(tmp_path, "gates", text))
    assert result.exit_code == 1
    assert "'todo' has no open item 1 (open: 2) for 'close todo 1'" in result.output


def test_filling_a_checklist_no_longer_ticks_it_off_by_accident(tmp_path: Path) -> None:
    text = CLOSING.replace('"close todo 1", ', '"fill todo 2", ')
    result = play(scenarios(tmp_path, "gates", text))
    assert result.exit_code == 1
    assert "'todo' is a checklist, whose entries are open or done" in result.output
    assert "'close todo 1' marks one done, not 'fill todo 2'" in result.output


def test_open_zero_points_at_close_and_empty(tmp_path: Path) -> None:
    text = CLOSING.replace('"open todo 2"', '"open todo 0"')
    result = play(scenarios(tmp_path, "gates", text))
    assert result.exit_code == 1
    assert "'todo 0' holds nothing: write 'empty todo' for an empty region, or 'close todo 1'" in result.output


def test_a_scenario_with_a_step_that_cannot_be_read_counts_as_failed(tmp_path: Path) -> None:
    bad = '\n[[scenario]]\nname = "typo"\nscript = [{ stage = "plan", do = ["rout review"] }]\n'
    result = play(scenarios(tmp_path, "gates", CLOSING + bad))
    assert result.exit_code == 1
    assert "FAIL " in result.output and "::typo (not run: the scenario could not be read" in result.output
    assert "Ran 2 scenarios in 1 file: 1 passed, 1 failed; 1 problem in the files" in result.output
    # -k selects it by name like any other scenario.
    assert "Ran 1 scenario in 1 file: 1 passed, 0 failed" in play(tmp_path / "gates.scenarios.toml", "-k", "one").output


def test_the_actual_run_says_a_fan_out_stage_was_held(tmp_path: Path) -> None:
    text = """\
[[scenario]]
name = "never fans out"
script = [
  { stage = "split", do = ["call list_dir libraries", "text ×4"] },
  { stage = "merge", do = ["call context_write", "text"] },
  { stage = "report", do = ["submit", "text"] },
]
expect = { path = ["split", "report"] }
"""
    result = play(scenarios(tmp_path, "fan-out", text))
    assert result.exit_code == 1
    assert "nudged to fan out ×3" in result.output and "split given up ×1" in result.output
    assert ", fan out ×" not in result.output


def test_a_recorded_run_writes_closed_items_as_close_steps() -> None:
    from compiler.pipeline import validate_text
    from compiler.scenarios.record import record, scenario_toml
    from compiler.scenarios.runner import run_file

    source = (EXAMPLES / "gates.leviath").read_text(encoding="utf-8")

    def loader(path: str):
        return validate_text(source, path)

    played = run_file("g.scenarios.toml", CLOSING.encode(), loader=loader)
    (result,) = played.results
    assert result.passed and result.played is not None
    events = [fed.event for visit in result.played.visits for fed in visit.fed]
    ir = loader("gates.leviath").blueprint
    text = scenario_toml("recorded", record(ir, events).visits)
    assert '"close todo 1"' in text and '"close todo all"' in text, text
    (replayed,) = run_file("r.scenarios.toml", text.encode(), loader=loader).results
    assert replayed.passed and replayed.played is not None
    assert replayed.played.path == result.played.path
