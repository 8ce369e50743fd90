"""The typed, frozen model of a blueprint: the IR every later layer reads.

Built by `compiler.ir.build` from the TOML document with the reference runtime's defaults,
aliases and legacy spellings already resolved (`summarize` → `compact`, `hash_map` →
`hashmap`, hint-only edges → `llm_choice`, legacy `provider`/`model` → a model list, the
nudge cascade per stage). Sequences are tuples in document order; opaque JSON values
(model parameters, output schemas, seed tool arguments) stay plain JSON-compatible values.

The stage-runner consumes this model (via its JSON form, `compiler.ir.serialize`), never
the TOML.
"""

from __future__ import annotations

import math
from dataclasses import field
from functools import cached_property
from typing import Any, Literal

from compiler.records import record

Mode = Literal["autonomous", "interactive", "interactive_points", "fan_out", "output"]
Condition = Literal["always", "llm_choice", "error", "max_iterations", "stuck", "dead_end"]
Transform = Literal["direct", "clear", "compact", "custom"]
Policy = Literal["allow", "ask", "deny"]
SeedRefresh = Literal["once", "each_stage"]
RegionKind = Literal[
    "pinned",
    "sliding_window",
    "temporary",
    "compacting",
    "clearable",
    "compact_history",
    "checklist",
    "hashmap",
    "custom",
]

MODES: tuple[Mode, ...] = ("autonomous", "interactive", "interactive_points", "fan_out", "output")
CONDITIONS: tuple[str, ...] = ("always", "error", "max_iterations", "llm_choice", "stuck", "dead_end")
#: Conditions of edges a stage that ends normally may take (offered to routing).
NORMAL_CONDITIONS: frozenset[str] = frozenset({"always", "llm_choice"})
TRANSFORMS: tuple[str, ...] = ("direct", "clear", "compact", "summarize", "custom")
REGION_KINDS: tuple[str, ...] = (
    "pinned",
    "sliding_window",
    "temporary",
    "compacting",
    "clearable",
    "compact_history",
    "checklist",
    "hashmap",
    "custom",
)
HOOK_EVENTS: tuple[str, ...] = (
    "on_stage_enter",
    "on_stage_exit",
    "before_inference",
    "after_inference",
    "on_tool_call",
    "on_completion",
    "on_error",
)

#: Regions every stage sees whether or not a layout declares them.
ALWAYS_VISIBLE_REGIONS: tuple[str, ...] = ("conversation", "tool_results", "final_output", "stage_instructions")
#: Kinds a transform never empties or summarizes ("stage-specific" is every other kind).
FIXED_REGION_KINDS: frozenset[str] = frozenset({"pinned", "compact_history", "hashmap"})

SUBMIT_OUTPUT_TOOL = "submit_output"
FAN_OUT_TOOL = "fan_out"
MODIFYING_TOOLS: tuple[str, ...] = ("write_file", "edit_file")

DEFAULT_PROVIDER = "anthropic"
DEFAULT_MODEL = "claude-sonnet-4-6"
DEFAULT_MAX_NUDGES = 3
#: The iteration cap of a stage whose `max_iterations` is unset or 0, unless the user's
#: configuration says otherwise (Leviath's daemon setting `[limits] default_max_iterations`;
#: our `default-max-iterations`; 0 means no default cap).
DEFAULT_MAX_ITERATIONS = 50
DEFAULT_NUDGE_TEXT = (
    "You have tools available. Please use them to complete the task. "
    "Start by reading the relevant files in the working directory."
)
DEFAULT_GATE_ATTEMPTS = 3
DEFAULT_MAX_WORKERS = 30
DEFAULT_FAN_OUT_ATTEMPTS = 3
DEFAULT_REGION_TOKENS = 5000


# --- models -------------------------------------------------------------------------------


@record
class ModelEntry:
    provider: str = DEFAULT_PROVIDER
    model: str = DEFAULT_MODEL


