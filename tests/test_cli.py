"""The `blueprint` command group: start-up, help, version, errors, rules, rule, schema."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from compiler.cli.app import COMMANDS
from compiler.rulebook.registry import REGISTRY
from tests.conftest import invoke_cli
from tests.helpers import ROOT


def run_python(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("BLUEPRINT_DEBUG", None)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


# --- the group ----------------------------------------------------------------------------


def test_help_lists_every_command_without_importing_any() -> None:
    probe = (
        "import sys\n"
        "from compiler.cli.app import cli\n"
        "try:\n"
        "    cli.main(['--help'], prog_name='blueprint')\n"
        "except SystemExit as exit:\n"
        "    assert exit.code == 0, exit.code\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('compiler.cli.') and m.endswith('_cmd'))\n"
        "heavy = sorted(m for m in ('jsonschema', 'networkx', 'jinja2') if m in sys.modules)\n"
        "print('LOADED', loaded, heavy)\n"
    )
    result = run_python("-c", probe)
    assert result.returncode == 0, result.stderr
    assert "LOADED [] []" in result.stdout
    for name, (_, summary) in COMMANDS.items():
        assert f"  {name}" in result.stdout and summary[:30] in result.stdout


def test_every_registered_command_loads() -> None:
    for name in COMMANDS:
        result = invoke_cli(name, "--help")
        assert result.exit_code == 0, (name, result.output)
        assert result.stdout.startswith("Usage: ") and f" {name} " in result.stdout.splitlines()[0]


def test_version_matches_the_distribution() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    result = invoke_cli("--version")
    assert result.exit_code == 0
    assert result.stdout == f"blueprint {project['version']}\n"


def test_an_unknown_command_suggests_the_closest() -> None:
    result = invoke_cli("valdate")
    assert result.exit_code == 2
    assert "no such command 'valdate'" in result.stderr and "'validate'" in result.stderr


def test_an_unknown_option_is_a_usage_error() -> None:
    assert invoke_cli("validate", "--no-such-flag").exit_code == 2


# --- rules and rule -----------------------------------------------------------------------


def test_rules_lists_every_code() -> None:
    result = invoke_cli("rules")
    assert result.exit_code == 0
    listed = {line.split()[0] for line in result.stdout.splitlines()[1:] if line and not line[0].isdigit()}
    assert listed == set(REGISTRY.rules)


def test_rules_as_json() -> None:
    result = invoke_cli("rules", "--format", "json")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert [r["code"] for r in document["rules"]] == [r.code for r in REGISTRY.all()]
    assert {"code", "severity", "family", "summary", "rationale", "example", "fix", "leviath"} <= set(
        document["rules"][0]
    )


def test_rule_explains_every_code() -> None:
    for info in REGISTRY.all():
        result = invoke_cli("rule", info.code)
        assert result.exit_code == 0, info.code
        assert result.stdout.startswith(f"# {info.code}\n")
        assert info.summary in result.stdout and "## Why" in result.stdout and "## Fix" in result.stdout
        assert info.example.splitlines()[0] in result.stdout
        if info.leviath:
            assert f"Leviath: {info.leviath}" in result.stdout


def test_rule_json() -> None:
    document = json.loads(invoke_cli("rule", "toml-syntax", "--format", "json").stdout)
    assert document["code"] == "toml-syntax" and document["leviath"] == "P1"


def test_an_unknown_rule_exits_2_with_a_suggestion() -> None:
    result = invoke_cli("rule", "toml-syntx")
    assert result.exit_code == 2 and result.stdout == ""
    assert "'toml-syntx'" in result.stderr and "'toml-syntax'" in result.stderr


# --- schema -------------------------------------------------------------------------------


def test_schema_report_prints_the_published_file() -> None:
    result = invoke_cli("schema", "report")
    assert result.exit_code == 0
    assert result.stdout == (ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8")


def test_schema_defaults_to_the_blueprint_schema() -> None:
    result = invoke_cli("schema")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == json.loads((ROOT / "schemas" / "blueprint.schema.json").read_text())


def test_a_missing_schema_exits_2(monkeypatch: pytest.MonkeyPatch) -> None:
    import compiler.resources as resources

    def missing(name: str) -> Path:
        raise FileNotFoundError(f"the {name} schema is not installed")

    monkeypatch.setattr(resources, "schema_path", missing)
    result = invoke_cli("schema", "ir")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == ["Error: cannot print the 'ir' schema: the ir schema is not installed"]


def test_an_unknown_schema_name_is_a_usage_error() -> None:
    assert invoke_cli("schema", "nope").exit_code == 2


# --- real processes -----------------------------------------------------------------------


def test_python_dash_m_compiler(tmp_path: Path) -> None:
    bad = tmp_path / "bad.leviath"
    bad.write_text('[agent]\nname = "x\n', encoding="utf-8")
    result = run_python("-m", "compiler", "validate", str(bad))
    assert result.returncode == 1, result.stderr
    assert "error[toml-syntax]" in result.stdout and "Traceback" not in result.stderr
    missing = run_python("-m", "compiler", "validate", str(tmp_path / "nope"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1


def test_the_console_script() -> None:
    script = Path(sys.executable).with_name("blueprint")
    if not script.exists():
        pytest.skip("the package is not installed in this environment (no console script)")
    result = subprocess.run(
        [str(script), "validate", str(ROOT / "blueprints")], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 errors" in result.stdout


def test_the_suite_drives_the_command_line_through_one_helper() -> None:
    """`tests.conftest.invoke_cli` is the one place a test module builds click's runner."""
    here = Path(__file__).parent
    needle = "CliRunner" + "("  # spelt in two so that this file does not hold it
    builders = sorted(p.name for p in here.glob("*.py") if needle in p.read_text(encoding="utf-8"))
    assert builders == ["conftest.py"]
