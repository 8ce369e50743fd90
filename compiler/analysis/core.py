"""`analyze(blueprint)`: every run of a blueprint explored, as findings, traces and ceilings."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from ..ir.model import DEFAULT_MAX_ITERATIONS
from ..runtime.policy import MERGE_CARRIES
from . import ceilings as ceiling_rules
from .ceilings import Ceilings
from .findings import Finding, find_all
from .runs import STATE_LIMIT, RunGraph, Terminal, explore_runs
from .visit_graph import INFINITE

if TYPE_CHECKING:
    import networkx

    from ..ir.model import Blueprint


@dataclass
class Analysis:
    """What exploring every run of `blueprint` found.

    `findings` carry counterexample traces (`Finding.trace`, replayed and verified through the
    runner); `ceilings` are the most visits and inferences any run makes (None when the
    exploration was cut short, see `complete`); `graph` is the run-state graph as networkx.
    """

    blueprint: "Blueprint"
    findings: tuple[Finding, ...]
    ceilings: Ceilings | None
    #: Every run state was explored (False when the state limit cut the exploration short:
    #: then findings that say "no run …" and the ceilings are withheld).
    complete: bool
    runs: RunGraph = field(repr=False)
    #: The run states in an order where every edge goes forward (None: the graph has a cycle,
    #: or was not explored completely); declared properties reuse it.
    order: list[int] | None = field(default=None, repr=False)

    @property
    def states(self) -> int:
        """Run states explored (a stage entered with given visit counts and final output)."""
        return len(self.runs.nodes)

    @property
    def visits_explored(self) -> int:
        """Distinct stage visits explored move by move."""
        return len(self.runs.visits)

    @cached_property
    def graph(self) -> "networkx.MultiDiGraph[int | str]":
        """The run-state graph (networkx is imported here, on first use).

        Nodes are run-state numbers (0 is the start) with `stage`, `visits` (the budgeted
        stages' counts), `final_output`, `carried` (the counters a fan-out hand-off brought
        into the stage, or None) and `start`; and one node per way a run ends,
        `"end:<stage>:<complete|fail>:<how>"`. Each edge is one way a visit ends: `kind`
        (edge, complete, fail), `target`, `condition`, `inferences` (the most the visit makes,
        None when unbounded) and `moves` (what the host did, on the shortest witness).
        """
        import networkx

        runs = self.runs
        graph: networkx.MultiDiGraph[int | str] = networkx.MultiDiGraph(
            blueprint=self.blueprint.name, complete=self.complete
        )
        for node, (stage, code, final_output, carry) in enumerate(runs.nodes):
            carried = dict(zip(MERGE_CARRIES, carry)) if carry is not None else None
            graph.add_node(
                node, stage=stage, visits=runs.counts(code), final_output=final_output, carried=carried, start=node == 0
            )
        for node, edges in enumerate(runs.out):
            result = runs.visits.get(runs.visit_keys[node])
            if result is None:
                continue
            for number, reached in edges:
                exit = result.exits[number]
                target: int | str
                if isinstance(reached, Terminal):
                    target = f"end:{reached.stage}:{reached.kind}:{reached.how}"
                    graph.add_node(target, stage=exit.pre.stage, end=exit.kind, how=exit.key[1])
                else:
                    target = reached
                graph.add_edge(
                    node,
                    target,
                    key=number,
                    kind=exit.kind,
                    target=exit.target,
                    condition=exit.condition,
                    inferences=None if exit.max_calls == INFINITE else int(exit.max_calls),
                    moves=[move.describe() for move in result.witness(exit)],
                )
        return graph


def analyze(
    blueprint: "Blueprint",
    *,
    limit: int = STATE_LIMIT,
    reduce: bool = True,
    default_max_iterations: int = DEFAULT_MAX_ITERATIONS,
) -> Analysis:
    """Explore every run of `blueprint` (the typed IR) with the stage-runner.

    Meant for blueprints without errors (`blueprint check` refuses others); on any IR it
    still terminates and never raises for a blueprint's content. `limit` caps the run states
    explored; `reduce=False` turns off the shortcuts that only save work;
    `default_max_iterations` is the runs' cap for a stage whose `max_iterations` is unset or
    0 (the runner's option; 0 for none). `TypeError` when `blueprint` is not the typed
    model (`compiler.load`, `compiler.load_ir`).
    """
    from ..ir.model import Blueprint

    if not isinstance(blueprint, Blueprint):
        raise TypeError(
            f"analyze explores a compiler.ir.model.Blueprint, not {type(blueprint).__name__}: get one "
            "with compiler.load(path), or compiler.load_ir(document) for a compiled IR"
        )
    runs = explore_runs(blueprint, limit=limit, reduce=reduce, default_max_iterations=default_max_iterations)
    complete = not runs.truncated
    adjacency = runs.successors
    order = ceiling_rules.topological_order(runs, adjacency) if complete else None
    cycle_sets = ceiling_rules.cycles(runs, adjacency) if complete and order is None else []
    findings = find_all(runs, cycle_sets, complete=complete)
    ceilings = ceiling_rules.compute(runs, order, adjacency) if complete else None
    return Analysis(blueprint, tuple(findings), ceilings, complete, runs, order)
