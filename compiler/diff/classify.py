"""Raw IR differences → classified change records (kinds of `compiler.diff.rules.RULES`).

Each difference is read where it is: a stage's `max_revisits` is a budget, an edge's `hint` a
prompt, a tool permission a permission. Anything no rule here recognises is a
`setting-changed`, so no difference of the IR is ever dropped. Some changes are not at one
key: where runs start and where a stage without transitions falls through are worked out
from both models (`structural`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from compiler.records import record

from ..diagnostics import KeyPath, format_key_path
from ..ir.model import DEFAULT_FAN_OUT_ATTEMPTS
from .model import Change
from .rules import RULES
from .values import (
    BUDGETS,
    MODE_TOOLS,
    OUTPUT_CONTRACT,
    POLICY_RANK,
    PROMPT_KEYS,
    STUCK_BUDGETS,
    SUBMIT_OUTPUT_TOOL,
    WRITE_TOOLS,
    budget_word,
    comparable,
    edge_names,
    element_value,
    gate_words,
    layout_names,
    limit_of,
    listed,
    model_list,
    section_of,
    show,
    subject_of,
)
from .walk import ABSENT, Delta
from .words import word_diff


@record
class Pending:
    """A change before it is located: the IR paths of what it concerns on each side."""

    change: Change
    old_path: KeyPath | None
    new_path: KeyPath | None
    #: The paths are IR paths (False: key paths of the file, as the run analysis reports them).
    ir: bool = True


class Classifier:
    def __init__(
        self, old: dict[str, Any], new: dict[str, Any], renames: dict[str, str], starts: tuple[str, str]
    ) -> None:
        #: The old blueprint with renamed stages under their new names (as the walk saw it).
        self.old, self.new = old, new
        #: The stage runs start in on each side (the old one in new naming).
        self.starts = starts
        #: New stage name → old (keyed by key-path parts, which are strings here).
        self.back: dict[str | int, str] = {to: name for name, to in renames.items()}
        self.retargets: dict[tuple[str | int, str | int], str] = {}

    # --- paths on the old side ---------------------------------------------------------------

    def old_path(self, path: KeyPath) -> KeyPath:
        """`path` (new naming) as it is named on the old side."""
        if len(path) < 2 or path[0] != "stages":
            return path
        out = list(path)
        out[1] = self.back.get(path[1], path[1])
        if len(path) >= 4 and path[2] == "transitions":
            out[3] = self.retargets.get((path[1], path[3]), self.back.get(path[3], path[3]))
        return tuple(out)

    def make(self, kind: str, message: str, delta: Delta | None = None, path: KeyPath = (), **extra: Any) -> Pending:
        path = delta.path if delta is not None else path
        old = extra.pop("old", element_value(delta.old) if delta is not None else None)
        new = extra.pop("new", element_value(delta.new) if delta is not None else None)
        on_old = delta is None or delta.old is not ABSENT
        on_new = delta is None or delta.new is not ABSENT
        stage = path[1] if len(path) > 1 and path[0] == "stages" and isinstance(path[1], str) else None
        change = Change(kind, RULES[kind].change_class, message, tuple(path), stage, old, new, **extra)
        return Pending(change, self.old_path(path) if on_old else None, tuple(path) if on_new else None)

    def stage(self, side: dict[str, Any], name: Any) -> dict[str, Any] | None:
        return next((s for s in side["stages"] if s["name"] == name), None)

    # --- dispatch ------------------------------------------------------------------------------

    def classify(self, deltas: list[Delta]) -> list[Pending]:
        #: Stages whose mode changed to or from a mode with sugar → the tool that sugar grants.
        self.sugar: dict[Any, str] = {}
        #: Edges whose condition changed (their stuck thresholds go with the condition).
        self.recondition: set[tuple[Any, Any]] = set()
        for delta in deltas:
            path = delta.path
            if delta.op == "renamed" and len(path) == 4 and path[2] == "transitions":
                self.retargets[(path[1], path[3])] = delta.old
            elif path[2:] == ("mode",) and path[0] == "stages":
                for mode, tool in MODE_TOOLS.items():
                    if mode in (delta.old, delta.new):
                        self.sugar[path[1]] = tool
            elif len(path) == 5 and path[2] == "transitions" and path[4] == "condition":
                self.recondition.add((path[1], path[3]))
        out: list[Pending] = []
        for delta in deltas:
            if not self._follows(delta):
                out.extend(self._one(delta))
        return out

    def _follows(self, d: Delta) -> bool:
        """A difference that only follows from another one reported already: what an `output` or
        `fan_out` mode implies (its tool, `require_output`, `allow_complete`), and the stuck
        thresholds of an edge whose condition changed."""
        path = d.path
        if path[0] != "stages" or len(path) < 3:
            return False
        if path[1] in self.sugar and path[2:] in (("require_output",), ("allow_complete",)):
            return self.sugar[path[1]] == SUBMIT_OUTPUT_TOOL
        if path[1] in self.sugar and path[2:] == ("available_tools",):
            tool = self.sugar[path[1]]
            old, new = ([v for v in side if v != tool] if isinstance(side, list) else side for side in (d.old, d.new))
            return old == new
        return len(path) == 5 and path[4] == "stuck" and (path[1], path[3]) in self.recondition

    def _one(self, d: Delta) -> Iterator[Pending]:
        path = d.path
        head = path[0]
        if head == "stages":
            if len(path) == 1:
                yield self.make("order-changed", f"stages reordered: {listed(d.old)} → {listed(d.new)}", d)
            elif len(path) == 2:
                yield self._stage(d)
            else:
                yield from self._stage_key(d, path[2:])
        elif head == "name":
            yield self.make("agent-renamed", f"agent renamed from {show(d.old)} to {show(d.new)}", d)
        elif head in ("version", "description") and len(path) == 1:
            yield self._text_or_value("metadata-changed", d, f"agent {head}")
        elif head == "entry_stage":
            if self.starts[0] == self.starts[1]:
                yield self.make("setting-changed", f"entry_stage changed from {show(d.old)} to {show(d.new)}", d)
        elif head in ("sandbox", "security"):
            yield self._leaf("security-changed", d)
        elif head in ("read_paths", "safe_commands"):
            yield from self._grants(d, "permission-relaxed", "permission-tightened")
        elif head == "tool_permissions":
            yield from self._permission(d)
        elif head == "layout":
            yield from self._region(d, path[1:])
        else:
            yield from self._generic(d, path[-1])

    def _stage(self, d: Delta) -> Pending:
        name = d.path[1]
        if d.op == "renamed":
            return self.make("stage-renamed", f"stage {show(d.old)} renamed to {show(d.new)}", d)
        if d.op == "added":
            mode = d.new["mode"]
            kind, extra = ("output-stage-added", " (the output stage)") if mode == "output" else ("stage-added", "")
            return self.make(kind, f"stage {show(name)} added{extra}", d)
        mode = d.old["mode"]
        kind, extra = ("stage-removed", "")
        if mode == "output":
            kind, extra = ("output-stage-removed", " (it produced the output)")
        return self.make(kind, f"stage {show(self.back.get(name, name))} removed{extra}", d)

    def _stage_key(self, d: Delta, rest: KeyPath) -> Iterator[Pending]:
        key = rest[0]
        where = f"stage {show(d.path[1])}"
        if key == "mode" and len(rest) == 1:
            if d.old == "output":
                message = f"{where} no longer produces the output (mode {show(d.new)})"
                yield self.make("output-stage-removed", message, d)
            elif d.new == "output":
                yield self.make("output-stage-added", f"{where} now produces the output (was {show(d.old)})", d)
            else:
                yield self.make("stage-mode-changed", f"mode of {where} changed from {show(d.old)} to {show(d.new)}", d)
        elif key == "model" and rest[1:] == ("entries",):
            message = f"models of {where} changed from {model_list(d.old)} to {model_list(d.new)}"
            yield self.make("model-changed", message, d)
        elif key == "model":
            yield self._leaf("model-changed", d)
        elif key in ("available_tools", "available_connectors") and len(rest) == 1:
            autonomous = (self.stage(self.new, d.path[1]) or {}).get("mode") == "autonomous"
            yield from self._grants(d, "tool-granted", "tool-revoked", autonomous=autonomous)
        elif key in ("max_iterations", "max_revisits") and len(rest) == 1:
            yield self._budget(d, BUDGETS[key])
        elif key in ("security", "sandbox"):
            yield self._leaf("security-changed", d)
        elif key == "hooks" and len(rest) == 1:
            yield self.make("order-changed", f"hooks of {where} reordered", d)
        elif key == "hooks" and len(rest) == 2:
            hook = d.new if d.op == "added" else d.old
            state = "added" if d.op == "added" else "removed"
            message = f"hook {show(rest[1])} of {where} {state} (script {show(hook['script'])})"
            yield self.make("hook-changed", message, d)
        elif key == "hooks":
            yield self._leaf("hook-changed", d, subject=f"{rest[-1]} of hook {show(rest[1])} of {where}")
        elif key == "tool_permissions":
            yield from self._permission(d)
        elif key == "layout" and len(rest) == 1:
            state = "now declares its own layout" if d.old is None else "no longer declares its own layout"
            yield self.make("region-changed", f"{where} {state}", d, old=layout_names(d.old), new=layout_names(d.new))
        elif key == "layout":
            yield from self._region(d, rest[1:])
        elif key == "transitions":
            yield from self._edge(d, rest[1:])
        elif key == "interaction_points":
            yield from self._interaction(d, rest[1:])
        elif key == "fan_out":
            yield from self._fan_out(d, rest[1:])
        else:
            yield from self._generic(d, rest[-1])

    # --- edges -----------------------------------------------------------------------------------

    def _edge(self, d: Delta, rest: KeyPath) -> Iterator[Pending]:
        source = d.path[1]
        if not rest:
            if d.op == "reordered":
                yield self.make(
                    "order-changed",
                    f"transitions of stage {show(source)} reordered: {listed(d.old)} → {listed(d.new)}",
                    d,
                )
            else:
                order = [s["name"] for s in self.new["stages"]]
                index = order.index(source) if source in order else len(order)
                after = show(order[index + 1]) if index + 1 < len(order) else None
                if d.old is None:
                    then = f"it fell through to {after}" if after else "as the last stage, it ended the run"
                    state = f"now has a transitions table ({then})"
                else:
                    then = f"it falls through to {after}" if after else "as the last stage, it ends the run"
                    state = f"has no transitions table any more: {then}"
                yield self.make(
                    "fall-through-changed",
                    f"stage {show(source)} {state}",
                    d,
                    old=edge_names(d.old),
                    new=edge_names(d.new),
                )
            return
        target = rest[0]
        edge = f"edge {show(source)} → {show(target)}"
        if len(rest) == 1:
            if d.op == "renamed":
                old_edge = f"edge {show(self.back.get(source, source))} → {show(self.back.get(d.old, d.old))}"
                yield self.make("edge-retargeted", f"{old_edge} now leads to {show(target)}", d)
            elif d.op == "added":
                yield self.make("edge-added", f"{edge} added ({d.new['condition']})", d)
            else:
                old_edge = f"edge {show(self.back.get(source, source))} → {show(self.back.get(target, target))}"
                yield self.make("edge-removed", f"{old_edge} removed ({d.old['condition']})", d)
            return
        key = rest[1]
        if key == "condition":
            yield self.make(
                "edge-condition-changed", f"condition of {edge} changed from {show(d.old)} to {show(d.new)}", d
            )
        elif key in ("transform", "custom") and not (len(rest) == 3 and rest[2] == "compact_prompt"):
            yield self._leaf("transform-changed", d, subject=f"{format_key_path(rest[1:])} of {edge}")
        elif key == "gate" and len(rest) == 2:
            if d.old is None:
                yield self.make("gate-added", f"{edge} gained a gate", d, old=None, new=gate_words(d.new))
            else:
                yield self.make("gate-removed", f"the gate on {edge} was removed", d, old=gate_words(d.old), new=None)
        elif key == "gate" and rest[-1] not in PROMPT_KEYS:
            yield self._leaf("gate-changed", d, subject=f"{format_key_path(rest[1:])} of {edge}")
        elif key == "stuck" and len(rest) == 2:
            state = "gained stuck thresholds" if d.old is None else "lost its stuck thresholds (no limit)"
            yield self.make("budget-lowered" if d.old is None else "budget-raised", f"{edge} {state}", d)
        elif key == "stuck" and rest[-1] in STUCK_BUDGETS:
            yield self._budget(d, (None,), subject=f"stuck_after_{rest[-1]} of {edge}")
        else:
            yield from self._generic(d, rest[-1], subject=f"{format_key_path(rest[1:])} of {edge}")

    # --- regions, interaction points, fan-out -------------------------------------------------

    def _region(self, d: Delta, rest: KeyPath) -> Iterator[Pending]:
        owner = f" of stage {show(d.path[1])}" if d.path[0] == "stages" else ""
        if len(rest) == 1 and d.op == "reordered":
            yield self.make("order-changed", f"regions{owner} reordered: {listed(d.old)} → {listed(d.new)}", d)
            return
        if len(rest) < 2:
            yield from self._generic(d, rest[-1] if rest else "layout")
            return
        region = f"region {show(rest[1])}{owner}"
        if len(rest) == 2:
            yield self.make("region-added" if d.op == "added" else "region-removed", f"{region} {d.op}", d)
            return
        key = rest[2]
        if len(rest) == 3 and key in BUDGETS and comparable(d.old, d.new, BUDGETS[key]):
            yield self._budget(d, BUDGETS[key], subject=f"{key} of {region}")
        elif rest[-1] in PROMPT_KEYS:
            yield self._text(d, f"{format_key_path(rest[2:])} of {region}")
        else:
            yield self._leaf("region-changed", d, subject=f"{format_key_path(rest[2:])} of {region}")

    def _interaction(self, d: Delta, rest: KeyPath) -> Iterator[Pending]:
        owner = f"stage {show(d.path[1])}"
        if not rest:
            yield self.make("order-changed", f"interaction points of {owner} reordered", d)
            return
        point = f"interaction point {show(rest[0])} of {owner}"
        if len(rest) == 1:
            kind = "interaction-point-added" if d.op == "added" else "interaction-point-removed"
            yield self.make(kind, f"{point} {d.op}", d)
        elif rest[1] == "unattended":
            kind = "permission-relaxed" if d.new == "auto_approve" else "permission-tightened"
            state = (
                "now approves itself when nobody is attached"
                if d.new == "auto_approve"
                else ("now waits for a person when nobody is attached")
            )
            yield self.make(kind, f"{point} {state}", d)
        elif rest[-1] in PROMPT_KEYS:
            yield self._text(d, f"{format_key_path(rest[1:])} of {point}")
        else:
            yield self._leaf("interaction-point-changed", d, subject=f"{format_key_path(rest[1:])} of {point}")

    def _fan_out(self, d: Delta, rest: KeyPath) -> Iterator[Pending]:
        where = f"fan-out of stage {show(d.path[1])}"
        if not rest:
            yield self._leaf("fan-out-changed", d, subject=where)
        elif rest[0] == "max_attempts":
            old, new = (DEFAULT_FAN_OUT_ATTEMPTS if v is None else v for v in (d.old, d.new))  # None: the default
            yield self._budget(d, (), subject=f"max_attempts of {where}", values=(old, new))
        elif rest[0] in BUDGETS:
            yield self._budget(d, BUDGETS[rest[0]], subject=f"{rest[0]} of {where}")
        elif rest[0] in PROMPT_KEYS:
            yield self._text(d, f"{rest[0]} of {where}")
        else:
            yield self._leaf("fan-out-changed", d, subject=f"{rest[0]} of {where}")

    # --- grants and permissions ------------------------------------------------------------------

    def _grants(self, d: Delta, more: str, fewer: str, *, autonomous: bool = False) -> Iterator[Pending]:
        """Items added to a list that grants something (tools, read paths, safe commands), and removed."""
        tools = d.path[0] == "stages"
        who = f"stage {show(d.path[1])}" if tools else format_key_path(d.path)
        if not isinstance(d.old, list) or not isinstance(d.new, list):  # a whole section added or removed
            yield self._leaf(more if d.old is None else fewer, d)
            return
        implied = self.sugar.get(d.path[1]) if tools else None  # granted by the mode, reported with it
        added = [v for v in d.new if v not in d.old and v != implied]
        removed = [v for v in d.old if v not in d.new and v != implied]
        risky = [v for v in added if v in WRITE_TOOLS] if autonomous else []
        if risky:
            yield self.make("write-tool-granted", f"autonomous {who} is newly granted {listed(risky)}", d)
            added = [v for v in added if v not in risky]
        gains, losses = ("is newly granted", "is no longer granted") if tools else ("now allows", "no longer allows")
        if added:
            yield self.make(more, f"{who} {gains} {listed(added)}", d)
        if removed:
            yield self.make(fewer, f"{who} {losses} {listed(removed)}", d)
        if not added and not removed and not risky:
            kind = "order-changed" if sorted(map(str, d.old)) == sorted(map(str, d.new)) else "setting-changed"
            yield self.make(kind, f"{subject_of(d.path)} changed from {listed(d.old)} to {listed(d.new)}", d)

    def _permission(self, d: Delta) -> Iterator[Pending]:
        path = d.path
        base = path.index("tool_permissions")
        owner = f" on stage {show(path[1])}" if path[0] == "stages" else ""
        if len(path) == base + 1:
            yield self.make("order-changed", f"tool permissions{owner} reordered", d)
            return
        tool = path[base + 1]
        old = d.old.get("policy") if isinstance(d.old, dict) else d.old if d.old is not ABSENT else None
        new = d.new.get("policy") if isinstance(d.new, dict) else d.new if d.new is not ABSENT else None
        unset = POLICY_RANK[None]
        relaxed = POLICY_RANK.get(new, unset) > POLICY_RANK.get(old, unset)
        kind = "permission-relaxed" if relaxed else "permission-tightened"
        message = f"permission of {show(tool)}{owner} changed from {old or 'unset'} to {new or 'unset'}"
        yield self.make(kind, message, d, old=old, new=new)

    # --- values ----------------------------------------------------------------------------------

    def _budget(
        self, d: Delta, unlimited: tuple[Any, ...], subject: str | None = None, values: tuple[Any, Any] | None = None
    ) -> Pending:
        subject = subject or subject_of(d.path)
        old, new = values or (d.old, d.new)
        before, after = limit_of(old, unlimited), limit_of(new, unlimited)
        if before == after:  # two spellings of one meaning (no cap: null and 0)
            return self.make("setting-changed", f"{subject} changed from {show(d.old)} to {show(d.new)}", d)
        kind, verb = ("budget-raised", "raised") if after > before else ("budget-lowered", "lowered")
        message = f"{subject} {verb} from {budget_word(old, unlimited)} to {budget_word(new, unlimited)}"
        return self.make(kind, message, d)

    def _text(self, d: Delta, subject: str, kind: str = "prompt-changed") -> Pending:
        old = d.old if isinstance(d.old, str) else None
        new = d.new if isinstance(d.new, str) else None
        state = "added" if old is None else "removed" if new is None else "changed"
        return self.make(kind, f"{subject} {state}", d, detail=word_diff(old, new))

    def _text_or_value(self, kind: str, d: Delta, subject: str) -> Pending:
        if isinstance(d.old, str) and isinstance(d.new, str) and len(d.old) + len(d.new) > 60:
            return self._text(d, subject, kind)
        return self.make(kind, f"{subject} changed from {show(d.old)} to {show(d.new)}", d)

    def _leaf(self, kind: str, d: Delta, subject: str | None = None) -> Pending:
        subject = subject or subject_of(d.path)
        if d.op == "added" or d.old is None:
            return self.make(kind, f"{subject} set to {show(d.new)}", d)
        if d.op == "removed" or d.new is None:
            return self.make(kind, f"{subject} removed (was {show(d.old)})", d)
        return self.make(kind, f"{subject} changed from {show(d.old)} to {show(d.new)}", d)

    def _generic(self, d: Delta, key: Any, subject: str | None = None) -> Iterator[Pending]:
        subject = subject or subject_of(d.path)
        section = section_of(d.path)
        if key in PROMPT_KEYS:
            yield self._text(d, subject)
        elif section == "nudge":
            yield self._leaf("nudge-changed", d, subject)
        elif section == "output" and (key in OUTPUT_CONTRACT or key == "output"):
            yield self._leaf("output-contract-changed", d, subject)
        elif key in BUDGETS and comparable(d.old, d.new, BUDGETS[key]):
            yield self._budget(d, BUDGETS[key], subject)
        else:
            yield self._leaf("setting-changed", d, subject)

    # --- changes that are not at one key ------------------------------------------------------

    def structural(self, falls: dict[str, tuple[str | None, str | None]]) -> list[Pending]:
        """Where runs start, and where stages without transitions fall through (stage → old, new next)."""
        out: list[Pending] = []
        old_start, new_start = self.starts
        if old_start != new_start:
            was = self.back.get(old_start, old_start)
            message = f"runs now start in stage {show(new_start)} instead of {show(was)}"
            if self.old.get("entry_stage") != self.new.get("entry_stage"):
                out.append(self.make("entry-changed", message, path=("entry_stage",), old=was, new=new_start))
            else:  # the first stage changed: point at the first stage on each side
                pending = self.make("entry-changed", message, path=("stages", new_start), old=was, new=new_start)
                out.append(Pending(pending.change, ("stages", was), ("stages", new_start)))
        for name, (before, after) in falls.items():
            if before != after:
                to = show(after) if after else "the end of the run"
                out.append(
                    self.make(
                        "fall-through-changed",
                        f"stage {show(name)} now falls through to {to}",
                        path=("stages", name),
                        old=before,
                        new=after,
                    )
                )
        return out
