"""The jinja2 environment of every generated page: our templates, strict about undefined names.

Blueprint pages and rule pages share one loader and one set of whitespace rules, so a
template behaves the same whichever page it belongs to. jinja2 is imported on first use:
validating never needs it.
"""

from __future__ import annotations

from typing import Any


def template_environment(*, autoescape: bool) -> Any:
    """A new environment over `compiler/render/templates/` (callers add their own filters)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(
        loader=PackageLoader("compiler.render", "templates"),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=autoescape,
    )
