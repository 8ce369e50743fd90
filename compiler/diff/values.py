"""How the diff reads and shows IR values: budgets and what "no limit" is, prompts, tools,
and short forms of values for one-line messages."""

from __future__ import annotations

import json
import math
from typing import Any

from ..diagnostics import KeyPath, format_key_path
from ..ir.model import FAN_OUT_TOOL, MODIFYING_TOOLS, SUBMIT_OUTPUT_TOOL
from .walk import ABSENT

#: Tools that change files or run commands: granting one to an autonomous stage is risky.
WRITE_TOOLS = frozenset({*MODIFYING_TOOLS, "shell", "bash"})
#: Modes that grant a tool of their own (the IR's mode sugar).
MODE_TOOLS = {"output": SUBMIT_OUTPUT_TOOL, "fan_out": FAN_OUT_TOOL}
#: Keys whose value is text a model or a person reads.
PROMPT_KEYS = frozenset(
    {
        "description",
        "system_prompt",
        "transition_prompt",
        "hint",
        "message",
        "text",
        "prompt",
        "instructions",
        "example",
        "split_prompt",
        "compact_prompt",
        "required_message",
    }
)
#: Budget keys → the values that mean "no limit".
BUDGETS: dict[str, tuple[Any, ...]] = {
    "max_iterations": (None, 0),
    "max_revisits": (None,),
    "max_child_depth": (None,),
    "max_workers": (0,),
    "max_items": (None,),
    "max_tokens": (None,),
    "max_entries": (None,),
    "max_file_tokens": (None,),
    "max_result_tokens": (None,),
    "max_summary_tokens": (),
    "budget_percent": (),
}
STUCK_BUDGETS = frozenset({"iterations", "minutes", "same_file_edits", "tool_calls"})
#: Tool policies from the strictest; a tool without one gets the runtime's default.
POLICY_RANK = {"deny": 0, "ask": 1, None: 2, "allow": 3}
OUTPUT_CONTRACT = frozenset({"format", "schema", "validator"})


def element_value(value: Any) -> Any:
    """What a change record keeps of a value: an element by its name, anything else as is."""
    if value is ABSENT:
        return None
    if isinstance(value, dict):
        for key in ("name", "target", "tool", "event"):
            if isinstance(value.get(key), str):
                return value[key]
    return value


def section_of(path: KeyPath) -> Any:
    """The top-level key a path is under, or the stage key for a path inside a stage."""
    return path[2] if len(path) > 2 and path[0] == "stages" else path[0]


def subject_of(path: KeyPath) -> str:
    if len(path) >= 3 and path[0] == "stages":
        return f"{format_key_path(path[2:])} of stage {show(path[1])}"
    return format_key_path(path)


def show(value: Any, limit: int = 60) -> str:
    if value is None or value is ABSENT:
        return "unset"
    if isinstance(value, str):
        text = value if len(value) <= limit else value[: limit - 1] + "…"
        return "'" + text.replace("\n", "⏎") + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        return show(value["name"])
    if isinstance(value, dict):  # a section: the keys it sets
        text = ", ".join(f"{k}={show(v, limit)}" for k, v in value.items() if v not in (None, [], {})) or "{}"
        return text if len(text) <= limit else text[: limit - 1] + "…"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def listed(values: Any) -> str:
    return ", ".join(show(v) for v in values) if isinstance(values, list) and values else "none"


def limit_of(value: Any, unlimited: tuple[Any, ...]) -> float:
    if value in unlimited and not isinstance(value, bool):
        return math.inf
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.inf


def comparable(old: Any, new: Any, unlimited: tuple[Any, ...]) -> bool:
    """Both sides are a number or a value meaning "no limit"."""

    def ok(v: Any) -> bool:
        return (isinstance(v, (int, float)) and not isinstance(v, bool)) or (v in unlimited and v is not ABSENT)

    return ok(old) and ok(new)


def budget_word(value: Any, unlimited: tuple[Any, ...]) -> str:
    return "no limit" if value in unlimited and not isinstance(value, bool) else show(value)


def gate_words(gate: Any) -> Any:
    """A gate's settings that differ from a gate's defaults (what it holds the stage to)."""
    if not isinstance(gate, dict):
        return gate
    return {k: v for k, v in gate.items() if v not in (None, False, [], ()) and k != "max_attempts"} or gate


def model_list(entries: Any) -> str:
    if not isinstance(entries, list):
        return show(entries)
    return ", ".join(f"{e.get('provider')}/{e.get('model')}" if isinstance(e, dict) else show(e) for e in entries)


def layout_names(layout: Any) -> Any:
    return [r["name"] for r in layout["regions"]] if isinstance(layout, dict) else None


def edge_names(edges: Any) -> Any:
    return [e["target"] for e in edges] if isinstance(edges, list) else None
