"""Rename a stage or a region: its table keys and every name that refers to it, in one edit.

Refused, with the reason, when the new name is not a plain name (letters, digits, `_` and
`-`: a bare TOML key, so every header stays readable), when a stage or region of that name
already exists, when the old name is one of the always-visible regions, or when the document
does not parse (its names cannot be trusted). After a rename the file reads as before with
the new name: the same findings, apart from names.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from ..diagnostics import format_key
from .names import Occurrence, is_builtin_region
from .navigation import occurrence_at
from .ranges import to_range

if TYPE_CHECKING:
    from .documents import Analysis, Document
    from .server import BlueprintServer

VALID_NAME = re.compile(r"[A-Za-z0-9_-]+")
RENAMEABLE = ("stage", "region")


class RenameRefused(JsonRpcException):
    """A rename the server will not make; the message says why (editors show it). The code is
    the protocol's RequestFailed: the request was well formed, the answer is no."""

    CODE = -32803


def _target(analysis: "Analysis", position: types.Position) -> Occurrence:
    if not analysis.parsed:
        raise RenameRefused("the blueprint does not parse; fix its syntax errors before renaming")
    occurrence = occurrence_at(analysis, position)
    if occurrence is None or occurrence.kind not in RENAMEABLE:
        raise RenameRefused("only a stage or a region name can be renamed")
    if occurrence.kind == "region" and is_builtin_region(occurrence.name):
        raise RenameRefused(f"'{occurrence.name}' is a region every stage sees; it cannot be renamed")
    if occurrence.kind == "region" and not analysis.names.declarations("region", occurrence.name):
        raise RenameRefused(f"no layout declares region '{occurrence.name}'")
    if occurrence.kind == "stage" and not analysis.names.declarations("stage", occurrence.name):
        raise RenameRefused(f"no stage is named '{occurrence.name}'")
    return occurrence


def prepare(ls: "BlueprintServer", document: "Document", analysis: "Analysis", params: Any) -> Any:
    occurrence = _target(analysis, params.position)
    return types.PrepareRenamePlaceholder(range=to_range(analysis.lines, occurrence.span), placeholder=occurrence.name)


def refusal(analysis: "Analysis", occurrence: Occurrence, new_name: str) -> str | None:
    """Why `occurrence` cannot be renamed to `new_name`, or None when it can."""
    if not VALID_NAME.fullmatch(new_name):
        return f"'{new_name}' is not a valid {occurrence.kind} name: use letters, digits, '_' and '-'"
    if new_name == occurrence.name:
        return None
    if occurrence.kind == "stage":
        blueprint = analysis.result.blueprint
        assert blueprint is not None
        if blueprint.stage(new_name) is not None and not blueprint.default_stage:
            return f"a stage named '{new_name}' already exists"
        return None
    if is_builtin_region(new_name):
        return f"'{new_name}' is a region every stage sees already"
    if analysis.names.declarations("region", new_name):
        return f"a region named '{new_name}' already exists"
    return None


def rename(ls: "BlueprintServer", document: "Document", analysis: "Analysis", params: Any) -> Any:
    occurrence = _target(analysis, params.position)
    why = refusal(analysis, occurrence, params.new_name)
    if why is not None:
        raise RenameRefused(why)
    edits = [
        types.TextEdit(range=to_range(analysis.lines, o.token), new_text=spelling(o, params.new_name))
        for o in analysis.names.of(occurrence.kind, occurrence.name)
    ]
    return types.WorkspaceEdit(changes={document.uri: edits})


def spelling(occurrence: Occurrence, name: str) -> str:
    """`name` written where `occurrence` is: a key, or a string in the same quotes."""
    if occurrence.written_as == "key":
        return format_key(name)
    if occurrence.written_as == "'" and "'" not in name:
        return f"'{name}'"
    return json.dumps(name, ensure_ascii=False)
