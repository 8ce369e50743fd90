"""Pieces several commands share: colour choice and comma-separated option lists."""

from __future__ import annotations

import os
import sys
from typing import IO, Iterable

import click

color_option = click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the output; 'auto' colours a terminal unless NO_COLOR is set (FORCE_COLOR forces it).",
)


def use_color(choice: str, stream: IO | None = None) -> bool:
    """Whether to colour `stream`: the flag, then NO_COLOR, then FORCE_COLOR, then is it a TTY.

    Only a non-empty NO_COLOR or FORCE_COLOR counts (no-color.org); click reads neither.
    """
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return is_terminal(stream if stream is not None else sys.stdout)


def is_terminal(stream: IO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


def split_names(values: Iterable[str] | None) -> tuple[str, ...] | None:
    """`("a,b", "c")` → `("a", "b", "c")`; None when the option was not given at all."""
    if not values:
        return None
    return tuple(name.strip() for value in values for name in value.split(",") if name.strip())
