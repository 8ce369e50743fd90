"""The layers of docs/architecture.md hold: the import-linter contracts in pyproject.toml are kept,
and every module of the package is in a layer (a new one must say where it belongs)."""

from __future__ import annotations

import re
import tomllib

import pytest

from tests.helpers import ROOT

CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
#: Top-level entries of the package that are not code of a layer.
NOT_LAYERED = {"__init__", "__main__", "templates", "schemas"}


def _layer_names() -> set[str]:
    (layers,) = [c for c in CONFIG["contracts"] if c["type"] == "layers"]
    return {name.strip().strip("()") for layer in layers["layers"] for name in re.split(r"[|:]", layer)}


def test_every_module_of_the_package_is_in_a_layer() -> None:
    package = ROOT / "compiler"
    modules = {p.stem for p in package.glob("*.py")} | {
        p.name for p in package.iterdir() if p.is_dir() and (p / "__init__.py").exists()
    }
    unlayered = sorted(modules - NOT_LAYERED - _layer_names())
    assert not unlayered, f"add {unlayered} to the layers contract in pyproject.toml and to docs/architecture.md"


def test_the_architecture_page_lists_the_same_layers() -> None:
    """Every layer of the contract is named on the page (`(name)` marks an optional one)."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = sorted(name for name in _layer_names() if f"`{name}`" not in page)
    assert not missing, f"docs/architecture.md does not name the layers {missing}"


def test_the_import_contracts_are_kept(capsys: pytest.CaptureFixture[str]) -> None:
    cli = pytest.importorskip("importlinter.cli", reason="import-linter is not installed (the [test] extra has it)")
    status = cli.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert status == 0, report
    assert f"Contracts: {len(CONFIG['contracts'])} kept, 0 broken" in report
