"""Start-up stays lean: `blueprint validate` imports only what checking a file needs.

Each test runs the command in a fresh interpreter and reads `sys.modules` afterwards, so a
module-level import anywhere on the path (a rule module pulling in networkx, a reporter
pulling in jinja2) fails here. docs/performance.md gives the cost of each module.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

#: Never needed to validate: the graph drawing library, templates, the round-trip TOML
#: library, package metadata (slow to import; the version is a constant), and the language
#: server with its protocol stack.
NEVER = ("networkx", "jinja2", "tomlkit", "importlib.metadata", "compiler.lsp", "pygls", "lsprotocol")
#: Needed only to explain a schema problem: a valid file is decided without it.
ONLY_ON_SCHEMA_ERRORS = ("jsonschema",)

EXAMPLE = ROOT / "blueprints" / "review-loop.leviath"
SCHEMA_ERROR = '[agent]\nname = "t"\n\n[stages.work]\nmode = "autonomus"\n\n[stages.work.transitions]\n'

_PROBE = """
import json, sys
from compiler.cli.main import main
try:
    main(sys.argv[2:])
except SystemExit as done:
    code = done.code
watched = json.loads(sys.argv[1])
print(json.dumps({"exit": code, "loaded": [m for m in watched if m in sys.modules]}), file=sys.stderr)
"""


def imported_by(*args: str) -> tuple[int, list[str]]:
    """Exit code of `blueprint ARGS` and which watched modules it left in sys.modules."""
    watched = json.dumps([*NEVER, *ONLY_ON_SCHEMA_ERRORS])
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, watched, *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["exit"], report["loaded"]


def test_validating_a_valid_blueprint_imports_no_heavy_module() -> None:
    code, loaded = imported_by("validate", str(EXAMPLE))
    assert code == 0
    assert loaded == [], f"blueprint validate imported {loaded}"


@pytest.mark.parametrize("output_format", ["json", "github"])
def test_machine_formats_import_no_heavy_module(output_format: str) -> None:
    code, loaded = imported_by("validate", "--format", output_format, str(EXAMPLE))
    assert code == 0
    assert loaded == [], f"blueprint validate --format {output_format} imported {loaded}"


def test_sarif_reads_package_metadata_and_nothing_heavier() -> None:
    """SARIF names the tool's home page from the installed package's metadata (only there)."""
    code, loaded = imported_by("validate", "--format", "sarif", str(EXAMPLE))
    assert code == 0
    assert loaded == ["importlib.metadata"]


def test_a_schema_error_brings_in_jsonschema_and_nothing_else(tmp_path: Path) -> None:
    """jsonschema explains what is wrong; the other heavy modules stay out even then (and
    this shows the probe does see a lazily imported module)."""
    broken = tmp_path / "agent.leviath"
    broken.write_text(SCHEMA_ERROR, encoding="utf-8")
    code, loaded = imported_by("validate", str(broken))
    assert code == 1
    assert loaded == ["jsonschema"]


def test_a_directory_of_blueprints_imports_no_heavy_module() -> None:
    code, loaded = imported_by("validate", str(ROOT / "blueprints"))
    assert code == 0
    assert loaded == []