@record
class ModelConfig:
    """Models in preference order; the first whose provider is registered wins."""

    entries: tuple[ModelEntry, ...] = (ModelEntry(),)
    allow_user_default: bool = True
    parameters: dict[str, Any] = field(default_factory=dict)
    request_timeout_secs: int | None = None


# --- context regions ----------------------------------------------------------------------


@record
class SeedToolCall:
    name: str
    args: dict[str, Any] = field(default_factory=dict)


SeedKind = Literal["caller", "glob", "files", "literal", "rhai", "command", "tools"]


@record
class RegionSeed:
    """How a region is filled before the run starts. Exactly the field of `kind` is set.

    `caller` seeds take the caller input named `caller_key` (`"task_input"` → `task`,
    `"input"` → the region's own name); a single `tool` seed is a one-element `tools`.
    """

    kind: SeedKind
    caller_key: str | None = None
    glob: str | None = None
    files: tuple[str, ...] = ()
    literal: str | None = None
    rhai: str | None = None
    command: str | None = None
    tools: tuple[SeedToolCall, ...] = ()
    refresh: SeedRefresh = "once"
    #: True for the seed a region named `task` gets without a `seed` key.
    implicit: bool = False


@record
class Region:
    name: str
    kind: RegionKind = "temporary"
    #: `budget = "N%"` as a number (percent of the model window), or None for absolute.
    budget_percent: float | None = None
    #: The absolute ceiling (5000 by default without `budget`), or a cap on the percentage.
    max_tokens: int | None = DEFAULT_REGION_TOKENS
    min_tokens: int | None = None
    #: `compacting` only, reconciled as the reference does: compact at this percentage of
    #: the resolved budget (80 when a percentage region names no trigger) …
    compact_at_percent: float | None = None
    #: … capped by (or, without a percentage, exactly at) this many tokens; see
    #: `compaction_trigger`.
    threshold_tokens: int | None = None
    max_items: int = 10
    strategy: Literal["per_item", "bulk", "compact"] = "per_item"
    overflow: int = 10
    compact_count: int = 10
    source_region: str | None = None
    max_entries: int | None = None
    script: str | None = None
    persistent: bool = False
    required: bool = False
    required_message: str | None = None
    summarizable: bool = True
    admission: Literal["evict", "reject"] = "evict"
    volatility: Literal["stable", "grows", "rewritten"] = "rewritten"
    description: str | None = None
    describe_in_prompt: bool = False
    seed: RegionSeed | None = None

    @property
    def is_fixed(self) -> bool:
        """Never emptied or summarized by an edge transform."""
        return self.kind in FIXED_REGION_KINDS or (self.kind == "custom" and self.persistent)

    def compaction_trigger(self, resolved_tokens: int) -> int | None:
        """Tokens at which a compacting region compacts, once its budget is resolved."""
        if self.kind != "compacting":
            return None
        if self.compact_at_percent is None:
            return self.threshold_tokens
        exact = resolved_tokens * (self.compact_at_percent / 100.0)
        at = math.floor(exact)
        at += 1 if exact - at >= 0.5 else 0  # half away from zero, as the reference rounds
        return at if self.threshold_tokens is None else min(at, self.threshold_tokens)

    @property
    def caller_input(self) -> str | None:
        return self.seed.caller_key if self.seed and self.seed.kind == "caller" else None


@record
class Layout:
    regions: tuple[Region, ...] = ()
    #: True when no regions were declared and the default system + conversation pair is used.
    fallback: bool = False

    def get(self, name: str) -> Region | None:
        for region in self.regions:
            if region.name == name:
                return region
        return None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.regions)

    @property
    def total_budget(self) -> int:
        """Sum of the absolute `max_tokens` of non-percentage regions."""
        return sum(r.max_tokens or 0 for r in self.regions if r.budget_percent is None)


FALLBACK_LAYOUT = Layout(
    regions=(
        Region(name="system", kind="pinned", max_tokens=8000),
        Region(name="conversation", kind="sliding_window", max_tokens=10000, max_items=10),
    ),
    fallback=True,
)


# --- nudges, outputs, sections ------------------------------------------------------------


