"""The walk over one run's world events that `log_check.check_log` reports on.

`Walk` keeps what the stage-runner keeps — the stage, the visit counts, each visit's
inferences — and judges each thing the run did by the runner's rules (`log_rules`): the first
stage, every tool it started, every inference against the stage's iteration cap, every move
between stages, and how it ended. It stops at the first departure. See `log_check` for what
world events say and what they do not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from compiler.records import record

from ..ir.model import Blueprint
from .events import InferenceFinished, ToolCall
from .leviath_log import RunLog, WorldEvent
from .log_rules import completion_departure, explain_move, move_reasons, offered_tools
from .policy import canonical_tool
from .tables import tables
from .timeline import describe_event

#: Terminal status labels: the `completed` event that follows says it.
_TERMINAL = frozenset({"complete", "error", "cancelled"})
_MARKER = re.compile(r"^\[(denied|error|unavailable|blocked)\]")


@record
class Departure:
    """The first thing the recorded run did that the blueprint does not allow."""

    line: int
    kind: str
    stage: str
    message: str


@record
class Step:
    """One thing the run did, at a line of the log, in the stage it was in."""

    line: int
    kind: str
    stage: str
    visit: int
    lines: tuple[str, ...]
    #: The runner event an inference becomes (inferences with lane tool calls only).
    event: InferenceFinished | None = None
    fields: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(eq=False)  # one visit is itself: two with the same counts are not the same visit
class _Visit:
    stage: str
    number: int
    #: Inferences placed in this visit for certain, and ones a status could not place.
    certain: int = 0
    unplaced: int = 0


@dataclass
class _Batch:
    """One inference's lane tool calls, from its first `tool_call_started`."""

    line: int
    visit: _Visit
    calls: list[list[Any]] = field(default_factory=list)  # [call id, name, outcome, summary]
    finished: int = 0


