"""The rule docs in docs/rules/ are exactly what the registry renders, and every rule is documented."""

from __future__ import annotations

from compiler.render.rule_docs import render_pages
from compiler.rulebook.registry import REGISTRY
from tests.helpers import ROOT

DOCS = ROOT / "docs" / "rules"


def test_generated_rule_docs_are_current() -> None:
    pages = render_pages()
    stale = [
        name
        for name, content in pages.items()
        if not (DOCS / name).exists() or (DOCS / name).read_text(encoding="utf-8") != content
    ]
    extra = [p.name for p in DOCS.glob("*.md") if p.name not in pages]
    assert not stale and not extra, (
        f"docs/rules is stale (changed: {stale}, removed rules: {extra}); "
        "run `python -m compiler.render.rule_docs` and commit the result"
    )


def test_every_rule_is_fully_documented() -> None:
    for rule in REGISTRY.all():
        assert rule.summary.strip() and rule.rationale.strip() and rule.example.strip() and rule.fix.strip(), rule.code
        assert rule.code == rule.code.lower() and " " not in rule.code, rule.code