@record
class NudgeConfig:
    """A nudge block as written: each field None when unset (inherits)."""

    enabled: bool | None = None
    max: int | None = None
    text: str | None = None


@record
class ResolvedNudge:
    """The nudge a stage really uses: stage → agent → built-in default, field by field."""

    enabled: bool = True
    max: int = DEFAULT_MAX_NUDGES
    text: str = DEFAULT_NUDGE_TEXT


@record
class OutputSpec:
    format: str | None = None
    instructions: str | None = None
    example: str | None = None
    schema: Any = None
    validator: str | None = None


@record
class Security:
    taint_tracking: bool = True


@record
class Sandbox:
    kind: Literal["none", "namespace", "container"] = "none"
    image: str | None = None
    engine: str | None = None
    network: bool = True
    persist: bool = False
    mount: tuple[str, ...] = ()
    on_unavailable: Literal["error", "warn"] = "error"


@record
class ToolPermission:
    tool: str
    #: Normalised to lower case (`allow`, `ask`, `deny`); the reference compares case-insensitively.
    policy: Policy


@record
class FileTracking:
    region: str = "files"
    track_reads: bool = True
    track_writes: bool = True
    max_file_tokens: int | None = None


@record
class Compaction:
    provider: str = DEFAULT_PROVIDER
    model: str = DEFAULT_MODEL
    system_prompt: str | None = None
    max_summary_tokens: int = 2000
    temperature: float = 0.2


@record
class ReadPaths:
    allow: tuple[str, ...] = ()


@record
class SafeCommands:
    tools: tuple[str, ...] = ()
    shell: tuple[str, ...] = ()


@record
class RepetitionDetection:
    max_repeat_calls: int | None = None
    max_readonly_streak: int | None = None
    enabled: bool | None = None


@record
class TransformMapping:
    from_region: str = ""
    to_region: str = ""
    #: None means a plain copy (the reference treats unknown values the same way).
    transform: Literal["direct", "summarize", "extract"] | None = None
    fields: tuple[str, ...] = ()


@record
class BlueprintTransform:
    """A `[[transforms]]` entry: how regions map when handing over to another blueprint."""

    from_blueprint: str = ""
    to_blueprint: str = ""
    mappings: tuple[TransformMapping, ...] = ()


# --- stages and edges ---------------------------------------------------------------------


@record
class Gate:
    """What must hold before a normal edge may be taken (ignored on conditioned edges)."""

    require_modifications: bool = False
    message: str | None = None
    region: str | None = None
    tools: tuple[str, ...] = ()
    #: Blocks allowed before the gate gives way (recorded as forced); 0 never holds.
    max_attempts: int = DEFAULT_GATE_ATTEMPTS
    require_region_updated: str | None = None
    require_regions: tuple[str, ...] = ()
    require_no_open_items: str | None = None

    @property
    def regions_named(self) -> tuple[tuple[str, str], ...]:
        """(gate key, region name) for every region the gate refers to."""
        named: list[tuple[str, str]] = []
        if self.region is not None:
            named.append(("region", self.region))
        if self.require_region_updated is not None:
            named.append(("require_region_updated", self.require_region_updated))
        if self.require_no_open_items is not None:
            named.append(("require_no_open_items", self.require_no_open_items))
        named.extend(("require_regions", r) for r in self.require_regions)
        return tuple(named)


@record
class StuckThresholds:
    """Positive thresholds only; the first to trip interrupts the stage."""

    iterations: int | None = None
    minutes: int | None = None
    same_file_edits: int | None = None
    tool_calls: int | None = None

    @property
    def armed(self) -> bool:
        return (
            self.iterations is not None
            or self.minutes is not None
            or self.same_file_edits is not None
            or self.tool_calls is not None
        )


@record
class CustomTransform:
    carry: tuple[str, ...] = ()
    compact: tuple[str, ...] = ()
    clear: tuple[str, ...] = ()
    compact_prompt: str | None = None


