"""Two IR `blueprint` objects (JSON values) → the raw differences between them.

The walk compares the IR, never the text, so formatting, comments, key order and table style
cannot show up. Named collections are compared by name, not position: stages by `name`, a
stage's edges by `target`, regions by `name`, tool permissions by `tool`, interaction points
by `name`, hooks by `event`, routing overrides by `tool`. A change of their order is one
difference of its own. Lists of plain values (tools, paths) and lists of records without a
name (model entries) are compared whole.

Before the walk, stages that were removed and added are paired by similarity: a pair close
enough is a rename, and every reference to the old name on the old side (edge targets,
`entry_stage`, fan-out stages) is read under the new one, so a rename is one difference, not a
removal, an addition and a retarget of every edge into it. Inside a stage, an edge removed and
one added with the same condition are paired as a retarget the same way.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Literal

from compiler.records import record

from ..ir.model import Stage
from ..ir.serialize import encode

Op = Literal["changed", "added", "removed", "renamed", "reordered"]
#: A stage pair at least this similar (shared content over all content) is a rename.
RENAME_SIMILARITY = 0.5
#: Above this many (removed × added) pairs, stages are paired only when their content is the same.
RENAME_PAIRS = 10_000
#: Derived from other keys, which are compared instead (the nudge blocks as written, the
#: regions, the stages).
DERIVED = frozenset({"effective_nudge", "fallback", "default_stage"})


class _Absent:
    """The value on the side that lacks an element."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


@record
class Delta:
    """One raw difference at `path` (stages and edges by name, on the new side's naming).

    `old`/`new` are the values (`ABSENT` for an element one side lacks); for `renamed` they
    are the two names, for `reordered` the two orders of the names both sides share.
    """

    path: tuple[str | int, ...]
    old: Any
    new: Any
    op: Op = "changed"


#: Path patterns (`*` for any name) of named collections → the key that names an element.
_KEYED: dict[tuple[str, ...], str] = {
    ("stages",): "name",
    ("stages", "*", "transitions"): "target",
    ("layout", "regions"): "name",
    ("stages", "*", "layout", "regions"): "name",
    ("tool_permissions",): "tool",
    ("stages", "*", "tool_permissions"): "tool",
    ("stages", "*", "interaction_points"): "name",
    ("stages", "*", "hooks"): "event",
    ("stages", "*", "tool_routing", "overrides"): "tool",
}


def _key_of(path: tuple[str | int, ...]) -> str | None:
    for pattern, key in _KEYED.items():
        if len(pattern) == len(path) and all(p == "*" or p == q for p, q in zip(pattern, path)):
            return key
    return None


def compare(old: dict[str, Any], new: dict[str, Any]) -> tuple[list[Delta], dict[str, str], dict[str, Any]]:
    """The differences between two encoded blueprints, the stage renames (old → new name), and
    the old blueprint as compared (renamed stages under their new names)."""
    renames = stage_renames(old, new)
    if renames:
        old = _renamed(old, renames)
    out: list[Delta] = [Delta(("stages", to), name, to, "renamed") for name, to in renames.items()]
    _walk(old, new, (), out)
    return out, renames, old


def _walk(old: Any, new: Any, path: tuple[str | int, ...], out: list[Delta]) -> None:
    if old == new and type(old) is type(new):
        return
    if type(old) is dict and type(new) is dict:
        for key in [*old, *(k for k in new if k not in old)]:
            if key not in DERIVED:
                _walk(old.get(key, ABSENT), new.get(key, ABSENT), (*path, key), out)
        return
    key = _key_of(path)
    if key is not None and (type(old) is list or type(new) is list):
        if old is None or new is None:  # transitions: none (fall through) ↔ a table
            out.append(Delta(path, old, new))
        _walk_named(old if type(old) is list else [], new if type(new) is list else [], key, path, out)
        return
    out.append(Delta(path, old, new, "added" if old is ABSENT else "removed" if new is ABSENT else "changed"))


