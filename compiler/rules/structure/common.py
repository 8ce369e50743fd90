"""The shared rule helpers the structure modules use."""

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

__all__ = [
    "stage_path",
    "edge_path",
    "header",
    "raw_table",
    "edges",
    "layouts",
    "raw_region_tables",
    "quoted",
    "suggest",
    "did_you_mean",
    "string_entries",
]
