"""The `analysis` rule family: what exploring every run finds, as ordinary diagnostics.

Only `blueprint check` runs this family (`blueprint validate` does not). The codes are
declared here, in a module that imports nothing heavy, so loading the registry stays cheap;
the check that explores the runs is `check_runs.py`, which imports the exploration when it runs.
"""

from __future__ import annotations

from ..rulebook.registry import ANALYSIS
from ..rulebook.snippets import blueprint as _blueprint
from ..rulebook.snippets import stage as declared
from ..rules.lint.escapes import DEAD_END_POSSIBLE
from ..rules.lint.graph import ALLOW_COMPLETE_SKIPS_OUTPUT, CYCLE_WITHOUT_MAX_REVISITS

RUN_CAN_STRAND = ANALYSIS.define(
    "run-can-strand",
    severity="error",
    summary="Some run reaches a stage end with every normal target spent and no escape, and fails.",
    rationale=(
        "When a stage ends and every always/llm_choice target has used up its `max_revisits`, "
        "the runner takes the stage's first `dead_end` edge within budget, else its first "
        "`error` edge (first in declaration order; Leviath's order changes from process to "
        "process, see `ambiguous-edge-order`), and fails the run when neither can be "
        "taken. This finding is exact: the analysis explored "
        "every run the blueprint allows (every routing answer, error, iteration cap, stuck "
        "interrupt, gate outcome and DONE) and found one that strands; the trace below the "
        "finding is that run, stage visit by stage visit, and replaying its events through the "
        "stage-runner ends in the same failure. An error, so `blueprint check` exits 1: the run "
        "needs the model to route a particular way, but nothing stops it from doing so, and it "
        "ends with nothing."
    ),
    example=_blueprint(
        declared("draft", "max_revisits = 2"),
        "[stages.draft.transitions.review]",
        declared("review", "max_revisits = 1"),
        '[stages.review.transitions.draft]\nhint = "needs changes"',
        '[stages.review.transitions.publish]\nhint = "approved"',
        declared("publish"),
        "[stages.publish.transitions]",
    ),
    example_fixed=_blueprint(
        declared("draft", "max_revisits = 2"),
        "[stages.draft.transitions.review]",
        '[stages.draft.transitions.publish]\ncondition = "dead_end"',
        declared("review", "max_revisits = 1"),
        '[stages.review.transitions.draft]\nhint = "needs changes"',
        '[stages.review.transitions.publish]\nhint = "approved"',
        declared("publish"),
        "[stages.publish.transitions]",
    ),
    fix='add a condition = "dead_end" edge to a stage without max_revisits (usually the output stage)',
    differs=(
        "Leviath's dead-end-possible is a local guess: it warns on every stage whose normal "
        "targets all have max_revisits, whether or not a run can spend them by the time the "
        "stage ends, and trusts no escape target with a budget. This rule answers exactly and "
        "shows the run; `blueprint check` reports it instead of dead-end-possible."
    ),
)

RUN_CAN_LOOP_FOREVER = ANALYSIS.define(
    "run-can-loop-forever",
    severity="warning",
    summary="Some run can go round a cycle of stage visits for ever: no budget bounds it.",
    rationale=(
        "A run state is the stage being entered, the visit count of every stage whose "
        "max_revisits a transition checks, and the output submitted so far. When a run can "
        "come back to the same run state, every budget it reads answers the same as before, so "
        "it can go round again, and again: a review that keeps rejecting, a stage that keeps "
        "failing or getting stuck loops until someone kills it, paying for every lap. The trace "
        "is the way into the loop and one lap of it; replaying it through the stage-runner "
        "returns to the state where the lap began. Every edge kind counts, including error, "
        "stuck and iteration-cap edges, fall-through and fan-out hand-offs."
    ),
    example=_blueprint(
        declared("work"),
        "[stages.work.transitions.check]",
        declared("check"),
        '[stages.check.transitions.work]\nhint = "not finished"',
        '[stages.check.transitions.done]\nhint = "finished"',
        declared("done"),
        "[stages.done.transitions]",
    ),
    example_fixed=_blueprint(
        declared("work", "max_revisits = 3"),
        "[stages.work.transitions.check]",
        declared("check"),
        '[stages.check.transitions.work]\nhint = "not finished"',
        '[stages.check.transitions.done]\nhint = "finished"',
        declared("done"),
        "[stages.done.transitions]",
    ),
    fix="set max_revisits on a stage of the loop that a transition enters",
    differs=(
        "Leviath's cycle-without-max-revisits looks only at pairs of stages that name each "
        "other. This rule follows every run, so it also finds longer loops and loops through "
        "error or stuck edges, and it stays silent on a cycle no run can go round; "
        "`blueprint check` reports it instead of cycle-without-max-revisits."
    ),
)

