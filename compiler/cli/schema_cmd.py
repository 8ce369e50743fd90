"""`blueprint schema [blueprint|ir|report|scenario|catalog]`: print a published JSON Schema,
byte for byte, or a schema catalog that points at the installed copies.

The catalog has the shape of SchemaStore's (`catalog.json`), so editors and tools that read
catalogs (Taplo's `--schema-catalog`, Even Better TOML's `evenBetterToml.schema.catalogs`)
associate `agent.leviath` and `*.leviath` files with the blueprint schema, `*.ir.json` files
with the IR schema and `*.scenarios.toml` with the scenario schema, without a directive in
each file. Its URLs are `file://` URLs of
this installation's schemas: write the catalog again after upgrading or moving it.
"""

from __future__ import annotations

import json

import click

from .errors import CliError, emit

SCHEMAS = ("blueprint", "ir", "report", "scenario")
CATALOG = "catalog"
#: What the catalog says of each schema: (name, description, the file names it applies to).
CATALOG_ENTRIES: dict[str, tuple[str, str, list[str]]] = {
    "blueprint": (
        "Agent blueprint (Leviath)",
        "Agent blueprint: stages, transitions, gates and context regions (agent.leviath)",
        ["agent.leviath", "*.leviath"],
    ),
    "ir": ("Agent blueprint IR", "A compiled agent blueprint (blueprint compile)", ["*.ir.json"]),
    "report": ("blueprint validate report", "The JSON report of blueprint validate --format json", []),
    "scenario": (
        "Blueprint scenarios",
        "Scripted runs of a blueprint with expectations (blueprint test)",
        ["*.scenarios.toml"],
    ),
}


@click.command("schema")
@click.argument("name", type=click.Choice([*SCHEMAS, CATALOG]), default="blueprint", required=False)
def command(name: str) -> None:
    """Print the JSON Schema of a blueprint (default), of the IR, of the JSON report, or of a
    scenario file; or a catalog of the installed schemas, for editors."""
    from ..resources import schema_path

    if name == CATALOG:
        emit(catalog_text())
        return
    try:
        text = schema_path(name).read_text(encoding="utf-8")
    except (ValueError, OSError) as exc:
        raise CliError(f"cannot print the '{name}' schema: {exc}") from exc
    emit(text if text.endswith("\n") else text + "\n")


def catalog_text() -> str:
    """The catalog (SchemaStore's format, version 1) of the schemas this installation ships."""
    from ..resources import schema_path

    schemas = []
    for name, (title, description, file_match) in CATALOG_ENTRIES.items():
        try:
            url = schema_path(name).resolve().as_uri()
        except (ValueError, OSError) as exc:
            raise CliError(f"cannot write the catalog: {exc}") from exc
        entry = {"name": title, "description": description, "fileMatch": file_match, "url": url}
        schemas.append({key: value for key, value in entry.items() if value != []})
    document = {"$schema": "https://json.schemastore.org/schema-catalog.json", "version": 1, "schemas": schemas}
    return json.dumps(document, indent=2) + "\n"
