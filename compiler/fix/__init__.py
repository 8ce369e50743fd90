"""`blueprint validate --fix`: rewrite findings whose fix cannot change what a run does.

A rule is fixable when it declares a fixer (`define(..., fixer=...)`, see
`compiler.rulebook.fixers`); the engine here finds fixers through the registry. Today:

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

With `unsafe` (`--unsafe-fixes`), a pass that finds nothing left to fix safely writes the
names findings suggest ("did you mean 'max_iterations'?", `suggestions.py`); those change
what the file means, so they are checked differently: the file must still parse, lose the
findings fixed and gain no error.

Keys and values are edited through tomlkit (`toml_edits.py`) and comments cut at their exact
position (`lines.py`), so every other byte of the file stays as it was. Every pass is checked
before it is kept: the fixed text must read back to the *same* typed blueprint (the IR the
runner consumes) and must not add or lose any other finding. The two old-spelling fixes
change a run on purpose (a key Leviath ignored or refused is read); their fixer's `meant`
says how, and the fixed text must mean exactly the original with each old key read where it
now belongs. A file with syntax errors is never touched.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from compiler.records import record

from .. import pipeline  # every rule, and so every fixer, is registered once it is imported
from ..config import DEFAULT_SETTINGS, Settings
from ..rulebook.fixers import KeyFix, LineFix
from .lines import apply_line_fixes
from .toml_edits import apply_key_fixes

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic, KeyPath
    from ..ir.model import Blueprint
    from ..pipeline import FileResult
    from ..rulebook.fixers import Fixer
    from ..rulebook.registry import Rule

#: Rounds of validate → fix; a fix can reveal another (a directive that now matches nothing).
MAX_PASSES = 4
_BOM = "\ufeff".encode("utf-8")


@record
class FixOutcome:
    """What fixing one file did. `data` is the new content (the old one when nothing changed)."""

    path: str
    original: bytes
    data: bytes
    #: The findings that were fixed, as reported before their pass.
    fixed: tuple["Diagnostic", ...] = ()
    #: Why the file was left alone or a pass was dropped, if it was.
    problem: str | None = None
    #: Those of `fixed` that were unsafe fixes (a suggested name written).
    unsafe: tuple["Diagnostic", ...] = ()
    #: Without `unsafe`: how many findings left only `--unsafe-fixes` would fix.
    hidden: int = 0

    @property
    def changed(self) -> bool:
        return self.data != self.original


def fixable_codes() -> frozenset[str]:
    from ..rulebook.registry import REGISTRY

    return REGISTRY.fixable_codes()


def rule_of(finding: "Diagnostic") -> "Rule | None":
    from ..rulebook.registry import REGISTRY

    return REGISTRY.get(finding.code)


def fixer_of(finding: "Diagnostic") -> "Fixer | None":
    rule = rule_of(finding)
    return rule.fixer if rule is not None else None


def fix_pass(text: str, findings: list["Diagnostic"]) -> tuple[str, list["Diagnostic"]]:
    """`text` with one pass of fixes applied, and the findings fixed: the key fixes of
    `findings` together, or, when none applies, their line fixes (which need the positions of
    this very text, so they never share a pass with an edit that moves them)."""
    fixers = {finding: fixer_of(finding) for finding in findings}
    keys = [(d, f) for d, f in fixers.items() if isinstance(f, KeyFix)]
    new_text, done = apply_key_fixes(text, keys) if keys else (text, [])
    if not done:
        lines = [(d, f) for d, f in fixers.items() if isinstance(f, LineFix)]
        new_text, done = apply_line_fixes(text, lines) if lines else (text, [])
    return new_text, done


def fix_bytes(path: str, data: bytes, settings: Settings = DEFAULT_SETTINGS, unsafe: bool | None = None) -> FixOutcome:
    """Fix every fixable finding of one file (and, with `unsafe`, which defaults to the
    settings' `unsafe_fixes`, write the names findings suggest); never raises on bad input."""
    from ..pipeline import validate_bytes
    from .edits import apply_edits
    from .suggestions import suggestion_fixes_for

    unsafe = settings.unsafe_fixes if unsafe is None else unsafe

    result = validate_bytes(path, data, settings)
    if has_syntax_errors(result):
        return FixOutcome(path, data, data, problem="not fixed: the file has syntax errors")
    if result.blueprint is None or result.source is None:
        return FixOutcome(path, data, data)
    bom = data[: len(_BOM)] if data.startswith(_BOM) else b""
    text = result.source.text
    codes = fixable_codes()
    fixed: list["Diagnostic"] = []
    suggested: list["Diagnostic"] = []
    problem = None
    for _ in range(MAX_PASSES):
        new_text, done = fix_pass(text, [d for d in result.diagnostics if d.code in codes])
        if not done or new_text == text:
            suggestions = suggestion_fixes_for(result, settings) if unsafe else {}
            if not suggestions:
                break
            text = apply_edits(text, (edit for fix in suggestions.values() for edit in fix.edits))
            result = validate_bytes(path, bom + text.encode("utf-8"), settings)
            fixed.extend(suggestions)
            suggested.extend(suggestions)
            continue
        new_result = validate_bytes(path, bom + new_text.encode("utf-8"), settings)
        why = unsafe_reason(result, new_result, done, codes)
        if why is not None:
            problem = f"a fix was not applied: {why}"
            break
        text, result = new_text, new_result
        fixed.extend(done)
    new_data = bom + text.encode("utf-8") if fixed else data
    hidden = 0 if unsafe else len(suggestion_fixes_for(result, settings))
    return FixOutcome(path, data, new_data, tuple(fixed), problem, tuple(suggested), hidden)


def has_syntax_errors(result: "FileResult") -> bool:
    from ..rulebook.registry import REGISTRY

    return any(
        d.severity == "error" and (info := REGISTRY.get(d.code)) is not None and info.family == "syntax"
        for d in result.diagnostics
    )


def meant_blueprint(before: "FileResult", done: list["Diagnostic"]) -> "Blueprint | None":
    """The blueprint the fixed file must read back to: the original's, unless a fixer of
    `done` changes the meaning on purpose (its `meant`: an old spelling read where Leviath
    reads it now)."""
    paths: dict["Rule", list["KeyPath"]] = {}
    for finding in done:
        rule = rule_of(finding)
        if rule is not None and rule.fixer is not None and rule.fixer.meant is not None:
            paths.setdefault(rule, []).append(finding.path)
    if not paths or before.document is None:
        return before.blueprint
    from ..ir.build import build_blueprint

    document = before.document
    for rule, fixed in paths.items():
        assert rule.fixer is not None and rule.fixer.meant is not None
        document = rule.fixer.meant(document, fixed)
    return build_blueprint(document)


def unsafe_reason(
    before: "FileResult", after: "FileResult", done: list["Diagnostic"], codes: frozenset[str]
) -> str | None:
    """Why the fixed text must not be kept, or None when it is safe. The reason names the
    rules whose fixers are at fault, since it is their authors who can act on it."""
    rules = _rules_of(done)
    if after.blueprint is None or has_syntax_errors(after):
        return f"{_fixers(rules)} wrote a file that does not parse{_BUG}"
    if after.blueprint != before.blueprint and after.blueprint != meant_blueprint(before, done):
        return _meaning_changed(before, done, rules)

    def others(result: "FileResult") -> Counter:
        return Counter((d.code, d.path) for d in result.diagnostics if d.code not in codes)

    if others(before) != others(after):
        return f"{_fixers(rules)} changed other findings{_BUG}"
    remaining = Counter(d.code for d in after.diagnostics if d.code in codes)
    expected = Counter(d.code for d in before.diagnostics if d.code in codes)
    expected.subtract(Counter(d.code for d in done))
    if any(remaining[code] > max(0, expected[code]) for code in remaining):
        return f"{_fixers(rules)} did not remove the findings it fixed{_BUG}"
    return None


_BUG = " (a bug in the fixer: please report it with the blueprint)"


def _rules_of(done: list["Diagnostic"]) -> list["Rule"]:
    """The rules of the findings `done`, in the order first fixed."""
    rules: dict[str, "Rule"] = {}
    for finding in done:
        rule = rule_of(finding)
        if rule is not None:
            rules.setdefault(rule.code, rule)
    return list(rules.values())


def _fixers(rules: list["Rule"]) -> str:
    names = ", ".join(f"'{rule.code}'" for rule in rules)
    return f"the fixer of rule {names}" if len(rules) == 1 else f"the fixers of rules {names}"


def _meaning_changed(before: "FileResult", done: list["Diagnostic"], rules: list["Rule"]) -> str:
    """Which fixer changed what the blueprint means, and what it lacks: a fixer without `meant`
    must keep the meaning; one with `meant` must write what its `meant` says. Each rule's
    fixes are applied alone to find the one at fault."""
    assert before.source is not None
    for rule in rules:
        alone = [d for d in done if d.code == rule.code]
        new_text, fixed = fix_pass(before.source.text, alone)
        if not fixed or _blueprint_of(new_text) in (before.blueprint, meant_blueprint(before, fixed)):
            continue
        assert rule.fixer is not None
        if rule.fixer.meant is None:
            return (
                f"the fixer of rule '{rule.code}' ({rule.module}) changes what the blueprint means, and it "
                "declares no `meant=`: a fix must keep the meaning, or, when it moves an old spelling "
                "where Leviath reads it now, say with `meant=` what the fixed file means "
                "(compiler/rulebook/fixers.py)"
            )
        return (
            f"the fixer of rule '{rule.code}' ({rule.module}) writes a file that does not mean what its "
            "`meant=` says it means"
        )
    return f"{_fixers(rules)}, applied together, change what the blueprint means{_BUG}"


def _blueprint_of(text: str) -> "Blueprint | None":
    from ..ir.build import build_blueprint
    from ..parse.source import SourceFile
    from ..parse.toml import parse_toml

    document, _ = parse_toml(SourceFile("fixed", text))
    return None if document is None else build_blueprint(document)


__all__ = ["MAX_PASSES", "FixOutcome", "fix_bytes", "fix_pass", "fixable_codes", "fixer_of", "meant_blueprint"]
