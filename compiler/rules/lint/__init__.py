"""Lint rules: checks over a blueprint that Leviath accepts but that make runs misbehave.

Importing this package registers every lint check (one module per family of checks).
"""

from . import (
    budgets,
    declarations,
    deliverables,
    edge_order,
    escapes,
    gates,
    graph,
    installation,
    outdated,
    outputs,
    placeholders,
    security,
    seeds,
    spawn,
    spellings,
    tool_policies,
    tools,
)

__all__ = [
    "budgets",
    "declarations",
    "deliverables",
    "edge_order",
    "escapes",
    "gates",
    "graph",
    "installation",
    "outdated",
    "outputs",
    "placeholders",
    "security",
    "seeds",
    "spawn",
    "spellings",
    "tool_policies",
    "tools",
]
