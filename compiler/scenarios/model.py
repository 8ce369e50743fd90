"""What a scenario file holds once read: scenarios, their scripts and their expectations.

Every piece keeps the key path and span it was written at, so a failure can point at the
line and column of the action or expectation concerned. The records are frozen and plain;
reading a file is `loader.load_scenarios`, running one is `player.play`.
"""

from __future__ import annotations

import os
from dataclasses import field
from typing import Any

from compiler.records import record

from ..analysis.property_spec import PropertyFile
from ..diagnostics import Diagnostic, KeyPath, Span
from ..parse.source import SourceFile

#: A scenario file's name ends so; the blueprint it tests is `<name>.leviath` beside it.
SCENARIO_SUFFIX = ".scenarios.toml"


@record
class Where:
    """A place in the scenario file: the key path and its span (None when not found)."""

    path: KeyPath = ()
    span: Span | None = None


@record
class Action:
    """One scripted host step (`text`, `call write_file a.py`, `route review` …).

    `data` holds what the step needs (the verb's arguments); `repeat` is its `×N`, and
    `after` the seconds that pass before it (`+5m text`).
    """

    verb: str
    data: dict[str, Any]
    source: str
    where: Where
    repeat: int = 1
    after: float = 0.0


@record
class ScriptVisit:
    """One visit of a stage in a script: the stage, and what happens during the visit."""

    stage: str
    actions: tuple[Action, ...]
    where: Where


@record
class Expectation:
    """One key of `expect` (or, with `negated`, of `expect_not`) and the value it wants."""

    key: str
    value: Any
    where: Where
    negated: bool = False


@record
class Scenario:
    name: str
    where: Where
    #: The stage visits of a hand-written script, or None when `script` names an NDJSON file.
    visits: tuple[ScriptVisit, ...] | None = ()
    #: `script = "run.ndjson"`: the file of runner events played instead (relative to the scenario file).
    events_file: str | None = None
    events_where: Where = Where()
    expectations: tuple[Expectation, ...] = ()
    unattended: bool = False
    #: The cap of a stage without `max_iterations` for this run (None: the blueprint's settings).
    default_max_iterations: int | None = None
    #: Regions seeded before the run starts: name → entries.
    regions: dict[str, int] = field(default_factory=dict)
    description: str | None = None
    #: "scenario", or "property" for a declared property (a test with no script: it is
    #: checked over every run the blueprint allows).
    kind: str = "scenario"


@record
class ScenarioFile:
    """A read scenario file: its scenarios, the blueprint they test, and any format errors.

    A scenario with a format error is left out of `scenarios` (its error is in
    `diagnostics`); the others still run.
    """

    path: str
    source: SourceFile
    blueprint: str | None
    blueprint_where: Where
    scenarios: tuple[Scenario, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    #: How many `[[scenario]]` tables the file has, readable or not.
    declared: int = 0
    #: The names of the scenarios left out for a format error ("scenario N" when unnamed):
    #: `blueprint test` counts each as failed.
    unreadable: tuple[str, ...] = ()
    #: Its `[[property]]` tables (None when it has none): each is a test, checked over every run.
    properties: PropertyFile | None = None


def is_scenario_name(name: str) -> bool:
    """`<something>.scenarios.toml`, not hidden."""
    return name.endswith(SCENARIO_SUFFIX) and len(name) > len(SCENARIO_SUFFIX) and not name.startswith(".")


def scenario_file_for(blueprint_path: str) -> str:
    """Where the scenarios of `blueprint_path` live: `<name>.scenarios.toml` beside it."""
    folder, name = os.path.split(blueprint_path)
    stem = name[: -len(".leviath")] if name.endswith(".leviath") else name
    return os.path.join(folder, stem + SCENARIO_SUFFIX)
