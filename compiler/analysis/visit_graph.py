"""The explored graph of one stage visit: its states (`Node`), its ways out (`Exit`), the
whole (`VisitResult`), and how many inferences a visit can make (`Calls`).

Records only: `visit` fills them in, `costs` sets the inference counts, `runs` and `traces`
read them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..runtime.actions import Action
    from ..runtime.events import Event
    from ..runtime.state import RunState
    from .moves import Move

#: "No limit". Counts stay Python ints everywhere else, so a ceiling of 2**63 inferences is
#: exact: a float would round it.
INFINITE = float("inf")
#: A count of inferences: an exact int, or INFINITE.
Calls = int | float


@dataclass
class Node:
    key: tuple
    #: The state the node stands for, reached with the fewest iterations (dropped once the
    #: visit is explored: its exits keep the states later steps need).
    state: "RunState | None"
    parent: int | None
    move: Move | None
    #: Plain tool calls can go on here without changing the key.
    paddable: bool = False
    #: The visit's iteration count at which padding is interrupted (None: it never is).
    pad_limit: int | None = None


@dataclass
class Exit:
    """One way the visit ends: an edge (`("edge", target, condition)`), or the run's end
    (`("complete", via)`, `("fail", kind)`), with the final output it leaves behind and what
    it carries into the next visit (`carried`; a fan-out hand-off only)."""

    key: tuple
    final_output: str | None
    #: Where it was first found: the node it leaves from and the move that leaves.
    node: int
    move: Move
    #: The state before the move's last event, that event, and what it produced.
    pre: "RunState"
    event: "Event"
    after: "RunState"
    actions: tuple["Action", ...]
    #: The most inferences (stage replies and routing answers) a visit ending here makes.
    max_calls: Calls = 0
    #: "failure" when an inference, routing call or worker failed (the runner then resolves an
    #: error), else "end": the same exit can have both causes, which other budgets tell apart.
    cause: str = "end"

    @property
    def kind(self) -> str:
        return self.key[0]

    @property
    def carry(self) -> tuple | None:
        return self.key[4]

    @property
    def target(self) -> str | None:
        return self.key[1] if self.kind == "edge" else None

    @property
    def condition(self) -> str | None:
        return self.key[2] if self.kind == "edge" else None


@dataclass
class VisitResult:
    stage: str
    nodes: list[Node]
    exits: list[Exit]
    #: The most inferences any visit makes (INFINITE when a model can keep working for ever).
    max_calls: Calls
    #: A node from which plain tool calls never end the visit, if there is one.
    endless: int | None = None
    truncated: bool = False

    def path(self, node: int) -> list[Move]:
        """The moves from the visit's start to `node`."""
        out: list[Move] = []
        current = self.nodes[node]
        while current.parent is not None:
            assert current.move is not None, "a node other than the start is reached by a move"
            out.append(current.move)
            current = self.nodes[current.parent]
        return out[::-1]

    def witness(self, exit: Exit) -> list[Move]:
        return self.path(exit.node) + [exit.move]
