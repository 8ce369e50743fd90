"""The one rule registry: every diagnostic code, its documentation and its check.

Each code is declared once, by the module that emits it, with `define(...)`; a check is a
pure function from a `RuleContext` to diagnostics, registered with `@check(codes...)` for the
codes it may emit. The CLI (`blueprint rules`, `blueprint rule CODE`, `--select`), the
generated docs (docs/rules/) and SARIF's `rules[]` all read this table, so a rule exists
exactly when it is defined here.

Families run in pipeline order: `syntax` codes come from reading the file (no check
function), `schema` from the JSON Schema layer, `structure` from the typed model (Leviath's
parse/validate errors and reference checks), `lint` from the graph and declaration checks,
`analysis` from exhaustive run exploration, `meta` from the pipeline itself (suppressions).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from ..diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from .context import RuleContext

FAMILIES = ("syntax", "schema", "structure", "lint", "analysis", "meta")

#: Modules that define rules, imported on first use of the registry (keeps start-up lean).
RULE_MODULES: tuple[str, ...] = (
    "compiler.rules.builtin",
    "compiler.schema.rules",
    "compiler.rules.structure",
    "compiler.rules.lint",
    "compiler.analysis.rules",
    "compiler.suppress",
)

CheckFn = Callable[["RuleContext"], Iterable[Diagnostic]]


@dataclass(frozen=True)
class RuleInfo:
    """Everything a user can learn about one code."""

    code: str
    severity: Severity
    family: str
    summary: str
    rationale: str
    example: str
    fix: str
    #: Leviath's name for the same check: a P-/V-rule of its format spec, or its lint slug.
    leviath: str | None = None
    #: Leviath's behaviour where ours differs (shown in the docs).
    differs: str | None = None
    #: A blueprint snippet that does not trigger the rule (the "use instead").
    example_fixed: str | None = None
    #: `blueprint validate --fix` rewrites it; only for fixes that cannot change what a run does.
    fixable: bool = False

    @property
    def doc_path(self) -> str:
        return f"docs/rules/{self.code}.md"


@dataclass(frozen=True)
class Check:
    codes: tuple[str, ...]
    family: str
    fn: CheckFn

    @property
    def name(self) -> str:
        return f"{self.fn.__module__}.{self.fn.__qualname__}"


class Registry:
    def __init__(self) -> None:
        self.rules: dict[str, RuleInfo] = {}
        self.checks: list[Check] = []
        self._loaded = False
        self._grouped: tuple[list[Check], int, dict[str, tuple[Check, ...]]] | None = None

    def define(self, info: RuleInfo) -> RuleInfo:
        if info.code in self.rules:
            raise ValueError(f"rule code {info.code!r} is defined twice")
        if info.family not in FAMILIES:
            raise ValueError(f"rule {info.code!r}: unknown family {info.family!r}")
        self.rules[info.code] = info
        return info

    def add_check(self, check_: Check) -> None:
        self.checks.append(check_)

    def load(self) -> "Registry":
        if not self._loaded:
            self._loaded = True
            for module in RULE_MODULES:
                importlib.import_module(module)
        return self

    def get(self, code: str) -> RuleInfo | None:
        self.load()
        return self.rules.get(code)

    def all(self) -> list[RuleInfo]:
        """Every rule, by family (pipeline order) then code."""
        self.load()
        order = {family: i for i, family in enumerate(FAMILIES)}
        return sorted(self.rules.values(), key=lambda r: (order[r.family], r.code))

    def checks_for(self, family: str) -> list[Check]:
        self.load()
        return [c for c in self.checks if c.family == family]

    def checks_by_family(self) -> dict[str, tuple[Check, ...]]:
        """`checks_for` of every family, grouped once (the pipeline asks per file)."""
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


def define(
    code: str,
    *,
    severity: Severity,
    family: str,
    summary: str,
    rationale: str,
    example: str,
    fix: str,
    leviath: str | None = None,
    differs: str | None = None,
    example_fixed: str | None = None,
    fixable: bool = False,
) -> RuleInfo:
    """Declare a code. Call at import time of the module that emits it."""
    return REGISTRY.define(
        RuleInfo(
            code=code,
            severity=severity,
            family=family,
            summary=summary,
            rationale=rationale,
            example=example.strip("\n"),
            fix=fix,
            leviath=leviath,
            differs=differs,
            example_fixed=example_fixed.strip("\n") if example_fixed else None,
            fixable=fixable,
        )
    )


def check(*codes: str, family: str) -> Callable[[CheckFn], CheckFn]:
    """Register a check function that may emit `codes` (each must be `define`d)."""

    def register(fn: CheckFn) -> CheckFn:
        REGISTRY.add_check(Check(tuple(codes), family, fn))
        return fn

    return register
