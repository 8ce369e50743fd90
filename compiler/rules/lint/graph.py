"""Graph lints: stages no run reaches, cycles no budget bounds, output stages skipped.

All of them read `ctx.graph` (a `compiler.graph.StageGraph`), whose edges are the ones a run
follows: transitions of every condition, linear fall-through and fan-out hand-offs. That is
where these rules part with Leviath's lint, whose graph ignores fall-through (so it reports
stages the runtime does enter) and sees only two-stage cycles.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...graph import StageGraph, run_edge
from ...rulebook.registry import LINT
from ...rulebook.snippets import blueprint as _blueprint
from ...rulebook.snippets import stage as declared
from ..common import header, quoted, reached_stages, stage_path
from ..context import RuleContext

UNREACHABLE_STAGE = LINT.define(
    "unreachable-stage",
    severity="warning",
    summary="No run can reach the stage from the first declared stage, where runs start.",
    rationale=(
        "A stage that no transition, fall-through or fan-out hand-off leads to from the "
        "first declared stage (where every run starts, whatever `entry_stage` says) never "
        "runs: its prompt, tools and edges are dead weight, and usually an edge meant to "
        "reach it is missing or misspelt. Every kind of edge counts, whatever its condition, "
        "so the warning means no run at all can get there. The check runs in linear and "
        "graph mode alike. Output stages are left to `unreachable-output-stage`, which reports "
        "them as errors."
    ),
    example=_blueprint(
        declared("plan"),
        "[stages.plan.transitions.work]",
        declared("work"),
        "[stages.work.transitions]",
        declared("cleanup"),
        "[stages.cleanup.transitions]",
    ),
    example_fixed=_blueprint(
        declared("plan"),
        "[stages.plan.transitions.work]",
        declared("work"),
        "[stages.work.transitions.cleanup]",
        declared("cleanup"),
        "[stages.cleanup.transitions]",
    ),
    fix="add a transition to it from a stage the run reaches, or delete it",
    leviath="unreachable-stage",
    differs=(
        "Leviath's lint ignores linear fall-through, so it reports stages the runtime does "
        "enter; it searches from `entry_stage` although its runtime starts at the first "
        "declared stage; it only runs in graph mode, and it reports output stages here too "
        "(ours are the error `unreachable-output-stage`)."
    ),
)

CYCLE_WITHOUT_MAX_REVISITS = LINT.define(
    "cycle-without-max-revisits",
    severity="warning",
    summary="Stages form a cycle that no `max_revisits` bounds, so a run can loop for ever.",
    rationale=(
        "A transition into a stage whose `max_revisits` is spent is refused, so a cycle with "
        "one such transition goes round a bounded number of times. A cycle without one is "
        "bounded by nothing: a review that keeps rejecting, a stage that keeps failing or "
        "getting stuck, loops until someone kills the run. Every condition counts. An "
        "`error` edge back is taken again whenever the failure recurs (a prompt too big for "
        "the model fails every time); `stuck` and `max_iterations` edges fire again on every "
        "lap of an agent that keeps churning; a `dead_end` edge fires on every normal end "
        "once the targets are spent, and spent budgets never refill. Fall-through and merge "
        "hand-offs enter their target without checking its budget, so a stage entered that "
        "way does not bound the cycle even if it sets `max_revisits`. Each set of stages "
        "looping together is reported once, at its smallest stage name, with one cycle "
        "spelled out edge by edge. Self-loops are the structure error "
        "`self-loop-without-max-revisits`."
    ),
    example=_blueprint(
        declared("draft"),
        "[stages.draft.transitions.review]",
        declared("review"),
        '[stages.review.transitions.draft]\nhint = "needs changes"',
        '[stages.review.transitions.publish]\nhint = "approved"',
        declared("publish"),
        "[stages.publish.transitions]",
    ),
    example_fixed=_blueprint(
        declared("draft", "max_revisits = 3"),
        "[stages.draft.transitions.review]",
        declared("review"),
        '[stages.review.transitions.draft]\nhint = "needs changes"',
        '[stages.review.transitions.publish]\nhint = "approved"',
        declared("publish"),
        "[stages.publish.transitions]",
    ),
    fix="set max_revisits on a stage of the cycle that a transition enters",
    leviath="cycle-without-max-revisits",
    differs=(
        "Leviath's lint sees only two-stage cycles (A → B → C → A goes unreported), reports "
        "each uncapped side of a pair although one cap already bounds it, and ignores "
        "fall-through."
    ),
)

OUTPUT_UNREACHABLE = LINT.define(
    "output-unreachable",
    severity="error",
    summary="No other stage's transition leads to an output stage, so `lev validate` refuses the blueprint.",
    rationale=(
        'This is Leviath\'s own lint, with its trigger: an output stage (`mode = "output"`) '
        "that is neither the first declared stage nor the one `entry_stage` names, and that no "
        "transition of another stage targets, whatever its condition. It is an error there, so "
        "`lev validate` fails and Leviath's editors refuse to save the file. Its check counts "
        "transitions only: a stage that falls through to the output stage (a linear "
        "blueprint, or a stage without a transitions table) or a fan-out stage whose merge "
        "stage it is does not count, although runs do go that way; the message then says how "
        "the run reaches it, and an explicit transition satisfies both. Whether any run reaches "
        "an output stage at all is `unreachable-output-stage`."
    ),
    example=_blueprint(
        declared("research"),
        "[stages.research.transitions.draft]",
        declared("draft"),
        "[stages.draft.transitions]",
        declared("answer", mode="output"),
    ),
    example_fixed=_blueprint(
        declared("research"),
        "[stages.research.transitions.draft]",
        declared("draft"),
        "[stages.draft.transitions.answer]",
        declared("answer", mode="output"),
    ),
    fix="add a transition to it from the stage that finishes the work",
    leviath="output-unreachable",
)

UNREACHABLE_OUTPUT_STAGE = LINT.define(
    "unreachable-output-stage",
    severity="error",
    summary='No run can enter a `mode = "output"` stage.',
    rationale=(
        "An output stage is where a run hands back its answer with `submit_output`. If no "
        "path from the first declared stage (where every run starts) leads to it, no run ever "
        "produces that answer. Paths count every transition, linear fall-through and fan-out "
        "hand-off, as runs follow them, so this is never reported for a stage some run "
        "enters. Leviath has no such check: its `output-unreachable` asks only whether some "
        "other stage's transition targets the stage, even a stage no run reaches (then only "
        "this rule fires), and its `unreachable-stage` warning covers output stages too. "
        "Earlier versions of blueprint-compiler reported this finding as `output-unreachable`."
    ),
    example=_blueprint(
        declared("research"),
        "[stages.research.transitions]",
        declared("draft"),
        "[stages.draft.transitions.answer]",
        declared("answer", mode="output"),
    ),
    example_fixed=_blueprint(
        declared("research"),
        "[stages.research.transitions.draft]",
        declared("draft"),
        "[stages.draft.transitions.answer]",
        declared("answer", mode="output"),
    ),
    fix="add a transition to it from a stage the run reaches, the one that finishes the work",
    formerly=("output-unreachable",),
)

ALLOW_COMPLETE_SKIPS_OUTPUT = LINT.define(
    "allow-complete-skips-output",
    severity="warning",
    summary="A stage may end the run with DONE before the output stage it leads to.",
    rationale=(
        "`allow_complete = true` offers the model DONE when the stage picks its next edge, and "
        "DONE completes the run at once, without checking that an output was submitted. On a "
        "stage that runs before the output stage and could still reach it, one DONE skips "
        "the answer the blueprint exists to produce. Position matters: a stage every run "
        "reaches only after an output stage, or one from which no output stage can be "
        "reached anyway, skips nothing and is not reported; neither is a stage that never "
        "asks the model to route (no transitions table, or no always/llm_choice edge), "
        "since DONE is never offered there."
    ),
    example=_blueprint(
        declared("work", "allow_complete = true"),
        "[stages.work.transitions.answer]",
        declared("answer", mode="output"),
        "[stages.answer.transitions]",
    ),
    example_fixed=_blueprint(
        declared("work"),
        "[stages.work.transitions.answer]",
        declared("answer", mode="output"),
        "[stages.answer.transitions]",
    ),
    fix="drop allow_complete and route to the output stage",
    leviath="allow-complete-skips-output",
    differs=(
        "Leviath's lint fires on every non-output stage with allow_complete = true as soon "
        "as any output stage exists, wherever the stage sits."
    ),
)

ENTRY_STAGE_NOT_FIRST = LINT.define(
    "entry-stage-not-first",
    severity="warning",
    summary="`entry_stage` names a stage that is not declared first, but runs start at the first.",
    rationale=(
        'The key reads as "start here", and Leviath\'s documentation says so, but its runtime '
        "starts every run at the first declared stage; `entry_stage` only chooses whose "
        "sandbox and tool permissions that first stage runs under until the run moves on. "
        "Our runner and `blueprint check` do the same. So the stages declared before the "
        "named one run first, with another stage's permissions, and the named stage runs "
        "only if an edge leads to it. Declaring the entry stage first makes the file do what "
        "it says."
    ),
    example=_blueprint(
        '[agent]\nname = "example"\nentry_stage = "plan"',
        declared("review"),
        "[stages.review.transitions]",
        declared("plan"),
        "[stages.plan.transitions.review]",
    ),
    example_fixed=_blueprint(
        '[agent]\nname = "example"\nentry_stage = "plan"',
        declared("plan"),
        "[stages.plan.transitions.review]",
        declared("review"),
        "[stages.review.transitions]",
    ),
    fix="declare the entry stage first in the file, or drop entry_stage",
)


def _unreached(graph: StageGraph, name: str) -> str:
    """Why nothing reaches `name`: no edge at all, or edges only from unreached stages."""
    sources = [s for s in graph.predecessors(name) if s != name]
    if not sources:
        why = "no transition, fall-through or fan-out hand-off leads to it"
    else:
        they = "it cannot" if len(sources) == 1 else "they cannot"
        why = f"only {quoted(sources)} lead{'s' if len(sources) == 1 else ''} to it, and {they} be reached either"
    return why


@LINT.check(UNREACHABLE_STAGE, UNREACHABLE_OUTPUT_STAGE)
def check_reachability(ctx: RuleContext) -> Iterator[Diagnostic]:
    graph = ctx.graph
    if graph.entry is None:
        return
    reached = reached_stages(ctx)
    for node in graph.nodes:
        if node.name in reached:
            continue
        why = _unreached(graph, node.name)
        if node.stage.mode == "output":
            yield ctx.report(
                UNREACHABLE_OUTPUT_STAGE,
                f"output stage '{node.name}' cannot be reached from '{graph.entry}', where runs start: {why}, "
                "so no run ever submits its output",
                stage_path(node.name),
            )
        else:
            yield ctx.report(
                UNREACHABLE_STAGE,
                f"stage '{node.name}' cannot be reached from '{graph.entry}', where runs start: {why}",
                stage_path(node.name),
            )


@LINT.check(OUTPUT_UNREACHABLE)
def check_output_targeted(ctx: RuleContext) -> Iterator[Diagnostic]:
    """Leviath's `lint_output_reachable`, exactly: transitions of other stages count, nothing else."""
    blueprint = ctx.blueprint
    if not blueprint.stages:
        return
    first = blueprint.stages[0].name
    for stage in blueprint.stages:
        name = stage.name
        if stage.mode != "output" or name in (first, blueprint.entry_stage):
            continue
        if any(
            edge.target == name for other in blueprint.stages if other.name != name for edge in other.transitions or ()
        ):
            continue
        graph = ctx.graph
        runs_in = [edge for edge in graph.in_edges(name) if edge.source != name]
        if runs_in and name in reached_stages(ctx):
            ways = "; ".join(edge.describe() for edge in runs_in)
            message = (
                f"no other stage's transition leads to output stage '{name}', so `lev validate` refuses the "
                f"blueprint (Leviath's output-unreachable counts transitions only), although runs do enter it: {ways}"
            )
            source = runs_in[0].source
            fix = f"add a transition to it from '{source}' ({header(('stages', source, 'transitions', name))})"
        else:
            message = (
                f"no other stage's transition leads to output stage '{name}', so `lev validate` refuses the blueprint"
            )
            fix = OUTPUT_UNREACHABLE.fix
        yield ctx.report(OUTPUT_UNREACHABLE, message, stage_path(name), fix=fix)


