"""One-step rules: a module under `compiler/rules/` that defines a rule registers it; a module
anywhere in the package that defines a rule and is not loaded fails here by name; the registry
imports nothing above it; and docs/architecture.md's "Adding a rule" is complete: a rule added
from nothing, in a temporary package, is told each missing piece, and nothing once they are in.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compiler.rulebook import registry as registry_module
from compiler.rulebook.registry import LINT, REGISTRY, Registry, RegistryIncomplete
from compiler.rules import load_rule_modules
from tests.helpers import ROOT
from tests.rule_recipe import missing_pieces

PACKAGE = ROOT / "compiler"
#: The registrars a module defines rules with (`SYNTAX.define(...)`, `LINT.define(...)`, …).
REGISTRARS = {"SYNTAX", "SCHEMA", "STRUCTURE", "LINT", "ANALYSIS", "META"}


def modules_defining_rules(folder: Path, package: str) -> set[str]:
    """The modules below `folder` whose code calls `<REGISTRAR>.define(...)`."""
    found = set()
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "define"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in REGISTRARS
            ):
                parts = path.relative_to(folder).with_suffix("").parts
                found.add(".".join((package, *parts[: -1 if parts[-1] == "__init__" else None])))
                break
    return found


def not_loaded(folder: Path, package: str, registry: Registry) -> list[str]:
    loaded = {rule.module for rule in registry.rules.values()}
    return sorted(modules_defining_rules(folder, package) - loaded)


def test_every_module_that_defines_a_rule_is_loaded() -> None:
    defining = modules_defining_rules(PACKAGE, "compiler")
    assert "compiler.rules.lint.gates" in defining and "compiler.pipeline" in defining  # the scan finds them
    missing = not_loaded(PACKAGE, "compiler", REGISTRY)
    assert not missing, f"these modules define rules that are not registered (never imported): {missing}"


def test_the_registry_imports_nothing_above_it() -> None:
    """Not even by name: `importlib` and `__import__` are imports the layer check cannot see."""
    for path in sorted((PACKAGE / "rulebook").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
            for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and id(node) not in typing_only:
                module = node.module or ""
                inside = node.level == 0 and module.startswith("compiler.")
                assert (node.level <= 2 and not inside) or module == "compiler.records", (path.name, module)
                if node.level == 2:
                    assert module in ("diagnostics", "records"), (path.name, module)
            if isinstance(node, ast.Import):
                assert all(not alias.name.startswith(("compiler", "importlib")) for alias in node.names), path.name
            if isinstance(node, ast.Name):
                assert node.id != "__import__", path.name
    assert not hasattr(registry_module, "RULE_MODULES")


def test_the_registry_refuses_to_answer_before_the_rules_are_loaded() -> None:
    fresh = Registry()
    with pytest.raises(RegistryIncomplete, match=r"import compiler\.pipeline"):
        fresh.get("unknown-stage")
    fresh.mark_complete()
    assert fresh.get("unknown-stage") is None and fresh.all() == []
    code = (
        "from compiler.rulebook.registry import REGISTRY, RegistryIncomplete\n"
        "try:\n    REGISTRY.all()\nexcept RegistryIncomplete:\n    print('refused')\n"
        "import compiler.pipeline\nprint(len(REGISTRY.all()) > 80)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.split() == ["refused", "True"]


# --- a rule added from nothing ------------------------------------------------------------------

RULE_MODULE = """
from compiler.rulebook.fixers import KeyFix
from compiler.rulebook.registry import LINT

STAGE_NAME_SHOUTS = LINT.define(
    "stage-name-shouts",
    severity="note",
    summary="A stage name is written in capitals.",
    rationale="Names are read aloud in reports.",
    example="[stages.PLAN]",
    fix="write the name in lower case",
    leviath="P7",
    fixer=KeyFix(lambda edits, finding: None),
)


@LINT.check(STAGE_NAME_SHOUTS)
def check_shouting(ctx):
    return []
"""
UNCHECKED_MODULE = """
from compiler.rulebook.registry import LINT

