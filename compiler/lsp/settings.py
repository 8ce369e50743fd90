"""The server's own settings, from the client: `initializationOptions` or
`workspace/didChangeConfiguration`, either flat or under a `blueprint` key.

    {"blueprint": {"checkOnSave": true, "checkOnChange": false, "debounceMs": 20,
                   "ruleDocsUrl": "https://example.org/rules/{code}.md"}}

Project settings (rule selection, known tools) are not here: they come from the project's
configuration file above each blueprint, exactly as for `blueprint validate`. A setting of the
wrong type is reported back to the user and the rest still apply.
"""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from compiler.records import record

#: Where the rule pages are in a checkout (docs/rules/CODE.md); absent from an installed wheel.
_RULE_DOCS = Path(__file__).resolve().parent.parent.parent / "docs" / "rules"


def default_rule_docs_url() -> str | None:
    return (_RULE_DOCS.as_uri() + "/{code}.md") if _RULE_DOCS.is_dir() else None


@record
class ClientSettings:
    #: Run `check`'s run analysis when a document is saved.
    check_on_save: bool = True
    #: … and on every change too (off by default: exploring every run takes longer).
    check_on_change: bool = False
    #: Wait this long after a change before validating, so a burst of keystrokes is one run.
    debounce_ms: int = 20
    #: The rule documentation linked from each finding's code; `{code}` is replaced.
    rule_docs_url: str | None = default_rule_docs_url()

    def rule_href(self, code: str) -> str | None:
        url = self.rule_docs_url
        if not url:
            return None
        return url.replace("{code}", code) if "{code}" in url else url.rstrip("/") + f"/{code}.md"


#: Client spelling → (field, type).
_KEYS: dict[str, tuple[str, type]] = {
    "checkOnSave": ("check_on_save", bool),
    "checkOnChange": ("check_on_change", bool),
    "debounceMs": ("debounce_ms", int),
    "ruleDocsUrl": ("rule_docs_url", str),
}
assert {f for f, _ in _KEYS.values()} == {f.name for f in fields(ClientSettings)}


def read_settings(current: ClientSettings, raw: Any) -> tuple[ClientSettings, list[str]]:
    """`current` with the values `raw` gives, and a message for each value that was refused."""
    if isinstance(raw, dict) and isinstance(raw.get("blueprint"), dict):
        raw = raw["blueprint"]
    if not isinstance(raw, dict):
        return current, []
    changes: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in raw.items():
        if key not in _KEYS:
            continue  # other tools' settings may share the object
        name, kind = _KEYS[key]
        if kind is int and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10_000):
            problems.append(f"blueprint.{key} must be a whole number of milliseconds (0 to 10000), not {value!r}")
        elif kind is not int and not isinstance(value, kind) and not (kind is str and value is None):
            problems.append(f"blueprint.{key} must be {'true or false' if kind is bool else 'a string'}, not {value!r}")
        else:
            changes[name] = value
    return replace(current, **changes), problems