@LINT.check(CYCLE_WITHOUT_MAX_REVISITS)
def check_unbounded_cycles(ctx: RuleContext) -> Iterator[Diagnostic]:
    graph = ctx.graph
    reached = reached_stages(ctx)
    unbounded = graph.unbudgeted
    for component in graph.cycles(unbounded):
        if component[0] not in reached:
            continue  # `unreachable-stage` already says these never run
        if len(component) > 1:  # spell out a cycle through other stages, not a self-loop
            witness = graph.cycle_witness(component, lambda edge: edge.source != edge.target and unbounded(edge))
        else:
            witness = graph.cycle_witness(component, unbounded)
        if not witness or (len(witness) == 1 and witness[0].kind == "transition"):
            continue  # an uncapped self-loop: the structure error self-loop-without-max-revisits
        start = witness[0].source
        path = " → ".join(f"'{edge.source}'" for edge in witness) + f" → '{start}'"
        if len(component) == len(witness):
            what = f"{_stages(component)} form a cycle no max_revisits bounds ({path})"
        else:
            what = f"{_stages(component)} form cycles no max_revisits bounds, e.g. {path}"
        what += ", so a run can go round for ever"
        capped = [name for name in component if graph.is_capped(name)]
        if capped:
            what += "; " + _unbounded_entries(graph, component, capped)
        # Prefer capping the stage the cycle starts and ends at, when a transition closes it.
        entered = next((edge.target for edge in reversed(witness) if edge.kind == "transition"), None)
        if entered is None:
            fix = (
                "no max_revisits can bound a cycle of fall-through and merge hand-offs: give one of "
                "its stages a transitions table"
            )
        else:
            fix = f"set max_revisits on '{entered}' (or on another stage of the cycle that a transition enters)"
        yield ctx.report(
            CYCLE_WITHOUT_MAX_REVISITS,
            what,
            stage_path(start),
            fix=fix,
            related=[(edge.describe(), edge.path) for edge in witness],
        )


