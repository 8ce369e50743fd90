"""`docs/rules/`: one Markdown page per rule and an index, generated from the registry.

Each page shows the rule's example together with the real output of running it through the
validator, so the docs cannot claim what the tool does not do. `tests/test_rule_docs.py`
fails when the committed pages differ from what this module renders; regenerate with

    python -m compiler.render.rule_docs
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .. import pipeline  # noqa: F401 (every rule is registered once it is imported)
from ..rulebook.registry import FAMILIES, REGISTRY, Rule
from .templating import template_environment

if TYPE_CHECKING:
    from ..pipeline import FileResult

EXAMPLE_AGENT = '[agent]\nname = "example"\n\n'
EXAMPLE_PATH = "agent.leviath"
#: An example of the analysis family may start with this line to be explored with a lower limit.
_STATE_LIMIT = re.compile(r"^# blueprint check --max-states (\d+)")


def example_file(rule: Rule, text: str) -> bytes:
    """A rule's example (or fixed example) as the file its docs run: the snippet, with a minimal
    `[agent]` table in front when it has none (unless it is a whole file as written)."""
    text = text + "\n"
    if "[agent]" not in text and not rule.whole_file_example:
        text = EXAMPLE_AGENT + text
    return text.encode("utf-8")


def state_limit_of(text: str) -> int | None:
    """The limit a `# blueprint check --max-states N` first line asks for, if any."""
    match = _STATE_LIMIT.match(text)
    return int(match.group(1)) if match else None


def example_result(rule: Rule, text: str) -> "FileResult":
    """What validating the example `text` of `rule` finds (what `check` finds, for the
    analysis family: with the state limit the example's first line asks for)."""
    data = example_file(rule, text)
    if rule.family == "analysis":
        from ..check import check_bytes

        return check_bytes(EXAMPLE_PATH, data, max_states=state_limit_of(text)).result
    from ..pipeline import validate_bytes

    return validate_bytes(EXAMPLE_PATH, data)


def example_output(rule: Rule) -> str | None:
    """The report for the rule's example, trimmed to its own findings; None if it shows none."""
    from .text import render_diagnostic

    result = example_result(rule, rule.example)
    mine = [d for d in result.diagnostics if d.code == rule.code]
    if not mine:
        return None
    return "\n\n".join(render_diagnostic(d, result.source) for d in mine)


def render_pages() -> dict[str, str]:
    """File name (relative to docs/rules/) → content, for every rule and the index."""
    env = template_environment(autoescape=False)
    page = env.get_template("rule.md.j2")
    pages = {f"{rule.code}.md": page.render(rule=rule, output=example_output(rule)) for rule in REGISTRY.all()}
    families = [(family, [r for r in REGISTRY.all() if r.family == family]) for family in FAMILIES]
    pages["index.md"] = env.get_template("rules_index.md.j2").render(families=[f for f in families if f[1]])
    return pages


def write_pages(directory: Path) -> list[str]:
    """Write every page, delete pages of rules that no longer exist; return what changed."""
    directory.mkdir(parents=True, exist_ok=True)
    pages = render_pages()
    changed = []
    for name, content in pages.items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != content:
            path.write_text(content, encoding="utf-8")
            changed.append(name)
    for stale in directory.glob("*.md"):
        if stale.name not in pages:
            stale.unlink()
            changed.append(stale.name)
    return changed


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    directory = Path(argv[0]) if argv else Path(__file__).resolve().parents[2] / "docs" / "rules"
    changed = write_pages(directory)
    print(f"{len(changed)} page(s) updated in {directory}" if changed else f"{directory} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
