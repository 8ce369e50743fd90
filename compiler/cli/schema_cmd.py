"""`blueprint schema [blueprint|ir|report|scenario]`: print a published JSON Schema, byte for byte."""

from __future__ import annotations

import click

from .errors import CliError, emit

SCHEMAS = ("blueprint", "ir", "report", "scenario")


@click.command("schema")
@click.argument("name", type=click.Choice(SCHEMAS), default="blueprint", required=False)
def command(name: str) -> None:
    """Print the JSON Schema of a blueprint (default), of the IR, of the JSON report, or of a scenario file."""
    from ..resources import schema_path

    try:
        text = schema_path(name).read_text(encoding="utf-8")
    except (ValueError, OSError) as exc:
        raise CliError(f"cannot print the '{name}' schema: {exc}") from exc
    emit(text if text.endswith("\n") else text + "\n")
