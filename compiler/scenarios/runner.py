"""Running a scenario file: load its blueprint, check each script against it, play it, check its expectations.

`run_file` is what `blueprint test` and the pytest plugin call per file. A scenario fails
when its script names what the blueprint no longer has (a stage, an edge, a region), when a
step no longer fits the run, or when an expectation does not hold; each failure carries the
line and column it is written at. Nothing here prints or exits.
"""

from __future__ import annotations

import fnmatch
import os
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from compiler.records import record

from ..diagnostics import Diagnostic
from ..ir.model import DEFAULT_MAX_ITERATIONS
from ..parse.source import read_blueprint
from . import expectations
from .expectations import Failure
from .loader import load_scenarios
from .model import Scenario, ScenarioFile, Where
from .player import Played, play

if TYPE_CHECKING:
    from ..analysis.property_spec import PropertyFile
    from ..config import Settings
    from ..ir.model import Blueprint
    from ..pipeline import FileResult

#: Reads and validates a blueprint file (the CLI passes one that applies the file's settings).
BlueprintLoader = Callable[[str], "FileResult"]


@record
class ScenarioResult:
    scenario: Scenario
    failures: tuple[Failure, ...]
    #: The run (None when the script was refused before it could start).
    played: Played | None = None
    #: Seconds the scenario took to check and play (for JUnit's `time`).
    seconds: float = 0.0
    #: For a broken property: the run that breaks it, one stage visit a line.
    counterexample: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.failures


@record
class FileOutcome:
    """One scenario file's results: format problems, the blueprint's state, each scenario's result."""

    file: ScenarioFile
    results: tuple[ScenarioResult, ...]
    #: Problems that stop scenarios from running, positioned in the scenario file (format
    #: errors, a blueprint that is missing or has errors).
    problems: tuple[Diagnostic, ...]
    #: The blueprint's own result (its diagnostics when it has errors); None when unread.
    blueprint_result: "FileResult | None" = None
    #: Selected scenarios that could not be read (a bad step or key): each counts as failed.
    unread: tuple[str, ...] = ()

    @property
    def blueprint(self) -> "Blueprint | None":
        result = self.blueprint_result
        return result.blueprint if result is not None and result.ok else None

    @property
    def failed(self) -> int:
        return sum(1 for r in self.results if not r.passed) + len(self.unread)

    @property
    def ok(self) -> bool:
        return not self.problems and all(r.passed for r in self.results)


def project_settings(path: str) -> "Settings":
    """The settings the project's configuration gives the blueprint at `path`."""
    from ..config import ConfigFinder, settings_for

    return settings_for(ConfigFinder().for_file(path), path=path).for_file(path)


def default_loader(path: str) -> "FileResult":
    """Read and validate the blueprint at `path` with its project's settings. A configuration
    error raises `compiler.config.ConfigError`."""
    from ..pipeline import validate_bytes

    return validate_bytes(path, read_blueprint(path), project_settings(path))


def selected(scenario: Scenario, pattern: str | None) -> bool:
    """`-k`: a case-insensitive part of the name, or a glob (`*`, `?`, `[…]`) over the whole name."""
    return name_selected(scenario.name, pattern)


def name_selected(name: str, pattern: str | None) -> bool:
    if not pattern:
        return True
    name, wanted = name.lower(), pattern.lower()
    if any(c in wanted for c in "*?["):
        return fnmatch.fnmatchcase(name, wanted)
    return wanted in name


def run_file(
    path: str,
    data: bytes,
    *,
    pattern: str | None = None,
    loader: BlueprintLoader = default_loader,
    settings_of: Callable[[str], "Settings"] = project_settings,
) -> FileOutcome:
    """Read the scenario file `path` (its bytes are `data`) and run its scenarios; `loader`
    reads and validates the blueprint, `settings_of` gives its settings (the default
    iteration cap the runs use)."""
    file = load_scenarios(path, data)
    problems = list(file.diagnostics)
    unread = tuple(name for name in file.unreadable if name_selected(name, pattern))
    chosen = [s for s in file.scenarios if selected(s, pattern)]
    asked = [s for s in property_tests(file) if selected(s, pattern)]
    if not chosen and not asked:
        return FileOutcome(file, (), tuple(problems), unread=unread)
    blueprint_path = file.blueprint or ""
    try:
        result = loader(blueprint_path)
    except OSError as exc:
        problems.append(
            _problem(
                file,
                f"cannot read the blueprint '{blueprint_path}': {exc.strerror or exc}",
                fix='name the blueprint with blueprint = "…" (relative to this file)',
            )
        )
        return FileOutcome(file, (), tuple(problems), unread=unread)
    if not result.ok or result.blueprint is None:
        problems.append(
            _problem(
                file,
                f"the blueprint '{blueprint_path}' has errors, so its scenarios cannot run",
                fix="run blueprint validate on it",
            )
        )
        return FileOutcome(file, (), tuple(problems), result, unread)
    ir = result.blueprint
    cap = settings_of(blueprint_path).default_max_iterations
    results = tuple(_timed(ir, scenario, os.path.dirname(path), cap) for scenario in chosen)
    if asked and file.properties is not None:
        results += run_properties(ir, file.properties, {s.name for s in asked}, settings_of(blueprint_path))
    return FileOutcome(file, results, tuple(problems), result, unread)


