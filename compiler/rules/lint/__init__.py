"""Lint rules: checks over a blueprint that Leviath accepts but that make runs misbehave.

Importing this package registers every lint check (one module per family of checks).
"""

from . import budgets, escapes, graph
from . import declarations, deliverables, gates, outputs, placeholders, security, seeds, spawn, tool_policies, tools
from . import edge_order, installation, outdated, spellings

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