STAGE_NEVER_ENTERED = ANALYSIS.define(
    "stage-never-entered",
    severity="warning",
    summary="The stage graph leads to a stage, but no run ever enters it.",
    rationale=(
        "`unreachable-stage` asks whether any edge leads to a stage. This asks whether any run "
        "takes one: an edge's condition may never arise (an iteration cap that another "
        "interrupt always pre-empts, a stage that never ends normally), and a target may "
        "always have used up its max_revisits by the time the edge could fire. The stage's "
        "prompt, tools and edges are then dead weight, or an edge meant to reach it does not "
        "work as written. Stages that only run as fan-out workers (in runs of their own) are "
        "not reported."
    ),
    example=_blueprint(
        declared("intake", max_iterations=1),
        "[stages.intake.transitions.work]",
        '[stages.intake.transitions.triage]\ncondition = "max_iterations"',
        declared("work"),
        "[stages.work.transitions]",
        declared("triage"),
        "[stages.triage.transitions]",
    ),
    example_fixed=_blueprint(
        declared("intake", max_iterations=10),
        "[stages.intake.transitions.work]",
        '[stages.intake.transitions.triage]\ncondition = "max_iterations"',
        declared("work"),
        "[stages.work.transitions]",
        declared("triage"),
        "[stages.triage.transitions]",
    ),
    fix="check the conditions and max_revisits on the edges into it, or delete the stage",
)

EDGE_NEVER_TAKEN = ANALYSIS.define(
    "edge-never-taken",
    severity="warning",
    summary="A transition that no run ever takes.",
    rationale=(
        "An always/llm_choice, error, max_iterations or stuck edge is written to be taken in "
        "some run. When exhaustive exploration finds none, the edge is dead: its target is "
        "always spent when the stage runs, its condition never arises before the stage ends "
        "another way (a stuck threshold that always trips first pre-empts the iteration cap; "
        "a cap the stage never reaches), or another edge always wins (of two edges with one "
        "condition, the one declared first: the order `blueprint check` follows, while "
        "Leviath's changes from process to process, see `ambiguous-edge-order`). `dead_end` "
        "edges are not "
        "reported: they are safety nets, rightly unused where targets never run out. Edges "
        "into a stage no run enters are left to `stage-never-entered`."
    ),
    example=_blueprint(
        declared("work"),
        "[stages.work.transitions.review]",
        '[stages.work.transitions.rethink]\ncondition = "stuck"\nstuck_after_iterations = 10',
        '[stages.work.transitions.handover]\ncondition = "max_iterations"',
        declared("rethink"),
        "[stages.rethink.transitions.review]",
        declared("review"),
        "[stages.review.transitions.handover]",
        declared("handover"),
        "[stages.handover.transitions]",
    ),
    example_fixed=_blueprint(
        declared("work"),
        "[stages.work.transitions.review]",
        '[stages.work.transitions.rethink]\ncondition = "stuck"\nstuck_after_same_file_edits = 5',
        '[stages.work.transitions.handover]\ncondition = "max_iterations"',
        declared("rethink"),
        "[stages.rethink.transitions.review]",
        declared("review"),
        "[stages.review.transitions.handover]",
        declared("handover"),
        "[stages.handover.transitions]",
    ),
    fix="check the edge's condition, its target's max_revisits and the stage's other edges, or drop the edge",
)

OUTPUT_CAN_BE_SKIPPED = ANALYSIS.define(
    "output-can-be-skipped",
    severity="error",
    summary="Some run ends without ever entering the blueprint's output stage.",
    rationale=(
        'A `mode = "output"` stage is where a run hands back its answer. A run that completes '
        "with DONE before reaching it returns nothing; a run that reaches the end of another "
        "stage with no edge left fails, because no final output was submitted. The analysis "
        "follows every run and reports each stage where one can end without having entered an "
        "output stage, with the run that does it. Runs that end in an inference error are not "
        "counted: an error edge is the place to handle those. A fan-out stage whose model "
        "never calls `fan_out` is let through, after its nudges, to its own transitions, not "
        "to its merge stage (only a `fan_out` call, with an empty `items` list when there is "
        "nothing to hand out, leads there); for such a stage the fix names a normal edge to "
        "its `merge_stage`, which keeps what the run gathered on the way. An error, so "
        "`blueprint check` exits 1: the trace is a run the blueprint allows that ends with nothing."
    ),
    example=_blueprint(
        declared("research"),
        '[stages.research.transitions.answer]\nhint = "enough sources"',
        '[stages.research.transitions.give_up]\nhint = "nothing found"',
        declared("give_up"),
        "[stages.give_up.transitions]",
        declared("answer", mode="output"),
        "[stages.answer.transitions]",
    ),
    example_fixed=_blueprint(
        declared("research"),
        '[stages.research.transitions.answer]\nhint = "enough sources"',
        '[stages.research.transitions.give_up]\nhint = "nothing found"',
        declared("give_up"),
        "[stages.give_up.transitions.answer]",
        declared("answer", mode="output"),
        "[stages.answer.transitions]",
    ),
    fix="route the stage to the output stage instead of ending the run there",
    differs=(
        "Leviath's allow-complete-skips-output warns on every stage with allow_complete when an "
        "output stage exists, wherever it sits, and misses runs that end at a terminal stage "
        "instead. This rule follows every run; `blueprint check` reports it instead of "
        "allow-complete-skips-output."
    ),
)

