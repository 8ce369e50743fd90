"""Token and cost ceilings: the most tokens, and dollars, any run can spend, or why there is no such bound.

Each inference a stage makes carries at most what its context can hold: the budgets of the
regions it sees (its own layout, or the blueprint's, and the regions the runtime keeps in
view in every stage: `conversation`, `tool_results`, `final_output`, `stage_instructions`),
never more than the model's context window; and it replies with at most the model's
`max_output` tokens (the window when that is not known). The inference ceilings
(`ceilings.py`) say how many inferences each visit makes; a run's ceiling is the longest
path over the run graph weighted by those inferences, so it is exact for the bounds per
inference. With a price per model (`compiler.prices`), the same path in dollars.

A model with several entries counts as its worst entry (which one runs depends on the
machine). Counts are Leviath's own token estimate (a region's budget is enforced in it);
what no region holds, such as the tool definitions sent with each request, is bounded only
by the window.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from compiler.records import record

from ..installation import InstallationError, LeviathConfig, ModelCatalog, load_config, load_models
from ..ir.model import ALWAYS_VISIBLE_REGIONS

if TYPE_CHECKING:
    from ..check import CheckResult
    from ..config import Settings
    from ..ir.model import Blueprint, ModelEntry, Region, Stage
    from ..prices import ModelPrice
    from .core import Analysis

#: Regions the runtime adds when no layout declares them, with their budgets.
RUNTIME_REGIONS = {"tool_results": 5000, "conversation": 10000, "final_output": 2000}
#: How to get a window, said where none is known.
HOW_WINDOW = (
    "set its window in the prices table of blueprint.toml, or name your Leviath files "
    "(--leviath-config, --leviath-models)"
)
#: How to get a price, said where none is known.
HOW_PRICE = "set its input and output prices in the prices table of blueprint.toml"


@record
class ModelLimits:
    """What is known of one model: its window, reply cap and prices (None: not known)."""

    window: int | None = None
    max_output: int | None = None
    input_price: float | None = None
    output_price: float | None = None


@record
class StageTokens:
    stage: str
    #: The most input tokens one inference of the stage carries (None: not known).
    input_per_inference: int | None
    #: The most output tokens one inference replies with (None: not known).
    output_per_inference: int | None
    #: The most tokens (input and output) all the stage's inferences of one run carry.
    tokens: int | None
    #: The most dollars they cost.
    cost_usd: float | None


@record
class RunCost:
    """The worst case of one run in tokens and dollars, with why a bound does not exist."""

    #: The most tokens (input plus output) one run spends; None when there is no bound.
    tokens: int | None
    input_tokens: int | None
    output_tokens: int | None
    #: The most dollars one run spends; None without a bound or without prices.
    cost_usd: float | None
    #: Why `tokens` is None ("" when it is not).
    why: str
    #: Why `cost_usd` is None ("" when it is not).
    cost_why: str
    stages: tuple[StageTokens, ...] = ()

    @property
    def known(self) -> bool:
        """Some stage has a token bound per inference (else there is nothing to show per stage)."""
        return any(s.input_per_inference is not None and s.output_per_inference is not None for s in self.stages)

    @property
    def priced(self) -> bool:
        return any(s.cost_usd is not None for s in self.stages)

    def to_dict(self) -> dict:
        return {
            "tokens": self.tokens,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
            "why": self.why or None,
            "cost_why": self.cost_why or None,
            "stages": [
                {
                    "stage": s.stage,
                    "input_per_inference": s.input_per_inference,
                    "output_per_inference": s.output_per_inference,
                    "tokens": s.tokens,
                    "cost_usd": s.cost_usd,
                }
                for s in self.stages
            ],
        }


def worst_case(check_result: "CheckResult") -> RunCost | None:
    """The token and cost ceilings of a checked file (None when it was not analysed)."""
    return check_result.tokens


def models_from(settings: "Settings") -> Callable[["ModelEntry"], ModelLimits]:
    """What the settings say of each model: the prices table first, then the user's Leviath
    `config.toml` (`[model_capabilities]`), then the `lev models list` printout."""
    prices = dict(settings.prices)
    config, catalog = _installation(settings)

    def limits(entry: "ModelEntry") -> ModelLimits:
        price: ModelPrice | None = prices.get(f"{entry.provider}/{entry.model}")
        row = next((r for r in catalog.rows if r.provider == entry.provider and r.model == entry.model), None)
        window = _first(
            price.window if price else None,
            config.windows.get(entry.model) if config else None,
            row.window if row else None,
        )
        max_output = _first(
            price.max_output if price else None,
            config.max_outputs.get(entry.model) if config else None,
            row.max_output if row else None,
        )
        return ModelLimits(window, max_output, price.input if price else None, price.output if price else None)

    return limits


def _installation(settings: "Settings") -> tuple[LeviathConfig | None, ModelCatalog]:
    """The Leviath files the settings name (the CLI has read them already; a file that cannot
    be read here gives nothing, as the installation checks do without it)."""
    config, catalog = None, ModelCatalog(path="")
    try:
        if settings.leviath_config:
            config = load_config(settings.leviath_config)
        if settings.leviath_models:
            catalog = load_models(settings.leviath_models)
    except InstallationError:
        pass
    return config, catalog


def _first(*values: int | None) -> int | None:
    return next((v for v in values if v is not None), None)


def run_cost(analysis: "Analysis", limits: Callable[["ModelEntry"], ModelLimits]) -> RunCost:
    """The token and cost ceilings of `analysis`, with `limits` telling what each model carries."""
    ir = analysis.blueprint
    ceilings = analysis.ceilings
    carried: dict[tuple[str, int | None], int | None] = {}  # the same for every stage: worked out once
    per_inference = {stage.name: _stage_bounds(ir, stage, limits, carried) for stage in ir.stages}
    stages = []
    by_name = {s.stage: s for s in ceilings.stages} if ceilings is not None else {}
    for stage in ir.stages:
        ceiling = by_name.get(stage.name)
        bounds = per_inference[stage.name]
        calls = ceiling.inferences if ceiling is not None else None
        tokens = calls * (bounds.input + bounds.output) if calls is not None and bounds.known else None
        cost = calls * bounds.cost if calls is not None and bounds.cost is not None else None
        if calls == 0:
            tokens, cost = 0, 0.0
        given_in, given_out = (bounds.input, bounds.output) if bounds.known else (None, None)
        stages.append(StageTokens(stage.name, given_in, given_out, tokens, cost))
    entered = {node[0] for node in analysis.runs.nodes}
    why = _why_unbounded(analysis)
    if not why:
        unknown = [name for name in per_inference if name in entered and not per_inference[name].known]
        why = _unknown(ir, unknown, lambda m: m.window is None and m.max_output is None, limits, "context window")
    cost_why = why
    if not cost_why:
        unprised = [name for name in per_inference if name in entered and per_inference[name].cost is None]
        cost_why = _unknown(ir, unprised, lambda m: m.input_price is None or m.output_price is None, limits, "price")
    total_in = total_out = total = None
    total_cost: float | None = None
    if not why or not cost_why:
        from .ceilings import topological_order

        order = topological_order(analysis.runs, analysis.runs.successors)
        assert order is not None  # bounded visits: the run graph has no cycle
        known = {n: b for n, b in per_inference.items() if b.known}
        weights: list[dict[str, int | float]] = []
        if not why:
            weights += [{n: b.input for n, b in known.items()}, {n: b.output for n, b in known.items()}]
            weights.append({n: b.input + b.output for n, b in known.items()})
        if not cost_why:
            weights.append({n: b.cost for n, b in per_inference.items() if b.cost is not None})
        heaviest = _heaviest(analysis, order, weights)
        if not why:
            total_in, total_out, total = (int(v) for v in heaviest[:3])
        if not cost_why:
            total_cost = float(heaviest[-1])
    return RunCost(total, total_in, total_out, total_cost, why, cost_why, tuple(stages))


@record
class _Bounds:
    input: int = 0
    output: int = 0
    known: bool = False
    cost: float | None = None


def _stage_bounds(
    ir: "Blueprint",
    stage: "Stage",
    limits: Callable[["ModelEntry"], ModelLimits],
    carried: dict[tuple[str, int | None], int | None],
) -> _Bounds:
    """The most input and output tokens, and dollars, of one inference of `stage`: its worst model entry."""
    worst = _Bounds(known=True, cost=0.0)
    for entry in stage.model.entries:
        model = limits(entry)
        output = model.max_output if model.max_output is not None else model.window
        if output is None:
            return _Bounds()
        held = _layout_tokens(ir, stage, model.window, carried)
        inputs = [n for n in (model.window, held) if n is not None]
        if not inputs:
            return _Bounds()
        given = min(inputs)
        cost = None
        if model.input_price is not None and model.output_price is not None and worst.cost is not None:
            cost = max(worst.cost, (given * model.input_price + output * model.output_price) / 1_000_000)
        worst = _Bounds(max(worst.input, given), max(worst.output, output), True, cost)
    return worst


def _layout_tokens(
    ir: "Blueprint", stage: "Stage", window: int | None, carried: dict[tuple[str, int | None], int | None]
) -> int | None:
    """The most tokens the regions `stage` sees can hold (None: a budget needs the window)."""
    layout = ir.layout_for(stage)
    total = 0
    for region in layout.regions:
        budget = _budget(region, window)
        if budget is None:
            return None
        total += budget
    for name in ALWAYS_VISIBLE_REGIONS:
        if layout.get(name) is not None:
            continue
        if (name, window) not in carried:
            carried[name, window] = _carried_budget(ir, name, window)
        budget = carried[name, window]
        if budget is None:
            return None
        total += budget
    return total


def _carried_budget(ir: "Blueprint", name: str, window: int | None) -> int | None:
    """The largest budget a region the stage does not declare can come in with: the runtime's
    own, or any layout's that declares it (the region is carried from stage to stage)."""
    if name == "stage_instructions":
        widest = max(
            (len(f"[Stage instructions: {s.system_prompt}]".encode()) for s in ir.stages if s.system_prompt), default=0
        )
        own: int | None = -(-widest // 4) if widest else 0  # Leviath's estimate: a token per four bytes
    else:
        own = RUNTIME_REGIONS.get(name, 0)
    declared = [ir.layout, *(s.layout for s in ir.stages if s.layout is not None)]
    budgets = [_budget(region, window) for layout in declared if (region := layout.get(name)) is not None]
    if any(b is None for b in budgets):
        return None
    return max([own or 0, *(b for b in budgets if b is not None)])


def _budget(region: "Region", window: int | None) -> int | None:
    """A region's budget resolved as Leviath resolves it: a percentage of the window rounded,
    capped by `max_tokens`, floored by `min_tokens`; without a window, the cap bounds it."""
    if region.budget_percent is None:
        return region.max_tokens if region.max_tokens is not None else 0
    if window is None:
        if region.max_tokens is None:
            return None
        return max(region.max_tokens, region.min_tokens or 0)
    value = round(window * region.budget_percent / 100)
    if region.max_tokens is not None:
        value = min(value, region.max_tokens)
    if region.min_tokens is not None:
        value = max(value, region.min_tokens)
    return value


def _why_unbounded(analysis: "Analysis") -> str:
    """Why the inference ceilings themselves give no bound ("" when they do)."""
    ceilings = analysis.ceilings
    if not analysis.complete or ceilings is None:
        return "the run analysis stopped at its state limit, so no ceiling is computed"
    if ceilings.visits is None:
        return "a run can loop for ever (see run-can-loop-forever)"
    if ceilings.inferences is None:
        names = ", ".join(f"'{name}'" for name in ceilings.endless) or "a stage"
        return f"a visit of {names} can go on for ever (no iteration limit binds it)"
    return ""


def _unknown(
    ir: "Blueprint",
    stages: Iterable[str],
    missing: Callable[[ModelLimits], bool],
    limits: Callable[["ModelEntry"], ModelLimits],
    what: str,
) -> str:
    """Why the stages have no bound: the first model without a `what`, and how to give one."""
    for name in stages:
        stage = ir.stage(name)
        for entry in stage.model.entries if stage is not None else ():
            if missing(limits(entry)):
                how = HOW_WINDOW if what == "context window" else HOW_PRICE
                return f"no {what} is known for {entry.provider}/{entry.model} (stage '{name}'): {how}"
        if stage is not None and what == "context window":
            return f"a region of stage '{name}' has a percentage budget without max_tokens, and no window: {HOW_WINDOW}"
    return ""


def _heaviest(analysis: "Analysis", order: list[int], weights: "list[dict[str, int | float]]") -> list[int | float]:
    """For each of `weights`, the heaviest run: the longest path from the start (`order`: the
    run states in topological order), each visit weighing its most inferences times its
    stage's weight (a stage without one weighs nothing: no run enters it). One pass for all."""
    graph = analysis.runs
    count = len(weights)
    zero: list[int | float] = [0] * count  # ints stay exact however large
    best: list[list[int | float]] = [zero] * len(graph.nodes)
    for node in reversed(order):
        stage = graph.nodes[node][0]
        result = graph.visits.get(graph.visit_keys[node])
        if result is None:
            continue
        exits = result.exits
        each = [weight.get(stage, 0) for weight in weights]
        most = list(zero)
        for number, target in graph.out[node]:
            calls = exits[number].max_calls  # INFINITE only where a bound was refused
            tail = best[target] if type(target) is int else zero
            for i in range(count):
                value = (calls * each[i] if calls else 0) + tail[i]
                if value > most[i]:
                    most[i] = value
        best[node] = most
    return best[0] if best else list(zero)
