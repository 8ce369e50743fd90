"""Edge gates that look like they hold a stage and never do."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...diagnostics import Diagnostic
from ...rulebook.registry import LINT
from ...rulebook.snippets import stage as stage_example
from ..common import edge_path, edges
from ..context import RuleContext


def _gated(gate: str) -> str:
    return (
        stage_example("draft", 'available_tools = ["write_file"]')
        + f"\n\n[stages.draft.transitions.done]\ngate = {{ {gate} }}\n\n"
        + stage_example("done")
        + "\n\n[stages.done.transitions]"
    )


GATE_NEVER_HOLDS = LINT.define(
    "gate-never-holds",
    severity="warning",
    summary="A gate has `max_attempts = 0`, so a failed check never holds the stage.",
    rationale=(
        "A gate spends one of its `max_attempts` each time it sends the stage back; once they "
        "are spent, the edge is taken anyway and the run records the gate as forced. With 0 "
        "attempts the first failed check is already forced: the gate is decoration, and the "
        "stage moves on whether or not the work was done."
    ),
    example=_gated("require_modifications = true, max_attempts = 0"),
    example_fixed=_gated("require_modifications = true, max_attempts = 2"),
    fix="remove max_attempts (the default is 3) or set a positive number of attempts",
)

GATE_CHECKS_NOTHING = LINT.define(
    "gate-checks-nothing",
    severity="warning",
    summary="A gate sets no check, so it never holds the stage.",
    rationale=(
        "A gate holds a stage only through its checks: `require_modifications`, "
        "`require_regions`, `require_region_updated` or `require_no_open_items`. "
        "`message`, `region`, `tools` and `max_attempts` only shape "
        "those checks. A gate with none of the checks (`gate = {}`, or a message alone) lets "
        "every transition through, although it reads as a condition."
    ),
    example=_gated('message = "Write the file first."'),
    example_fixed=_gated('require_modifications = true, message = "Write the file first."'),
    fix="add the check the gate is meant to make (e.g. require_modifications = true), or remove the gate",
)

GATE_ON_CONDITIONED_EDGE = LINT.define(
    "gate-on-conditioned-edge",
    severity="warning",
    summary="A gate on an `error`, `dead_end`, `stuck` or `max_iterations` edge, which is never checked.",
    rationale=(
        "Gates are evaluated only when a stage ends normally and takes an `always` or "
        "`llm_choice` edge. A conditioned edge is an escape hatch: it is taken the moment its "
        "condition fires, and its gate is never looked at. An author who gates a recovery edge "
        "expects the run to hold until the gate passes; instead it leaves at once."
    ),
    example=(
        stage_example("draft", 'available_tools = ["write_file"]')
        + '\n\n[stages.draft.transitions.rescue]\ncondition = "error"\n'
        + "gate = { require_modifications = true }\n\n"
        + stage_example("rescue")
        + "\n\n[stages.rescue.transitions]"
    ),
    example_fixed=(
        stage_example("draft", 'available_tools = ["write_file"]')
        + '\n\n[stages.draft.transitions.rescue]\ncondition = "error"\n\n'
        + stage_example("rescue")
        + "\n\n[stages.rescue.transitions]"
    ),
    fix="move the gate to the normal edge it is meant to guard, or remove it",
)

#: Gate keys that make a gate hold; the rest only shape those checks.
_CHECK_KEYS = (
    "require_modifications",
    "require_regions",
    "require_region_updated",
    "require_no_open_items",
)
_SHAPING_KEYS = ("message", "region", "tools", "max_attempts")
_CHECKS = ", ".join(_CHECK_KEYS[:-1]) + " or " + _CHECK_KEYS[-1]


def _writes_a_check(gate: dict[str, Any]) -> bool:
    """Whether the gate table as written asks for any check (its values' validity is the
    schema layer's business; an explicit `false` / `[]` asks for nothing)."""
    return any(key in gate and gate[key] is not False and gate[key] != [] for key in _CHECK_KEYS)


@LINT.check(GATE_ON_CONDITIONED_EDGE)
def check_conditioned_gates(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage, edge in edges(ctx):
        if edge.gate is not None and not edge.is_normal:
            yield ctx.report(
                GATE_ON_CONDITIONED_EDGE,
                f"the transition from '{stage.name}' to '{edge.target}' has condition '{edge.condition}': "
                "it is taken as soon as that condition fires, so its gate is never checked",
                edge_path(stage.name, edge.target) + ("gate",),
            )


@LINT.check(GATE_NEVER_HOLDS, GATE_CHECKS_NOTHING)
def check_gates(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage, edge in edges(ctx):
        if edge.gate is None or not edge.is_normal:
            continue  # a gate on a conditioned edge is never checked: gate-on-conditioned-edge
        path = edge_path(stage.name, edge.target) + ("gate",)
        raw = ctx.raw(path, None)
        if not isinstance(raw, dict) or any(key not in _CHECK_KEYS + _SHAPING_KEYS for key in raw):
            continue  # an unknown gate key is refused outright (rejected-key)
        where = f"the gate on the transition from '{stage.name}' to '{edge.target}'"
        if not _writes_a_check(raw):
            yield ctx.report(
                GATE_CHECKS_NOTHING,
                f"{where} sets none of {_CHECKS}, so it never holds the stage",
                path,
            )
        elif edge.gate.max_attempts == 0:
            yield ctx.report(
                GATE_NEVER_HOLDS,
                f"{where} has max_attempts = 0, so a failed check never holds the stage: it is only recorded as forced",
                path + ("max_attempts",),
                anchor="value",
            )
