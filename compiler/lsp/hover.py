"""Hover: what a key means (from the schema), what a name stands for, what a rule code says.

A key or a value shows the key's documentation: type, limits, allowed values, default and
description, from the same schema `docs/format.md` documents. A stage name shows its mode,
budgets and edges; a region name its kind and budget in each layout that declares it; a rule
code in a `# blueprint: ignore[...]` directive the rule's summary.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..ir.model import ALWAYS_VISIBLE_REGIONS, Blueprint
from .cursor import cursor_at
from .keys import key_doc
from .navigation import occurrence_at
from .ranges import offset_of, offsets_range, to_range

if TYPE_CHECKING:
    from .documents import Analysis, Document
    from .server import BlueprintServer

_DIRECTIVE_CODES = re.compile(r"#\s*blueprint\s*:\s*ignore(?:-file)?\s*\[(?P<codes>[^\]]*)\]?")
_CODE = re.compile(r"[^,\s\]]+")
_WORD_END = re.compile(r"[A-Za-z0-9_-]*")


def hover(ls: "BlueprintServer", document: "Document", analysis: "Analysis", params: Any) -> Any:
    lines = analysis.lines
    offset = offset_of(lines, params.position)
    code = _rule_code_at(analysis, offset)
    if code is not None:
        return code
    occurrence = occurrence_at(analysis, params.position)
    blueprint = analysis.result.blueprint
    if occurrence is not None and blueprint is not None:
        summary = None
        if occurrence.kind == "stage":
            summary = stage_summary(blueprint, occurrence.name)
        elif occurrence.kind == "region":
            summary = region_summary(blueprint, occurrence.name)
        if summary is not None:
            return _markdown(summary, to_range(lines, occurrence.span))
    word_end = _WORD_END.match(analysis.text, offset)
    assert word_end is not None, "the pattern matches the empty string"
    end = word_end.end()
    cursor = cursor_at(analysis.text, end)
    if cursor.where in ("key", "header") and cursor.word:
        path = cursor.path + (cursor.word,)
    elif cursor.where == "value":
        path = cursor.path
        while path and isinstance(path[-1], int):
            path = path[:-1]
    else:
        return None
    doc = key_doc(path)
    if doc is None:
        return None
    return _markdown(doc.markdown(), offsets_range(lines, cursor.word_start, end) if cursor.word else None)


def _markdown(text: str, where: types.Range | None) -> types.Hover:
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=where)


def _rule_code_at(analysis: "Analysis", offset: int) -> types.Hover | None:
    lines = analysis.lines
    position = lines.position(offset)
    start = lines.starts[position.line]
    line_text = analysis.text[start : lines.offset(position.line, 1 << 30)]
    for directive in _DIRECTIVE_CODES.finditer(line_text):
        base = start + directive.start("codes")
        for code in _CODE.finditer(directive.group("codes")):
            if base + code.start() <= offset <= base + code.end():
                from ..rulebook.registry import REGISTRY

                rule = REGISTRY.get(code.group())
                if rule is None:
                    return None
                text = f"**`{rule.code}`** ({rule.severity}, {rule.family})\n\n{rule.summary}\n\nFix: {rule.fix}\n"
                return _markdown(text, offsets_range(lines, base + code.start(), base + code.end()))
    return None


def stage_summary(blueprint: Blueprint, name: str) -> str | None:
    stage = blueprint.stage(name)
    if stage is None:
        return f"**stage `{name}`** — not declared"
    facts = [f"mode `{stage.mode}`"]
    if name == blueprint.entry:
        facts.append("entry stage")
    facts.append(f"max_iterations {stage.max_iterations}" if stage.max_iterations else "no iteration cap")
    if stage.max_revisits is not None:
        facts.append(f"max_revisits {stage.max_revisits}")
    lines = [f"**stage `{name}`** — " + ", ".join(facts)]
    if stage.description:
        lines += ["", stage.description]
    if stage.transitions is None:
        following = blueprint.next_stage(stage)
        lines += [
            "",
            f"No transitions: falls through to `{following.name}`."
            if following
            else "No transitions: the run ends here.",
        ]
    elif not stage.transitions:
        lines += ["", "Terminal: the run ends here."]
    else:
        lines += [""] + [
            f"- → `{edge.target}` ({edge.condition})" + (" gated" if edge.gate is not None else "")
            for edge in stage.transitions
        ]
    return "\n".join(lines) + "\n"


def region_summary(blueprint: Blueprint, name: str) -> str | None:
    found = []
    layouts = [("global layout", blueprint.layout)] + [
        (f"stage `{s.name}`", s.layout) for s in blueprint.stages if s.layout is not None
    ]
    for where, layout in layouts:
        region = layout.get(name)
        if region is None:
            continue
        budget = (
            f"{region.budget_percent:g}% of the window"
            if region.budget_percent is not None
            else f"{region.max_tokens} tokens"
        )
        found.append(f"- {where}: `{region.kind}`, {budget}" + (", required" if region.required else ""))
    if not found:
        if name in ALWAYS_VISIBLE_REGIONS:
            return f"**region `{name}`** — always visible to every stage\n"
        return f"**region `{name}`** — declared by no layout\n"
    return f"**region `{name}`**\n\n" + "\n".join(found) + "\n"
