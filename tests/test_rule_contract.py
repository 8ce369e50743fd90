"""Every rule in the registry proves itself (docs/architecture.md, "Adding a rule").

For each code: a golden case that fires it and an `ok-*` near miss; its documented example
fires it (the analysis family through `blueprint check`); its fixed example is clean (no
finding of its own rule, no error or warning of any rule); a check declares it, and checks
report only what they declare; a fixable rule has a golden fixed file. A rule added without one
of these fails here with a message that says what to add. Nothing is skipped: a code that
cannot have a case or a runnable example says so in the registry or in the tables below.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.check import check_bytes
from compiler.config import Settings
from compiler.pipeline import validate_text
from compiler.render.rule_docs import EXAMPLE_PATH, example_file, state_limit_of
from compiler.rulebook.registry import CHECKED_FAMILIES, REGISTRY, Check, Rule
from tests import rule_recipe as recipe
from tests.helpers import ROOT, installation

RULES = REGISTRY.all()


def rule_id(rule: Rule) -> str:
    return rule.code


def where(rule: Rule) -> str:
    return rule.module.replace(".", "/") + ".py"


def case_folder(rule: Rule) -> Path:
    return recipe.case_folder(ROOT, rule)


def run_example(rule: Rule, text: str) -> list[tuple[str, str, str]]:
    """(code, severity, message) of what the example finds: `validate`, or `check` (with its
    supersession of lint findings) for the analysis family; with the installation of the
    rule's case folder, for the checks that need one, and custom-region scripts resolved in it."""
    data = example_file(rule, text)
    settings = Settings(**installation(case_folder(rule)), blueprint_folder=str(case_folder(rule)))
    if rule.family == "analysis":
        result = check_bytes(EXAMPLE_PATH, data, settings, max_states=state_limit_of(text)).result
    else:
        from compiler.pipeline import validate_bytes

        result = validate_bytes(EXAMPLE_PATH, data, settings)
    return [(d.code, d.severity, d.message) for d in result.diagnostics]


@pytest.fixture(autouse=True)
def _from_the_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # installation files are named relative to the checkout


@pytest.mark.parametrize("rule", RULES, ids=rule_id)
def test_rule_has_every_piece_of_the_recipe(rule: Rule) -> None:
    """Cases, a declaring check, a golden fix, its docs page and its leviath-mapping row."""
    missing = recipe.missing_pieces(rule, ROOT, REGISTRY)
    assert not missing, f"rule {rule.code} ({where(rule)}) is missing:\n  " + "\n  ".join(missing)


@pytest.mark.parametrize("rule", RULES, ids=rule_id)
def test_documented_example_fires_the_rule(rule: Rule) -> None:
    found = run_example(rule, rule.example)
    fired = any(code == rule.code for code, _, _ in found)
    if rule.illustrative_example is not None:
        assert not fired, f"the example of {rule.code} fires it: drop `illustrative_example` in {where(rule)}"
        has_case = any(not p.stem.startswith("ok-") for p in case_folder(rule).glob("*.leviath"))
        assert has_case or rule.code in recipe.FIRED_BY_A_TEST, f"{rule.code} is shown firing nowhere"
        return
    bugs = "".join(f"\n  internal-error: {message}" for code, _, message in found if code == "internal-error")
    assert fired, (
        f"the example of {rule.code} ({rule.doc_path}) does not fire it; it reports {sorted({c for c, *_ in found})}. "
        f"Change `example` in {where(rule)} (or, if no snippet can show it, say why in `illustrative_example`){bugs}"
    )


@pytest.mark.parametrize("rule", [r for r in RULES if r.example_fixed is not None], ids=rule_id)
def test_fixed_example_is_clean(rule: Rule) -> None:
    assert rule.example_fixed is not None
    found = run_example(rule, rule.example_fixed)
    wrong = [
        f"{severity}[{code}] {message}"
        for code, severity, message in found
        if code == rule.code or severity in ("error", "warning")
    ]
    assert not wrong, (
        f"the fixed example of {rule.code} must raise no {rule.code} and no error or warning at all; it raises:\n  "
        + "\n  ".join(wrong)
        + f"\nChange `example_fixed` in {where(rule)}"
    )


def test_rules_outside_the_checked_families_have_no_check() -> None:
    assert not [c.name for c in REGISTRY.checks if c.family not in CHECKED_FAMILIES]


# --- what the registry and the pipeline enforce -------------------------------------------------


def _planted(monkeypatch: pytest.MonkeyPatch, declares: Rule, fn) -> None:
    monkeypatch.setattr(REGISTRY, "checks", [*REGISTRY.checks, Check((declares,), declares.family, fn)])


def test_a_crashing_check_becomes_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def crashes(ctx):
        raise RuntimeError("boom")
        yield

    _planted(monkeypatch, REGISTRY.rules["unknown-stage"], crashes)
    result = validate_text('[agent]\nname = "t"\n[stages.a]\nmax_iterations = "x"\n', "t.leviath")
    codes = [d.code for d in result.diagnostics]
    assert "internal-error" in codes and "invalid-type" in codes  # the other checks still report
    (crash,) = [d for d in result.diagnostics if d.code == "internal-error"]
    assert crash.message.endswith("crashed: RuntimeError: boom")


def test_a_check_that_reports_a_rule_it_does_not_declare_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def strays(ctx):
        yield ctx.report(REGISTRY.rules["unknown-region"], "planted", ())
        yield ctx.report(REGISTRY.rules["unknown-stage"], "declared", ())

    _planted(monkeypatch, REGISTRY.rules["unknown-stage"], strays)
    result = validate_text('[agent]\nname = "t"\n', "t.leviath")
    messages = {d.code: d.message for d in result.diagnostics}
    assert "unknown-region" not in messages and messages["unknown-stage"] == "declared"
    assert messages["internal-error"].endswith("reported unknown-region, which it does not declare")


def test_a_check_declares_rules_of_its_own_family_only() -> None:
    from compiler.rulebook.registry import LINT, META

    with pytest.raises(ValueError, match="of the schema family, not lint"):
        LINT.check(REGISTRY.rules["invalid-type"])
    with pytest.raises(TypeError, match="Rule objects"):
        LINT.check("stage-missing-mode")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no check functions"):
        META.check(REGISTRY.rules["unused-suppression"])


def test_a_code_is_defined_once() -> None:
    from compiler.rulebook.registry import LINT

    with pytest.raises(ValueError, match="defined twice"):
        LINT.define("stage-missing-mode", severity="warning", summary="s", rationale="r", example="e", fix="f")
