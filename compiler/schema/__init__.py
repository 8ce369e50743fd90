"""The schema layer: the raw TOML document checked against `schemas/blueprint.schema.json`.

It sees the file exactly as written, before any default or alias is applied, and reports
shape problems only: wrong TOML types, unknown enumeration values, out-of-range numbers,
missing and unknown keys (the `schema` rule family, `compiler.rules.schema`, reports them). Meaning — references, graphs,
budgets — belongs to the structure and lint rules that run on the typed model.

This package holds what the check reads and no rule: the schema loaded and validated
(`validator.py`, jsonschema imported on first use), a fast pass for documents that are valid
(`precheck.py`) and the words findings use (`describe.py`). `schema_findings(document)` in
`compiler.rules.schema.findings` gives the findings without the rule machinery.
"""
