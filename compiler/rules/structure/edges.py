"""Half-configured edges: stuck detection, modification gates, self-loops."""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...ir.build_edges import STUCK_KEYS
from ...ir.model import CONDITIONS, MODIFYING_TOOLS
from ...rulebook.registry import STRUCTURE
from ...rulebook.snippets import blueprint
from ...rulebook.snippets import stage as declared
from ..context import MISSING, RuleContext
from .common import edge_path, edges, header, quoted, stage_path

STUCK_WITHOUT_THRESHOLD = STRUCTURE.define(
    "stuck-without-threshold",
    severity="error",
    summary='An edge with `condition = "stuck"` sets no positive `stuck_after_*` threshold.',
    rationale=(
        "A stuck edge fires when one of its thresholds trips: so many inferences, minutes, edits "
        "of one file or tool calls in the stage. Without a positive threshold it can never fire, "
        "and the recovery path it was meant to open does not exist. The reference runtime "
        "refuses the blueprint (0 and negative values count as unset)."
    ),
    example=blueprint(
        declared("implement"), '[stages.implement.transitions.reassess]\ncondition = "stuck"', declared("reassess")
    ),
    example_fixed=blueprint(
        declared("implement"),
        '[stages.implement.transitions.reassess]\ncondition = "stuck"\nstuck_after_iterations = 10',
        declared("reassess"),
    ),
    fix=(
        "add a positive stuck_after_iterations, stuck_after_minutes, "
        "stuck_after_same_file_edits or stuck_after_tool_calls"
    ),
    leviath="P29, V16",
)

THRESHOLD_WITHOUT_STUCK = STRUCTURE.define(
    "threshold-without-stuck",
    severity="error",
    summary='An edge sets `stuck_after_*` thresholds but its condition is not "stuck".',
    rationale=(
        "Stuck thresholds are read only on an edge whose condition is `stuck`; on any other edge "
        "they are silently never used, so the stage is not watched the way the author expects. "
        "The reference runtime refuses the blueprint."
    ),
    example=blueprint(
        declared("implement"),
        "[stages.implement.transitions.reassess]\nstuck_after_iterations = 10",
        declared("reassess"),
    ),
    example_fixed=blueprint(
        declared("implement"),
        '[stages.implement.transitions.reassess]\ncondition = "stuck"\nstuck_after_iterations = 10',
        declared("reassess"),
    ),
    fix='set condition = "stuck" on the edge, or remove the thresholds',
    leviath="P30",
)

GATE_WITHOUT_MODIFYING_TOOL = STRUCTURE.define(
    "gate-without-modifying-tool",
    severity="error",
    summary="A gate requires modifications but the stage offers no tool that modifies files.",
    rationale=(
        "`require_modifications` holds the edge until the stage has changed a file. A stage "
        "whose available_tools contain neither `write_file`, `edit_file` nor a tool listed in "
        "the gate's `tools` can never satisfy it. The reference runtime refuses the blueprint."
    ),
    example=blueprint(
        declared("implement", 'available_tools = ["read_file"]'),
        "[stages.implement.transitions.review]\ngate = { require_modifications = true }",
        declared("review"),
    ),
    example_fixed=blueprint(
        declared("implement", 'available_tools = ["read_file", "edit_file"]'),
        "[stages.implement.transitions.review]\ngate = { require_modifications = true }",
        declared("review"),
    ),
    fix="offer write_file or edit_file, or list the stage's modifying tool in gate.tools",
    leviath="V17",
)

SELF_LOOP_WITHOUT_MAX_REVISITS = STRUCTURE.define(
    "self-loop-without-max-revisits",
    severity="error",
    summary="A stage has a transition to itself but no `max_revisits`.",
    rationale=(
        "A self-loop lets a stage re-enter itself; without `max_revisits` nothing bounds how "
        "often, and a run can loop forever. The reference runtime refuses the blueprint (any "
        "value, even 0, satisfies it)."
    ),
    example=blueprint(
        declared("plan"),
        '[stages.plan.transitions.plan]\nhint = "revise the plan"',
        '[stages.plan.transitions.done]\nhint = "the plan is approved"',
        declared("done"),
    ),
    example_fixed=blueprint(
        declared("plan", "max_revisits = 3"),
        '[stages.plan.transitions.plan]\nhint = "revise the plan"',
        '[stages.plan.transitions.done]\nhint = "the plan is approved"',
        declared("done"),
    ),
    fix="set max_revisits on the stage",
    leviath="V18",
)


