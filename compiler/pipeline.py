"""bytes → text → TOML → typed model → checks → sorted diagnostics, for one file.

Every layer runs over whatever the earlier ones could build: a syntax error leaves no
document (so nothing else can run), but from a document on, the schema, structure and lint
checks all run and all report. A check that crashes becomes an `internal-error` finding
for that file; the library never prints and never exits.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import field

from compiler.records import record

from .config import DEFAULT_SETTINGS, Settings
from .diagnostics import Counts, Diagnostic, sort_diagnostics
from .discover import RegionScript, region_scripts
from .ir.model import Blueprint
from .parse.other_files import is_lev_test_document, is_rhai_script, lev_test_note, rhai_note
from .parse.source import FILE_TOO_LARGE, SourceFile, decode, read_blueprint
from .parse.toml import parse_toml
from .rulebook.registry import META, REGISTRY, Check
from .rules.context import RuleContext
from .suppress import apply_suppressions

INTERNAL_ERROR = META.define(
    "internal-error",
    severity="error",
    summary="A check crashed on this file (a bug in blueprint-compiler).",
    rationale=(
        "A failing check must not stop the other checks or the other files, so the crash is "
        "reported as a finding instead of a traceback. Please report it with the blueprint."
    ),
    example="# any blueprint that makes a check raise",
    fix="report this with the blueprint that triggers it",
    illustrative_example="only a bug in a check raises it",
)


def _load_every_rule() -> None:
    """Import every module that defines rules, then mark the registry complete: the rule
    modules under `compiler/rules/`, and the analysis family (`parse`, `suppress` and this
    module, the other layers that report codes of their own, are imported by now)."""
    from .analysis import check_runs  # noqa: F401 (registers the analysis family)
    from .rules import load_rule_modules

    load_rule_modules()
    REGISTRY.mark_complete()


_load_every_rule()

#: Check families `validate` runs, in order.
VALIDATE_FAMILIES: tuple[str, ...] = ("schema", "structure", "lint")
#: Check families `check` adds on a file without errors: the run analysis.
ANALYSIS_FAMILIES: tuple[str, ...] = ("analysis",)
CHECK_FAMILIES: tuple[str, ...] = (*VALIDATE_FAMILIES, *ANALYSIS_FAMILIES)


@record
class FileResult:
    """What validating one file produced. `blueprint` is None when the file did not parse."""

    path: str
    diagnostics: tuple[Diagnostic, ...]
    blueprint: Blueprint | None = None
    source: SourceFile | None = field(default=None, repr=False, compare=False)
    document: dict | None = field(default=None, repr=False, compare=False)
    #: The check families that ran (none when the file did not parse).
    families: tuple[str, ...] = field(default=(), repr=False, compare=False)

    @property
    def counts(self) -> Counts:
        return Counts.of(self.diagnostics)

    @property
    def ok(self) -> bool:
        return self.counts.errors == 0


def validate_bytes(
    path: str, data: bytes, settings: Settings = DEFAULT_SETTINGS, families: tuple[str, ...] = VALIDATE_FAMILIES
) -> FileResult:
    """Check one file with the `families` given (`validate`'s by default)."""
    return validate_unfinished(path, data, settings, families).finish()


def validate_unfinished(
    path: str, data: bytes, settings: Settings = DEFAULT_SETTINGS, families: tuple[str, ...] = VALIDATE_FAMILIES
) -> "Validation":
    """`validate_bytes` before its last step: the findings are not selected nor suppressed yet,
    so that `check` can add the analysis family's before that is done once over them all.
    Raises `TypeError` for arguments of the wrong kind."""
    if not isinstance(path, str) or not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"validate_bytes(path: str, data: bytes), not ({type(path).__name__}, {type(data).__name__})")
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be a compiler.Settings, not {type(settings).__name__}")
    return _validate(path, data, settings, families)


@record(eq=False)
class Validation:
    """One file's checks run, their findings as reported (not yet selected by the settings nor
    suppressed by the file's directives). `ctx` is None when no check could run."""

    path: str
    settings: Settings
    source: SourceFile
    found: tuple[Diagnostic, ...]
    document: dict | None = None
    ctx: RuleContext | None = None
    families: tuple[str, ...] = ()

    def finish(self, more: Iterable[Diagnostic] = (), families: tuple[str, ...] = ()) -> FileResult:
        """The file's result: its findings and `more` (of the further `families` run on it),
        selected by the settings, then suppressed, then sorted."""
        diagnostics = _select([*self.found, *more], self.settings)
        ctx = self.ctx
        if ctx is None:
            return FileResult(
                self.path, tuple(sort_diagnostics(diagnostics)), source=self.source, document=self.document
            )
        ran = (*self.families, *families)
        diagnostics = apply_suppressions(ctx, diagnostics, ran)
        return FileResult(
            self.path, tuple(sort_diagnostics(diagnostics)), ctx.blueprint, self.source, self.document, ran
        )