NOBODY_REPORTS = LINT.define(
    "nobody-reports", severity="note", summary="s", rationale="r", example="e", fix="f"
)
"""


@pytest.fixture
def new_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Registry]:
    """A package `newrules` with a `lint` sub-package holding two rule modules, and a fresh
    registry the `LINT` registrar writes into while the test runs."""
    package = tmp_path / "src" / "newrules"
    (package / "lint").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "lint" / "__init__.py").write_text("")
    (package / "lint" / "shouting.py").write_text(textwrap.dedent(RULE_MODULE))
    (package / "lint" / "unchecked.py").write_text(textwrap.dedent(UNCHECKED_MODULE))
    (package / "lint" / "helpers.py").write_text("WORDS = ()\n")  # a module without rules is fine
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    fresh = Registry()
    monkeypatch.setattr(LINT, "registry", fresh)
    yield package, fresh
    for name in [m for m in sys.modules if m == "newrules" or m.startswith("newrules.")]:
        del sys.modules[name]


def test_defining_a_rule_in_a_module_of_the_package_registers_it(new_rules) -> None:
    package, fresh = new_rules
    assert not_loaded(package, "newrules", fresh) == ["newrules.lint.shouting", "newrules.lint.unchecked"]
    loaded = load_rule_modules("newrules")
    assert loaded == ["newrules.lint", "newrules.lint.helpers", "newrules.lint.shouting", "newrules.lint.unchecked"]
    assert sorted(fresh.rules) == ["nobody-reports", "stage-name-shouts"]
    assert [c.name for c in fresh.checks] == ["newrules.lint.shouting.check_shouting"]
    assert not_loaded(package, "newrules", fresh) == []


def test_a_new_rule_is_told_every_missing_piece_until_it_has_them_all(new_rules, tmp_path: Path) -> None:
    load_rule_modules("newrules")
    _, fresh = new_rules
    fresh.mark_complete()
    rule = fresh.rules["stage-name-shouts"]
    root = tmp_path / "checkout"
    (root / "docs" / "rules").mkdir(parents=True)
    (root / "docs" / "leviath-mapping.md").write_text("| rule | what | codes | note |\n| P7 | a table | `x` | |\n")

    missing = missing_pieces(rule, root, fresh)
    assert len(missing) == 4, missing
    cases, fix, docs, mapping = missing
    assert "a case that fires it (tests/cases/stage-name-shouts/<name>.leviath)" in cases
    assert "a near miss that must stay silent (tests/cases/stage-name-shouts/ok-<name>.leviath)" in cases
    assert "UPDATE_GOLDEN=1 pytest tests/test_golden.py" in cases
    assert (
        fix.startswith("rule stage-name-shouts has a fixer but no golden fix")
        and "tests/fixes/stage-name-shouts/" in fix
    )
    assert docs == "no docs/rules/stage-name-shouts.md: run `python -m compiler.render.rule_docs` and commit it"
    assert mapping == "docs/leviath-mapping.md: the row of P7 (its `leviath` names it) must list `stage-name-shouts`"

    cases_folder = root / "tests" / "cases" / "stage-name-shouts"
    cases_folder.mkdir(parents=True)
    (cases_folder / "shouting.leviath").write_text("[stages.PLAN]\n")
    assert "a near miss" in missing_pieces(rule, root, fresh)[0]
    (cases_folder / "ok-quiet.leviath").write_text("[stages.plan]\n")
    (root / "tests" / "fixes" / "stage-name-shouts").mkdir(parents=True)
    (root / "tests" / "fixes" / "stage-name-shouts" / "shouting.leviath").write_text("[stages.plan]\n")
    (root / "docs" / "rules" / "stage-name-shouts.md").write_text("# stage-name-shouts\n")
    assert missing_pieces(rule, root, fresh) == [mapping]
    (root / "docs" / "leviath-mapping.md").write_text("| P7 | a table | `x`, `stage-name-shouts` | |\n")
    assert missing_pieces(rule, root, fresh) == []

    unchecked = fresh.rules["nobody-reports"]
    named = missing_pieces(unchecked, root, fresh)
    assert any(m.startswith("no check declares nobody-reports") for m in named)
    assert any("list of checks of our own" in m for m in named)  # no `leviath`: named as our own
