"""Find the published JSON Schemas, wherever the package was installed from.

In a checkout (editable install) the schemas live in the top-level `schemas/` folder, where
editors and CI point at them; a wheel carries a copy inside the package, at
`compiler/schemas/` (the hatch `force-include` in pyproject.toml). The package copy wins when
both exist, so an installed tool never reads a stray checkout.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

#: The schemas we publish, by the name users type (`blueprint schema ir`).
SCHEMA_NAMES: tuple[str, ...] = ("blueprint", "ir", "report", "scenario")


def _file_name(name: str) -> str:
    if name not in SCHEMA_NAMES:
        raise ValueError(f"unknown schema {name!r}; expected one of: {', '.join(SCHEMA_NAMES)}")
    return f"{name}.schema.json"


def _candidates(name: str) -> list[Path]:
    file_name = _file_name(name)
    # The package's own folder, as `importlib.resources.files("compiler")` gives it for an
    # installed (not zipped) package; importing importlib.resources would cost start-up time.
    packaged = Path(__file__).parent / "schemas" / file_name
    return [packaged, Path(__file__).resolve().parent.parent / "schemas" / file_name]


def schema_path(name: str) -> Path:
    """The file of the published schema `name` (`blueprint`, `ir` or `report`).

    Raises `ValueError` for an unknown name and `FileNotFoundError` when the schema is not
    shipped with this installation.
    """
    candidates = _candidates(name)
    for path in candidates:
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"the {name} schema is not installed (looked in: {', '.join(str(p.parent) for p in candidates)})"
    )


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema `name`, read once per process. Shared: do not mutate it."""
    return json.loads(schema_path(name).read_text(encoding="utf-8"))


__all__ = ["SCHEMA_NAMES", "load_schema", "schema_path"]
