"""The one rule registry: every diagnostic code as a `Rule` object, and the checks that emit them.

A rule is declared once, by the module that emits it, through its family's registrar:

    UNKNOWN_STAGE = STRUCTURE.define("unknown-stage", severity="error", summary=..., ...)

    @STRUCTURE.check(UNKNOWN_STAGE)
    def check_targets(ctx):
        yield ctx.report(UNKNOWN_STAGE, f"... '{name}' ...", path)

Everything about the rule hangs off that object: its severity and fix hint (filled into each
diagnostic), its docs (docs/rules/, `blueprint rule`, SARIF `rules[]`) and its fixer
(`fixer=`, which makes it fixable). Messages are written where a finding is found, since they
name what is particular to it. Reports and checks take the object, not its code, so a misspelt
name is an undefined name (at import for a decorator, for pyflakes and mypy anywhere). A check
declares the rules it emits; the pipeline turns a report of any other rule into an
`internal-error`. `REGISTRY.get(code)` finds a
rule by code for the command line and the configuration (`--select`, `blueprint rule CODE`).

Families run in pipeline order: `syntax` codes come from reading the file (no check
function), `schema` from the JSON Schema layer, `structure` from the typed model (Leviath's
parse/validate errors and reference checks), `lint` from the graph and declaration checks,
`analysis` from exhaustive run exploration, `meta` from the pipeline itself (suppressions).

This module imports nothing above it. Rules register when the modules that define them are
imported: every module under `compiler/rules/` (`compiler.rules.load_rule_modules` walks the
package), and the few layers that report codes of their own (`parse`, `suppress`,
`analysis`, `pipeline`). `compiler.pipeline` imports them all and then calls
`REGISTRY.mark_complete()`; reading the registry before that is a `RegistryIncomplete`,
never a silently shorter list.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import field
from typing import TYPE_CHECKING, Any

from compiler.records import record

from ..diagnostics import Diagnostic, KeyPath, Related, Severity, Span

if TYPE_CHECKING:
    from ..rules.context import RuleContext
    from .fixers import Fixer

FAMILIES = ("syntax", "schema", "structure", "lint", "analysis", "meta")
#: Families whose rules are emitted by check functions (the others by the pipeline itself).
CHECKED_FAMILIES = ("schema", "structure", "lint", "analysis")

CheckFn = Callable[["RuleContext"], Iterable[Diagnostic]]


class _Default:
    """The rule's own value (a fix hint left to the rule)."""

    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT: Any = _Default()


@record(eq=False)
class Rule:
    """One diagnostic code and everything a user can learn about it."""

    code: str
    severity: Severity
    family: str
    summary: str
    rationale: str
    #: A blueprint snippet that fires the rule (the docs run it: see `compiler.render.rule_docs`).
    example: str
    #: The one-line fix hint every finding carries unless its report names a more precise one.
    fix: str
    #: Leviath's name for the same check: a P-/V-rule of its format spec, or its lint slug.
    leviath: str | None = None
    #: Leviath's behaviour where ours differs (shown in the docs).
    differs: str | None = None
    #: A blueprint snippet that does not trigger the rule (the "use instead").
    example_fixed: str | None = None
    #: How `blueprint validate --fix` rewrites a finding; only fixes that cannot change a run.
    fixer: "Fixer | None" = None
    #: The example is a whole file as written (the docs add no `[agent]` table to it).
    whole_file_example: bool = False
    #: Why the example cannot be run as shown (it stands for bytes or a size no snippet holds).
    illustrative_example: str | None = None
    #: Codes earlier versions reported this rule's findings under: a suppression naming one of
    #: them where this rule now fires is reported as such (`unused-suppression`).
    formerly: tuple[str, ...] = ()
    #: The module that defines (and emits) it.
    module: str = ""

    @property
    def fixable(self) -> bool:
        return self.fixer is not None

    @property
    def doc_path(self) -> str:
        return f"docs/rules/{self.code}.md"

    def fix_title(self, finding: Diagnostic) -> str:
        """The title of the fix of `finding` (its rule must be fixable)."""
        if self.fixer is None:
            raise ValueError(f"rule {self.code!r} has no fixer")
        return self.fixer.title(self, finding)

    def diagnostic(
        self,
        message: str,
        *,
        file: str = "<string>",
        path: KeyPath = (),
        span: Span | None = None,
        stage: str | None = None,
        fix: str | None = DEFAULT,
        related: tuple[Related, ...] = (),
    ) -> Diagnostic:
        """A finding of this rule: its severity, and its fix hint unless `fix` is given."""
        return Diagnostic(
            code=self.code,
            severity=self.severity,
            message=message,
            file=file,
            path=path,
            span=span,
            stage=stage,
            fix=self.fix if fix is DEFAULT else fix,
            related=related,
        )

    def __repr__(self) -> str:
        return f"Rule({self.code!r})"


@record
class Check:
    rules: tuple[Rule, ...]
    family: str
    fn: CheckFn
    #: The codes of `rules` (the pipeline asks per file).
    codes: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "codes", frozenset(rule.code for rule in self.rules))

    @property
    def name(self) -> str:
        return f"{self.fn.__module__}.{self.fn.__qualname__}"