def _condition_phrase(raw: object) -> str | None:
    """How a message describes the condition an edge's author wrote; None when it is
    unreadable (the schema layer reports that, and whether "stuck" was meant is unknown)."""
    if raw is MISSING:
        return 'it sets no condition = "stuck"'
    return f"its condition is '{raw}', not 'stuck'" if isinstance(raw, str) and raw in CONDITIONS else None


@STRUCTURE.check(STUCK_WITHOUT_THRESHOLD)
def check_stuck_edges(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage, edge in edges(ctx):
        if edge.condition != "stuck" or edge.stuck is not None:
            continue
        path = edge_path(stage.name, edge.target)
        unset = [key for key in STUCK_KEYS if ctx.raw(path + (key,)) is not MISSING]
        detail = ""
        if unset:
            noun = "a positive integer" if len(unset) == 1 else "positive integers"
            detail = f" ({quoted(unset)} must be {noun} to count)"
        yield ctx.report(
            STUCK_WITHOUT_THRESHOLD,
            f"transition from '{stage.name}' to '{edge.target}' has condition 'stuck' but no "
            f"stuck_after_* threshold, so it can never fire{detail}",
            path + ("condition",),
            anchor="value",
        )


@STRUCTURE.check(THRESHOLD_WITHOUT_STUCK)
def check_thresholds(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage, edge in edges(ctx):
        if edge.stuck is None or edge.condition == "stuck":
            continue
        path = edge_path(stage.name, edge.target)
        condition = _condition_phrase(ctx.raw(path + ("condition",)))
        if condition is None:
            continue
        armed = [key for key, field in STUCK_KEYS.items() if getattr(edge.stuck, field) is not None]
        never = "the threshold is never read" if len(armed) == 1 else "the thresholds are never read"
        yield ctx.report(
            THRESHOLD_WITHOUT_STUCK,
            f"transition from '{stage.name}' to '{edge.target}' sets {quoted(armed)}, but {condition}, so {never}",
            path + (armed[0],),
        )


@STRUCTURE.check(GATE_WITHOUT_MODIFYING_TOOL)
def check_modification_gates(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage, edge in edges(ctx):
        gate = edge.gate
        if gate is None or not gate.require_modifications:
            continue
        offered = set(stage.available_tools)
        if offered & set(MODIFYING_TOOLS) or offered & set(gate.tools):
            continue
        listed = ""
        if gate.tools:
            offers = "which it does not offer either" if len(gate.tools) == 1 else "none of which it offers"
            listed = f"; gate.tools lists {quoted(gate.tools)}, {offers}"
        yield ctx.report(
            GATE_WITHOUT_MODIFYING_TOOL,
            f"transition from '{stage.name}' to '{edge.target}': the gate requires modifications, but "
            f"stage '{stage.name}' offers neither write_file nor edit_file{listed}, so the gate can never open",
            edge_path(stage.name, edge.target) + ("gate", "require_modifications"),
        )


@STRUCTURE.check(SELF_LOOP_WITHOUT_MAX_REVISITS)
def check_self_loops(ctx: RuleContext) -> Iterator[Diagnostic]:
    for stage, edge in edges(ctx):
        if edge.target == stage.name and stage.max_revisits is None:
            yield ctx.report(
                SELF_LOOP_WITHOUT_MAX_REVISITS,
                f"stage '{stage.name}' has a transition to itself but no max_revisits, so it may loop forever",
                edge_path(stage.name, edge.target),
                fix=f"set max_revisits in {header(stage_path(stage.name))} (how often it may be re-entered)",
            )