def _unbounded_entries(graph: StageGraph, component: tuple[str, ...], capped: list[str]) -> str:
    """Why capped stages do not bound the cycle: the cycle enters them without a budget check."""
    members = set(component)
    kinds = {edge.kind for name in capped for edge in graph.in_edges(name, graph.unbudgeted) if edge.source in members}
    how = " and ".join(
        phrase for kind, phrase in (("fall_through", "fall-through"), ("merge", "a merge hand-off")) if kind in kinds
    )
    one = len(capped) == 1
    return (
        f"{quoted(capped)} {'sets' if one else 'set'} max_revisits, but the cycle enters "
        f"{'it' if one else 'them'} by {how}, which no revisit budget limits"
    )


def _stages(names: tuple[str, ...]) -> str:
    return f"stage {quoted(names)}" if len(names) == 1 else f"stages {quoted(names)}"


@LINT.check(ALLOW_COMPLETE_SKIPS_OUTPUT)
def check_done_before_output(ctx: RuleContext) -> Iterator[Diagnostic]:
    graph = ctx.graph
    outputs = [node.name for node in graph.nodes if node.stage.mode == "output"]
    if not outputs or graph.entry is None:
        return
    before_output = set(graph.reachable(where=run_edge, stop=outputs))
    for node in graph.nodes:
        stage = node.stage
        if stage.mode == "output" or not stage.allow_complete or not stage.normal_edges:
            continue
        if node.name not in before_output:
            continue
        ahead = [name for name in graph.reachable(node.name, run_edge) if name in outputs]
        if not ahead:
            continue
        noun = "output stage" if len(ahead) == 1 else "output stages"
        yield ctx.report(
            ALLOW_COMPLETE_SKIPS_OUTPUT,
            f"stage '{node.name}' may answer DONE (allow_complete = true), which ends the run at once, "
            f"before {noun} {quoted(ahead)} that it can still reach; DONE does not check that an "
            "output was submitted",
            ("stages", node.name, "allow_complete"),
        )


@LINT.check(ENTRY_STAGE_NOT_FIRST)
def check_entry_first(ctx: RuleContext) -> Iterator[Diagnostic]:
    blueprint = ctx.blueprint
    entry = blueprint.entry_stage
    if entry is None or not blueprint.stages or blueprint.stage(entry) is None:
        return  # unset, or `unknown-entry-stage`
    first = blueprint.stages[0].name
    if entry == first:
        return
    yield ctx.report(
        ENTRY_STAGE_NOT_FIRST,
        f"entry_stage names '{entry}', but runs start at '{first}', the first declared stage (Leviath's "
        f"runtime, and ours, start there whatever entry_stage says); entry_stage only runs '{first}' "
        f"under the sandbox and tool permissions of '{entry}' until the run moves on",
        ("agent", "entry_stage"),
        anchor="value",
        stage=entry,
        fix=f"declare {header(stage_path(entry))} first in the file, or drop entry_stage",
    )
