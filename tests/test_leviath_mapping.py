"""docs/leviath-mapping.md agrees with the registry: each reference rule (P1–P45, V1–V23) and each
of Leviath's lints maps to exactly the codes whose `leviath` field names it, and the list of
checks of our own is every rule that names none. The notes stay hand-written; the codes cannot
drift."""

from __future__ import annotations

import re

import pytest

from compiler.rulebook.registry import REGISTRY, Rule
from tests.helpers import ROOT

DOC = ROOT / "docs" / "leviath-mapping.md"
_ROW = re.compile(r"^\| *(?P<key>[^|]+?) *\| *(?P<rest>.*)\|$")
_CODE = re.compile(r"`([a-z0-9]+(?:-[a-z0-9]+)+)`")
_REFERENCE_RULE = re.compile(r"\b[PV]\d+\b")
_SLUG = re.compile(r"\b[a-z0-9]+(?:-[a-z0-9]+)+\b")


def section(title: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else None]


def table(title: str) -> dict[str, list[str]]:
    """First column → the other columns of each row of the section's table."""
    rows = {}
    for line in section(title).splitlines():
        match = _ROW.match(line)
        if match and not set(match["key"]) <= set("-") and match["key"] not in ("rule", "reference lint"):
            rows[match["key"].strip("`")] = [cell.strip() for cell in match["rest"].split("|")]
    return rows


def named_by(rule: Rule) -> tuple[set[str], set[str]]:
    """The reference rules and the lint slugs a rule's `leviath` field names."""
    field = rule.leviath or ""
    return set(_REFERENCE_RULE.findall(field)), set(_SLUG.findall(field))


def registry_map(kind: int) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for rule in REGISTRY.all():
        for name in named_by(rule)[kind]:
            out.setdefault(name, set()).add(rule.code)
    return out


@pytest.mark.parametrize("title", ["Parser rules (P1–P45)", "Validator rules (V1–V23)"])
def test_each_reference_rule_row_names_the_codes_that_claim_it(title: str) -> None:
    rows = table(title)
    claimed = registry_map(0)
    wrong = []
    for rule_id, (_, codes, _) in rows.items():
        listed, registry = set(_CODE.findall(codes)), claimed.get(rule_id, set())
        if listed != registry:
            wrong.append(f"{rule_id}: the page lists {sorted(listed)}, the `leviath` fields {sorted(registry)}")
    prefix = title[0]
    wrong += [
        f"{rule_id}: claimed by {sorted(codes)} but not on the page"
        for rule_id, codes in claimed.items()
        if rule_id.startswith(prefix) and rule_id not in rows
    ]
    assert not wrong, "docs/leviath-mapping.md and the registry disagree:\n  " + "\n  ".join(wrong)
    expected = {f"{prefix}{n}" for n in range(1, 46 if prefix == "P" else 24)}
    assert set(rows) == expected, f"the table lists {sorted(set(rows) ^ expected)} wrongly"


def test_each_lint_row_names_the_code_that_carries_its_slug() -> None:
    rows = table("Leviath's lints (`lev validate`)")
    carried = registry_map(1)
    wrong = []
    for slug, (codes, _) in rows.items():
        listed = set(_CODE.findall(codes))
        if listed != carried.get(slug, set()):
            wrong.append(f"{slug}: the page lists {sorted(listed)}, the registry {sorted(carried.get(slug, set()))}")
    wrong += [
        f"{slug}: named by {sorted(codes)} but not on the page" for slug, codes in carried.items() if slug not in rows
    ]
    assert not wrong, "docs/leviath-mapping.md and the registry disagree:\n  " + "\n  ".join(wrong)


def test_the_checks_of_our_own_are_every_rule_without_a_reference_counterpart() -> None:
    paragraph = section("Leviath's lints (`lev validate`)").split("Checks of our own", 1)[1]
    listed = set(_CODE.findall(paragraph))
    ours = {rule.code for rule in REGISTRY.all() if rule.leviath is None}
    assert listed == ours, (
        "the list of checks of our own in docs/leviath-mapping.md should name every rule with no `leviath` "
        f"field: add {sorted(ours - listed)}, remove {sorted(listed - ours)}"
    )


def test_the_script_section_lists_every_rule_whose_reference_is_another_step() -> None:
    """A rule whose `leviath` field names no P/V rule, no general reading rule (R1–R8) and no
    lint slug (a step of `lev validate`: `resolve_region_scripts`) is in the custom-region
    scripts table, and only those."""
    rows = table("Custom-region scripts (`lev validate`, `lev test`, every run)")
    listed = {code for _, (codes, _) in rows.items() for code in _CODE.findall(codes)}
    stepped = {
        rule.code
        for rule in REGISTRY.all()
        if rule.leviath and named_by(rule) == (set(), set()) and not re.search(r"\bR\d\b", rule.leviath)
    }
    assert listed == stepped
    assert stepped == {"custom-region-script-not-found", "custom-region-script-outside"}
