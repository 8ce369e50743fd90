"""Leviath's own event stream: the world events its host broadcasts, read as a run log.

Leviath's daemon pushes a `WorldEvent` for every change it sees (its
`crates/leviath-runtime/src/host/events.rs`): one JSON object a line, tagged by `"event"`
(`spawned`, `status`, `stage_transition`, `tool_call_started`, `tool_call_finished`,
`completed`, `interaction`, `tokens`, `context`, `renamed`, `log`), each with the `run_id` and
`agent_id` of its run. That is what a control-socket subscriber receives. `lev serve`'s
WebSocket forwards the same events renamed and tagged by `"type"` (`agent_spawned`,
`agent_status`, `agent_completed`, `context_update`, `interaction_needed`, `run_renamed`, and
`daemon_link` about the gateway's own link); both forms are read, and mixed.

`read_log` keeps the world events in order with their line numbers and the runs they name;
`choose_run` picks the run to check (the one root run of the blueprint, or the one named).
Lines of any other shape are skipped and counted, like `ndjson.StreamReader` does: reading a
log never raises on its content. `log_check` judges the chosen run against a blueprint.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

#: The world events' tags (`#[serde(tag = "event", rename_all = "snake_case")]`).
WORLD_EVENTS = frozenset(
    {
        "spawned",
        "status",
        "renamed",
        "tokens",
        "context",
        "interaction",
        "completed",
        "stage_transition",
        "tool_call_started",
        "tool_call_finished",
        "log",
    }
)
#: The gateway's WebSocket names (`"type"`) → the world event each one forwards.
GATEWAY_EVENTS: dict[str, str] = {
    "agent_spawned": "spawned",
    "agent_status": "status",
    "run_renamed": "renamed",
    "tokens": "tokens",
    "context_update": "context",
    "interaction_needed": "interaction",
    "agent_completed": "completed",
    "stage_transition": "stage_transition",
    "tool_call_started": "tool_call_started",
    "tool_call_finished": "tool_call_finished",
    "log": "log",
}
#: The gateway's frame about its own link to the daemon: a run's events stop while it is down.
DAEMON_LINK = "daemon_link"
#: The fields of each kind the check reads; the rest of a line is not kept (a log may be
#: hundreds of megabytes). Kinds not listed (`tokens`, `context`, `renamed`, `log`) say
#: nothing the blueprint governs: they are read, their run noted, and not kept.
_KEPT: dict[str, tuple[str, ...]] = {
    "spawned": ("blueprint", "parent_run_id", "parent_id"),
    "status": ("status", "stage", "iteration", "tool_calls", "wait_reason"),
    "stage_transition": ("from", "to", "iteration"),
    "tool_call_started": ("call_id", "tool"),
    "tool_call_finished": ("call_id", "tool", "ok", "summary"),
    "completed": ("status", "final_output"),
    "interaction": ("request",),
}
_POSITIONS: dict[str, dict[str, int]] = {kind: {key: i for i, key in enumerate(keys)} for kind, keys in _KEPT.items()}
#: The longest string kept from a field (Leviath's own summaries are 200 characters).
TEXT_LIMIT = 2000
#: The string fields each kind must carry to be read (a line without them is skipped).
_REQUIRED: dict[str, tuple[str, ...]] = {
    "status": ("stage",),
    "stage_transition": ("from", "to"),
    "tool_call_started": ("call_id", "tool"),
    "tool_call_finished": ("call_id",),
    "completed": ("status",),
}


class LogError(ValueError):
    """The log cannot be checked as asked: it holds no run, several candidates, or not the
    run named."""


class WorldEvent(NamedTuple):
    """One world event: its kind (the world event's tag), its run, its line, and the values
    of the fields its kind is read for (`_KEPT`; None where the line had none). A tuple, so
    that a long log takes a few hundred bytes an event."""

    kind: str
    run_id: str
    line: int
    values: tuple[Any, ...]

    def get(self, key: str) -> Any:
        position = _POSITIONS[self.kind].get(key)
        return None if position is None else self.values[position]

    def text(self, key: str) -> str | None:
        value = self.get(key)
        return value if isinstance(value, str) else None

    def whole(self, key: str) -> int | None:
        """A whole number field (a JSON `true` is not one)."""
        value = self.get(key)
        return value if type(value) is int and value >= 0 else None


@dataclass
class RunInfo:
    """A run the log names: its agent, its blueprint and its parent, when the log says."""

    run_id: str
    line: int
    agent_id: str | None = None
    blueprint: str | None = None
    parent: str | None = None
    #: The run's `spawned` event was in the log (else the log began after the run started).
    spawned: bool = False


@dataclass
class RunLog:
    events: list[WorldEvent] = field(default_factory=list)
    #: Every run named, in the order of first appearance.
    runs: dict[str, RunInfo] = field(default_factory=dict)
    skipped: int = 0
    skipped_lines: list[int] = field(default_factory=list)
    #: Lines where the gateway said it lost its link to the daemon (events may be missing).
    link_lost: list[int] = field(default_factory=list)

    def of(self, run_id: str) -> list[WorldEvent]:
        return [e for e in self.events if e.run_id == run_id]

    def children(self, run_id: str) -> list[str]:
        return [r.run_id for r in self.runs.values() if r.parent == run_id]


def world_event(data: Any) -> tuple[str, str] | None:
    """`(kind, run_id)` when `data` (a parsed line) is a world event in either wire form."""
    if not isinstance(data, dict):
        return None
    run_id = data.get("run_id")
    if not isinstance(run_id, str):
        return None
    tag = data.get("event")
    if isinstance(tag, str) and tag in WORLD_EVENTS:
        return tag, run_id
    tag = data.get("type")
    if isinstance(tag, str) and tag in GATEWAY_EVENTS:
        return GATEWAY_EVENTS[tag], run_id
    return None


def is_world_event(data: Any) -> bool:
    """A world event, or the gateway's link frame: what tells a Leviath log from an agent stream."""
    return world_event(data) is not None or (isinstance(data, dict) and data.get("type") == DAEMON_LINK)


def read_log(lines: Iterable[str | bytes | None]) -> RunLog:
    """The world events of `lines` (None stands for a line too long to keep: skipped)."""
    log = RunLog()
    agents: dict[str, str] = {}  # agent id → run id, for the gateway's `parent_id`
    for number, line in enumerate(lines, 1):
        if line is None:
            _skip(log, number)
            continue
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            _skip(log, number)
            continue
        if isinstance(data, dict) and data.get("type") == DAEMON_LINK:
            if data.get("connected") is False:
                log.link_lost.append(number)
            continue
        found = world_event(data)
        if found is None or any(not isinstance(data.get(key), str) for key in _REQUIRED.get(found[0], ())):
            _skip(log, number)
            continue
        kind, run_id = found
        info = log.runs.setdefault(run_id, RunInfo(run_id, number))
        agent = data.get("agent_id")
        if isinstance(agent, str):
            info.agent_id = info.agent_id or agent
            agents.setdefault(agent, run_id)
        if kind not in _KEPT:
            continue
        event = WorldEvent(sys.intern(kind), info.run_id, number, _kept(kind, data))
        log.events.append(event)
        if kind == "spawned":
            info.spawned = True
            info.blueprint = event.text("blueprint")
            parent = event.text("parent_run_id")
            if parent is None and event.text("parent_id") is not None:  # the gateway names the agent
                parent = agents.get(event.text("parent_id") or "")
            info.parent = parent
    return log


def _kept(kind: str, data: dict[str, Any]) -> tuple[Any, ...]:
    """The values of the fields of a line the check reads, long strings cut, the final
    output and an interaction request reduced to what is shown of them."""
    return tuple(_value(key, data.get(key)) for key in _KEPT[kind])


def _value(key: str, value: Any) -> Any:
    if key == "final_output":
        return None if value is None else True  # whether one was submitted, not its text
    if key in ("request", "wait_reason"):
        shown = ("kind", "prompt", "tool_name") if key == "request" else ("reason", "outstanding")
        return {k: _cut(v) for k, v in value.items() if k in shown} if isinstance(value, dict) else None
    return _cut(value)


def _cut(value: Any) -> Any:
    return value[:TEXT_LIMIT] if isinstance(value, str) and len(value) > TEXT_LIMIT else value


def _skip(log: RunLog, number: int) -> None:
    log.skipped += 1
    log.skipped_lines.append(number)


def choose_run(log: RunLog, blueprint: str, run_id: str | None = None) -> str:
    """The run to check: `run_id` when given, else the one root run (no parent in the log)
    of the blueprint named `blueprint` (or of no known blueprint). `LogError` otherwise."""
    if run_id is not None:
        if run_id not in log.runs:
            raise LogError(f"the log has no events of run '{run_id}'{_listing(list(log.runs))}")
        return run_id
    if not log.runs:
        raise LogError("the log holds no world events of any run")
    roots = [r for r in log.runs.values() if r.parent is None or r.parent not in log.runs]
    candidates = [r for r in roots if r.blueprint == blueprint] or [r for r in roots if r.blueprint is None]
    if len(candidates) == 1:
        return candidates[0].run_id
    if not candidates:
        others = ", ".join(sorted({f"'{r.blueprint}'" for r in roots if r.blueprint is not None}))
        raise LogError(
            f"the log holds no run of '{blueprint}' (its root runs are of {others}): choose one by its run id"
        )
    names = [r.run_id for r in candidates]
    raise LogError(f"the log holds {len(names)} runs of '{blueprint}'{_listing(names)}: choose one by its run id")


def _listing(names: list[str], shown: int = 5) -> str:
    if not names:
        return ""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return f" ({', '.join(names[:shown])}{more})"


__all__ = [
    "DAEMON_LINK",
    "GATEWAY_EVENTS",
    "WORLD_EVENTS",
    "LogError",
    "RunInfo",
    "RunLog",
    "WorldEvent",
    "choose_run",
    "is_world_event",
    "read_log",
]
