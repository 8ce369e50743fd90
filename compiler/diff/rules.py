"""The one table of change kinds: each kind's class and why, for the diff, `--explain` and docs/diff.md.

A kind has exactly one class; where a direction matters (a budget raised or lowered, a
permission relaxed or tightened) the two directions are two kinds. `python -m
compiler.diff.rules` prints the table as Markdown; docs/diff.md holds that table between its
`change-kinds` markers and a test keeps the two in step.
"""

from __future__ import annotations

from compiler.records import record

from .model import CLASSES, ChangeClass


@record
class ChangeRule:
    kind: str
    change_class: ChangeClass
    #: "blueprint" (what the file declares) or "runs" (what the run analysis finds).
    group: str
    #: When the kind is reported.
    when: str
    #: Why it has its class.
    why: str


def _rules(*rules: ChangeRule) -> dict[str, ChangeRule]:
    table: dict[str, ChangeRule] = {}
    for rule in rules:
        if rule.kind in table:
            raise ValueError(f"change kind {rule.kind!r} is defined twice")
        table[rule.kind] = rule
    return table


B: ChangeClass = "breaking"
R: ChangeClass = "risky"
I: ChangeClass = "info"  # noqa: E741 - B, R, I: one letter each, so the table below reads as a grid
_BP, _RUNS = "blueprint", "runs"