def _validate(path: str, data: bytes, settings: Settings, families: tuple[str, ...]) -> Validation:
    source, diagnostics = decode(path, data)
    if any(d.code == FILE_TOO_LARGE.code for d in diagnostics):
        return Validation(path, settings, source, tuple(diagnostics))
    if is_rhai_script(path):  # not TOML at all: say what it is, check nothing
        return Validation(path, settings, source, (rhai_note(path),))
    document, syntax = parse_toml(source)
    diagnostics += syntax
    if document is None:
        return Validation(path, settings, source, tuple(diagnostics))
    if is_lev_test_document(document):
        return Validation(path, settings, source, (*diagnostics, lev_test_note(source)), document)

    from .ir.build import build_blueprint

    blueprint = build_blueprint(document)
    ctx = RuleContext(source, document, blueprint, settings, _region_scripts(blueprint, settings))
    _run_families(ctx, families, diagnostics)
    return Validation(path, settings, source, tuple(diagnostics), document, ctx, families)


def _region_scripts(blueprint: Blueprint, settings: Settings) -> dict[str, RegionScript] | None:
    """The custom-region scripts the blueprint declares, looked up beside it: the one thing a
    check needs from the disk, read here so that checks stay pure. None without a folder."""
    if settings.blueprint_folder is None:
        return None
    layouts = [blueprint.layout, *(stage.layout for stage in blueprint.stages if stage.layout is not None)]
    declared = [r.script for layout in layouts for r in layout.regions if r.kind == "custom" and r.script]
    return region_scripts(settings.blueprint_folder, declared)


def _run_families(ctx: RuleContext, families: tuple[str, ...], diagnostics: list[Diagnostic]) -> None:
    settings = ctx.settings
    every_rule = not settings.select and not settings.ignore  # the default: no per-check question
    checks = REGISTRY.checks_by_family()
    for family in families:
        for check in checks.get(family, ()):
            if not every_rule and not any(settings.enabled(code, family) for code in check.codes):
                continue
            diagnostics.extend(_run_check(ctx, check))


def validate_text(text: str, path: str = "<string>", settings: Settings = DEFAULT_SETTINGS) -> FileResult:
    """Check a blueprint held as text; `path` names it in the findings and is never read (nor
    is anything beside it: `Settings.local_tools` says which tool scripts exist). Note the
    order: the text comes first here, the path first in `validate_bytes`."""
    if not isinstance(text, str):
        raise TypeError(f"validate_text takes the text as a str, not {type(text).__name__} (bytes: validate_bytes)")
    # A lone surrogate is kept as bytes no UTF-8 reader accepts: an invalid-encoding finding,
    # as the language server reports for the same text.
    return validate_bytes(path, text.encode("utf-8", "surrogatepass"), settings)


def validate_file(path: str | os.PathLike[str], settings: Settings = DEFAULT_SETTINGS) -> FileResult:
    """Validate a file on disk. I/O problems (missing, unreadable) raise `OSError`. The
    `tools/*.rhai` scripts beside it count as its tools (`Settings.for_file`)."""
    return validate_bytes(os.fspath(path), read_blueprint(path), settings.for_file(path))


def _run_check(ctx: RuleContext, check: Check) -> list[Diagnostic]:
    try:
        found = list(check.fn(ctx))
    except Exception as exc:  # a bug in one check must not hide every other finding
        return [_crashed(ctx, f"check {check.name} crashed: {type(exc).__name__}: {exc}")]
    declared = check.codes
    undeclared = sorted({d.code for d in found if d.code not in declared})
    if undeclared:  # a check reports only the rules it declares (so selecting them runs it)
        found = [d for d in found if d.code in declared]
        found.append(_crashed(ctx, f"check {check.name} reported {', '.join(undeclared)}, which it does not declare"))
    return found


def _crashed(ctx: RuleContext, message: str) -> Diagnostic:
    return ctx.report(INTERNAL_ERROR, message, (), stage=None)


def _select(diagnostics: list[Diagnostic], settings: Settings) -> list[Diagnostic]:
    out = []
    for d in diagnostics:
        info = REGISTRY.get(d.code)
        family = info.family if info else "meta"
        if d.code == INTERNAL_ERROR.code or settings.enabled(d.code, family):
            out.append(d)
    return out
