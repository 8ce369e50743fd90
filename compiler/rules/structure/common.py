"""The structure family's name, and the shared rule helpers its modules use."""

from __future__ import annotations

from ..common import (
    stage_path,
    edge_path,
    header,
    raw_table,
    edges,
    layouts,
    raw_region_tables,
    quoted,
    suggest,
    did_you_mean,
    string_entries,
)

FAMILY = "structure"

__all__ = ["FAMILY", "stage_path", "edge_path", "header", "raw_table", "edges", "layouts", "raw_region_tables", "quoted", "suggest", "did_you_mean", "string_entries"]
