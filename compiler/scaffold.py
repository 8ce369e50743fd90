"""Blueprints to start from (`blueprint new`): a commented `agent.leviath` and the `tools/`
scripts it grants, rendered from the jinja2 templates in `compiler/templates/<template>/`.

Every template passes `blueprint validate` and `blueprint check` with no error and no
warning (the tests run both on each), so a new agent starts from something sound. Rendering
is pure: the CLI writes the files.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: Template name → what it gives you (`blueprint new --list`).
TEMPLATES: dict[str, str] = {
    "linear": "three stages in file order; the last one hands back the result",
    "review-loop": "draft and review until approved: revisit budgets, a dead_end way out, an error stage",
    "fan-out": "split the work, workers in parallel, merge their results",
    "interactive": "a plan the user approves at an interaction point, then carried out",
}
DEFAULT_TEMPLATE = "linear"
#: An agent name that is also a safe folder name.
AGENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_SUFFIX = ".j2"


def render_template(template: str, name: str) -> dict[str, str]:
    """Every file of `template` for an agent called `name`: path (relative, `/`-separated) →
    text. `ValueError` for an unknown template or a name that is not a plain folder name."""
    if template not in TEMPLATES:
        raise ValueError(f"unknown template '{template}'; choose one of: {', '.join(TEMPLATES)}")
    if not AGENT_NAME.fullmatch(name):
        raise ValueError(
            f"'{name}' cannot name an agent: use letters, digits, '.', '_' and '-' (starting with a letter or digit)"
        )
    environment = _environment()
    prefix = f"{template}/"
    return {
        path[len(prefix) : -len(_SUFFIX)]: environment.get_template(path).render(name=name)
        for path in environment.list_templates()
        if path.startswith(prefix) and path.endswith(_SUFFIX)
    }


def _environment() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined

    environment = Environment(
        loader=PackageLoader("compiler", "templates"),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # TOML and Rhai, not HTML: values go through the `toml` filter
    )
    environment.filters["toml"] = toml_string
    return environment


def toml_string(value: str) -> str:
    """`value` as a TOML basic string (JSON's escapes are TOML's, for a string)."""
    return json.dumps(value, ensure_ascii=False)


__all__ = ["DEFAULT_TEMPLATE", "TEMPLATES", "render_template"]
