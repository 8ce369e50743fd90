"""Old spellings: keys that blueprints written for earlier Leviath versions use, and what the
current Leviath reads instead.

Checked against Leviath's parser (`crates/leviath-core/src/manifest/stage.rs`,
`manifest.rs`): a stage table allows only its listed keys, so `next_stage` and
`tool_result_routing` are refused (`rejected-key`, whose messages name the current spelling);
`tool_result_routing` is the name of the parsed stage's field that the `tool_routing` table
fills, so renaming the key is the whole migration. A `system_prompt` inside the model table
is ignored (Leviath logs a warning telling the author to move it up into the stage), and
`[context]` reads only `regions` and `file_tracking`, so a `repetition_detection` table there
is ignored while the top-level `[repetition_detection]` is read. `outdated-key` reports those
two; `blueprint validate --fix` moves each where Leviath reads it.

`outdated_keys(document)` is the one list; the check reports it, the fixer rewrites it, and
`with_current_spellings` says what the rewritten file must mean (the fixer's safety check).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from typing import Any

from compiler.records import record

from ...diagnostics import Diagnostic, KeyPath
from ...ir.build_values import table
from ...rulebook.fixers import KeyEdits, KeyFix, Unfixable
from ...rulebook.registry import LINT
from ..common import header, stage_path
from ..context import RuleContext


def move_where_read(edits: KeyEdits, finding: Diagnostic) -> None:
    """The fixer of `outdated-key`: the key moves where Leviath reads it, when nothing is there."""
    old = edits.derived(_movable).get(tuple(finding.path))
    if old is None:
        raise Unfixable("the key cannot move: something is already where it belongs")
    edits.move(old.path, old.to)


def rename_old_key(edits: KeyEdits, finding: Diagnostic) -> None:
    """The fixer of the schema's `rejected-key` for a stage key Leviath renamed."""
    old = edits.derived(_renamable).get(tuple(finding.path))
    if old is None:
        raise Unfixable("not an old spelling that a rename fixes")
    edits.rename(old.path, str(old.to[-1]))


def with_current_spellings(document: dict[str, Any], paths: Iterable[KeyPath]) -> dict[str, Any]:
    """`document` with the old spellings at `paths` moved where Leviath reads them: what a
    fixed file must mean (the `meant` of both fixers)."""
    moved = copy.deepcopy(document)
    wanted = {tuple(p) for p in paths}
    for old in outdated_keys(document):
        if old.path in wanted and old.movable:
            value = _pop(moved, old.path)
            _put(moved, old.to, value)
    return moved


OUTDATED_KEY = LINT.define(
    "outdated-key",
    severity="warning",
    summary="A key sits where earlier Leviath versions read it; the current one ignores it there.",
    rationale=(
        "Leviath reads a stage's `system_prompt` in the stage table, not in its `model` table, "
        "and `[repetition_detection]` at the top level, not inside `[context]`. In the old "
        "place the value is ignored: the stage runs with no instructions, the repetition "
        "limits are the user's defaults. (For a `system_prompt` written after a "
        "`[stages.<name>.model]` header, TOML puts it in the model table even though it looks "
        "like a stage key.) `blueprint validate --fix` moves the key where it is read, keeping "
        "its comments, when nothing is already there; the run then does what the file says."
    ),
    example=(
        '[stages.draft]\nmode = "autonomous"\nmax_iterations = 20\n\n[stages.draft.model]\n'
        'models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }]\nsystem_prompt = "Write the first draft."'
    ),
    example_fixed=(
        '[stages.draft]\nmode = "autonomous"\nmax_iterations = 20\nsystem_prompt = "Write the first draft."\n\n'
        '[stages.draft.model]\nmodels = [{ provider = "anthropic", model = "claude-sonnet-4-6" }]'
    ),
    fix="move the key where Leviath reads it",
    fixer=KeyFix(move_where_read, meant=with_current_spellings),
    differs=(
        "Leviath logs a warning for the model-table system_prompt and says nothing about [context] "
        "repetition_detection."
    ),
)


@record
class Outdated:
    """One old spelling: where it is, where it belongs, and whether it can move there."""

    path: KeyPath
    to: KeyPath
    what: str
    #: Nothing is at `to` yet, so moving it changes nothing else.
    movable: bool
    #: Leviath refuses the key (a stage key it does not list): the schema's `rejected-key`
    #: reports it, naming the current spelling.
    refused: bool = False

    @property
    def renamed(self) -> bool:
        """The key stays in its table under another name (`--fix` edits its spelling)."""
        return self.path[:-1] == self.to[:-1]


def outdated_keys(document: dict[str, Any]) -> Iterator[Outdated]:
    """Every old spelling `outdated-key` reports, in document order."""
    context = table(document.get("context"))
    if "repetition_detection" in context:
        yield Outdated(
            ("context", "repetition_detection"),
            ("repetition_detection",),
            "[context] repetition_detection is not read: Leviath reads the top-level [repetition_detection]",
            "repetition_detection" not in document,
        )
    for name, stage in table(document.get("stages")).items():
        if isinstance(stage, dict) and isinstance(stage.get("tool_result_routing"), dict):
            yield Outdated(
                stage_path(name) + ("tool_result_routing",),
                stage_path(name) + ("tool_routing",),
                "tool_result_routing",
                "tool_routing" not in stage,
                refused=True,
            )
        model = stage.get("model") if isinstance(stage, dict) else None
        if isinstance(model, dict) and "system_prompt" in model:
            yield Outdated(
                stage_path(name) + ("model", "system_prompt"),
                stage_path(name) + ("system_prompt",),
                f"stage '{name}': system_prompt inside the model table is ignored, so the stage runs with no "
                f"instructions of its own; Leviath reads it in {header(stage_path(name))}",
                "system_prompt" not in stage,
            )


def _movable(document: dict[str, Any]) -> dict[KeyPath, Outdated]:
    return {old.path: old for old in outdated_keys(document) if old.movable and not old.renamed}


def _renamable(document: dict[str, Any]) -> dict[KeyPath, Outdated]:
    return {old.path: old for old in outdated_keys(document) if old.movable and old.renamed}


def _pop(document: dict[str, Any], path: KeyPath) -> Any:
    node: Any = document
    for part in path[:-1]:
        node = node[part]
    return node.pop(path[-1])


def _put(document: dict[str, Any], path: KeyPath, value: Any) -> None:
    node: Any = document
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value


@LINT.check(OUTDATED_KEY)
def check_outdated_keys(ctx: RuleContext) -> Iterator[Diagnostic]:
    for old in outdated_keys(ctx.document):
        if old.refused:
            continue  # refused: the schema layer's rejected-key names the current spelling
        where = header(old.to[:-1]) if len(old.to) > 1 else f"[{old.to[0]}]"
        if old.movable:
            fix = f"move it into {where} (`blueprint validate --fix` does it)"
        else:
            fix = f"merge it into the {old.to[-1]} already in {where}, then remove it here"
        yield ctx.report(OUTDATED_KEY, old.what, old.path, fix=fix)