RULES: dict[str, ChangeRule] = _rules(
    # --- breaking ---------------------------------------------------------------------------
    ChangeRule(
        "blueprint-removed",
        B,
        _BP,
        "a blueprint file is gone",
        "whatever starts this agent, or hands over to it, fails",
    ),
    ChangeRule(
        "stage-removed",
        B,
        _BP,
        "a stage is gone (and no new stage looks like it)",
        "running agents in it, scenarios, fan-outs of other blueprints and saved run states name it",
    ),
    ChangeRule(
        "stage-renamed",
        B,
        _BP,
        "a stage is gone and a new stage looks like it (same content, new name)",
        "everything that names the stage from outside the file still uses the old name",
    ),
    ChangeRule(
        "output-stage-removed",
        B,
        _BP,
        "a stage that produced the output no longer does (removed, or its mode is no longer `output`)",
        "callers that wait for the agent's output from it get none",
    ),
    ChangeRule(
        "entry-changed",
        B,
        _BP,
        "runs start in another stage",
        "every run takes another path from its first step; scenarios and callers expect the old start",
    ),
    ChangeRule(
        "agent-renamed",
        B,
        _BP,
        "`[agent] name` changed",
        "other blueprints hand over to (`[[transforms]]`) and fan out to (`worker_agent`) the agent by name",
    ),
    ChangeRule(
        "run-failure-added",
        B,
        _RUNS,
        "the run analysis finds a new error: a run that strands, or that ends without its output",
        "a run the model can make now ends with nothing; `blueprint check` fails on it",
    ),
    ChangeRule(
        "runs-cannot-complete",
        B,
        _RUNS,
        "some run completed before; now no run can",
        "the agent can no longer finish its task, whatever the model does",
    ),
    # --- risky ------------------------------------------------------------------------------
    ChangeRule(
        "edge-removed",
        R,
        _BP,
        "a transition is gone (a gate- or stuck-edge among them)",
        "a way out of the stage, or a safety net, is gone; runs that took it go elsewhere",
    ),
    ChangeRule(
        "edge-retargeted",
        R,
        _BP,
        "a transition with the same condition now leads to another stage",
        "runs that took it now continue somewhere else",
    ),
    ChangeRule(
        "edge-condition-changed",
        R,
        _BP,
        "a transition's condition changed",
        "the edge is now taken in other circumstances (by the model's choice, on error, when stuck …)",
    ),
    ChangeRule(
        "fall-through-changed",
        R,
        _BP,
        "where a stage without a transitions table goes next changed, or it gained or lost its transitions table",
        "the stage now hands over to another stage, or ends the run",
    ),
    ChangeRule(
        "transform-changed",
        R,
        _BP,
        "what a transition does to the context changed (`transform`, `transform_config`)",
        "the next stage sees more or less of what happened before",
    ),
    ChangeRule(
        "gate-removed",
        R,
        _BP,
        "a gate is gone from a transition",
        "the stage may now leave without meeting the condition the gate held it to",
    ),
    ChangeRule(
        "gate-changed",
        R,
        _BP,
        "a gate's condition or attempts changed",
        "the stage is held to another condition before it may leave",
    ),
    ChangeRule(
        "budget-raised",
        R,
        _BP,
        "a limit was raised or removed: `max_revisits`, `max_iterations`, stuck "
        "thresholds, fan-out and region budgets, `max_child_depth`",
        "runs may now cost more and loop longer before anything stops them",
    ),
    ChangeRule(
        "write-tool-granted",
        R,
        _BP,
        "a write or shell tool (`write_file`, `edit_file`, `shell`) is newly granted to an autonomous stage",
        "the stage can now change files or run commands with nobody watching",
    ),
    ChangeRule(
        "permission-relaxed",
        R,
        _BP,
        "a tool permission moved towards `allow` "
        "(deny → ask → unset → allow), "
        "`read_paths` or `safe_commands` grew, or an interaction point now approves itself unattended",
        "calls that needed a person's approval, or were refused, may now go through",
    ),
    ChangeRule(
        "security-changed",
        R,
        _BP,
        "`[sandbox]` or `[security]` changed (at the top or on a stage)",
        "the isolation the agent's tools run in is different",
    ),
    ChangeRule(
        "stage-mode-changed",
        R,
        _BP,
        "a stage's mode changed (other than to or from `output`)",
        "who drives the stage changed: a person, the model alone, or workers",
    ),
    ChangeRule(
        "interaction-point-removed",
        R,
        _BP,
        "an interaction point is gone",
        "a question or review a person answered is no longer asked",
    ),
    ChangeRule(
        "output-contract-changed",
        R,
        _BP,
        "the declared output changed: `format`, `schema` or `validator`",
        "consumers of the output may not read the new one",
    ),
    ChangeRule(
        "fan-out-changed",
        R,
        _BP,
        "which stage or agent a fan-out's workers run, or where results go, changed",
        "the work is split and merged differently",
    ),
    ChangeRule(
        "hook-changed",
        R,
        _BP,
        "a hook script was added, removed or replaced",
        "hooks run code at every stage entry, tool call or error",
    ),
    ChangeRule(
        "run-finding-added",
        R,
        _RUNS,
        "the run analysis finds a new warning: a run that loops for ever, an edge no run takes",
        "a run the model can make now never ends, or part of the blueprint is dead",
    ),
    ChangeRule("stage-unreachable", R, _RUNS, "no run enters a stage any more", "the stage's work is never done"),
    ChangeRule(
        "ceiling-raised",
        R,
        _RUNS,
        "the most stage visits or inferences a run can make went up (or became unbounded)",
        "the worst-case cost of a run grew",
    ),
    ChangeRule(
        "cost-raised",
        R,
        _RUNS,
        "the most tokens or dollars a run can spend went up (or became unbounded)",
        "a run may now cost more; `--fail-on cost` gates on it",
    ),
    # --- info -------------------------------------------------------------------------------
    ChangeRule("blueprint-added", I, _BP, "a new blueprint file", "nothing used it before"),
    ChangeRule("stage-added", I, _BP, "a new stage", "no run entered it before; reachability is in the run delta"),
    ChangeRule(
        "output-stage-added",
        I,
        _BP,
        "a stage now produces the output (new, or its mode became `output`)",
        "adds an output; whether runs still reach it is in the run delta",
    ),
    ChangeRule("edge-added", I, _BP, "a new transition", "a new way out; new loops or strands show in the run delta"),
    ChangeRule("gate-added", I, _BP, "a transition gained a gate", "the stage must meet a condition before leaving"),
    ChangeRule(
        "budget-lowered",
        I,
        _BP,
        "a limit was lowered or set where there was none",
        "runs stop sooner; a run this strands shows in the run delta",
    ),
    ChangeRule(
        "tool-granted",
        I,
        _BP,
        "a tool or connector is newly granted (not a write or shell tool to an autonomous stage)",
        "a person, or a read-only tool, stands between it and harm",
    ),
    ChangeRule("tool-revoked", I, _BP, "a tool or connector is no longer granted", "the stage can do less"),
    ChangeRule(
        "permission-tightened",
        I,
        _BP,
        "a tool permission moved towards `deny`, `read_paths` or "
        "`safe_commands` shrank, or an interaction point now waits for a person",
        "more calls need approval or are refused",
    ),
    ChangeRule("interaction-point-added", I, _BP, "a new interaction point", "a person is asked one more thing"),
    ChangeRule(
        "interaction-point-changed",
        I,
        _BP,
        "an interaction point's options or style changed",
        "a person is asked differently",
    ),
    ChangeRule("region-added", I, _BP, "a new context region", "the model sees more context"),
    ChangeRule(
        "region-removed",
        I,
        _BP,
        "a context region is gone (references to it would not compile)",
        "the model sees less context",
    ),
    ChangeRule(
        "region-changed",
        I,
        _BP,
        "a context region's kind or behaviour changed, or a stage gained or lost its own layout",
        "the model's context is assembled differently",
    ),
    ChangeRule(
        "prompt-changed",
        I,
        _BP,
        "text the model or a person reads changed: system prompts, descriptions, "
        "hints, gate messages, nudge texts, interaction prompts, output instructions",
        "wording; a short word diff shows what changed",
    ),
    ChangeRule(
        "nudge-changed",
        I,
        _BP,
        "whether a stage is nudged, or how often, changed",
        "how the model is reminded to use its tools",
    ),
    ChangeRule(
        "model-changed",
        I,
        _BP,
        "a stage's model list or model parameters changed",
        "another model, or the same with other settings, answers",
    ),
    ChangeRule(
        "order-changed",
        I,
        _BP,
        "the same stages, transitions, regions or tools in another order",
        "transitions are offered in order, and stage order decides fall-through (reported on its own)",
    ),
    ChangeRule("metadata-changed", I, _BP, "`[agent] version` or `description` changed", "no effect on runs"),
    ChangeRule("setting-changed", I, _BP, "any other key of the IR changed", "listed so that nothing is hidden"),
    ChangeRule("run-finding-fixed", I, _RUNS, "a finding of the run analysis is gone", "a problem was fixed"),
    ChangeRule("stage-reachable", I, _RUNS, "a run now enters a stage no run entered before", "dead code came alive"),
    ChangeRule(
        "ceiling-lowered",
        I,
        _RUNS,
        "the most stage visits or inferences a run can make went down (or became bounded)",
        "the worst-case cost of a run shrank",
    ),
    ChangeRule(
        "cost-lowered",
        I,
        _RUNS,
        "the most tokens or dollars a run can spend went down (or became bounded)",
        "the worst-case bill of a run shrank",
    ),
    ChangeRule(
        "runs-can-complete", I, _RUNS, "no run completed before; now some run can", "the agent can finish again"
    ),
)


def explain_markdown() -> str:
    """The table of docs/diff.md: one row per kind, grouped by class."""
    lines = ["| class | kind | reported when | why this class |", "|---|---|---|---|"]
    for change_class in CLASSES:
        for rule in RULES.values():
            if rule.change_class == change_class:
                lines.append(f"| {change_class} | `{rule.kind}` | {rule.when} | {rule.why} |")
    return "\n".join(lines) + "\n"


def explain_text() -> str:
    """`blueprint diff --explain`: every kind by class, with when and why."""
    out: list[str] = []
    for change_class in CLASSES:
        out.append(f"{change_class}:")
        for rule in RULES.values():
            if rule.change_class == change_class:
                out.append(f"  {rule.kind}  ({rule.group})")
                out.append(f"      when: {_plain(rule.when)}")
                out.append(f"      why:  {_plain(rule.why)}")
        out.append("")
    return "\n".join(out)


def _plain(text: str) -> str:
    return text.replace("`", "")


if __name__ == "__main__":
    print(explain_markdown(), end="")
