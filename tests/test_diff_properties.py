"""Property tests of the semantic diff and the digest.

For generated blueprints (the stage names of `ir_strategies`, with transitions, gates, stuck
thresholds, budgets, tools, regions and permissions), written out by tomlkit:

- a rewrite that changes only the formatting (inline tables or `[tables]`, literal or basic
  strings, comments, the order of keys inside a table) gives the same digest and no change;
- any single semantic mutation gives another digest and a change that names what was mutated.

Each rewrite is checked to be formatting only: tomllib reads the same data, with the same
order wherever the IR keeps one (stages, edges, regions, permissions).
"""

from __future__ import annotations

import copy
import random
import tomllib
from typing import Any

import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.config import Settings
from compiler.diff.core import Version, compare
from compiler.pipeline import validate_bytes
from tests.ir_strategies import NAMES

TOOLS = ["read_file", "list_dir", "write_file", "shell", "context_write"]
WORDS = st.text(alphabet="abcdefgh xyzé✓'\"", min_size=1, max_size=16).map(lambda s: f"w{s.strip()}")
#: Containers whose key order the IR keeps.
ORDERED = {("stages",), ("stages", "*", "transitions"), ("context", "regions"), ("tool_permissions",)}
PROPERTY = settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def edges(draw: Any, names: list[str], least: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for target in draw(st.lists(st.sampled_from(names), unique=True, min_size=least, max_size=3)):
        edge: dict[str, Any] = {}
        condition = draw(st.sampled_from([None, "always", "llm_choice", "error", "stuck", "dead_end"]))
        if condition is not None:
            edge["condition"] = condition
        if condition == "stuck":
            edge["stuck_after_iterations"] = draw(st.integers(1, 9))
        if draw(st.booleans()):
            edge["hint"] = draw(WORDS)
        if condition in (None, "always", "llm_choice") and draw(st.booleans()):
            edge["gate"] = {"require_regions": ["notes"], "max_attempts": draw(st.integers(0, 4))}
            if draw(st.booleans()):
                edge["gate"]["message"] = draw(WORDS)
        out[target] = edge
    return out


@st.composite
def documents(draw: Any) -> dict[str, Any]:
    names = NAMES[: draw(st.integers(1, 4))]
    document: dict[str, Any] = {"agent": {"name": draw(st.sampled_from(["alpha", "beta"])), "version": "1.0.0"}}
    if draw(st.booleans()):
        document["agent"]["description"] = draw(WORDS)
    if draw(st.booleans()):
        policy = st.sampled_from(["allow", "ask", "deny"])
        document["tool_permissions"] = {tool: draw(policy) for tool in ("shell", "write_file")}
    document["context"] = {
        "regions": {
            "notes": {
                "kind": draw(st.sampled_from(["temporary", "pinned"])),
                "max_tokens": draw(st.integers(100, 9000)),
            }
        }
    }
    stages: dict[str, Any] = {}
    for name in names:
        stage: dict[str, Any] = {"mode": draw(st.sampled_from(["autonomous", "interactive", "output"]))}
        if draw(st.booleans()):
            stage["system_prompt"] = draw(WORDS)
        stage["available_tools"] = draw(st.lists(st.sampled_from(TOOLS), unique=True, max_size=3))
        for key in ("max_iterations", "max_revisits"):
            if draw(st.booleans()):
                stage[key] = draw(st.integers(0, 6))
        # The first stage always has an edge, so that every mutation applies.
        shape = "edges" if name == names[0] else draw(st.sampled_from(["none", "terminal", "edges"]))
        if shape != "none":
            stage["transitions"] = draw(edges(names, 1 if name == names[0] else 0)) if shape == "edges" else {}
        stages[name] = stage
    document["stages"] = stages
    return document


# --- writing a document out, in one of many layouts ---------------------------------------------


def _ordered(path: tuple[str, ...]) -> bool:
    return any(len(p) == len(path) and all(a in ("*", b) for a, b in zip(p, path)) for p in ORDERED)


def _scalar(value: Any, rnd: random.Random) -> Any:
    if isinstance(value, str) and "'" not in value and "\n" not in value and rnd.random() < 0.5:
        return tomlkit.string(value, literal=True)
    if isinstance(value, list):
        array = tomlkit.array()
        array.extend(_scalar(v, rnd) if not isinstance(v, dict) else v for v in value)
        return array
    return tomlkit.item(value)


def _plan(value: dict[str, Any], path: tuple[str, ...], rnd: random.Random, plain: bool, inside_inline: bool):
    """The order of a table's keys and which sub-tables are written inline."""
    keys = list(value)
    ordered = _ordered(path)
    if not plain and not ordered:
        rnd.shuffle(keys)
    if inside_inline:
        inline = {k: True for k in keys}
    elif ordered:  # every child in one form, so that the order stays as it was
        same = not plain and rnd.random() < 0.5
        inline = {k: same for k in keys}
    else:
        inline = {k: not plain and rnd.random() < 0.4 for k in keys}
    return keys, inline


def _fill(container: Any, value: dict[str, Any], path: tuple[str, ...], rnd: random.Random, plain: bool, plan) -> None:
    keys, inline = plan
    inside_inline = isinstance(container, tomlkit.items.InlineTable)
    is_table = {k: isinstance(value[k], dict) and not inline[k] for k in keys}
    # Values written as `key = …` come before the sub-tables of the same table.
    for key in [*(k for k in keys if not is_table[k]), *(k for k in keys if is_table[k])]:
        child = value[key]
        if not plain and not inside_inline and rnd.random() < 0.2:
            container.add(tomlkit.comment(f"about {key}"))
        if isinstance(child, dict):
            child_plan = _plan(child, (*path, key), rnd, plain, inside_inline or inline[key])
            if inline[key]:
                item = tomlkit.inline_table()
            else:
                inline_child = child_plan[1]
                only_tables = bool(child) and all(isinstance(v, dict) and not inline_child[k] for k, v in child.items())
                item = tomlkit.table(is_super_table=only_tables and not plain and rnd.random() < 0.5)
            _fill(item, child, (*path, key), rnd, plain, child_plan)
        else:
            item = _scalar(child, rnd) if not plain else tomlkit.item(child)
            if not plain and not inside_inline and rnd.random() < 0.2:
                item.comment("a note")
        container.add(key, item)


def write(document: dict[str, Any], seed: int | None) -> str:
    """`document` as TOML: the plain layout (`seed` None) or one drawn from `seed`."""
    out = tomlkit.document()
    if seed is not None:
        out.add(tomlkit.comment("rewritten"))
    rnd = random.Random(seed)
    _fill(out, document, (), rnd, seed is None, _plan(document, (), rnd, seed is None, False))
    return tomlkit.dumps(out)


def _orders(data: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], list[str]]:
    """The key order of every container whose order the IR keeps."""
    found: dict[tuple[str, ...], list[str]] = {}
    if isinstance(data, dict):
        if _ordered(path):
            found[path] = list(data)
        for key, value in data.items():
            found.update(_orders(value, (*path, key)))
    return found


