"""`action_from_dict` reads back what `action_to_dict` wrote: every action of every example
run, spec included, equal to the one written; anything else is a `ValueError` naming why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler import load
from compiler.runtime.actions import ACTION_NAMES, AwaitChildren, action_from_dict, action_to_dict
from compiler.runtime.ndjson import read_events
from compiler.runtime.timeline import replay
from compiler.scenarios.loader import default_blueprint, load_scenarios
from compiler.scenarios.player import play

ROOT = Path(__file__).resolve().parent.parent


def example_actions():
    for path in sorted((ROOT / "blueprints").glob("*.scenarios.toml")):
        ir = load(default_blueprint(str(path)))
        for scenario in load_scenarios(str(path), path.read_bytes()).scenarios:
            yield from (action for visit in play(ir, scenario).visits for fed in visit.fed for action in fed.actions)
    ir = load(str(ROOT / "tests" / "runtime" / "review-loop.leviath"))
    events, _ = read_events((ROOT / "tests" / "runtime" / "review-loop.ndjson").read_text(encoding="utf-8"))
    yield from (action for entry in replay(ir, events).entries for action in entry.actions)


def test_every_action_of_the_examples_reads_back_equal_through_json():
    actions = [*example_actions(), AwaitChildren("build", ("c1", "c2"), "run:7")]  # no example waits on children
    assert {type(action) for action in actions} == set(ACTION_NAMES)
    for action in actions:
        written = json.loads(json.dumps(action_to_dict(action)))
        assert action_from_dict(written) == action


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "an action is a JSON object, not list"),
        ({"action": "jump"}, "unknown action 'jump'"),
        ({"action": "await_workers", "stage": "s"}, "await_workers: missing key 'results_region' of AwaitWorkers"),
        (
            {"action": "await_workers", "stage": 3, "results_region": None, "id": "r:1"},
            "await_workers: stage: expected a string, got the number 3",
        ),
        (
            {"action": "await_workers", "stage": "s", "results_region": None, "id": "r:1", "extra": 1},
            "await_workers: unknown key 'extra' in AwaitWorkers",
        ),
    ],
)
def test_what_is_no_action_is_a_value_error_that_says_why(data, message):
    with pytest.raises(ValueError) as caught:
        action_from_dict(data)
    assert str(caught.value) == message
