"""The checks, by family: `schema` (the JSON Schema layer), `structure` (the typed model: what
Leviath refuses, and references) and `lint` (the graph and the declarations).

Each module declares its rules with its family's registrar from `compiler.rulebook.registry`
and registers the checks that report them; `RuleContext` (`context.py`) is what a check reads.
"""
