"""Schema-layer rules (placeholder until the schema layer lands)."""
