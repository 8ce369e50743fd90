"""What the model, the tools and a person may do at each point of a run: the moves the analysis tries.

A move is one representative host behaviour. It becomes runner events only against a concrete
state (`Move.events`), so the same move replays correctly wherever a trace puts it. The set is
chosen so that every *decision* the runner can reach is reached, not every possible reply:

- a reply with text only (it ends the stage, or is nudged), a plain tool call (the visit's
  first; later ones only repeat it), a modifying call (for `require_modifications` gates), a
  batch of edits to one file or of tool calls (trips a stuck threshold at once), submitting the
  output, calling `fan_out`, a fan-out stage calling it with an empty `items` list (nothing to
  hand out: no worker runs, the way through to the merge stage its nudge offers), a failed
  inference, and the stuck clock running out;
- `pad`: plain tool calls until the runner interrupts the stage (its iteration cap or stuck
  threshold) — the many equivalent lengths of a working stage, explored as one;
- before every move that makes the runner decide on regions (a reply that ends the stage, a
  routing answer, an approval, the workers' end), either filling every region the stage's
  gates and required regions name, or leaving them all unmet (restoring a region a gate wants
  revised to how it was when the stage began, re-opening a checklist, emptying the rest) —
  so whether a gate or a required-region hold blocks is the host's choice at each decision,
  and the regions' contents between decisions never matter;
- each offered routing answer, DONE where it is allowed, a failed routing call;
- at an interaction point: approve, a directive, an edit, an abort option, no answer;
- fan-out workers that all finish, or (under `fail_all`) one that fails.

Provider fallbacks and pauses, child runs, cancelling and a vanished workspace are left out:
they delay a run or end it the way an error does, and add no route of their own.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from compiler.records import record

from ..ir.model import FAN_OUT_TOOL, MODIFYING_TOOLS, SUBMIT_OUTPUT_TOOL
from ..runtime.events import (
    InferenceFailed,
    InferenceFinished,
    InteractionAnswered,
    RegionChanged,
    RoutingAnswer,
    Tick,
    ToolCall,
    WorkersFinished,
)
from ..runtime.policy import holds
from ..runtime.state import EMPTY_REGION, RegionSnapshot
from .facts import StageFacts

if TYPE_CHECKING:
    from ..ir.model import Blueprint, Stage
    from ..runtime.events import Event
    from ..runtime.state import RunState

#: The file every edit of the analysis touches (one path, so edits pile up on it).
EDITED_PATH = "analysis.txt"
FAILURE = "the inference failed"
ROUTING_FAILURE = "the routing call failed"
#: Answers no option list matches: an approval at an interaction point, a routing reply
#: that names no stage.
APPROVAL = "approved"
EDITED_TEXT = "(the person's edited text)"
OPEN_ITEM = ("1", "an unfinished item")

#: Moves that answer a stage inference (one more iteration of the visit).
INFERENCE_MOVES = frozenset({"text", "tool", "edit", "churn", "burst", "submit", "fan_out", "fan_out_empty"})


@record
class Move:
    """One host behaviour: `kind`, an argument (a routing target, an answer), a count, and for
    a deciding move whether the regions it may read were all filled (`met`) or all left unmet."""

    kind: str
    arg: str | None = None
    count: int = 1
    regions: str | None = None
    #: What the decision after the move reads, for its description: "required regions",
    #: "gate regions" or both.
    reads: str | None = None
    #: The move made this many times in a row, each adding the same counts (`repeats`).
    times: int = 1
    #: For a `lap`: the moves of one lap, the lap made `times` times.
    laps: tuple["Move", ...] = ()

    @property
    def iterations(self) -> int:
        """Stage inferences the move answers."""
        if self.kind == "pad":
            return self.count
        if self.laps:
            return self.times * sum(move.iterations for move in self.laps)
        return self.times if self.kind in INFERENCE_MOVES else 0

    def describe(self) -> str:
        """What the model, a tool or a person did, in a few words (`×n` when repeated)."""
        once = self.describe_once()
        return once if self.times == 1 else f"{once} ×{self.times:,}"

    def describe_once(self) -> str:
        if self.laps:
            return "(" + "; ".join(move.describe() for move in self.laps) + ")"
        text = self._describe()
        if self.regions == "met":
            return f"fills its {self.reads or 'regions'}, then " + text
        if self.regions == "unmet":
            return f"leaves its {self.reads or 'regions'} unmet, then " + text
        return text

    def _describe(self) -> str:
        if self.kind == "pad":
            return f"calls tools for {self.count:,} turn{'s' if self.count != 1 else ''}"
        if self.kind in ("churn", "burst"):
            return DESCRIPTIONS[self.kind].format(n=self.count)
        if self.kind == "route":
            return f"routing answer '{self.arg}'"
        if self.kind in ("directive", "edit_answer", "abort"):
            return DESCRIPTIONS[self.kind].format(arg=self.arg)
        return DESCRIPTIONS.get(self.kind, self.kind)


DESCRIPTIONS = {
    "text": "replies with text only",
    "tool": "calls a tool",
    "edit": "edits a file",
    "churn": "edits one file {n:,} times in one reply",
    "burst": "makes {n:,} tool calls in one reply",
    "submit": "submits its output",
    "fan_out": "calls fan_out",
    "fan_out_empty": "calls fan_out with an empty items list",
    "fail": "the inference fails",
    "wait": "the stuck clock runs out",
    "done": "routing answer DONE",
    "route_fail": "the routing call fails",
    "approve": "a person approves",
    "directive": "a person answers '{arg}' (a directive)",
    "edit_answer": "a person answers '{arg}' and edits the text",
    "abort": "a person answers '{arg}' (abort)",
    "blank": "nobody answers",
    "workers": "the fan-out workers finish",
    "workers_fail": "a fan-out worker fails",
}


def moves(ir: "Blueprint", stage: "Stage", state: "RunState", facts: StageFacts) -> list[Move]:
    """The moves worth trying from `state` (a run waiting on the host), in a fixed order."""
    if state.status not in ("active", "waiting") or state.terminal:
        return []
    phase = state.phase
    if phase == "infer":
        return _inference_moves(ir, stage, state, facts)
    if phase == "route":
        out = [Move("route", target) for target in state.offer]
        if stage.allow_complete:
            out.append(Move("done"))
        out.append(Move("route_fail"))
    elif phase == "interact":
        out = _interaction_moves(stage, state)
    elif phase == "workers":
        out = [Move("workers")]
        if stage.fan_out is not None and stage.fan_out.on_worker_failure == "fail_all":
            out.append(Move("workers_fail"))
    else:
        return []  # children: no child run is ever started by these moves
    return _with_region_choices(ir, stage, state, facts, out)


def _with_region_choices(
    ir: "Blueprint", stage: "Stage", state: "RunState", facts: StageFacts, out: list[Move]
) -> list[Move]:
    """Each deciding move twice, regions met and unmet, where the decision reads a region."""
    if not any(holds(ir, stage, state, name) for name in facts.regions):
        return out
    split: list[Move] = []
    for move in out:
        reads = _reads_regions(move, facts)
        if reads:
            split.append(Move(move.kind, move.arg, move.count, "met", reads))
            split.append(Move(move.kind, move.arg, move.count, "unmet", reads))
        else:
            split.append(move)
    return split


def _reads_regions(move: Move, facts: StageFacts) -> str | None:
    """Which regions the runner may read after the move ("required regions", "gate regions",
    both), or None.

    Ending the stage (a reply, the workers' end) runs the required-region hold, then may take
    a single gated edge; an approval may take a single gated edge; a routing answer reads only
    the gate of the edge it picks.
    """
    required = move.kind in ("text", "workers", "fan_out_empty") and facts.holds_regions
    gated = (move.kind in ("text", "workers", "fan_out_empty", "approve") and bool(facts.gated_targets)) or (
        move.kind == "route" and move.arg in facts.gated_targets
    )
    if required and gated:
        return "required and gate regions"
    return "required regions" if required else "gate regions" if gated else None


def _inference_moves(ir: "Blueprint", stage: "Stage", state: "RunState", facts: StageFacts) -> list[Move]:
    visit = state.visit
    out = [Move("text")]
    if visit.tool_calls == 0 or facts.counting(visit):
        out.append(Move("tool"))
    else:
        out.append(Move("pad"))
    if facts.tracks_modifications:
        out.append(Move("edit"))
    stuck = facts.stuck if not visit.stuck_fired else None
    if stuck is not None and stuck.same_file_edits:
        out.append(Move("churn", count=stuck.same_file_edits))
    if stuck is not None and stuck.tool_calls and stuck.tool_calls > 1:
        out.append(Move("burst", count=stuck.tool_calls))
    if SUBMIT_OUTPUT_TOOL in stage.available_tools and state.final_output != stage.name:
        out.append(Move("submit"))
    if FAN_OUT_TOOL in stage.available_tools:  # a merge stage may infer already marked as fanned out
        out.append(Move("fan_out"))
        if stage.mode == "fan_out":
            out.append(Move("fan_out_empty"))
    out.append(Move("fail"))
    if stuck is not None and stuck.minutes:
        out.append(Move("wait", count=stuck.minutes))
    return _with_region_choices(ir, stage, state, facts, out)


def _interaction_moves(stage: "Stage", state: "RunState") -> list[Move]:
    point = _point(stage, state)
    out = [Move("approve")]
    if point is None:
        return out
    if point.directives:
        out.append(Move("directive", point.directives[0][0]))
    if point.edit_options:
        out.append(Move("edit_answer", point.edit_options[0]))
    if point.abort_options:
        out.append(Move("abort", point.abort_options[0]))
    if point.unattended == "ask":  # otherwise no answer approves, as `approve` does
        out.append(Move("blank"))
    return out


def _point(stage: "Stage", state: "RunState"):
    points = stage.interaction_points
    cursor = state.visit.point_cursor
    return points[cursor] if 0 <= cursor < len(points) else None


# --- moves into events --------------------------------------------------------------------------


def events(move: Move, ir: "Blueprint", stage: "Stage", state: "RunState", facts: StageFacts) -> list["Event"]:
    """The runner events the move stands for, from `state` (every event carries the time)."""
    if move.regions is not None:
        setting = _filled if move.regions == "met" else _unmet
        changes = [setting(name, state, facts, state.clock) for name in facts.regions if holds(ir, stage, state, name)]
        changes = [c for c in changes if state.region(c.region) != RegionSnapshot(c.hash, c.entries, c.open_items)]
        return changes + _events(move, ir, stage, state, facts)
    return _events(move, ir, stage, state, facts)


def _events(move: Move, ir: "Blueprint", stage: "Stage", state: "RunState", facts: StageFacts) -> list["Event"]:
    now = state.clock
    kind = move.kind
    if kind == "text":
        return [InferenceFinished(text="done", now=now)]
    if kind in ("tool", "pad"):
        return [InferenceFinished(tool_calls=(plain_call(stage, facts),), now=now)] * max(move.count, 1)
    if kind == "edit":
        return [
            InferenceFinished(tool_calls=(ToolCall(facts.modifying_tool or MODIFYING_TOOLS[0], EDITED_PATH),), now=now)
        ]
    if kind == "churn":  # one call made `count` times: a count, never a list of calls
        outcome = "ok" if "edit_file" in stage.available_tools else "unavailable"
        return [InferenceFinished(tool_calls=(ToolCall("edit_file", EDITED_PATH, outcome, count=move.count),), now=now)]
    if kind == "burst":
        return [InferenceFinished(tool_calls=(replace(plain_call(stage, facts), count=move.count),), now=now)]
    if kind == "submit":
        return [InferenceFinished(tool_calls=(ToolCall(SUBMIT_OUTPUT_TOOL),), now=now)]
    if kind == "fan_out":
        return [InferenceFinished(tool_calls=(ToolCall(FAN_OUT_TOOL),), now=now)]
    if kind == "fan_out_empty":
        return [InferenceFinished(tool_calls=(ToolCall(FAN_OUT_TOOL),), now=now), WorkersFinished(now=now)]
    if kind == "fail":
        return [InferenceFailed(message=FAILURE, now=now)]
    if kind == "wait":
        return [_late_tick(state, move.count)]
    if kind == "route":
        return [RoutingAnswer(reply=move.arg or "", now=now)]
    if kind == "done":
        return [RoutingAnswer(reply="DONE", now=now)]
    if kind == "route_fail":
        return [InferenceFailed(message=ROUTING_FAILURE, now=now)]
    if kind == "approve":
        point = _point(stage, state)
        return [InteractionAnswered(answer=_plain_option(point) if point is not None else APPROVAL, now=now)]
    if kind in ("directive", "abort"):
        return [InteractionAnswered(answer=move.arg, now=now)]
    if kind == "edit_answer":
        return [InteractionAnswered(answer=move.arg, edited=EDITED_TEXT, now=now)]
    if kind == "blank":
        return [InteractionAnswered(now=now)]
    if kind == "workers":
        return [WorkersFinished(completed=1, now=now)]
    if kind == "workers_fail":
        return [WorkersFinished(completed=0, failed=1, now=now)]
    raise ValueError(f"unknown move {kind!r}")


def plain_call(stage: "Stage", facts: StageFacts) -> ToolCall:
    """A call that is only work: no modification, output, split or search (refused when the
    stage offers no tool at all, which still counts as a tool call)."""
    offered = facts.plain_tool in stage.available_tools
    return ToolCall(facts.plain_tool, outcome="ok" if offered else "unavailable")


def _late_tick(state: "RunState", minutes: int) -> Tick:
    started = state.visit.stuck_since if state.visit.stuck_since is not None else state.clock
    return Tick(now=max(state.clock, started + minutes * 60))


def _plain_option(point) -> str:
    special = set(point.abort_options) | set(point.edit_options) | {label for label, _ in point.directives}
    return next((option for option in point.options if option not in special), APPROVAL)


def _filled(name: str, state: "RunState", facts: StageFacts, now: float) -> RegionChanged:
    """Full enough for every gate, with content this visit wrote (so it differs from any baseline)."""
    written = f"analysis:{state.stage}:{state.visits.get(state.stage, 0)}:{name}"
    if state.visit.entry_digests.get(name) == written:  # the visit count is not always kept
        written += ":again"
    return RegionChanged(region=name, hash=written, entries=1, now=now)


def _unmet(name: str, state: "RunState", facts: StageFacts, now: float) -> RegionChanged:
    """Unchanged since the stage began (a gate wants it revised), or with an open item, or empty."""
    if name in facts.revised and name in state.visit.entry_digests:
        before = facts.at_entry.get(name, EMPTY_REGION)
        return RegionChanged(
            region=name, hash=before.hash, entries=before.entries, open_items=before.open_items, now=now
        )
    if name in facts.checklists:
        return RegionChanged(region=name, hash=f"analysis:{name}:open", entries=1, open_items=(OPEN_ITEM,), now=now)
    return RegionChanged(region=name, hash="", entries=0, now=now)
