"""What a rule needs besides its `define` (docs/architecture.md, "Adding a rule"), as a list of
the pieces missing: the suite holds every registered rule to it (`tests/test_rule_contract.py`)
and `tests/test_rule_recipe.py` shows it naming each piece for a rule added from nothing."""

from __future__ import annotations

import re
from pathlib import Path

from compiler.rulebook.registry import CHECKED_FAMILIES, Registry, Rule

#: Codes no checked-in case can fire, and the test that shows each firing instead.
FIRED_BY_A_TEST = {
    "file-too-large": ("tests/test_reading.py", "test_huge_file_is_refused_up_front", "a file over 8 MiB"),
    "internal-error": ("tests/test_rule_contract.py", "test_a_crashing_check_becomes_an_internal_error", "a bug"),
}
_REFERENCE_RULE = re.compile(r"\b[PV]\d+\b")
_SLUG = re.compile(r"\b[a-z0-9]+(?:-[a-z0-9]+)+\b")
_ROW = re.compile(r"^\| *`?(?P<key>[^|`]+?)`? *\|(?P<rest>.*)\|$", re.M)


def case_folder(root: Path, rule: Rule) -> Path:
    return root / "tests" / ("check_cases" if rule.family == "analysis" else "cases") / rule.code


def harness(rule: Rule) -> str:
    return "tests/test_analysis_golden.py" if rule.family == "analysis" else "tests/test_golden.py"


def missing_pieces(rule: Rule, root: Path, registry: Registry) -> list[str]:
    """Each piece `rule` lacks in the checkout at `root`, as the instruction that adds it."""
    return [
        *_cases(rule, root),
        *_check(rule, registry),
        *_fix(rule, root),
        *_docs(rule, root),
        *_mapping(rule, root),
    ]


def _cases(rule: Rule, root: Path) -> list[str]:
    if rule.code in FIRED_BY_A_TEST:
        path, test, _why = FIRED_BY_A_TEST[rule.code]
        text = (root / path).read_text(encoding="utf-8")
        shown = f"def {test}(" in text and rule.code in text
        return [] if shown else [f"{path}::{test} should show {rule.code} firing"]
    folder = case_folder(root, rule)
    names = sorted(p.stem for p in folder.glob("*.leviath"))
    where = folder.relative_to(root).as_posix()
    missing = []
    if not any(not n.startswith("ok-") for n in names):
        missing.append(f"a case that fires it ({where}/<name>.leviath)")
    if not any(n.startswith("ok-") for n in names):
        missing.append(f"a near miss that must stay silent ({where}/ok-<name>.leviath)")
    if not missing:
        return []
    return [
        f"rule {rule.code} needs {' and '.join(missing)}; then write their reports with "
        f"`UPDATE_GOLDEN=1 pytest {harness(rule)}` and read them"
    ]


def _check(rule: Rule, registry: Registry) -> list[str]:
    if rule.family not in CHECKED_FAMILIES or any(rule in c.rules for c in registry.checks):
        return []
    return [
        f"no check declares {rule.code}: add it to the `@{rule.family.upper()}.check(...)` of the function that "
        f"reports it ({rule.module.replace('.', '/')}.py), or nothing can ever report it"
    ]


def _fix(rule: Rule, root: Path) -> list[str]:
    if not rule.fixable:
        return []
    folder = case_folder(root, rule)
    firing = {p.name for p in folder.glob("*.leviath") if not p.stem.startswith(("ok-", "unfixable-"))}
    fixed = {p.name for p in (root / "tests" / "fixes" / rule.code).glob("*.leviath")}
    if firing & fixed:
        return []
    return [
        f"rule {rule.code} has a fixer but no golden fix: add a firing case to {folder.relative_to(root).as_posix()} "
        f"and write tests/fixes/{rule.code}/ with `UPDATE_GOLDEN=1 pytest tests/test_fix.py`"
    ]


def _docs(rule: Rule, root: Path) -> list[str]:
    if (root / rule.doc_path).exists():
        return []  # whether it is current: tests/test_rule_docs.py
    return [f"no {rule.doc_path}: run `python -m compiler.render.rule_docs` and commit it"]


def _mapping(rule: Rule, root: Path) -> list[str]:
    page = root / "docs" / "leviath-mapping.md"
    text = page.read_text(encoding="utf-8") if page.exists() else ""
    if rule.leviath is None:
        own = text.split("Checks of our own", 1)[1] if "Checks of our own" in text else ""
        if f"`{rule.code}`" in own:
            return []
        return [f"docs/leviath-mapping.md: name `{rule.code}` in the list of checks of our own (it has no `leviath`)"]
    rows = {m["key"].strip(): m["rest"] for m in _ROW.finditer(text)}
    named = sorted(set(_REFERENCE_RULE.findall(rule.leviath)) | set(_SLUG.findall(rule.leviath)))
    return [
        f"docs/leviath-mapping.md: the row of {name} (its `leviath` names it) must list `{rule.code}`"
        for name in named
        if f"`{rule.code}`" not in rows.get(name, "")
    ]
