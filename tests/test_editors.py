"""docs/editors.md's schema recipes, run with the `taplo` command: each reports a wrong type
in a `.leviath` file, and without the documented `include` nothing is checked, as the page
says. And every published schema has its own `$id`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from compiler.ir.serialize import IR_VERSION
from compiler.resources import SCHEMA_NAMES, schema_path
from tests.conftest import invoke_cli
from tests.helpers import ROOT

#: The `taplo` package installs the command beside this Python.
TAPLO = shutil.which("taplo") or str(Path(sys.executable).parent / "taplo")
needs_taplo = pytest.mark.skipif(not Path(TAPLO).is_file(), reason="taplo is not installed (pip install taplo)")

#: `max_iterations` must be an integer.
WRONG_TYPE = '[agent]\nname = "coder"\n\n[stages.work]\nmode = "output"\nmax_iterations = "ten"\n'
INCLUDE = 'include = ["**/*.toml", "**/*.leviath"]\n'
RULE = '\n[[rule]]\ninclude = ["**/agent.leviath", "**/*.leviath"]\n\n[rule.schema]\npath = "./schemas/blueprint.schema.json"\n'


def project(tmp_path: Path, blueprint: str = WRONG_TYPE) -> Path:
    (tmp_path / "schemas").mkdir()
    result = invoke_cli("schema", "blueprint")
    (tmp_path / "schemas" / "blueprint.schema.json").write_text(result.stdout, encoding="utf-8")
    agent = tmp_path / "agents" / "coder" / "agent.leviath"
    agent.parent.mkdir(parents=True)
    agent.write_text(blueprint, encoding="utf-8")
    return agent


def taplo(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TAPLO, "check", "--colors", "never", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def reports_wrong_type(done: subprocess.CompletedProcess[str]) -> bool:
    return done.returncode != 0 and '"ten" is not of type "integer"' in done.stdout + done.stderr


@needs_taplo
def test_taplo_toml_with_a_rule_reports_the_wrong_type(tmp_path: Path) -> None:
    project(tmp_path)
    (tmp_path / ".taplo.toml").write_text(INCLUDE + RULE, encoding="utf-8")
    done = taplo(tmp_path, "agents/coder/agent.leviath")
    assert reports_wrong_type(done), done.stdout + done.stderr
    assert "agent.leviath:6:18" in done.stdout + done.stderr


@needs_taplo
def test_without_the_include_taplo_checks_nothing(tmp_path: Path) -> None:
    project(tmp_path, "#:schema ../../schemas/blueprint.schema.json\n\n" + WRONG_TYPE)
    (tmp_path / ".taplo.toml").write_text(RULE, encoding="utf-8")
    done = taplo(tmp_path, "agents/coder/agent.leviath")
    assert done.returncode == 0 and "is not of type" not in done.stdout + done.stderr
    (tmp_path / ".taplo.toml").write_text(INCLUDE + RULE, encoding="utf-8")
    assert reports_wrong_type(taplo(tmp_path, "agents/coder/agent.leviath"))  # the include was all it lacked


@needs_taplo
@pytest.mark.parametrize(
    "header",
    ["#:schema ../../schemas/blueprint.schema.json\n\n", '"$schema" = "../../schemas/blueprint.schema.json"\n\n'],
    ids=["directive", "root-key"],
)
def test_a_schema_named_in_the_file_reports_the_wrong_type(tmp_path: Path, header: str) -> None:
    project(tmp_path, header + WRONG_TYPE)
    (tmp_path / ".taplo.toml").write_text(INCLUDE, encoding="utf-8")
    done = taplo(tmp_path, "agents/coder/agent.leviath")
    assert reports_wrong_type(done), done.stdout + done.stderr


@needs_taplo
def test_the_catalog_associates_leviath_files(tmp_path: Path) -> None:
    project(tmp_path)
    (tmp_path / ".taplo.toml").write_text(INCLUDE, encoding="utf-8")
    catalog = tmp_path / ".blueprint-catalog.json"
    catalog.write_text(invoke_cli("schema", "catalog").stdout, encoding="utf-8")
    assert reports_wrong_type(taplo(tmp_path, "--schema-catalog", catalog.as_uri(), "agents/coder/agent.leviath"))
    assert not reports_wrong_type(taplo(tmp_path, "agents/coder/agent.leviath"))  # the catalog is what did it


def test_the_catalog_points_at_the_installed_schemas() -> None:
    document = json.loads(invoke_cli("schema", "catalog").stdout)
    assert document["version"] == 1
    by_name = {entry["url"].rsplit("/", 1)[-1]: entry for entry in document["schemas"]}
    assert set(by_name) == {f"{name}.schema.json" for name in SCHEMA_NAMES}
    for name in SCHEMA_NAMES:
        entry = by_name[f"{name}.schema.json"]
        assert entry["url"] == schema_path(name).resolve().as_uri() and "example" not in entry["url"]
    assert by_name["blueprint.schema.json"]["fileMatch"] == ["agent.leviath", "*.leviath"]
    assert "example.com" not in (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")


def test_every_published_schema_has_its_own_id() -> None:
    ids = {}
    for name in SCHEMA_NAMES:
        schema = json.loads(schema_path(name).read_text(encoding="utf-8"))
        assert list(schema)[:2] == ["$schema", "$id"]
        ids[name] = schema["$id"]
        jsonschema.Draft7Validator.check_schema(schema)
    assert ids == {
        "blueprint": "urn:agent-blueprint-compiler:schema:blueprint",
        "ir": f"urn:agent-blueprint-compiler:schema:ir:{IR_VERSION}",
        "report": "urn:agent-blueprint-compiler:schema:report:1",
        "scenario": "urn:agent-blueprint-compiler:schema:scenario",
    }