def property_tests(file: ScenarioFile) -> list[Scenario]:
    """The file's `[[property]]` tables as tests (each named as written; unreadable ones too)."""
    if file.properties is None:
        return []
    named = [(p.name, p.path, p.span) for p in file.properties.properties]
    named += [(p.name or f"property {n + 1}", p.path, p.span) for n, p in file.properties.refused.items()]
    named.sort(key=lambda item: (item[2].line, item[2].column))
    return [Scenario(name, Where(path, span), kind="property") for name, path, span in named]


def run_properties(
    ir: "Blueprint", properties: "PropertyFile", names: set[str], settings: "Settings"
) -> tuple[ScenarioResult, ...]:
    """The properties named in `names`, each a test: it passes when it holds on every run (a
    vacuous or unproven property fails, as `blueprint check` reports it). Every property is
    answered over one exploration of the blueprint's runs."""
    from ..analysis.core import analyze
    from ..analysis.property_check import evaluate

    began = time.perf_counter()
    from ..analysis.tokens import models_from, run_cost

    analysis = analyze(ir, default_max_iterations=settings.default_max_iterations)
    verdicts = evaluate(analysis, properties, lambda: run_cost(analysis, models_from(settings)))
    verdicts = [v for v in verdicts if v.name in names]
    seconds = (time.perf_counter() - began) / max(len(verdicts), 1)
    out = []
    for verdict in verdicts:
        where = Where(verdict.path, verdict.span)
        failures = () if verdict.passed else (Failure(verdict.code or "property", verdict.message, where),)
        steps = verdict.trace.steps if verdict.trace is not None else ()
        shown = tuple(f"{n}. {step.describe()}" for n, step in enumerate(steps, 1))
        scenario = Scenario(verdict.name, where, kind="property")
        out.append(ScenarioResult(scenario, failures, None, seconds, shown))
    return tuple(out)


def _problem(file: ScenarioFile, message: str, fix: str) -> Diagnostic:
    return Diagnostic(
        "scenario-blueprint",
        "error",
        message,
        file=file.path,
        path=file.blueprint_where.path,
        span=file.blueprint_where.span,
        fix=fix,
    )


def _timed(ir: "Blueprint", scenario: Scenario, folder: str, default_max_iterations: int) -> ScenarioResult:
    began = time.perf_counter()
    result = run_scenario(ir, scenario, folder, default_max_iterations)
    return replace(result, seconds=time.perf_counter() - began)


def run_scenario(
    ir: "Blueprint", scenario: Scenario, folder: str = ".", default_max_iterations: int = DEFAULT_MAX_ITERATIONS
) -> ScenarioResult:
    """Check the script against the blueprint, play it, then check every expectation."""
    refused = script_problems(ir, scenario)
    if refused:
        return ScenarioResult(scenario, tuple(refused))
    events = None
    if scenario.events_file is not None:
        events = _read_events(os.path.join(folder, scenario.events_file))
        if isinstance(events, str):
            return ScenarioResult(scenario, (Failure("script", events, scenario.events_where),))
    played = play(ir, scenario, events, default_max_iterations)
    if played.mismatch is not None:
        return ScenarioResult(scenario, (Failure("script", played.mismatch.message, played.mismatch.where),), played)
    failures = tuple(filter(None, (expectations.check(e, played) for e in scenario.expectations)))
    return ScenarioResult(scenario, failures, played)


def _read_events(path: str):
    from ..runtime.ndjson import read_events

    try:
        text = read_blueprint(path).decode("utf-8", errors="replace")
    except OSError as exc:
        return f"cannot read the events '{path}': {exc.strerror or exc}"
    events, _ = read_events(text)  # split at "\n" only: U+2028 may sit inside a JSON string
    return events


def script_problems(ir: "Blueprint", scenario: Scenario) -> list[Failure]:
    """What the script or the expectations name that the blueprint does not have."""
    names = ir.stage_names
    out: list[Failure] = []

    def missing(name: str, where: Where, what: str) -> None:
        out.append(
            Failure("script", f"{what} '{name}' is not a stage of the blueprint (stages: {', '.join(names)})", where)
        )

    regions = ir.known_regions
    for name in scenario.regions:
        if name not in regions:
            out.append(Failure("script", f"the blueprint has no region '{name}' to seed", scenario.where))
    for visit in scenario.visits or ():
        stage = ir.stage(visit.stage)
        if stage is None:
            missing(visit.stage, visit.where, "the script visits")
            continue
        for action in visit.actions:
            target = action.data.get("target") if action.verb == "route" else None
            if action.data.get("done") and stage.allow_complete:
                target = None  # the word DONE: the run completes
            if target is not None and target not in {e.target for e in stage.edges()}:
                targets = ", ".join(dict.fromkeys(e.target for e in stage.edges())) or "none"
                out.append(
                    Failure(
                        "script",
                        f"'{stage.name}' has no edge to '{target}' (its edges lead to: {targets})",
                        action.where,
                    )
                )
            region = action.data.get("region") if action.verb in ("fill", "empty", "open") else None
            if region is not None and region not in regions:
                out.append(Failure("script", f"the blueprint has no region '{region}'", action.where))
    for expectation in scenario.expectations:
        for name in expectations.stages_named(expectation):
            if name not in names:
                missing(name, expectation.where, f"`{expectation.key}` names")
    return out