class Walk:
    def __init__(self, ir: Blueprint, log: RunLog, run_id: str, default_max_iterations: int) -> None:
        self.ir, self.log, self.run_id = ir, log, run_id
        self.default_cap = default_max_iterations
        self.steps: list[Step | _Batch] = []
        self.notes: list[str] = []
        self.departure: Departure | None = None
        self.outcome: str | None = None
        self.visits: dict[str, int] = {}
        self.visit: _Visit | None = None
        self.iteration: int | None = None
        self.tool_calls: int | None = None
        self.status = "active"
        self.batch: _Batch | None = None
        self.calls: dict[str, tuple[_Batch, list[Any]]] = {}
        self.unmatched = 0  # batches no status has counted yet
        self.lane_since_status = 0
        self.moved_since_status = False
        self.at_status: _Visit | None = None  # the visit current at the last status
        self.entered: list[_Visit] = []  # the visits entered since then
        self.children = set(log.children(run_id))
        #: The line of each transition → the run's next status after it (`_unreported`).
        self.next_status: dict[int, WorldEvent] = {}

    # --- the walk --------------------------------------------------------------------------------

    def run(self) -> int:
        """Walk the run's events (and its children's ends); the number left unread."""
        events = [e for e in self.log.events if e.run_id == self.run_id or e.run_id in self.children]
        following: WorldEvent | None = None
        for event in reversed(events):  # each transition's next status of the run, in one pass
            if event.run_id != self.run_id:
                continue
            if event.kind == "stage_transition" and following is not None:
                self.next_status[event.line] = following
            elif event.kind == "status":
                following = event
        for index, event in enumerate(events):
            if self.departure is not None or self.outcome is not None:
                return sum(1 for e in events[index:] if e.run_id == self.run_id)
            if event.run_id != self.run_id:
                self._child(event)
            else:
                getattr(self, f"_on_{event.kind}", self._ignore)(event)
        return 0

    def _ignore(self, event: WorldEvent) -> None:
        """A kind the walk reads nothing from (`read_log` keeps only the kinds it reads)."""

    def _start(self, event: WorldEvent, stage: str | None) -> None:
        """The run's first visit, at its first event; a root run starts in the first stage."""
        first = self.ir.start_stage
        info = self.log.runs[self.run_id]
        if info.spawned:
            self.iteration = self.tool_calls = 0
        else:
            self.notes.append(
                f"the log begins after the run started (no spawned event): what it did before line {event.line} is not counted"
            )
        where = stage if stage is not None and self.ir.stage(stage) is not None else first
        self.visits[where] = 1
        self.visit = self.at_status = _Visit(where, 1)
        self._step(event, "start", f"start in '{where}' (visit 1)")
        if stage is not None and stage != first and info.spawned and info.parent is None:
            self._depart(
                event, "start", stage, f"the run started in '{stage}'; runs start in the first stage, '{first}'"
            )

    def _on_spawned(self, event: WorldEvent) -> None:
        """The run's first status says where it starts (`read_log` kept what this says)."""

    def _on_status(self, event: WorldEvent) -> None:
        stage = event.text("stage") or ""
        if self.visit is None:
            self._start(event, stage)
            if self.departure is not None:
                return
        assert self.visit is not None
        implicit = stage != self.visit.stage
        unplaced = self._count(event, moved=self.moved_since_status or implicit)
        if self.departure is None and implicit:
            self._move(event, self.visit.stage, stage, recorded=None, announced=False)
            if self.departure is None:
                self.visit.unplaced += unplaced  # the move came in this status's pass too
        label = event.text("status") or ""
        if self.departure is None and label and label != self.status and label not in _TERMINAL:
            self.status = label
            reason = _wait_reason(event.get("wait_reason"))
            self._step(event, "status", f"status: {label}{f' ({reason})' if reason else ''}")
        self.at_status, self.moved_since_status, self.entered = self.visit, False, []

    def _count(self, event: WorldEvent, *, moved: bool) -> int:
        """Place the inferences and inline calls this status adds since the last one; the
        number of replies it could not place (they may belong to any visit since the last
        status: each of those visits may have made them)."""
        iteration, calls = event.whole("iteration"), event.whole("tool_calls")
        if iteration is None:
            return 0
        if self.iteration is None:  # the first status of a log that began mid-run: a baseline
            self.iteration, self.tool_calls, self.unmatched, self.lane_since_status = iteration, calls, 0, 0
            return 0
        added = iteration - self.iteration
        inline = (
            calls - self.tool_calls - self.lane_since_status if calls is not None and self.tool_calls is not None else 0
        )
        self.iteration, self.tool_calls, self.lane_since_status = iteration, calls, 0
        if added < 0:  # a restart, or events lost: start counting again from here
            self.notes.append(
                f"the run's inference count went down at line {event.line}: events were lost or it restarted"
            )
            return 0
        matched = min(added, self.unmatched)
        self.unmatched -= matched
        unplaced = added - matched
        if unplaced == 0 and inline <= 0:
            return 0
        visit = self.at_status if moved and self.at_status is not None else self.visit
        assert visit is not None
        text = (
            f"{unplaced} repl{'y' if unplaced == 1 else 'ies'} without lane tool calls" if unplaced else "no new reply"
        )
        if inline > 0:
            text += f", {inline} tool call{'s' if inline != 1 else ''} run inline"
        if moved and unplaced:
            for spanned in dict.fromkeys([visit, *self.entered]):  # counted against no cap
                spanned.unplaced += unplaced
            text += f" (in '{visit.stage}' or after it: the status came after the move)"
        else:
            visit.certain += unplaced
        self._step(event, "inferences", text, visit=visit, replies=unplaced, inline=max(inline, 0), placed=not moved)
        if not moved:
            self._check_cap(event, visit)
        return unplaced if moved else 0

    def _on_tool_call_started(self, event: WorldEvent) -> None:
        if self.visit is None:
            self._start(event, None)
        assert self.visit is not None
        if self.batch is None or self.batch.finished or self.batch.visit is not self.visit:
            self.batch = _Batch(event.line, self.visit)
            self.steps.append(self.batch)
            self.unmatched += 1
            self.visit.certain += 1
            self._check_cap(event, self.visit)
        tool, call_id = event.text("tool") or "", event.text("call_id") or ""
        call = [call_id, tool, None, None]
        self.batch.calls.append(call)
        self.calls[call_id] = (self.batch, call)
        self.lane_since_status += 1
        if self.departure is None:
            self._check_tool(event, tool)

    def _on_tool_call_finished(self, event: WorldEvent) -> None:
        found = self.calls.pop(event.text("call_id") or "", None)
        if found is None:
            return  # a call started before the log began
        batch, call = found
        summary = event.text("summary") or ""
        marker = _MARKER.match(summary.lstrip())
        call[2] = marker.group(1) if marker else ("ok" if event.get("ok") is True else "error")
        call[3] = summary
        batch.finished += 1

    def _on_stage_transition(self, event: WorldEvent) -> None:
        if self.visit is None:
            self._start(event, event.text("from"))
            if self.departure is not None:
                return
        assert self.visit is not None
        source, target = event.text("from") or "", event.text("to") or ""
        if source != self.visit.stage:
            self._depart(
                event,
                "stage-mismatch",
                source,
                f"the run left '{source}', but by the log it was in '{self.visit.stage}'",
            )
            return
        self._move(event, source, target, recorded=event.whole("iteration"), announced=True)
        self.moved_since_status = True

    def _unreported(self, event: WorldEvent) -> int:
        """Replies the status after a move will add: the reply that ended the stage is
        reported only there (the status of the daemon's pass comes after the transition it
        pushed), so a cap reached by it is judged with them, as an upper bound."""
        if self.iteration is None:
            return 0
        status = self.next_status.get(event.line)
        count = status.whole("iteration") if status is not None else None
        return max(0, count - self.iteration - self.unmatched) if count is not None else 0

    def _on_completed(self, event: WorldEvent) -> None:
        if self.visit is None:
            self._start(event, None)
        assert self.visit is not None
        status, stage = event.text("status") or "", self.visit.stage
        if status == "complete":
            final = event.get("final_output") is not None
            why = completion_departure(self.ir, self.ir.stage(stage), self.visits, final)  # type: ignore[arg-type]
            if why is not None:
                self._depart(event, "completion", stage, why)
                return
        self.outcome = status
        mark = "✓" if status == "complete" else "✗"
        self._step(event, "end", f"{mark} {status} in '{stage}'", status=status)

    def _on_interaction(self, event: WorldEvent) -> None:
        request = event.get("request")
        request = request if isinstance(request, dict) else {}
        kind, prompt, tool = (request.get(k) for k in ("kind", "prompt", "tool_name"))
        what = f"approve tool '{tool}'" if isinstance(tool, str) else _short(prompt if isinstance(prompt, str) else "")
        label = f" ({kind})" if isinstance(kind, str) else ""
        self._step(event, "interaction", f"asks a person{label}: {what}")

    def _child(self, event: WorldEvent) -> None:
        if event.kind == "spawned":
            blueprint = event.text("blueprint")
            self._step(
                event, "child", f"child run '{event.run_id}' spawned" + (f" ('{blueprint}')" if blueprint else "")
            )
        elif event.kind == "completed":
            self._step(event, "child", f"child run '{event.run_id}' ended: {event.text('status')}")

    # --- judging -----------------------------------------------------------------------------------

    def _cap(self, stage: str) -> int:
        return tables(self.ir).stages[stage].cap_for(self.default_cap)

    def _check_cap(self, event: WorldEvent, visit: _Visit) -> None:
        cap = self._cap(visit.stage)
        if self.departure is None and cap > 0 and visit.certain > cap:
            default = " (the default cap: pass the daemon's default_max_iterations if it differs)"
            own = "" if tables(self.ir).stages[visit.stage].cap else default
            message = f"inference {visit.certain} of '{visit.stage}' (visit {visit.number}) is beyond its iteration cap of {cap}{own}"
            self._depart(event, "over-cap", visit.stage, message)

    def _check_tool(self, event: WorldEvent, tool: str) -> None:
        assert self.visit is not None
        stage = self.ir.stage(self.visit.stage)
        assert stage is not None
        offered = offered_tools(stage)
        if canonical_tool(tool) in offered:
            return
        if stage.available_connectors or self.ir.dynamic_tools:
            self.notes.append(
                f"tool '{tool}' (line {event.line}) is not in '{stage.name}''s available_tools; its connectors or dynamic tools may offer it: not judged"
            )
            return
        listed = ", ".join(sorted(offered)) or "none"
        self._depart(
            event,
            "tool-not-offered",
            stage.name,
            f"tool '{tool}' started in '{stage.name}', which does not offer it (it offers {listed})",
        )

    def _move(self, event: WorldEvent, source: str, target: str, *, recorded: int | None, announced: bool) -> None:
        assert self.visit is not None
        stage = self.ir.stage(source)
        assert stage is not None
        inferences = self.visit.certain + self.visit.unplaced + (self._unreported(event) if announced else 0)
        cap = self._cap(source)
        reasons = move_reasons(self.ir, stage, self.visits, inferences, cap)
        if target not in reasons:
            kind, message = explain_move(self.ir, stage, target, self.visits, inferences, cap)
            self._depart(event, kind, source, message)
            return
        condition = reasons[target][0]
        if not announced and "merge" in reasons[target]:
            condition = "merge"  # the hand-off Leviath makes without a transition event
        self.visits[target] = self.visits.get(target, 0) + 1
        number = self.visits[target]
        how = condition.replace("_", "-") + (
            "" if announced else ", seen in a status: Leviath sends no transition for it"
        )
        entered = f"enter '{target}' (visit {number})"
        if recorded is not None and recorded != number:
            entered += f"; the log numbers it visit {recorded}"
        fields: dict[str, Any] = {"target": target, "condition": condition, "allowed_by": list(reasons[target])}
        self._step(event, "move", f"edge {source} → {target} ({how})", entered, **fields)
        self.visit = _Visit(target, number)
        self.entered.append(self.visit)

    def _depart(self, event: WorldEvent, kind: str, stage: str, message: str) -> None:
        self.departure = Departure(event.line, kind, stage, message)
        self._step(event, "departure", f"✗ departs from the blueprint: {message}", departure=kind)

    def _step(self, event: WorldEvent, kind: str, *lines: str, visit: _Visit | None = None, **fields: Any) -> None:
        where = visit or self.visit
        stage, number = (where.stage, where.number) if where is not None else (self.ir.start_stage, 1)
        self.steps.append(Step(event.line, kind, stage, number, lines, fields=fields))


def finish(step: Step | _Batch) -> Step:
    if isinstance(step, Step):
        return step
    calls = tuple(
        ToolCall(
            name=name,
            path=None,
            outcome=outcome or "error",
            result=summary if outcome else "[error] no result was recorded",
        )
        for _, name, outcome, summary in step.calls
    )
    event = InferenceFinished(text="", tool_calls=calls)
    return Step(step.line, "inference", step.visit.stage, step.visit.number, (describe_event(event),), event)


def _wait_reason(value: Any) -> str:
    if not isinstance(value, dict) or not isinstance(value.get("reason"), str):
        return ""
    outstanding = value.get("outstanding")
    return str(value["reason"]) + (f", {outstanding} outstanding" if type(outstanding) is int else "")


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


__all__ = ["Departure", "Step", "Walk", "finish"]
