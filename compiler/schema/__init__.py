"""The schema layer: the raw TOML document checked against `schemas/blueprint.schema.json`.

It sees the file exactly as written, before any default or alias is applied, and reports
shape problems only: wrong TOML types, unknown enumeration values, out-of-range numbers,
missing and unknown keys (`rules.py` declares the codes). Meaning — references, graphs,
budgets — belongs to the structure and lint rules that run on the typed model.

`schema_findings(document)` gives the findings without the rule machinery, for tools that
only need the shape check. jsonschema itself is imported on first use.
"""

from __future__ import annotations

from .findings import Finding, schema_findings

__all__ = ["Finding", "schema_findings"]
