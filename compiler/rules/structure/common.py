"""The shared rule helpers the structure modules use."""

from __future__ import annotations

from ..common import (
    did_you_mean,
    edge_path,
    edges,
    header,
    layouts,
    quoted,
    raw_region_tables,
    raw_table,
    stage_path,
    string_entries,
    suggest,
)

__all__ = [
    "did_you_mean",
    "edge_path",
    "edges",
    "header",
    "layouts",
    "quoted",
    "raw_region_tables",
    "raw_table",
    "stage_path",
    "string_entries",
    "suggest",
]
