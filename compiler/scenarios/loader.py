"""Reading a scenario file: TOML with exact positions, then its shape, then every step and expectation.

Everything wrong is reported at once, each problem at its line and column, like a
blueprint's findings: `toml-syntax` for text that is not TOML, `scenario-format` for a key
or value of the wrong shape, `scenario-step` for a script step that cannot be read and
`scenario-expect` for an expectation that cannot be. A scenario with a problem is left out;
the file's other scenarios still run. The `[[property]]` tables are read as `blueprint check`
reads them (`compiler.analysis.property_spec`); each is a test of its own.
"""

from __future__ import annotations

import difflib
import os
from typing import Any

from ..analysis.property_spec import read_properties
from ..diagnostics import Diagnostic, KeyPath, Span, format_key_path
from ..parse.other_files import is_lev_test_document, is_rhai_script
from ..parse.positions import PositionIndex
from ..parse.source import SourceFile, decode
from ..parse.toml import parse_toml
from . import expectations
from .model import SCENARIO_SUFFIX, Action, Expectation, Scenario, ScenarioFile, ScriptVisit, Where
from .vocabulary import VocabularyError, read_step

FILE_KEYS = ("blueprint", "scenario", "property")
SCENARIO_KEYS = (
    "name",
    "description",
    "unattended",
    "default_max_iterations",
    "regions",
    "script",
    "expect",
    "expect_not",
)
VISIT_KEYS = ("stage", "do")


def default_blueprint(path: str) -> str:
    """`review.scenarios.toml` tests `review.leviath` beside it."""
    name = os.path.basename(path)
    stem = name[: -len(SCENARIO_SUFFIX)] if name.endswith(SCENARIO_SUFFIX) else os.path.splitext(name)[0]
    return os.path.join(os.path.dirname(path), stem + ".leviath")


class _Reader:
    def __init__(self, source: SourceFile, index: PositionIndex | None) -> None:
        self.source = source
        self.index = index
        self.diagnostics: list[Diagnostic] = []

    def where(self, path: KeyPath, prefer: str = "value") -> Where:
        """Where `path` is written; the file's start for what is written nowhere (the whole file)."""
        span = self.index.locate(path, prefer)[0] if self.index is not None else None
        return Where(tuple(path), span or Span.point(1, 1))

    def problem(self, code: str, path: KeyPath, message: str, *, prefer: str = "value", fix: str | None = None) -> None:
        where = self.where(path, prefer)
        self.diagnostics.append(
            Diagnostic(code, "error", message, file=self.source.path, path=tuple(path), span=where.span, fix=fix)
        )

    def keys(self, table: dict, allowed: tuple[str, ...], path: KeyPath, what: str) -> bool:
        """Report keys `what` does not have; True when there were none."""
        clean = True
        for key in table:
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                fix = f"did you mean '{close[0]}'?" if close else f"{what} keys are: {', '.join(allowed)}"
                self.problem("scenario-format", (*path, key), f"unknown key '{key}' in {what}", prefer="key", fix=fix)
                clean = False
        return clean

    def typed(self, value: Any, kind: type, path: KeyPath, wanted: str) -> bool:
        """Report a value not of `kind` (a boolean is not a number here)."""
        if isinstance(value, kind) and (kind is bool or not isinstance(value, bool)):
            return True
        self.problem("scenario-format", path, f"`{format_key_path(path)}` must be {wanted}")
        return False


def _not_scenarios(path: str, span: Span, what: str, key: KeyPath = ()) -> Diagnostic:
    """The one problem of a file of Leviath's that is not a scenario file, named explicitly."""
    return Diagnostic(
        "scenario-format",
        "error",
        f"this is {what}, not a scenario file; blueprint test does not run it (docs/testing.md#lev-test-files)",
        file=path,
        path=key,
        span=span,
        fix=f"scenario files are named <blueprint>{SCENARIO_SUFFIX} and hold [[scenario]] tables",
    )


