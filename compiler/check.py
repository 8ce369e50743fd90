"""`check_file` / `check_bytes` / `check_text`: what `validate` reports, then every run explored.

A file with errors is not analysed (its `CheckResult.analysis` is None). Otherwise the
`analysis` family runs too, and where the analysis answers a lint's question exactly
(`dead-end-possible`, `cycle-without-max-revisits`, `allow-complete-skips-output`) only the
analysis is reported; an edge that no run takes is not reported again when a lint already
explains it. A crash of the exploration becomes the file's `internal-error` finding, as a
crashing check does in `validate_bytes`: one file's bug never hides another file's findings.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from compiler.records import record

from .analysis.rules import SUPERSEDES
from .config import DEFAULT_SETTINGS, Settings
from .diagnostics import Diagnostic, sort_diagnostics
from .parse.source import read_blueprint
from .pipeline import ANALYSIS_FAMILIES, INTERNAL_ERROR, FileResult, validate_unfinished

if TYPE_CHECKING:
    from .analysis.core import Analysis
    from .analysis.property_check import Verdict
    from .analysis.tokens import RunCost
    from .parse.source import SourceFile

#: A blueprint's scenario file is named so, beside it (`agent.leviath` → `agent.scenarios.toml`).
SCENARIO_SUFFIX = ".scenarios.toml"

#: Lint codes that explain an edge no run takes: such an edge is not reported twice.
EDGE_EXPLAINED_BY = frozenset(
    {"edge-target-always-spent", "stuck-threshold-after-cap", "max-iterations-edge-without-cap", "shadowed-edge"}
)


@record
class CheckResult:
    """What checking one file produced: the findings (`result`, as `validate` gives them, with
    the analysis family's added) and the exploration behind them."""

    result: FileResult
    #: None when the file was not analysed (it has errors, did not parse, or the exploration crashed).
    analysis: "Analysis | None"
    #: The most tokens and dollars one run spends (`compiler.analysis.tokens`), from the
    #: settings' prices and Leviath files; None when the file was not analysed.
    tokens: "RunCost | None" = None
    #: The verdict on each property its scenario file declares (none when it was not analysed).
    properties: "tuple[Verdict, ...]" = ()
    #: The scenario file the properties were read from (its findings point into it).
    properties_source: "SourceFile | None" = None


def check_bytes(
    path: str,
    data: bytes,
    settings: Settings = DEFAULT_SETTINGS,
    *,
    max_states: int | None = None,
    properties: tuple[str, bytes] | None = None,
) -> CheckResult:
    """Validate one file and, when that finds no error, explore its runs (the analysis family).

    `max_states` caps the run states explored (default 200,000); what was found is still
    reported. `properties` is the blueprint's scenario file (its path and bytes, see
    `scenario_file_beside`): its `[[property]]` tables are checked over the same exploration.
    Raises `TypeError` for arguments of the wrong kind, as `validate_bytes` does, and
    `ValueError` for a `max_states` below 1.
    """
    if max_states is not None and (not isinstance(max_states, int) or isinstance(max_states, bool)):
        raise TypeError(f"max_states must be an int or None, not {type(max_states).__name__}")
    if max_states is not None and max_states < 1:
        raise ValueError(f"max_states must be at least 1, not {max_states}")
    validation = validate_unfinished(path, data, settings)
    validated = validation.finish()
    ctx = validation.ctx
    if ctx is None or not validated.ok:
        return CheckResult(validated, None)

    from .analysis.check_runs import property_findings, run_findings
    from .analysis.core import analyze
    from .analysis.property_spec import PropertyRequest, read_properties
    from .analysis.runs import STATE_LIMIT
    from .analysis.tokens import models_from, run_cost

    request = PropertyRequest(read_properties(*properties)) if properties is not None else None
    try:
        analysis = analyze(
            ctx.blueprint, limit=max_states or STATE_LIMIT, default_max_iterations=settings.default_max_iterations
        )
        found = list(run_findings(ctx, analysis))
        cost = run_cost(analysis, models_from(settings))
        if request is not None:
            found += property_findings(request, analysis, lambda: cost)
    except Exception as exc:  # a bug in the exploration must not end the caller's run
        return CheckResult(_with_crash(validated, exc), None)
    checked = validation.finish(found, ANALYSIS_FAMILIES)

    kept = _without_repeats(checked.diagnostics, analysis, settings)
    verdicts = tuple(request.verdicts) if request is not None else ()
    source = request.file.source if request is not None else None
    return CheckResult(replace(checked, diagnostics=kept), analysis, cost, verdicts, source)


def check_text(
    text: str, path: str = "<string>", settings: Settings = DEFAULT_SETTINGS, *, max_states: int | None = None
) -> CheckResult:
    """`check_bytes` on a blueprint held as text (the text first, as in `validate_text`)."""
    if not isinstance(text, str):
        raise TypeError(f"check_text takes the text as a str, not {type(text).__name__} (bytes: check_bytes)")
    # A lone surrogate is kept as bytes no UTF-8 reader accepts: an invalid-encoding finding.
    return check_bytes(path, text.encode("utf-8", "surrogatepass"), settings, max_states=max_states)


def check_file(
    path: str | os.PathLike[str], settings: Settings = DEFAULT_SETTINGS, *, max_states: int | None = None
) -> CheckResult:
    """Check a file on disk. I/O problems (missing, unreadable) raise `OSError`. The
    `tools/*.rhai` scripts beside it count as its tools (`Settings.for_file`), and the
    properties of its scenario file are checked (`scenario_file_beside`)."""
    path = os.fspath(path)
    return check_bytes(
        path,
        read_blueprint(path),
        settings.for_file(path),
        max_states=max_states,
        properties=scenario_file_beside(path),
    )


def scenario_file_beside(path: str) -> tuple[str, bytes] | None:
    """The scenario file of the blueprint at `path` (`<name>.scenarios.toml` beside it) and its
    bytes, when there is one that can be read."""
    folder, name = os.path.split(path)
    stem = name[: -len(".leviath")] if name.endswith(".leviath") else name
    scenarios = os.path.join(folder, stem + SCENARIO_SUFFIX)
    try:
        return scenarios, read_blueprint(scenarios)
    except OSError:
        return None


def _with_crash(result: FileResult, exc: Exception) -> FileResult:
    """`result` with the exploration's crash as an `internal-error` finding."""
    crash = INTERNAL_ERROR.diagnostic(f"run analysis crashed: {type(exc).__name__}: {exc}", file=result.path)
    return replace(result, diagnostics=tuple(sort_diagnostics([*result.diagnostics, crash])))


def _without_repeats(
    diagnostics: tuple[Diagnostic, ...], analysis: "Analysis", settings: Settings
) -> tuple[Diagnostic, ...]:
    """Drop lint findings the analysis answers exactly, and edges a lint already explains."""
    superseded = {lint for lint, code in SUPERSEDES.items() if analysis.complete and settings.enabled(code, "analysis")}
    explained = [d.path for d in diagnostics if d.code in EDGE_EXPLAINED_BY]
    kept = []
    for d in diagnostics:
        if d.code in superseded:
            continue
        if d.code == "edge-never-taken" and any(tuple(p[: len(d.path)]) == tuple(d.path) for p in explained):
            continue
        kept.append(d)
    return tuple(kept)
