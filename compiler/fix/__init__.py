"""`blueprint validate --fix`: rewrite findings whose fix cannot change what a run does.

Which rules are fixable is a field of their registry entry (`RuleInfo.fixable`); today:

- `stage-missing-mode`: writes `mode = "autonomous"`, the mode the stage already runs in;
- `non-canonical-value`: the canonical spelling of an alias or a letter case the runtime
  reads the same way (`summarize` → `compact`, `hash_map` → `hashmap`, `"ALLOW"` → `"allow"`,
  seed `refresh = "stage"` → `"each_stage"`), and `{}` for a value of another type where a
  table belongs, which the runtime reads as that table with every key at its default
  (`b = "true"` under `[stages.a.transitions]` → `b = {}`);
- `outdated-key`: moves a key from where earlier Leviath versions read it to where it is read
  now (a model-table `system_prompt` up into its stage, `[context] repetition_detection` to
  the top level);
- `rejected-key`: renames the old stage key `tool_result_routing` to `tool_routing`;
- `unused-suppression`: drops a directive, or a code of one, that suppresses nothing.

Keys and values are edited through tomlkit and comments cut at their exact position, so every
other byte of the file stays as it was. Every pass is checked before it is kept: the fixed
text must read back to the *same* typed blueprint (the IR the runner consumes) and must not
add or lose any other finding. The two old-spelling fixes change a run on purpose (a key
Leviath ignored or refused is read); for them the fixed text must mean exactly the original
with each old key read where it now belongs. A file with syntax errors is never touched.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..config import DEFAULT_SETTINGS, Settings
from .comments import COMMENT_CODES, apply_comment_fixes
from .toml_edits import TOML_CODES, apply_toml_fixes

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from ..pipeline import FileResult

#: Rounds of validate → fix; a fix can reveal another (a directive that now matches nothing).
MAX_PASSES = 4
_BOM = "\ufeff".encode("utf-8")


@dataclass(frozen=True)
class FixOutcome:
    """What fixing one file did. `data` is the new content (the old one when nothing changed)."""

    path: str
    original: bytes
    data: bytes
    #: The findings that were fixed, as reported before their pass.
    fixed: tuple["Diagnostic", ...] = ()
    #: Why the file was left alone or a pass was dropped, if it was.
    problem: str | None = None

    @property
    def changed(self) -> bool:
        return self.data != self.original


def fixable_codes() -> frozenset[str]:
    from ..rules.registry import REGISTRY

    return frozenset(rule.code for rule in REGISTRY.all() if rule.fixable)


def fix_bytes(path: str, data: bytes, settings: Settings = DEFAULT_SETTINGS) -> FixOutcome:
    """Fix every fixable finding of one file; never raises on bad input."""
    from ..pipeline import validate_bytes

    result = validate_bytes(path, data, settings)
    if has_syntax_errors(result):
        return FixOutcome(path, data, data, problem="not fixed: the file has syntax errors")
    if result.blueprint is None or result.source is None:
        return FixOutcome(path, data, data)
    bom = data[: len(_BOM)] if data.startswith(_BOM) else b""
    text = result.source.text
    codes = fixable_codes()
    fixed: list["Diagnostic"] = []
    problem = None
    for _ in range(MAX_PASSES):
        todo = [d for d in result.diagnostics if d.code in codes]
        # Key and value edits first; comment cuts in a pass of their own, at fresh positions.
        toml = [d for d in todo if d.code in TOML_CODES]
        new_text, done = apply_toml_fixes(text, toml) if toml else (text, [])
        if not done:
            comments = [d for d in todo if d.code in COMMENT_CODES]
            new_text, done = apply_comment_fixes(text, comments) if comments else (text, [])
        if not done or new_text == text:
            break
        new_result = validate_bytes(path, bom + new_text.encode("utf-8"), settings)
        why = unsafe_reason(result, new_result, done, codes)
        if why is not None:
            problem = f"a fix was not applied: {why} (please report this as a bug)"
            break
        text, result = new_text, new_result
        fixed.extend(done)
    return FixOutcome(path, data, bom + text.encode("utf-8") if fixed else data, tuple(fixed), problem)


def has_syntax_errors(result: "FileResult") -> bool:
    from ..rules.registry import REGISTRY

    return any(
        d.severity == "error" and (info := REGISTRY.get(d.code)) is not None and info.family == "syntax"
        for d in result.diagnostics
    )


def _meant(before: "FileResult", done: list["Diagnostic"]) -> object:
    """What the original file means with its old spellings read where Leviath reads them now
    (the only change a fix may make to a run); None when no old spelling was fixed."""
    from ..ir.build import build_blueprint
    from ..rules.lint.outdated import with_current_spellings

    moved = [d.path for d in done if d.code in ("outdated-key", "rejected-key")]
    if not moved or before.document is None:
        return None
    return build_blueprint(with_current_spellings(before.document, moved))


def unsafe_reason(before: "FileResult", after: "FileResult", done: list["Diagnostic"], codes: frozenset[str]) -> str | None:
    """Why the fixed text must not be kept, or None when it is safe."""
    if after.blueprint is None or has_syntax_errors(after):
        return "the fixed file does not parse"
    if after.blueprint != before.blueprint and after.blueprint != _meant(before, done):
        return "the fixed file would run differently"

    def others(result: "FileResult") -> Counter:
        return Counter((d.code, d.path) for d in result.diagnostics if d.code not in codes)

    if others(before) != others(after):
        return "the fix changed other findings"
    remaining = Counter(d.code for d in after.diagnostics if d.code in codes)
    expected = Counter(d.code for d in before.diagnostics if d.code in codes)
    expected.subtract(Counter(d.code for d in done))
    if any(remaining[code] > max(0, expected[code]) for code in remaining):
        return "the fix did not remove the findings it fixed"
    return None


__all__ = ["FixOutcome", "MAX_PASSES", "fix_bytes", "fixable_codes"]
