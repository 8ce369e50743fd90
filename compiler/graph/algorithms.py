"""Graph algorithms over adjacency lists of node numbers, iterative and deterministic.

`StageGraph` numbers its stages in declaration order and hands these functions a list of
successor lists; nothing here knows about blueprints. Every walk visits successors in list
order and keeps explicit stacks, so results never depend on hashing and no input meets the
recursion limit.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Set

Adjacency = list[list[int]]


def breadth_first(adjacency: Adjacency, starts: Iterable[int], blocked: Set[int] = frozenset()) -> list[int]:
    """Nodes reached from `starts` in discovery order (starts first); `blocked` nodes are
    reached but not expanded."""
    seen = [False] * len(adjacency)
    order: list[int] = []
    queue: deque[int] = deque()
    for start in starts:
        if not seen[start]:
            seen[start] = True
            order.append(start)
            queue.append(start)
    while queue:
        current = queue.popleft()
        if current in blocked:
            continue
        for following in adjacency[current]:
            if not seen[following]:
                seen[following] = True
                order.append(following)
                queue.append(following)
    return order


def strongly_connected(adjacency: Adjacency) -> list[list[int]]:
    """Strongly connected components (Tarjan, with an explicit stack), each sorted, the list
    ordered by each component's smallest node."""
    n = len(adjacency)
    number = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    found: list[list[int]] = []
    counter = 0
    for root in range(n):
        if number[root] != -1:
            continue
        number[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work = [(root, 0)]
        while work:
            v, i = work[-1]
            if i < len(adjacency[v]):
                work[-1] = (v, i + 1)
                w = adjacency[v][i]
                if number[w] == -1:
                    number[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], number[w])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == number[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    component.append(w)
                    if w == v:
                        break
                found.append(sorted(component))
    found.sort(key=lambda component: component[0])
    return found


def condensation(adjacency: Adjacency) -> tuple[list[list[int]], list[int], list[int]]:
    """The strongly connected components, each node's component number, and the component
    numbers in topological order (every edge between two components goes forward)."""
    components = strongly_connected(adjacency)
    component_of = [0] * len(adjacency)
    for number, members in enumerate(components):
        for node in members:
            component_of[node] = number
    successors: list[set[int]] = [set() for _ in components]
    indegree = [0] * len(components)
    for number, members in enumerate(components):
        for node in members:
            for target in adjacency[node]:
                other = component_of[target]
                if other != number and other not in successors[number]:
                    successors[number].add(other)
                    indegree[other] += 1
    ready = [n for n in range(len(components)) if indegree[n] == 0]
    order: list[int] = []
    while ready:
        number = ready.pop()
        order.append(number)
        for other in sorted(successors[number]):
            indegree[other] -= 1
            if indegree[other] == 0:
                ready.append(other)
    return components, component_of, order


def postorder(adjacency: Adjacency, root: int) -> list[int]:
    """Depth-first postorder of the nodes reachable from `root`."""
    seen = {root}
    order: list[int] = []
    work = [(root, 0)]
    while work:
        v, i = work[-1]
        if i < len(adjacency[v]):
            work[-1] = (v, i + 1)
            w = adjacency[v][i]
            if w not in seen:
                seen.add(w)
                work.append((w, 0))
        else:
            work.pop()
            order.append(v)
    return order


class DominatorTree:
    """Immediate dominators from `root` (Cooper, Harvey and Kennedy's iterative algorithm),
    with pre/post numbers on the tree so `dominates` is a constant-time interval test."""

    def __init__(self, adjacency: Adjacency, root: int | None) -> None:
        self.idom: dict[int, int] = {}
        self._enter: dict[int, int] = {}
        self._leave: dict[int, int] = {}
        if root is None:
            return
        order = postorder(adjacency, root)
        rank = {v: i for i, v in enumerate(order)}
        predecessors: dict[int, list[int]] = {v: [] for v in order}
        for v in order:
            for w in adjacency[v]:
                predecessors[w].append(v)
        idom = {root: root}
        changed = True
        while changed:
            changed = False
            for v in reversed(order):  # reverse postorder
                if v == root:
                    continue
                new = None
                for p in predecessors[v]:
                    if p in idom:
                        new = p if new is None else _intersect(idom, rank, p, new)
                if new is not None and idom.get(v) != new:
                    idom[v] = new
                    changed = True
        self.idom = idom
        self._number_tree(root)

    def _number_tree(self, root: int) -> None:
        children: dict[int, list[int]] = {v: [] for v in self.idom}
        for v, parent in self.idom.items():
            if v != parent:
                children[parent].append(v)
        clock = 0
        work = [(root, False)]
        while work:
            v, done = work.pop()
            if done:
                self._leave[v] = clock
            else:
                self._enter[v] = clock
                work.append((v, True))
                work.extend((c, False) for c in reversed(children[v]))
            clock += 1

    def immediate(self, node: int) -> int | None:
        parent = self.idom.get(node)
        return None if parent is None or parent == node else parent

    def dominates(self, a: int, b: int) -> bool:
        if a not in self._enter or b not in self._enter:
            return False
        return self._enter[a] <= self._enter[b] and self._leave[b] <= self._leave[a]


def _intersect(idom: dict[int, int], rank: dict[int, int], a: int, b: int) -> int:
    while a != b:
        while rank[a] < rank[b]:
            a = idom[a]
        while rank[b] < rank[a]:
            b = idom[b]
    return a
