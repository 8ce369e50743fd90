"""`blueprint check --emit-scenarios DIR`: each counterexample `check` finds, as a failing scenario.

The finding's trace becomes the script, and its expectation says what the defect breaks, so
the scenario fails while the defect is there and passes once it is fixed (it then stays as
a regression test):

- a run that strands: the run must not end dead-ended (`expect_not.reason = "dead-ended"`);
- a run that skips the output stage: the run must pass through it (`expect.path_includes`);
- a run that can loop for ever: every stage entry must find some revisit budget moved
  (`expect.bounded = true`);
- a run that breaks a declared property: what the property asks of it (`precedes`: the run
  passes through `first`; `never`: through `before`; `reaches`: through the stage;
  `at_most.visits`: no more visits than allowed).

A file that already exists keeps its scenarios; only scenarios with new names are added.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..ir.model import DEFAULT_MAX_ITERATIONS
from .loader import load_scenarios
from .model import SCENARIO_SUFFIX
from .record import record, run_options, scenario_toml

if TYPE_CHECKING:
    from ..analysis.findings import Finding
    from ..analysis.property_check import Verdict
    from ..ir.model import Blueprint

EMITTED = ("run-can-strand", "output-can-be-skipped", "run-can-loop-forever")


def expectations_for(ir: "Blueprint", finding: "Finding") -> tuple[dict[str, Any], dict[str, Any]]:
    """(expect, expect_not) that fail while the finding's defect is there."""
    if finding.code == "run-can-strand":
        return {}, {"reason": "dead-ended"}
    if finding.code == "output-can-be-skipped":
        outputs = [s.name for s in ir.stages if s.mode == "output"]
        if len(outputs) == 1:
            return {"path_includes": outputs}, {}
        return {}, {"visits": dict.fromkeys(outputs, 0)}
    if finding.code == "run-can-loop-forever":
        return {"bounded": True}, {}
    raise ValueError(f"no scenario is emitted for {finding.code}")


def scenario_name(finding: "Finding", number: int) -> str:
    return f"check: {finding.code} at '{finding.stage}'" + (f" ({number})" if number > 1 else "")


def emitted_file(directory: str, blueprint_path: str) -> str:
    stem = os.path.basename(blueprint_path)
    stem = stem[: -len(".leviath")] if stem.endswith(".leviath") else os.path.splitext(stem)[0]
    return os.path.join(directory, stem + SCENARIO_SUFFIX)


def emit(
    ir: "Blueprint",
    findings: Iterable["Finding"],
    blueprint_path: str,
    target: str,
    existing: bytes | None,
    default_max_iterations: int = DEFAULT_MAX_ITERATIONS,
    verdicts: Iterable["Verdict"] = (),
) -> tuple[str, int]:
    """The text to write at `target` (a scenario file) and how many scenarios it adds; the
    runs start with the iteration cap `check` explored them with. `verdicts` are the declared
    properties: each broken one with a run and an expectation it breaks becomes a scenario.

    `existing` is the file's current content, if it has any: its scenarios are kept, and a
    finding whose scenario name is already there is not added again.
    """
    names: set[str] = set()
    if existing is not None:
        names = {s.name for s in load_scenarios(target, existing).scenarios}
    blocks: list[str] = []
    counts: dict[str, int] = {}
    for finding in findings:
        if finding.code not in EMITTED or finding.trace is None:
            continue
        key = f"{finding.code}:{finding.stage}"
        counts[key] = counts.get(key, 0) + 1
        name = scenario_name(finding, counts[key])
        if name in names:
            continue
        names.add(name)
        recording = record(ir, finding.trace.events, default_max_iterations=default_max_iterations)
        expect, expect_not = expectations_for(ir, finding)
        comments = [f"blueprint check: {finding.message}"]
        if finding.fix:
            comments.append(f"fix: {finding.fix}")
        comments.append("This scenario fails while the defect is there, and passes once it is fixed.")
        options = run_options(False, default_max_iterations)
        blocks.append(scenario_toml(name, recording.visits, expect, expect_not, comments, extra=options))
    for verdict in verdicts:
        if verdict.trace is None or not verdict.expect:
            continue
        name = f"check: property '{verdict.name}'"
        if name in names:
            continue
        names.add(name)
        recording = record(ir, verdict.trace.events, default_max_iterations=default_max_iterations)
        comments = [f"blueprint check: {verdict.message}", "This scenario fails while such a run is possible."]
        options = run_options(False, default_max_iterations)
        blocks.append(scenario_toml(name, recording.visits, verdict.expect, {}, comments, extra=options))
    if existing is not None:
        text = existing.decode("utf-8")  # invalid bytes are refused, never rewritten
        return (text.rstrip("\n") + "\n\n" + "\n".join(blocks) if blocks else text), len(blocks)
    relative = os.path.relpath(blueprint_path, os.path.dirname(target) or ".")
    head = f"# Scenarios written by blueprint check --emit-scenarios from {os.path.basename(blueprint_path)}.\n"
    head += f"blueprint = {_quoted(relative)}\n\n"
    return head + "\n".join(blocks), len(blocks)


def _quoted(text: str) -> str:
    from .record import toml_value

    return toml_value(text.replace(os.sep, "/"))
