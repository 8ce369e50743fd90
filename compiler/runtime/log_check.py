"""A recorded Leviath run checked against its blueprint: the first point where it departs.

`check_log(ir, lines)` reads a log of Leviath's world events (`leviath_log`), picks the run,
walks its events (`log_walk`), and says where the run first did what the blueprint does not
allow — or that it did not; `render_text` and `render_json` report it, for people and as data.

What world events say, and so what the walk is built from:

* a batch of `tool_call_started` events is one inference, with those tool calls (a
  `ToolCall` each, its outcome from `tool_call_finished`), so it becomes an
  `InferenceFinished` runner event;
* `status` carries the run's inference count (`iteration`, all stages together) and its total
  tool calls: the inferences it adds beyond the batches are replies without lane tool calls
  (text, or tools Leviath runs inline and does not announce), the calls beyond those started
  are inline calls. Status frames are sent once per pass of the daemon, so when a move came
  between two of them, their inferences cannot be placed on either side of it: they are
  shown in the visit being left and not counted against any cap;
* `stage_transition` is a move (the fan-out hand-off to a merge stage sends none: a `status`
  in another stage is that move); `completed` is the end.

What they do not say is listed in `NOT_JUDGED`; the check never guesses it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..display import json_visible, visible_lines
from ..ir.model import DEFAULT_MAX_ITERATIONS, Blueprint
from .events import event_to_dict
from .leviath_log import RunLog, choose_run, read_log
from .log_walk import Departure, Step, Walk, finish
from .timeline import _numbers as line_numbers

#: What a log of world events cannot show, so the check does not judge it: (what, why).
NOT_JUDGED: tuple[tuple[str, str], ...] = (
    (
        "reply texts",
        "a routing choice is taken from the recorded move: the check is whether that edge was allowed, not whether the model would have chosen it",
    ),
    ("region contents", "gates (which only delay a move), required regions and required outputs"),
    ("inline tools", "context tools, submit_output, fan_out and refused calls are counted, not named"),
    ("tool arguments", "paths, so same-file edit counts"),
    ("times", "world events carry none, so stuck minutes"),
    ("failed inferences", "an error edge is always taken to be possible"),
)


@dataclass
class LogCheck:
    blueprint: str
    run_id: str
    #: The blueprint name the run's `spawned` event gave, if any.
    run_blueprint: str | None
    steps: list[Step]
    departure: Departure | None
    stage: str
    visits: dict[str, int]
    #: The run's inference count, as its last status said.
    inferences: int
    #: `complete`, `error` or `cancelled` when the log shows the run end; else None.
    outcome: str | None
    notes: list[str]
    skipped: int
    skipped_lines: list[int]
    #: The run's events after the departure or the end, left unread.
    unused: int = 0
    #: Other runs the log holds (children included).
    other_runs: int = 0

    @property
    def ok(self) -> bool:
        return self.departure is None


def check_log(
    ir: Blueprint,
    lines: Iterable[str | bytes | None] | RunLog,
    *,
    run_id: str | None = None,
    default_max_iterations: int = DEFAULT_MAX_ITERATIONS,
) -> LogCheck:
    """Check the run in a log of Leviath world events against `ir`. Pure: `lines` is any
    iterable of lines (None for a line too long to keep), or a `RunLog` already read. Raises
    `LogError` when the log holds no run to check, or several and `run_id` names none."""
    if not isinstance(ir, Blueprint):
        raise TypeError(f"check_log takes the IR (compiler.ir.model.Blueprint), not {type(ir).__name__}")
    log = lines if isinstance(lines, RunLog) else read_log(lines)
    chosen = choose_run(log, ir.name, run_id)
    walk = Walk(ir, log, chosen, default_max_iterations)
    unused = walk.run()
    info = log.runs[chosen]
    notes = list(walk.notes)
    if info.blueprint is not None and info.blueprint != ir.name:
        notes.insert(0, f"the run is of '{info.blueprint}', the blueprint is named '{ir.name}'")
    notes += [
        f"the gateway lost its link to the daemon at line {n}: events may be missing after it" for n in log.link_lost
    ]
    visit = walk.visit
    return LogCheck(
        blueprint=ir.name,
        run_id=chosen,
        run_blueprint=info.blueprint,
        steps=[finish(s) for s in walk.steps],
        departure=walk.departure,
        stage=visit.stage if visit is not None else ir.start_stage,
        visits=dict(walk.visits),
        inferences=walk.iteration or 0,
        outcome=walk.outcome,
        notes=notes,
        skipped=log.skipped,
        skipped_lines=list(log.skipped_lines),
        unused=unused,
        other_runs=len(log.runs) - 1,
    )


# --- reports ------------------------------------------------------------------------------------


def render_text(check: LogCheck) -> str:
    """The run as a timeline of log lines up to its departure, then the finding."""
    head = f"check of a Leviath run log: run '{check.run_id}' against '{check.blueprint}'"
    width = len(str(max((s.line for s in check.steps), default=1))) + 5
    lines = [head]
    for step in check.steps:
        stamp = f"line {step.line}".rjust(width) + "  "
        lines.append(stamp + step.lines[0])
        lines.extend(" " * len(stamp) + more for more in step.lines[1:])
    lines.append("")
    lines.append(_verdict(check))
    visits = ", ".join(f"{name}={n}" for name, n in check.visits.items())
    lines.append(f"  inferences: {check.inferences} · visits: {visits}")
    lines.extend(f"  note: {note}" for note in check.notes)
    if check.skipped:
        plural = "s" if check.skipped != 1 else ""
        lines.append(f"  skipped {check.skipped} unreadable line{plural}{line_numbers(tuple(check.skipped_lines))}")
    if check.unused:
        after = "departure" if check.departure is not None else "end"
        lines.append(
            f"  {check.unused} event{'s' if check.unused != 1 else ''} of the run after the {after} went unread"
        )
    lines.append("  not judged from world events: " + ", ".join(what for what, _ in NOT_JUDGED) + " (docs/runner.md)")
    return visible_lines(lines) + "\n"


def _verdict(check: LogCheck) -> str:
    departure = check.departure
    if departure is not None:
        return f"result: departs from the blueprint at line {departure.line} ({departure.kind}) in stage '{departure.stage}'"
    if check.outcome is None:
        return f"result: within the blueprint as far as the log goes; it ends with the run in '{check.stage}'"
    return f"result: within the blueprint; the run ended {check.outcome} in '{check.stage}'"


def render_json(check: LogCheck) -> str:
    departure = check.departure
    document: dict[str, Any] = {
        "format": "leviath-world-events",
        "blueprint": check.blueprint,
        "run_id": check.run_id,
        "run_blueprint": check.run_blueprint,
        "other_runs": check.other_runs,
        "skipped_lines": check.skipped,
        "skipped_line_numbers": check.skipped_lines,
        "steps": [
            {
                "line": s.line,
                "kind": s.kind,
                "stage": s.stage,
                "visit": s.visit,
                "text": "\n".join(s.lines),
                "event": event_to_dict(s.event) if s.event is not None else None,
                **s.fields,
            }
            for s in check.steps
        ],
        "departure": None
        if departure is None
        else {"line": departure.line, "kind": departure.kind, "stage": departure.stage, "message": departure.message},
        "result": {
            "within_blueprint": check.ok,
            "outcome": check.outcome,
            "finished": check.outcome is not None,
            "stage": check.stage,
            "visits": check.visits,
            "inferences": check.inferences,
        },
        "unused_events": check.unused,
        "notes": check.notes,
        "not_judged": [{"what": what, "why": why} for what, why in NOT_JUDGED],
    }
    return json_visible(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"


__all__ = ["NOT_JUDGED", "Departure", "LogCheck", "Step", "check_log", "render_json", "render_text"]
