"""Declared properties: the `[[property]]` tables of a blueprint's scenario file, read and checked
against the blueprint's names.

Each property has a `name` and exactly one form (docs/check.md#declared-properties):

    precedes = { first = "review", then = "publish" }   # every entry of then follows one of first
    never = { tool = "deploy", before = "approve" }     # no run calls the tool before entering the stage
    reaches = "summary"                                 # every run that completes has entered it
    at_most = { inferences = 200, visits = { draft = 4 }, tokens = 400000, cost_usd = 2.5 }

Reading never fails: a table that cannot be read, or that names a stage or tool the blueprint
lacks, becomes a `Problem` at its line and column, and the other properties are still checked.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any

from compiler.records import record

from ..diagnostics import KeyPath, Span
from ..parse.positions import PositionIndex
from ..parse.source import SourceFile, decode
from ..parse.toml import parse_toml
from ..rules.common import did_you_mean

FORMS = ("precedes", "never", "reaches", "at_most")
PROPERTY_KEYS = ("name", "description", *FORMS)
FORM_KEYS = {"precedes": ("first", "then"), "never": ("tool", "before")}
LIMIT_KEYS = ("inferences", "visits", "tokens", "cost_usd")


@record
class Problem:
    """Why a property cannot be checked, where it is written, and how to put it right."""

    message: str
    path: KeyPath
    span: Span
    fix: str | None = None
    #: The name of the property it concerns, when the table has one.
    name: str | None = None


@record
class Property:
    name: str
    #: One of FORMS.
    form: str
    #: What the form names: first/then, tool/before, stage (reaches), or the at_most limits
    #: (inferences, visits: {stage: n}, tokens, cost_usd).
    args: dict[str, Any]
    #: Where the table is written (its `name` when it has one).
    path: KeyPath
    span: Span
    #: Where each argument is written, by its key path.
    spans: dict[KeyPath, Span] = field(default_factory=dict, compare=False)

    def span_of(self, path: KeyPath) -> Span:
        return self.spans.get(tuple(path), self.span)


@record
class PropertyFile:
    """The properties of one scenario file, and the problems of those that cannot be read."""

    path: str
    source: SourceFile | None
    properties: tuple[Property, ...]
    problems: tuple[Problem, ...] = ()
    #: Per property table (by position), its problem when it has one.
    refused: dict[int, Problem] = field(default_factory=dict, compare=False)


def read_properties(path: str, data: bytes) -> PropertyFile:
    """The `[[property]]` tables of the scenario file `path` (its bytes are `data`). A file that
    is not TOML has no readable property: its first problem is reported once, if it mentions
    `property` at all (a scenario-only file is `blueprint test`'s to report)."""
    source, problems = decode(path, data)
    document, syntax = parse_toml(source) if not problems else (None, [])
    if document is None or problems or syntax:
        first = [*problems, *syntax][:1]
        if "property" not in source.text or not first:
            return PropertyFile(path, source, ())
        d = first[0]
        return PropertyFile(path, source, (), (Problem(d.message, (), d.span or Span.point(1, 1), d.fix),))
    tables = document.get("property", [])
    index = PositionIndex(source.text, source.lines)

    def where(key: KeyPath, prefer: str = "value") -> Span:
        return index.locate(tuple(key), prefer)[0] or Span.point(1, 1)

    if not isinstance(tables, list):
        problem = Problem(
            "`property` must be an array of tables: write each as [[property]]",
            ("property",),
            where(("property",), "key"),
        )
        return PropertyFile(path, source, (), (problem,))
    out: list[Property] = []
    refused: dict[int, Problem] = {}
    names: dict[str, int] = {}
    for number, table in enumerate(tables):
        read = _property(table, ("property", number), where)
        if isinstance(read, Property) and read.name in names:
            read = Problem(
                f"property name '{read.name}' is used twice (first in property {names[read.name] + 1})",
                (*read.path, "name"),
                read.span,
                "give every property of a file its own name",
            )
        if isinstance(read, Problem):
            written = table.get("name") if isinstance(table, dict) else None
            if isinstance(written, str) and written.strip() and not read.message.startswith("property '"):
                read = replace(read, message=f"property '{written}': {read.message}", name=written)
            refused[number] = read
        else:
            names[read.name] = number
            out.append(read)
    return PropertyFile(path, source, tuple(out), tuple(refused.values()), refused)


def _property(table: Any, path: KeyPath, where) -> Property | Problem:
    if not isinstance(table, dict):
        return Problem("a property must be a table: write it as [[property]]", path, where(path, "key"))
    for key in table:
        if key not in PROPERTY_KEYS:
            fix = did_you_mean(key, PROPERTY_KEYS, f"a property's keys are: {', '.join(PROPERTY_KEYS)}")
            return Problem(f"unknown key '{key}' in a property", (*path, key), where((*path, key), "key"), fix)
    name = table.get("name")
    if not isinstance(name, str) or not name.strip():
        at = (*path, "name") if "name" in table else path
        return Problem(
            "a property needs a `name` (a string that is not empty)",
            at,
            where(at, "key"),
            'add name = "what must hold"',
        )
    span = where((*path, "name"))
    forms = [key for key in FORMS if key in table]
    if len(forms) != 1:
        said = "has none" if not forms else f"has {len(forms)}: {', '.join(forms)}"
        return Problem(
            f"property '{name}' must have exactly one of {', '.join(FORMS)}; it {said}",
            path,
            span,
            "write one property per [[property]] table",
        )
    form = forms[0]
    spans: dict[KeyPath, Span] = {}
    value = table[form]
    at = (*path, form)
    spans[at] = where(at)
    if form == "reaches":
        if not isinstance(value, str):
            return Problem(f"`{form}` must be a stage name (a string)", at, spans[at])
        return Property(name, form, {"stage": value}, path, span, spans)
    if not isinstance(value, dict):
        return Problem(f"`{form}` must be an inline table, as in {_shape(form)}", at, spans[at])
    allowed = FORM_KEYS.get(form, LIMIT_KEYS)
    for key in value:
        if key not in allowed:
            fix = did_you_mean(key, allowed, f"`{form}` takes: {', '.join(allowed)}")
            return Problem(f"unknown key '{key}' in `{form}`", (*at, key), where((*at, key), "key"), fix)
    for key in value:
        spans[(*at, key)] = where((*at, key))
    if form in FORM_KEYS:
        for key in allowed:
            if not isinstance(value.get(key), str):
                here = (*at, key) if key in value else at
                return Problem(f"`{form}` needs `{key}`, a name (a string), as in {_shape(form)}", here, spans[here])
        return Property(name, form, dict(value), path, span, spans)
    if not value:
        return Problem(f"`at_most` names no limit: give one or more of {', '.join(LIMIT_KEYS)}", at, spans[at])
    for key, limit in value.items():
        if key == "visits":
            if not isinstance(limit, dict) or not limit:
                return Problem("`at_most.visits` must be a table of stage = most visits", (*at, key), spans[(*at, key)])
            for stage, count in limit.items():
                spans[(*at, key, stage)] = where((*at, key, stage))
                if type(count) is not int or count < 0:
                    return Problem(
                        f"`at_most.visits.{stage}` must be a whole number, 0 or more",
                        (*at, key, stage),
                        spans[(*at, key, stage)],
                    )
        elif key == "cost_usd":
            if type(limit) not in (int, float) or limit < 0:
                return Problem(
                    "`at_most.cost_usd` must be a number of dollars, 0 or more", (*at, key), spans[(*at, key)]
                )
        elif type(limit) is not int or limit < 0:
            return Problem(f"`at_most.{key}` must be a whole number, 0 or more", (*at, key), spans[(*at, key)])
    return Property(name, form, dict(value), path, span, spans)


def _shape(form: str) -> str:
    return {
        "precedes": '{ first = "review", then = "publish" }',
        "never": '{ tool = "deploy", before = "approve" }',
    }.get(form, "{ inferences = 200 }")


def unknown_names(prop: Property, stages: tuple[str, ...], tools: tuple[str, ...]) -> Problem | None:
    """The first stage or tool `prop` names that the blueprint does not have, with the closest name."""
    at = (*prop.path, prop.form)
    named: list[tuple[KeyPath, str, str]] = []
    if prop.form == "reaches":
        named.append((at, prop.args["stage"], "stage"))
    elif prop.form == "precedes":
        named += [((*at, "first"), prop.args["first"], "stage"), ((*at, "then"), prop.args["then"], "stage")]
    elif prop.form == "never":
        named += [((*at, "tool"), prop.args["tool"], "tool"), ((*at, "before"), prop.args["before"], "stage")]
    else:
        named += [((*at, "visits", s), s, "stage") for s in prop.args.get("visits", {})]
    for path, name, kind in named:
        known = stages if kind == "stage" else tools
        if name in known:
            continue
        listed = ", ".join(known) or "none"
        what = "stages" if kind == "stage" else "tools offered by its stages"
        fix = did_you_mean(name, known, f"the blueprint's {what}: {listed}")
        return Problem(
            f"property '{prop.name}' names the {kind} '{name}', which the blueprint does not have",
            path,
            prop.span_of(path),
            fix,
        )
    return None


@dataclass
class PropertyRequest:
    """The properties `blueprint check` asks about the file it is checking, and, once the
    `analysis` family has run, the verdicts (`property_check.Verdict`)."""

    file: PropertyFile
    verdicts: list = field(default_factory=list)


#: Set around one file by `compiler.check.check_bytes`; the `analysis` family's property check
#: reads it (a rule check gets everything else from its `RuleContext`, and reads no file).
declared_properties: ContextVar[PropertyRequest | None] = ContextVar("declared_properties", default=None)