def load_scenarios(path: str, data: bytes) -> ScenarioFile:
    """Read a scenario file's bytes (shown as `path` in every diagnostic)."""
    source, problems = decode(path, data)
    blueprint = default_blueprint(path)
    if is_rhai_script(path):
        problem = _not_scenarios(
            path, Span(1, 1, 1, 2), "a Rhai script (a tool, a custom region's script or a `lev test` script)"
        )
        return ScenarioFile(path, source, blueprint, Where(), (), (problem,))
    document, syntax = parse_toml(source) if not problems else (None, [])
    problems.extend(syntax)
    if document is None or problems:
        return ScenarioFile(path, source, blueprint, Where(), (), tuple(problems))
    index = PositionIndex(source.text, source.lines)
    if is_lev_test_document(document):
        span = index.locate(("test",), prefer="key")[0] or Span.point(1, 1)
        what = "a `lev test` file (each [[test]] case is one real inference that `lev test` sends to a provider)"
        return ScenarioFile(path, source, blueprint, Where(), (), (_not_scenarios(path, span, what, ("test",)),))
    reader = _Reader(source, index)
    reader.keys(document, FILE_KEYS, (), "a scenario file")
    blueprint_where = Where()
    if "blueprint" in document and reader.typed(document["blueprint"], str, ("blueprint",), "a path (a string)"):
        blueprint_where = reader.where(("blueprint",))
        blueprint = os.path.join(os.path.dirname(path), document["blueprint"])
    tables = document.get("scenario", [])
    if not isinstance(tables, list):
        reader.problem(
            "scenario-format",
            ("scenario",),
            "`scenario` must be an array of tables: write each as [[scenario]]",
            prefer="key",
        )
        tables = []
    if not tables and "scenario" not in document and "property" not in document:
        reader.problem(
            "scenario-format",
            (),
            "the file has no [[scenario]] table",
            fix="add one: [[scenario]] with a name, a script and expectations",
        )
    scenarios: list[Scenario] = []
    unreadable: list[str] = []
    names: dict[str, int] = {}
    for number, table in enumerate(tables):
        before = len(reader.diagnostics)
        scenario = _scenario(reader, table, number)
        if scenario is not None and scenario.name in names:
            reader.problem(
                "scenario-format",
                ("scenario", number, "name"),
                f"scenario name '{scenario.name}' is used twice (first in scenario {names[scenario.name] + 1})",
                fix="give every scenario of a file its own name",
            )
        if scenario is not None:
            names.setdefault(scenario.name, number)
        if scenario is not None and len(reader.diagnostics) == before:
            scenarios.append(scenario)
        else:
            named = table.get("name") if isinstance(table, dict) else None
            unreadable.append(named if isinstance(named, str) and named else f"scenario {number + 1}")
    properties = read_properties(path, data) if "property" in document else None
    return ScenarioFile(
        path,
        source,
        blueprint,
        blueprint_where,
        tuple(scenarios),
        tuple(reader.diagnostics),
        len(tables),
        tuple(unreadable),
        properties,
    )


