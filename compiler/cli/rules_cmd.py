"""`blueprint rules` (the registry as a table) and `blueprint rule CODE` (one rule's page).

Both read `compiler.rulebook.registry.REGISTRY`, the same table that drives selection, the
docs and SARIF, so what they print is what the validator does.
"""

from __future__ import annotations

import difflib
import json
import textwrap

import click

from .. import pipeline  # noqa: F401 (every rule is registered once it is imported)
from ..rulebook.registry import REGISTRY, Rule
from .errors import CliError, emit
from .options import format_option


@click.command("rules")
@format_option
def rules_command(output_format: str) -> None:
    """List every rule: code, severity, family and summary, in pipeline order."""
    rules = REGISTRY.all()
    if output_format == "json":
        document = {"version": 1, "rules": [rule_dict(rule) for rule in rules]}
        emit(json.dumps(document, indent=2, ensure_ascii=True) + "\n")
        return
    emit(rules_table(rules))


@click.command("rule")
@click.argument("code")
@format_option
def rule_command(code: str, output_format: str) -> None:
    """Explain one rule: what it checks, why, an example, the fix, Leviath's name for it."""
    info = REGISTRY.get(code)
    if info is None:
        close = difflib.get_close_matches(code, list(REGISTRY.rules), n=3)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise CliError(f"no rule '{code}'{hint} ('blueprint rules' lists them all)")
    if output_format == "json":
        emit(json.dumps(rule_dict(info), indent=2, ensure_ascii=True) + "\n")
    else:
        emit(rule_page(info))


def rule_dict(rule: Rule) -> dict:
    return {
        "code": rule.code,
        "severity": rule.severity,
        "family": rule.family,
        "summary": rule.summary,
        "rationale": rule.rationale,
        "example": rule.example,
        "example_fixed": rule.example_fixed,
        "fix": rule.fix,
        "leviath": rule.leviath,
        "differs": rule.differs,
        "fixable": rule.fixable,
    }


def rules_table(rules: list[Rule]) -> str:
    header = ("CODE", "SEVERITY", "FAMILY", "SUMMARY")
    rows = [header] + [(r.code, r.severity, r.family, r.summary) for r in rules]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}".rstrip() for row in rows]
    return "\n".join(lines) + f"\n\n{len(rules)} rules; 'blueprint rule CODE' explains one.\n"


def rule_page(rule: Rule) -> str:
    """The rule as Markdown: readable in a terminal, and the same shape as docs/rules/."""
    reference = f" · Leviath: {rule.leviath}" if rule.leviath else ""
    parts = [
        f"# {rule.code}",
        f"{rule.severity} · {rule.family}{reference}",
        rule.summary,
        "## Why",
        _wrap(rule.rationale),
        "## Example",
        f"```toml\n{rule.example}\n```",
    ]
    if rule.example_fixed:
        parts += ["## Use instead", f"```toml\n{rule.example_fixed}\n```"]
    automatic = rule.fixable and "--fix" not in rule.fix
    parts += ["## Fix", _wrap(rule.fix + (" (`blueprint validate --fix` does it)" if automatic else ""))]
    if rule.differs:
        parts += ["## Leviath", _wrap(rule.differs)]
    return "\n\n".join(parts) + "\n"


def _wrap(text: str) -> str:
    """Wrapped to 88 columns, paragraph by paragraph."""
    paragraphs = [p for p in text.split("\n\n") if p.strip()]
    return "\n\n".join("\n".join(textwrap.wrap(p, width=88, break_on_hyphens=False)) for p in paragraphs)