ANALYSIS_INCOMPLETE = ANALYSIS.define(
    "analysis-incomplete",
    severity="note",
    summary="The run analysis stopped at its state limit, so it reports only what it found.",
    rationale=(
        "The analysis explores run states (a stage entered with the visit counts its budgets "
        "read) up to a limit (`blueprint check --max-states`, 200,000 by default). A blueprint with many stages whose max_revisits can "
        "combine freely has more; the analysis then still reports the runs it found (each one "
        "replayed and real), but not what no run does — stages never entered, edges never taken "
        "— nor the cost ceiling."
    ),
    example=_blueprint(
        "# blueprint check --max-states 4  (the default limit, 200,000, takes many more stages like these)",
        declared("s1", "max_revisits = 1"),
        '[stages.s1.transitions.s2]\n[stages.s1.transitions.done]\nhint = "finished"',
        declared("s2", "max_revisits = 1"),
        '[stages.s2.transitions.s1]\n[stages.s2.transitions.done]\nhint = "finished"',
        declared("done"),
        "[stages.done.transitions]",
    ),
    fix="lower max_revisits on stages of large loops, or split the blueprint",
)

_PLAN = '[context.regions.task]\nkind = "pinned"\nmax_tokens = 1000\n\n[context.regions.plan]\nkind = "temporary"\nmax_tokens = 2000'

REGION_READ_BEFORE_WRITTEN = ANALYSIS.define(
    "region-read-before-written",
    severity="warning",
    summary="A stage reads a context region that, on some run, nothing could have filled yet.",
    rationale=(
        "A region starts empty unless a seed fills it, and only some things fill it later: a "
        "stage granting `context_write` or `context_append`, a stage whose tool results are "
        "routed into it, a fan-out's `results_region`, an interaction point's "
        "`document_region`. A stage reads a region when its `system_prompt` names it in "
        "backquotes or a gate of its transitions lists it in `require_regions`. When some run "
        "reaches such a stage having passed only through stages that cannot fill the region, "
        "the stage works from an empty region (a gate that requires it never passes on its "
        "own): the instructions point at data that is not there. The analysis follows every "
        "run and reports the shortest one that does it, replayed through the stage-runner. A "
        "stage that can fill the region itself is not reported. What counts as a read and a "
        "write is listed in docs/check.md."
    ),
    example=_blueprint(
        _PLAN,
        declared("research", 'available_tools = ["read_file"]'),
        "[stages.research.transitions.build]",
        declared("build", 'available_tools = ["read_file", "write_file"]\nsystem_prompt = "Build what `plan` says."'),
        "[stages.build.transitions]",
    ),
    example_fixed=_blueprint(
        _PLAN,
        declared("research", 'available_tools = ["read_file", "context_write"]'),
        "[stages.research.transitions.build]",
        declared("build", 'available_tools = ["read_file", "write_file"]\nsystem_prompt = "Build what `plan` says."'),
        "[stages.build.transitions]",
    ),
    fix="grant context_write or context_append to a stage that runs before it, seed the region, or stop naming it",
)

OUTPUT_REGION_EMPTY = ANALYSIS.define(
    "output-region-empty",
    severity="warning",
    summary="An output stage can be entered while a region its output depends on is still empty.",
    rationale=(
        "The output stage hands back the run's answer, built from what earlier stages left in "
        "the context. Its output depends on a region its `system_prompt`, its "
        "`output.instructions` or `output.example` names in backquotes, one a gate of its "
        "transitions requires, and one its layout marks `required`. When some run enters the "
        "output stage having passed only through stages that cannot fill such a region (no "
        "`context_write` or `context_append`, no tool results routed into it, no seed), the "
        "answer is written from nothing. The analysis reports the shortest such run, replayed "
        "through the stage-runner; an output stage that can fill the region itself is not "
        "reported."
    ),
    example=_blueprint(
        '[context.regions.findings]\nkind = "temporary"\nmax_tokens = 4000',
        declared("research", 'available_tools = ["read_file"]'),
        "[stages.research.transitions.answer]",
        declared("answer", 'system_prompt = "Answer from the `findings` region."', mode="output"),
        "[stages.answer.transitions]",
    ),
    example_fixed=_blueprint(
        '[context.regions.findings]\nkind = "temporary"\nmax_tokens = 4000',
        declared("research", 'available_tools = ["read_file", "context_append"]'),
        "[stages.research.transitions.answer]",
        declared("answer", 'system_prompt = "Answer from the `findings` region."', mode="output"),
        "[stages.answer.transitions]",
    ),
    fix="grant context_write or context_append to a stage that runs before the output stage, or seed the region",
)

#: Validate-family codes whose question this family answers exactly: `blueprint check`
#: reports the analysis finding (or nothing) instead.
SUPERSEDES = {
    DEAD_END_POSSIBLE.code: RUN_CAN_STRAND.code,
    CYCLE_WITHOUT_MAX_REVISITS.code: RUN_CAN_LOOP_FOREVER.code,
    ALLOW_COMPLETE_SKIPS_OUTPUT.code: OUTPUT_CAN_BE_SKIPPED.code,
}