def _walk_named(old: list[dict], new: list[dict], key: str, path: tuple[str | int, ...], out: list[Delta]) -> None:
    before = {item[key]: item for item in old}
    after = {item[key]: item for item in new}
    gone = [name for name in before if name not in after]
    came = [name for name in after if name not in before]
    pairs = _retargets(before, after, gone, came) if key == "target" else {}
    for name in before:
        if name in after:
            _walk(before[name], after[name], (*path, name), out)
        elif name in pairs:
            to = pairs[name]
            out.append(Delta((*path, to), name, to, "renamed"))
            _walk({**before[name], key: to}, after[to], (*path, to), out)
        else:
            out.append(Delta((*path, name), before[name], ABSENT, "removed"))
    for name in came:
        if name not in pairs.values():
            out.append(Delta((*path, name), ABSENT, after[name], "added"))
    shared_before = [name for name in before if name in after]
    shared_after = [name for name in after if name in before]
    if shared_before != shared_after:
        out.append(Delta(path, shared_before, shared_after, "reordered"))


def _retargets(before: dict, after: dict, gone: list[str], came: list[str]) -> dict[str, str]:
    """Removed edge target → added edge target, for edges of the same condition (in order)."""
    pairs: dict[str, str] = {}
    free = list(came)
    for name in gone:
        for to in free:
            if before[name]["condition"] == after[to]["condition"]:
                pairs[name] = to
                free.remove(to)
                break
    return pairs


# --- stage renames ---------------------------------------------------------------------------


def stage_renames(old: dict[str, Any], new: dict[str, Any]) -> dict[str, str]:
    """Removed stage → added stage, for pairs similar enough (best pairs first).

    Stages with exactly the same content pair first; the rest are scored pair by pair, unless
    there are too many pairs to score (a blueprint rewritten wholesale), when they stay a
    removal and an addition.
    """
    old_names = [s["name"] for s in old["stages"]]
    new_names = [s["name"] for s in new["stages"]]
    gone = [n for n in old_names if n not in set(new_names)]
    came = [n for n in new_names if n not in set(old_names)]
    if not gone or not came:
        return {}
    old_traits, new_traits = _traits(old, gone), _traits(new, came)
    renames: dict[str, str] = {}
    same = {frozenset(traits): name for name, traits in reversed(new_traits.items()) if traits}
    for name, traits in old_traits.items():
        match = same.get(frozenset(traits))
        if match is not None and match not in renames.values():
            renames[name] = match
    gone = [n for n in gone if n not in renames]
    came = [n for n in came if n not in renames.values()]
    if len(gone) * len(came) > RENAME_PAIRS:
        return renames
    scored = []
    for a in gone:
        for b in came:
            union = old_traits[a] | new_traits[b]
            if union:
                score = len(old_traits[a] & new_traits[b]) / len(union)
                if score >= RENAME_SIMILARITY:
                    scored.append((-score, old_names.index(a), new_names.index(b), a, b))
    for _, _, _, a, b in sorted(scored):
        if a not in renames and b not in renames.values():
            renames[a] = b
    return renames


def _traits(blueprint: dict[str, Any], names: list[str]) -> dict[str, set[str]]:
    """What each named stage is, apart from its name: its non-default settings, its edges, and
    who leads into it."""
    default = encode(Stage(name=""), Stage)
    wanted = set(names)
    traits: dict[str, set[str]] = {name: set() for name in names}
    for stage in blueprint["stages"]:
        name = stage["name"]
        for edge in stage["transitions"] or ():
            if edge["target"] in wanted and edge["target"] != name:
                traits[edge["target"]].add(f"from={name}:{edge['condition']}")
        if name not in wanted:
            continue
        traits[name].update(
            f"{key}={json.dumps(value, sort_keys=True)}"
            for key, value in stage.items()
            if key not in ("name", "effective_nudge", "transitions") and value != default.get(key)
        )
        for edge in stage["transitions"] or ():
            body = {k: v for k, v in edge.items() if k != "target" or v != name}  # a self-loop stays one
            traits[name].add(f"edge={json.dumps(body, sort_keys=True)}")
    return traits


def _renamed(blueprint: dict[str, Any], renames: dict[str, str]) -> dict[str, Any]:
    """A copy of `blueprint` with every stage reference read under its new name."""
    out = copy.deepcopy(blueprint)
    if out.get("entry_stage") in renames:
        out["entry_stage"] = renames[out["entry_stage"]]
    for stage in out["stages"]:
        stage["name"] = renames.get(stage["name"], stage["name"])
        for edge in stage["transitions"] or ():
            edge["target"] = renames.get(edge["target"], edge["target"])
        fan_out = stage.get("fan_out")
        if fan_out:
            for key in ("worker_stage", "merge_stage"):
                if fan_out.get(key) in renames:
                    fan_out[key] = renames[fan_out[key]]
    return out
