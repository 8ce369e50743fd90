"""Declared properties answered over the explored runs: a verdict per property, with the shortest
run that breaks it.

No property explores anything: each is one breadth-first search of the run graph the other
findings come from (`runs.RunGraph`), which stops where a run can no longer break the property
(once it has entered `first`, `before`, or the stage `reaches` names), or, for `at_most`, the
ceilings and one longest-path pass over their topological order. Breadth first, so the run a
violation shows makes the fewest stage visits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import TYPE_CHECKING, Any

from compiler.records import record

from ..diagnostics import KeyPath, Span
from . import traces
from .property_spec import Property, PropertyFile, unknown_names
from .traces import Trace

if TYPE_CHECKING:
    from .core import Analysis
    from .runs import RunGraph

Hop = tuple[int, tuple, int]

HOLDS, VIOLATED, VACUOUS, UNPROVEN, INVALID = "holds", "violated", "vacuous", "unproven", "invalid"
#: The rule code of each verdict that is reported.
CODES = {
    VIOLATED: "property-violated",
    VACUOUS: "property-vacuous",
    UNPROVEN: "property-unproven",
    INVALID: "property-invalid",
}
MISSING: Any = object()
NO_TOKEN_CEILING = "no token ceiling (the analysis bounds inferences, not the tokens or dollars they use)"


@record
class Verdict:
    """What the analysis says of one property (or of a `[[property]]` table it cannot read)."""

    name: str
    status: str
    message: str
    path: KeyPath
    span: Span
    fix: str | None = None
    #: The shortest run that breaks the property, replayed through the runner.
    trace: Trace | None = None
    #: What a scenario of `trace` expects so that it fails while such a run is possible.
    expect: dict[str, Any] = field(default_factory=dict)

    @property
    def code(self) -> str | None:
        return CODES.get(self.status)

    @property
    def passed(self) -> bool:
        return self.status == HOLDS


def evaluate(analysis: "Analysis", file: PropertyFile, cost_of: "Callable[[], Any] | None" = None) -> list[Verdict]:
    """Every property of `file` over every run `analysis` explored, in the order written.
    `cost_of()` gives a run's worst case in tokens and dollars (`tokens.RunCost`), asked only
    when a property limits them; without it they cannot be proven."""
    ir = analysis.blueprint
    stages = ir.stage_names
    tools = tuple(dict.fromkeys(tool for stage in ir.stages for tool in stage.available_tools))
    search = _Search(analysis, cost_of)
    verdicts: list[Verdict] = []
    by_number = {int(prop.path[1]): prop for prop in file.properties}
    for number in sorted({*by_number, *file.refused}):
        refused = file.refused.get(number)
        if refused is not None:
            name = refused.name or f"property {number + 1}"
            verdicts.append(Verdict(name, INVALID, refused.message, refused.path, refused.span, refused.fix))
            continue
        prop = by_number[number]
        problem = unknown_names(prop, stages, tools)
        if problem is not None:
            verdicts.append(Verdict(prop.name, INVALID, problem.message, problem.path, problem.span, problem.fix))
            continue
        verdicts.append(search.verdict(prop))
    verdicts.extend(Verdict("", INVALID, p.message, p.path, p.span, p.fix) for p in file.problems if not p.path[1:])
    return verdicts


class _Search:
    """The searches of one analysis (the topological order is worked out once, for `at_most`)."""

    def __init__(self, analysis: "Analysis", cost_of: "Callable[[], Any] | None" = None) -> None:
        self.analysis = analysis
        self.cost_of = cost_of
        self._cost: Any = MISSING
        self.graph: "RunGraph" = analysis.runs
        self.stage_of = [node[0] for node in self.graph.nodes]
        self._order: list[int] | None = None

    def verdict(self, prop: Property) -> Verdict:
        args = prop.args
        if prop.form == "precedes":
            return self.precedes(prop, args["first"], args["then"])
        if prop.form == "never":
            return self.never(prop, args["tool"], args["before"])
        if prop.form == "reaches":
            return self.reaches(prop, args["stage"])
        return self.at_most(prop)

    # --- the verdicts ------------------------------------------------------------------------------

    def found(
        self,
        prop: Property,
        message: str,
        hops: list[Hop] | None,
        expect: dict,
        *,
        enters: bool,
        trace: Trace | None = None,
    ) -> Verdict:
        trace = self.trace(hops, enters=enters) if hops else trace
        return Verdict(
            prop.name, VIOLATED, f"property '{prop.name}': {message}", prop.path, prop.span, None, trace, expect
        )

    def unproven(
        self, prop: Property, why: str, fix: str = "raise --max-states so that every run is explored"
    ) -> Verdict:
        message = f"property '{prop.name}' cannot be proven: {why}"
        return Verdict(prop.name, UNPROVEN, message, prop.path, prop.span, fix)

    def settled(self, prop: Property, vacuous_why: str | None) -> Verdict:
        """No run breaks `prop`: it holds, or holds vacuously, or (exploration cut short) is unknown."""
        if not self.analysis.complete:
            return self.unproven(prop, "the analysis stopped at its state limit before it explored every run")
        if vacuous_why is not None:
            message = f"property '{prop.name}' holds only vacuously: {vacuous_why}"
            return Verdict(prop.name, VACUOUS, message, prop.path, prop.span)
        return Verdict(prop.name, HOLDS, f"property '{prop.name}' holds on every run", prop.path, prop.span)

    def precedes(self, prop: Property, first: str, then: str) -> Verdict:
        stage_of = self.stage_of
        if stage_of[0] == then and then != first:
            return self.found(
                prop, f"every run starts in {quoted(then)}, before any entry of {quoted(first)}", None, {}, enters=True
            )
        # Once `first` is entered, no entry of `then` can break the property: the search stops there.
        hops = self.first_entry({then}, first) if stage_of[0] != first else None
        if hops is not None:
            message = f"a run enters {quoted(then)} before it has entered {quoted(first)}"
            return self.found(prop, message, hops, {"path_includes": [first]}, enters=True)
        entered = then in stage_of
        return self.settled(prop, None if entered else f"no run enters {quoted(then)}")

    def never(self, prop: Property, tool: str, before: str) -> Verdict:
        offering = {stage.name for stage in self.analysis.blueprint.stages if tool in stage.available_tools}
        offering.discard(before)  # a call there comes after entering `before`
        stage_of = self.stage_of
        if stage_of[0] in offering:
            message = f"every run starts in {quoted(stage_of[0])}, which offers {quoted(tool)}, before {quoted(before)}"
            return self.found(prop, message, None, {}, enters=True)
        hops = self.first_entry(offering, before) if stage_of[0] != before else None
        if hops is not None:
            stage = stage_of[self.landing(hops)]
            message = f"a run can call {quoted(tool)} in {quoted(stage)} before it enters {quoted(before)}"
            return self.found(prop, message, hops, {"path_includes": [before]}, enters=True)
        offered = not offering.isdisjoint(stage_of) or (before in stage_of and tool in self.offered(before))
        return self.settled(prop, None if offered else f"no stage a run enters offers {quoted(tool)}")

    def offered(self, stage: str) -> tuple[str, ...]:
        found = self.analysis.blueprint.stage(stage)
        return found.available_tools if found is not None else ()

    def reaches(self, prop: Property, stage: str) -> Verdict:
        graph, stage_of = self.graph, self.stage_of
        if stage_of[0] != stage:
            # Runs that have entered `stage` cannot break the property: the search stops there.
            parents, queue = self.start_search()
            for node in queue:
                key = graph.visit_keys[node]
                for number, target in graph.out[node]:
                    if type(target) is not int:
                        if target.kind == "complete":  # type: ignore[union-attr]
                            hops = [*self.path(parents, node), (node, key, number)]
                            message = f"a run completes without entering {quoted(stage)}"
                            return self.found(prop, message, hops, {"path_includes": [stage]}, enters=False)
                    elif parents[target] is None and stage_of[target] != stage:
                        parents[target] = (node, number)
                        queue.append(target)
        completes = any(type(t) is not int and t.kind == "complete" for edges in graph.out for _, t in edges)  # type: ignore[union-attr]
        return self.settled(prop, None if completes else "no run completes")

    def at_most(self, prop: Property) -> Verdict:
        limits, ceilings = prop.args, self.analysis.ceilings
        over: list[str] = []
        hops: list[Hop] | None = None
        loop: Trace | None = None
        expect: dict[str, Any] = {}
        missing: list[str] = []
        if ceilings is None:
            return self.unproven(prop, "the analysis stopped at its state limit before it explored every run")
        if "inferences" in limits:
            most = ceilings.inferences
            if most is None:
                over.append(f"a run's inferences have no ceiling ({self.unbounded_why()})")
                loop = loop or self.loop_trace()
            elif most > limits["inferences"]:
                over.append(f"a run can make {most:,} inferences, more than {limits['inferences']:,}")
                hops = hops or self.heaviest(lambda node, calls: calls)
        per_stage = {c.stage: c for c in ceilings.stages}
        for stage, allowed in limits.get("visits", {}).items():
            most = per_stage[stage].visits
            if most is None:
                over.append(f"a run can enter {quoted(stage)} any number of times (a loop passes through it)")
                loop = loop or self.loop_trace(stage)
            elif most > allowed:
                over.append(f"a run can enter {quoted(stage)} {most:,} times, more than {allowed:,}")
                found = self.heaviest(self.entries_of(stage))
                if found and not expect:  # a run that enters the stage too often beats a costly one
                    hops, expect = found, {"visits": {stage: f"<= {allowed}"}}
        for key in ("tokens", "cost_usd"):
            if key not in limits:
                continue
            cost = self.cost()
            if cost is None:
                missing.append(f"{key}: {NO_TOKEN_CEILING}")
                continue
            value, why = (cost.tokens, cost.why) if key == "tokens" else (cost.cost_usd, cost.cost_why)
            limit = limits[key]
            if value is None and ceilings.inferences is None:
                over.append(
                    f"a run's {'tokens' if key == 'tokens' else 'cost'} has no ceiling ({self.unbounded_why()})"
                )
                loop = loop or self.loop_trace()
            elif value is None:
                missing.append(f"{key}: {why or 'no ceiling'}")
            elif value > limit:
                shown = f"{value:,} tokens" if key == "tokens" else f"${value:,.2f}"
                bound = f"{limit:,}" if key == "tokens" else f"${limit:,.2f}"
                over.append(f"a run can spend up to {shown} (its worst case), more than {bound}")
        if over:
            note = f" ({'; '.join(missing)}: cannot be proven)" if missing else ""
            return self.found(prop, "; ".join(over) + note, hops, expect, enters=False, trace=None if hops else loop)
        if missing:
            fix = "give the models their windows and prices (docs/check.md), or limit inferences and visits instead"
            return self.unproven(prop, "; ".join(missing), fix)
        return self.settled(prop, None)

    def cost(self) -> Any:
        """The worst case of a run in tokens and dollars (`tokens.RunCost`), worked out once;
        None when the caller gave no way to work it out."""
        if self._cost is MISSING:
            self._cost = self.cost_of() if self.cost_of is not None else None
        return self._cost

    # --- searches ----------------------------------------------------------------------------------

    def start_search(self) -> tuple[list[tuple[int, int] | None], list[int]]:
        """The parent links (node → (parent, exit number); the start links to itself) and the
        queue of a breadth-first search from the start, which the caller appends to as it goes."""
        parents: list[tuple[int, int] | None] = [None] * len(self.graph.nodes)
        parents[0] = (0, -1)
        return parents, [0]

    def path(self, parents: list[tuple[int, int] | None], node: int) -> list[Hop]:
        """The hops from the start to `node` along the search's parent links."""
        keys, hops = self.graph.visit_keys, []
        while node:
            link = parents[node]
            assert link is not None
            parent, number = link
            hops.append((parent, keys[parent], number))
            node = parent
        return hops[::-1]

    def first_entry(self, wanted: set[str], barrier: str) -> list[Hop] | None:
        """The hops of the fewest visits to an entry of a stage in `wanted` by a run that has not
        entered `barrier` (runs that have are not followed); None when there is none."""
        graph, stage_of = self.graph, self.stage_of
        out = graph.out
        parents, queue = self.start_search()
        for node in queue:
            for number, target in out[node]:
                if type(target) is not int or parents[target] is not None:
                    continue
                stage = stage_of[target]
                if stage in wanted:
                    return [*self.path(parents, node), (node, graph.visit_keys[node], number)]
                if stage != barrier:
                    parents[target] = (node, number)
                    queue.append(target)
        return None

    def landing(self, hops: list[Hop]) -> int:
        node, _, number = hops[-1]
        return next(target for n, target in self.graph.out[node] if n == number)  # type: ignore[return-value]

    def heaviest(self, weights: Callable[[int, list[int | float]], list[int | float]]) -> list[Hop] | None:
        """The hops of a run with the most total weight (the fewest visits among such runs), on
        a run graph without cycles; None when it has one. `weights(node, calls)` gives the
        weight of each of the node's edges, from the most inferences of each exit (`calls`)."""
        graph = self.graph
        if self._order is None:
            self._order = self.analysis.order or []
        if not self._order:
            return None
        count = len(graph.nodes)
        out, keys = graph.out, graph.visit_keys
        calls = {key: [exit.max_calls for exit in result.exits] for key, result in graph.visits.items()}
        best: list[int | float] = [0] * count
        length = [0] * count
        choice: list[int] = [-1] * count  # the edge (its place in `out[node]`) a heaviest run takes
        for node in reversed(self._order):
            edges = out[node]
            gained = weights(node, calls.get(keys[node], []))
            top: int | float = -1
            shortest, pick = 0, -1
            for place, (number, target) in enumerate(edges):
                value, steps = gained[number], 1
                if type(target) is int:
                    value += best[target]
                    steps += length[target]
                if value > top or (value == top and steps < shortest):
                    top, shortest, pick = value, steps, place
            if pick >= 0:
                best[node], length[node], choice[node] = top, shortest, pick
        hops: list[Hop] = []
        node = 0
        while choice[node] >= 0:
            number, reached = out[node][choice[node]]
            hops.append((node, keys[node], number))
            if not isinstance(reached, int):
                break
            node = reached
        return hops

    def entries_of(self, stage: str) -> Callable[[int, list[int | float]], list[int | float]]:
        """Edge weights that count the entries of `stage`."""
        stage_of, out = self.stage_of, self.graph.out

        def weights(node: int, calls: list[int | float]) -> list[int | float]:
            gained: list[int | float] = [0] * len(calls)
            for number, target in out[node]:
                if type(target) is int and stage_of[target] == stage:
                    gained[number] = 1
            return gained

        return weights

    def loop_trace(self, stage: str | None = None) -> Trace | None:
        """The run into an endless loop `run-can-loop-forever` shows (one whose lap passes
        through `stage`, when given)."""
        for finding in self.analysis.findings:
            trace = finding.trace
            if finding.code != "run-can-loop-forever" or trace is None:
                continue
            if stage is None or any(step.stage == stage for step in trace.steps[trace.loop_from or 0 :]):
                return trace
        return None

    def unbounded_why(self) -> str:
        ceilings = self.analysis.ceilings
        if ceilings is not None and ceilings.endless:
            names = ", ".join(quoted(name) for name in ceilings.endless)
            return f"a visit of {names} has no iteration limit"
        return "a run can go round a loop for ever, see run-can-loop-forever"

    def trace(self, hops: list[Hop], *, enters: bool) -> Trace | None:
        trace = traces.build(self.graph, hops, reaching=enters)
        return trace if trace is not None and trace.verified else None


def quoted(name: str) -> str:
    return f"'{name}'"