@record
class Edge:
    """One transition, `[stages.<source>.transitions.<target>]`."""

    target: str
    condition: Condition = "always"
    hint: str | None = None
    transform: Transform = "direct"
    #: Set only when `transform = "custom"`.
    custom: CustomTransform | None = None
    gate: Gate | None = None
    stuck: StuckThresholds | None = None

    @property
    def is_normal(self) -> bool:
        return self.condition in NORMAL_CONDITIONS


@record
class RoutingOverride:
    tool: str
    region: str | None = None
    max_result_tokens: int | None = None


@record
class ToolRouting:
    default_region: str = "tool_results"
    persist: bool = True
    max_result_tokens: int | None = None
    overrides: tuple[RoutingOverride, ...] = ()
    max_result_tokens_per_tool: tuple[tuple[str, int], ...] = ()


@record
class InteractionPoint:
    name: str = ""
    prompt: str = ""
    required: bool = True
    unattended: Literal["ask", "auto_approve"] = "auto_approve"
    style: Literal["free_text", "multiple_choice", "confirm"] = "free_text"
    options: tuple[str, ...] = ()
    directives: tuple[tuple[str, str], ...] = ()
    abort_options: tuple[str, ...] = ()
    edit_options: tuple[str, ...] = ()
    document_region: str | None = None


@record
class FanOut:
    worker_agent: str | None = None
    worker_stage: str | None = None
    worker_query: str | None = None
    merge_stage: str | None = None
    split_prompt: str = ""
    #: None means `conversation`.
    results_region: str | None = None
    on_worker_failure: Literal["continue", "fail_all"] = "continue"
    #: 0 = unlimited.
    max_workers: int = DEFAULT_MAX_WORKERS
    #: None = no cap.
    max_items: int | None = None
    #: None = the runtime default (3); 0 = do not ask again.
    max_attempts: int | None = None


@record
class Hook:
    event: str
    script: str


@record
class Stage:
    name: str
    mode: Mode = "autonomous"
    model: ModelConfig = ModelConfig()
    description: str | None = None
    system_prompt: str | None = None
    #: After the auto-grants of `output` (`submit_output`) and `fan_out` (`fan_out`) modes.
    available_tools: tuple[str, ...] = ()
    available_connectors: tuple[str, ...] = ()
    required_tools: tuple[str, ...] = ()
    #: None or 0 = no cap in the runner.
    max_iterations: int | None = None
    #: None = unlimited; a stage may be entered `max_revisits + 1` times in all.
    max_revisits: int | None = None
    transition_prompt: str | None = None
    allow_complete: bool = False
    requires_children: bool = False
    allow_as_worker: bool = False
    accepts_messages: bool = True
    allow_blocking_tools: bool = False
    require_output: bool = False
    batch_tool_hint: bool | None = None
    shell_hint: bool | None = None
    security: Security | None = None
    sandbox: Sandbox | None = None
    #: As written in `[stages.<s>.nudge]`; `effective_nudge` is what applies.
    nudge: NudgeConfig | None = None
    effective_nudge: ResolvedNudge = ResolvedNudge()
    output: OutputSpec | None = None
    hooks: tuple[Hook, ...] = ()
    tool_permissions: tuple[ToolPermission, ...] = ()
    tool_routing: ToolRouting | None = None
    #: The stage's own layout (replaces the global one for this stage), if it declares one.
    layout: Layout | None = None
    #: None = no transitions table (falls through to the next stage); () = terminal.
    transitions: tuple[Edge, ...] | None = None
    interaction_points: tuple[InteractionPoint, ...] = ()
    #: Set only for `mode = "fan_out"`.
    fan_out: FanOut | None = None

    def edges(self, condition: str | None = None) -> tuple[Edge, ...]:
        edges = self.transitions or ()
        return edges if condition is None else self._edges_by_condition.get(condition, ())

    @cached_property
    def _edges_by_condition(self) -> dict[str, tuple[Edge, ...]]:
        """Edges per condition, in declaration order (the runner asks on every event)."""
        grouped: dict[str, list[Edge]] = {}
        for edge in self.transitions or ():
            grouped.setdefault(edge.condition, []).append(edge)
        return {condition: tuple(edges) for condition, edges in grouped.items()}

    @property
    def normal_edges(self) -> tuple[Edge, ...]:
        return tuple(e for e in self.transitions or () if e.is_normal)

    def iteration_cap(self, default: int = DEFAULT_MAX_ITERATIONS) -> int:
        """The cap a run enforces before each inference of this stage (0: none). A fan-out
        stage is never capped; `max_iterations` unset or 0 takes the `default` cap, as
        Leviath's daemon fills it in."""
        if self.mode == "fan_out":
            return 0
        own = self.max_iterations or 0
        return own if own > 0 else max(default, 0)

    @property
    def is_reviewed(self) -> bool:
        """Output shown to a person (nudges are off by default)."""
        return self.mode == "interactive_points" and bool(self.interaction_points)