class RegistryIncomplete(RuntimeError):
    """The registry was read before the modules that define rules were all imported."""


class Registry:
    def __init__(self) -> None:
        self.rules: dict[str, Rule] = {}
        self.checks: list[Check] = []
        self._complete = False
        self._grouped: tuple[list[Check], int, dict[str, tuple[Check, ...]]] | None = None

    def add_rule(self, rule: Rule) -> Rule:
        if rule.code in self.rules:
            raise ValueError(f"rule code {rule.code!r} is defined twice")
        if rule.family not in FAMILIES:
            raise ValueError(f"rule {rule.code!r}: unknown family {rule.family!r}")
        self.rules[rule.code] = rule
        return rule

    def add_check(self, check_: Check) -> None:
        self.checks.append(check_)

    def mark_complete(self) -> None:
        """Every module that defines rules has been imported (`compiler.pipeline` says so once
        it has imported them all)."""
        self._complete = True

    @property
    def complete(self) -> bool:
        return self._complete

    def load(self) -> "Registry":
        """The registry, once complete; else `RegistryIncomplete`, naming what to import."""
        if not self._complete:
            raise RegistryIncomplete(
                "the rule registry was read before the rules were loaded: import compiler.pipeline "
                "(which imports every module that defines rules) before asking it"
            )
        return self

    def get(self, code: str) -> Rule | None:
        self.load()
        return self.rules.get(code)

    def all(self) -> list[Rule]:
        """Every rule, by family (pipeline order) then code."""
        self.load()
        order = {family: i for i, family in enumerate(FAMILIES)}
        return sorted(self.rules.values(), key=lambda r: (order[r.family], r.code))

    def successors(self, code: str) -> tuple[Rule, ...]:
        """The rules that report findings earlier versions reported as `code` (`Rule.formerly`)."""
        self.load()
        return tuple(rule for rule in self.rules.values() if code in rule.formerly)

    def fixable_codes(self) -> frozenset[str]:
        """The codes of the rules that declare a fixer (`--fix`, the fixable markers, quick fixes)."""
        self.load()
        return frozenset(code for code, rule in self.rules.items() if rule.fixable)

    def checks_by_family(self) -> dict[str, tuple[Check, ...]]:
        """The checks of every family, grouped once (the pipeline asks per file)."""
        self.load()
        grouped = self._grouped
        if grouped is None or grouped[0] is not self.checks or grouped[1] != len(self.checks):
            by_family: dict[str, list[Check]] = {}  # (re)built when a check is added
            for c in self.checks:
                by_family.setdefault(c.family, []).append(c)
            families = {family: tuple(checks) for family, checks in by_family.items()}
            grouped = self._grouped = (self.checks, len(self.checks), families)
        return grouped[2]


REGISTRY = Registry()


class Family:
    """The registrar of one family: modules of the family define their rules and checks here."""

    def __init__(self, name: str, registry: Registry = REGISTRY) -> None:
        if name not in FAMILIES:
            raise ValueError(f"unknown rule family {name!r}")
        self.name = name
        self.registry = registry

    def define(
        self,
        code: str,
        *,
        severity: Severity,
        summary: str,
        rationale: str,
        example: str,
        fix: str,
        leviath: str | None = None,
        differs: str | None = None,
        example_fixed: str | None = None,
        fixer: "Fixer | None" = None,
        whole_file_example: bool = False,
        illustrative_example: str | None = None,
        formerly: tuple[str, ...] = (),
    ) -> Rule:
        """Declare a rule of this family. Call at import time of the module that emits it."""
        return self.registry.add_rule(
            Rule(
                code=code,
                severity=severity,
                family=self.name,
                summary=summary,
                rationale=rationale,
                example=example.strip("\n"),
                fix=fix,
                leviath=leviath,
                differs=differs,
                example_fixed=example_fixed.strip("\n") if example_fixed else None,
                fixer=fixer,
                whole_file_example=whole_file_example,
                illustrative_example=illustrative_example,
                formerly=formerly,
                module=sys._getframe(1).f_globals.get("__name__", ""),
            )
        )

    def check(self, *rules: Rule) -> Callable[[CheckFn], CheckFn]:
        """Register a check function that emits `rules` (rules of this family, and no others)."""
        if self.name not in CHECKED_FAMILIES:
            raise ValueError(f"the {self.name} family has no check functions: the pipeline emits its rules")
        if not rules:
            raise ValueError("a check declares the rules it emits")
        for rule in rules:
            if not isinstance(rule, Rule):
                raise TypeError(f"a check declares Rule objects (from define), not {rule!r}")
            if rule.family != self.name:
                raise ValueError(f"rule {rule.code!r} is of the {rule.family} family, not {self.name}")

        def register(fn: CheckFn) -> CheckFn:
            self.registry.add_check(Check(tuple(rules), self.name, fn))
            return fn

        return register

    def __repr__(self) -> str:
        return f"Family({self.name!r})"


SYNTAX = Family("syntax")
SCHEMA = Family("schema")
STRUCTURE = Family("structure")
LINT = Family("lint")
ANALYSIS = Family("analysis")
META = Family("meta")
