"""What a rule is, below every layer that defines one: the registry (`registry.py`: `Rule`, the
family registrars, `REGISTRY`), the fixer contract (`fixers.py`) and the building blocks of
rule examples (`snippets.py`). Standard library and `compiler.diagnostics` only, so the parse
layer, the configuration and every rule family can import it."""
