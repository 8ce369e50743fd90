"""An inference came back: count it, record its tool calls, nudge or end the stage.

A reply with tool calls never ends a stage; the run goes back to READY (or waits for
workers, after a `fan_out` call). A text-only reply is nudged while the stage has made no
tool call, its nudge is enabled and its budget lasts; otherwise it ends the stage normally.
Tool calls are counted when requested (refused ones too), while modifications count only
for calls that went through: a call to a tool the stage does not offer is `unavailable`
whatever the host says.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING

from ..ir.model import FAN_OUT_TOOL, MODIFYING_TOOLS, SUBMIT_OUTPUT_TOOL
from . import ending, texts
from .events import InferenceFailed, InferenceFinished, ToolCall
from .policy import SEARCH_TOOL, canonical_tool, resolved_nudge

if TYPE_CHECKING:
    from .run import Run

#: Kinds of failure that mean "this provider cannot serve us": try the next model.
UNUSABLE_PROVIDER = frozenset({"credits", "auth", "forbidden", "unreachable"})
#: With no model left, these pause the run (resumable) instead of failing it.
PAUSING = frozenset({"credits", "unreachable"})
MODIFIED_FILES_CAP = 200
_MARKER = re.compile(r"^\[(denied|error|unavailable|blocked)\]")
_DIAGNOSTIC = re.compile(r"^\[[A-Za-z_ -]+\]")


def outcome_of(call: ToolCall, offered: Collection[str]) -> str:
    """The call's outcome; a result text starting with a `[marker]` overrides a plain `ok`.
    `offered` holds canonical names: a call to `bash` is one to `shell`."""
    if canonical_tool(call.name) not in offered:
        return "unavailable"
    if call.outcome == "ok" and call.result:
        marker = _MARKER.match(call.result.lstrip())
        if marker:
            return marker.group(1)
    return call.outcome


def empty_search(call: ToolCall, outcome: str) -> bool:
    if outcome != "ok":
        return True
    result = (call.result or "").strip()
    return result in ("", "[]") or bool(_DIAGNOSTIC.match(result))


def finished(run: "Run", event: InferenceFinished) -> None:
    if run.table.stage.is_reviewed:  # the document its interaction points show next
        run.set(reply=event.text)
    if event.tool_calls:
        _tool_turn(run, event.tool_calls)
        return
    state = run.state
    run.set(inject=(), compact=(), iteration=state.iteration + 1)
    run.visit(iterations=state.visit.iterations + 1)
    table, global_nudge = run.table, state.global_nudge
    nudge = table.nudge if global_nudge is None else resolved_nudge(run.ir, table.stage, global_nudge)
    visit = run.state.visit
    if visit.tool_calls == 0 and nudge.enabled and visit.nudges < nudge.max:
        run.visit(nudges=visit.nudges + 1)
        if global_nudge is None:
            text = table.nudge_text
        else:
            text = texts.interpolate(nudge.text, stage=table.stage.name, regions=table.required)
        run.system(text, "nudge")
        run.ready()
        return
    ending.end_stage(run, None)


def _tool_turn(run: "Run", calls: tuple[ToolCall, ...]) -> None:
    """Record the calls in one update of the state, then READY (or wait for fan-out workers)."""
    table, state = run.table, run.state
    visit, flags = state.visit, state.flags
    offered, modifying = table.offered, table.modifying
    edits = visit.edits
    modifications, blocked = visit.modifications, visit.blocked_modifications
    files, file_count = flags.modified_files, flags.modified_file_count
    searches, empty = flags.searches_run, flags.searches_empty
    final_output, fanned, made = state.final_output, False, 0
    for call in calls:
        times = call.count  # the same call, made this many times
        made += times
        if call.name in MODIFYING_TOOLS and isinstance(call.path, str):
            if edits is visit.edits:
                edits = dict(edits)
            edits[call.path] = edits.get(call.path, 0) + times
        outcome = outcome_of(call, offered)
        name = canonical_tool(call.name)
        if name in modifying:
            if outcome == "denied":
                blocked += times
            elif outcome == "ok":
                modifications += times
                file_count += times
                path = call.path or "<unknown>"
                if path not in files and len(files) < MODIFIED_FILES_CAP:
                    files += (path,)
        if name == SEARCH_TOOL:
            searches += times
            empty += times * empty_search(call, outcome)
        if call.name == SUBMIT_OUTPUT_TOOL and outcome == "ok":
            final_output = table.stage.name
        if call.name == FAN_OUT_TOOL and outcome == "ok":
            fanned = True
    run.set(inject=(), compact=(), iteration=state.iteration + 1, final_output=final_output)
    run.visit(
        iterations=visit.iterations + 1,
        tool_calls=visit.tool_calls + made,
        edits=edits,
        modifications=modifications,
        blocked_modifications=blocked,
        fanned_out=visit.fanned_out or fanned,
    )
    if file_count != flags.modified_file_count or searches != flags.searches_run:
        run.flag(modified_files=files, modified_file_count=file_count, searches_run=searches, searches_empty=empty)
    if fanned:
        run.set(status="waiting", phase="workers")
        run.emit(ending.workers_action(run))
        return
    run.ready()


def failed(run: "Run", event: InferenceFailed) -> None:
    """Fall back to the stage's next model, pause, or fail the stage (its error edge may catch it)."""
    run.set(inject=(), compact=())
    stage, visit = run.stage, run.state.visit
    if event.kind in UNUSABLE_PROVIDER and visit.model_index + 1 < len(stage.model.entries):
        run.visit(model_index=visit.model_index + 1)
        run.ready()
        return
    if event.kind in PAUSING:
        run.set(status="paused", phase="ready", resume_status="active")
        return
    ending.fail_stage(run, event.message)