def version(text: str, label: str) -> Version:
    result = validate_bytes(label, text.encode("utf-8"), Settings())
    assert result.blueprint is not None, text
    return Version(label, result.blueprint, result.source)


# --- the properties --------------------------------------------------------------------------------


@PROPERTY
@given(documents(), st.integers(0, 2**32))
def test_a_formatting_rewrite_is_no_change(document: dict[str, Any], seed: int) -> None:
    plain, rewritten = write(document, None), write(document, seed)
    for text in (plain, rewritten):  # the rewrite really is formatting only
        data = tomllib.loads(text)
        assert data == document and _orders(data) == _orders(document), text
    result = compare(version(plain, "a.leviath"), version(rewritten, "b.leviath"), runs=False)
    assert result.old.digest == result.new.digest
    assert result.status == "unchanged" and result.changes == ()


def _stage_with(document: dict[str, Any], rnd: random.Random, need: str | None = None) -> str | None:
    names = [n for n, s in document["stages"].items() if need is None or s.get(need)]
    return rnd.choice(names) if names else None


MUTATIONS = 12


def mutate(document: dict[str, Any], choice: int, rnd: random.Random) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Semantic change number `choice` to a copy of `document`, and the IR path it must be reported at."""
    doc = copy.deepcopy(document)
    stages = doc["stages"]
    name = _stage_with(doc, rnd)
    stage = stages[name]
    if choice == 0:
        doc["agent"]["name"] += "x"
        return doc, ("name",)
    if choice in (1, 2):
        key = ("max_revisits", "max_iterations")[choice - 1]
        stage[key] = stage.get(key, 0) + 7
        return doc, ("stages", name, key)
    if choice == 3:
        stage["system_prompt"] = stage.get("system_prompt", "w") + " more"
        return doc, ("stages", name, "system_prompt")
    if choice == 4:
        missing = [t for t in TOOLS if t not in stage["available_tools"]]
        stage["available_tools"].append(missing[0])
        return doc, ("stages", name, "available_tools")
    if choice == 5:
        stage["mode"] = "interactive" if stage["mode"] != "interactive" else "autonomous"
        return doc, ("stages", name, "mode")
    if choice == 6:
        doc["context"]["regions"]["notes"]["max_tokens"] += 1
        return doc, ("layout", "regions", "notes", "max_tokens")
    if choice == 7:
        if "transitions" in stage:
            del stage["transitions"]
        else:
            stage["transitions"] = {}
        return doc, ("stages", name, "transitions")
    if choice == 8:
        doc["stages"][f"{name}_extra"] = {"mode": "autonomous"}
        return doc, ("stages", f"{name}_extra")
    if choice == 9:
        policies = doc.setdefault("tool_permissions", {})
        policies["shell"] = "allow" if policies.get("shell") != "allow" else "deny"
        return doc, ("tool_permissions", "shell")
    name = _stage_with(doc, rnd, "transitions")
    assert name is not None  # the first stage has an edge
    transitions = stages[name]["transitions"]
    target = rnd.choice(list(transitions))
    edge = transitions[target]
    if choice == 10:
        del transitions[target]
        return doc, ("stages", name, "transitions")
    settled = "hint" in edge or "condition" in edge  # else a new hint also makes the edge llm_choice
    edge["hint"] = edge.get("hint", "w") + " go"
    return doc, ("stages", name, "transitions", target, *(("hint",) if settled else ()))


@PROPERTY
@given(documents(), st.integers(0, MUTATIONS - 1), st.integers(0, 2**32))
def test_a_semantic_mutation_is_a_change_that_names_it(document: dict[str, Any], choice: int, seed: int) -> None:
    changed, where = mutate(document, choice, random.Random(seed))
    before, after = write(document, None), write(changed, seed)
    result = compare(version(before, "a.leviath"), version(after, "b.leviath"), runs=False)
    assert result.old.digest != result.new.digest
    paths = [change.path for change in result.changes]
    assert any(path[: len(where)] == where for path in paths), (where, paths)
