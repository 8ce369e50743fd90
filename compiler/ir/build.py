"""Document → typed model (placeholder: only the stage names and order, until the builder lands)."""

from __future__ import annotations

from typing import Any

from .model import Blueprint, Stage


def build_blueprint(document: dict[str, Any]) -> Blueprint:
    stages = document.get("stages")
    if isinstance(stages, dict) and stages:
        return Blueprint(stages=tuple(Stage(name=str(n)) for n in stages))
    return Blueprint(default_stage=True)