@record
class Blueprint:
    name: str = "unnamed"
    version: str = "0.1.0"
    description: str = ""
    #: As written (null: unset). Runs start at the first declared stage whatever it says, as in
    #: Leviath, which reads it only to pick the first stage's sandbox and tool permissions.
    entry_stage: str | None = None
    max_child_depth: int | None = None
    dynamic_tools: bool = False
    batch_tool_hint: bool | None = None
    shell_hint: bool | None = None
    nudge: NudgeConfig | None = None
    output: OutputSpec | None = None
    stages: tuple[Stage, ...] = (Stage(name="main"),)
    #: The global layout (`[context.regions]`, or the fallback pair).
    layout: Layout = FALLBACK_LAYOUT
    file_tracking: FileTracking | None = None
    compaction: Compaction | None = None
    security: Security | None = None
    sandbox: Sandbox | None = None
    read_paths: ReadPaths | None = None
    safe_commands: SafeCommands | None = None
    tool_permissions: tuple[ToolPermission, ...] = ()
    repetition_detection: RepetitionDetection | None = None
    transforms: tuple[BlueprintTransform, ...] = ()
    #: True when the file declared no stages and the default `main` stage was supplied.
    default_stage: bool = False

    @cached_property
    def _index(self) -> dict[str, int]:
        return {stage.name: i for i, stage in enumerate(self.stages)}

    def stage(self, name: str) -> Stage | None:
        index = self._index.get(name)
        return None if index is None else self.stages[index]

    def stage_index(self, name: str) -> int | None:
        return self._index.get(name)

    @property
    def stage_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.stages)

    @property
    def entry(self) -> str:
        """The entry stage as Leviath's validator and lints resolve it: `entry_stage` when it
        names a stage, else the first. Its static checks search from here, and its daemon
        takes the first stage's sandbox and tool permissions from it; runs start at
        `start_stage` all the same."""
        if self.entry_stage is not None and self.stage(self.entry_stage) is not None:
            return self.entry_stage
        return self.stages[0].name

    @property
    def start_stage(self) -> str:
        """The stage every run starts in: the first declared stage, whatever `entry_stage`
        says (Leviath's runtime always starts there)."""
        return self.stages[0].name

    @property
    def graph_mode(self) -> bool:
        """Some stage has a transitions table (even an empty one)."""
        return any(s.transitions is not None for s in self.stages)

    def layout_for(self, stage: Stage) -> Layout:
        """The layout a stage sees: its own if it declares one, else the global one."""
        return stage.layout if stage.layout is not None else self.layout

    def visible_regions(self, stage: Stage) -> frozenset[str]:
        return frozenset(self.layout_for(stage).names) | frozenset(ALWAYS_VISIBLE_REGIONS)

    @cached_property
    def known_regions(self) -> frozenset[str]:
        """Declared anywhere (global or any stage layout) or always visible."""
        names = set(self.layout.names) | set(ALWAYS_VISIBLE_REGIONS)
        for stage in self.stages:
            if stage.layout is not None:
                names.update(stage.layout.names)
        return frozenset(names)

    def next_stage(self, stage: Stage) -> Stage | None:
        """The stage a transition-less stage falls through to (file order), if any."""
        index = self.stage_index(stage.name)
        if index is None or index + 1 >= len(self.stages):
            return None
        return self.stages[index + 1]
