"""The `schema` family: the raw document checked against `schemas/blueprint.schema.json`.

`codes.py` declares the codes, `check.py` the check; `findings.py` turns jsonschema's errors
into one plain finding per problem (jsonschema and the schema itself load on the first check).
"""