def _scenario(reader: _Reader, table: Any, number: int) -> Scenario | None:
    path: KeyPath = ("scenario", number)
    if not reader.typed(table, dict, path, "a table ([[scenario]])"):
        return None
    reader.keys(table, SCENARIO_KEYS, path, "a scenario")
    name = table.get("name")
    if name is None:
        reader.problem(
            "scenario-format", path, "a scenario needs a `name`", prefer="key", fix='add name = "what the run shows"'
        )
        name = f"scenario {number + 1}"
    elif not reader.typed(name, str, (*path, "name"), "a string") or not name.strip():
        if isinstance(name, str):
            reader.problem("scenario-format", (*path, "name"), "a scenario's name must not be empty")
        name = f"scenario {number + 1}"
    unattended = table.get("unattended", False)
    reader.typed(unattended, bool, (*path, "unattended"), "true or false")
    cap = table.get("default_max_iterations")
    if cap is not None and reader.typed(cap, int, (*path, "default_max_iterations"), "a whole number") and cap < 0:
        reader.problem("scenario-format", (*path, "default_max_iterations"), "default_max_iterations must be 0 or more")
    description = table.get("description")
    if description is not None:
        reader.typed(description, str, (*path, "description"), "a string")
    regions = _regions(reader, table.get("regions", {}), (*path, "regions"))
    visits: tuple[ScriptVisit, ...] | None = ()
    events_file, events_where = None, Where()
    script = table.get("script")
    if isinstance(script, str):
        visits, events_file, events_where = None, script, reader.where((*path, "script"))
    elif script is not None:
        if reader.typed(
            script, list, (*path, "script"), "an array of stage visits ([[scenario.script]]) or an NDJSON file name"
        ):
            visits = tuple(filter(None, (_visit(reader, v, (*path, "script", i)) for i, v in enumerate(script))))
    else:
        reader.problem(
            "scenario-format",
            path,
            f"scenario '{name}' has no `script`",
            prefer="key",
            fix='add the stage visits: script = [{ stage = "…", do = ["text"] }]',
        )
    found: list[Expectation] = []
    for key, negated in (("expect", False), ("expect_not", True)):
        if key in table and reader.typed(table[key], dict, (*path, key), "a table of expectations"):
            found.extend(_expectations(reader, table[key], (*path, key), negated))
    return Scenario(
        name=name if isinstance(name, str) else str(name),
        where=reader.where((*path, "name") if "name" in table else path, prefer="value"),
        visits=visits,
        events_file=events_file,
        events_where=events_where,
        expectations=tuple(found),
        unattended=unattended is True,
        default_max_iterations=cap if type(cap) is int and cap >= 0 else None,
        regions=regions,
        description=description if isinstance(description, str) else None,
    )


def _regions(reader: _Reader, value: Any, path: KeyPath) -> dict[str, int]:
    if not reader.typed(value, dict, path, "a table of region → entries"):
        return {}
    out = {}
    for name, entries in value.items():
        if reader.typed(entries, int, (*path, name), "a whole number of entries") and entries >= 0:
            out[name] = entries
        elif isinstance(entries, int) and not isinstance(entries, bool):
            reader.problem("scenario-format", (*path, name), "a region's entries cannot be negative")
    return out


def _visit(reader: _Reader, table: Any, path: KeyPath) -> ScriptVisit | None:
    if not reader.typed(table, dict, path, 'a stage visit: { stage = "…", do = [ … ] }'):
        return None
    reader.keys(table, VISIT_KEYS, path, "a stage visit")
    stage = table.get("stage")
    if stage is None:
        reader.problem("scenario-format", path, "a stage visit needs the `stage` it visits", prefer="key")
        return None
    if not reader.typed(stage, str, (*path, "stage"), "a stage name (a string)"):
        return None
    steps = table.get("do", [])
    actions: list[Action] = []
    if reader.typed(steps, list, (*path, "do"), "an array of steps"):
        for i, step in enumerate(steps):
            where = reader.where((*path, "do", i))
            try:
                actions.append(read_step(step, where))
            except VocabularyError as exc:
                reader.problem("scenario-step", (*path, "do", i), str(exc))
    return ScriptVisit(stage, tuple(actions), reader.where((*path, "stage")))


def _expectations(reader: _Reader, table: dict, path: KeyPath, negated: bool) -> list[Expectation]:
    out = []
    for key, value in table.items():
        where = reader.where((*path, key))
        if key not in expectations.KEYS:
            close = difflib.get_close_matches(key, expectations.KEYS, n=1)
            fix = f"did you mean '{close[0]}'?" if close else f"expectations are: {', '.join(expectations.KEYS)}"
            reader.problem("scenario-expect", (*path, key), f"unknown expectation '{key}'", prefer="key", fix=fix)
            continue
        try:
            value = expectations.read(key, value)
        except ValueError as exc:
            reader.problem("scenario-expect", (*path, key), f"`{key}` {exc}")
            continue
        out.append(Expectation(key, value, where, negated))
    return out
