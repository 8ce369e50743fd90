"""Pieces several commands share: rule flags, finding the blueprints, reading one with its
settings, and showing its errors. No click here (`blueprint validate` runs without it); the
options themselves are in `options.py`."""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterable
from dataclasses import replace
from typing import IO, TYPE_CHECKING

from ..config import ConfigError, ConfigFinder, Overrides, Settings, check_globs, check_rule_names, settings_for
from ..parse.source import read_blueprint
from ..render import REPORTERS
from .errors import CliError, echo, echo_problem, is_terminal

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from ..discover import Discovery
    from ..fix.edits import Fix
    from ..pipeline import FileResult
    from ..render import ReporterSpec


def use_color(choice: str, stream: IO | None = None) -> bool:
    """Whether to colour `stream`: the flag, then NO_COLOR, then FORCE_COLOR, then is it a TTY.

    Only a non-empty NO_COLOR or FORCE_COLOR counts (no-color.org); click reads neither.
    """
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return is_terminal(stream if stream is not None else sys.stdout)


def stdin_buffer() -> IO[bytes]:
    """Standard input as a binary stream; a closed one is an `OSError`, as an unreadable file
    is, not an `AttributeError` on `sys.stdin`."""
    if sys.stdin is None:  # started with standard input closed
        raise OSError(errno.EBADF, "standard input is closed")
    return sys.stdin.buffer


def read_stdin(limit: int) -> bytes:
    """Standard input as bytes, at most `limit` of them (see `stdin_buffer`)."""
    return stdin_buffer().read(limit)


def not_utf8(exc: UnicodeDecodeError) -> str:
    """Why a file that must stay byte for byte is refused: where its invalid UTF-8 starts."""
    return f"byte {exc.start + 1:,} is not valid UTF-8; the file is left as it is (fix its encoding first)"


def split_names(values: Iterable[str] | None) -> tuple[str, ...] | None:
    """`("a,b", "c")` → `("a", "b", "c")`; None when the option was not given at all."""
    if not values:
        return None
    return tuple(name.strip() for value in values for name in value.split(",") if name.strip())


def rule_overrides(
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    deny_warnings: bool | None,
    default_max_iterations: int | None = None,
    *,
    exclude: tuple[str, ...] = (),
    respect_gitignore: bool | None = None,
    extend_select: tuple[str, ...] = (),
    config_file: str | None = None,
    shard: str | None = None,
) -> Overrides:
    """What the flags replace in each file's settings (`--select`, `--ignore`,
    `--deny-warnings`, `--default-max-iterations`, `--respect-gitignore`, `--config`) or add
    to them (`--exclude`, `--extend-select`), and `--shard`; an unknown rule name or a
    malformed pattern is a `CliError`."""
    from .shard import parse_shard

    if config_file == "":
        raise CliError("--config names a configuration file: it must not be empty")
    try:
        return Overrides(
            select=_rule_names(select, "--select"),
            extend_select=_rule_names(extend_select, "--extend-select"),
            config_file=config_file,
            ignore=_rule_names(ignore, "--ignore"),
            deny_warnings=deny_warnings,
            default_max_iterations=default_max_iterations,
            exclude=check_globs(exclude, "--exclude") if exclude else None,
            respect_gitignore=respect_gitignore,
            shard=parse_shard(shard),
        )
    except ConfigError as exc:
        raise CliError(str(exc)) from exc


def _rule_names(values: tuple[str, ...], flag: str) -> tuple[str, ...] | None:
    from .. import pipeline  # noqa: F401 (every rule is registered once it is imported)

    names = split_names(values)
    return None if names is None else check_rule_names(names, flag)


def find_blueprints(
    paths: tuple[str, ...], overrides: Overrides, finder: ConfigFinder, *, warn_skipped: bool = True
) -> tuple[str, ...]:
    """The blueprint files `paths` name or hold, searched with the configured exclusions
    (only the part `--shard` names, when it is given)."""
    from ..discover import discover
    from ..ignore import PathFilter
    from .shard import shard_files

    try:
        found = discover(paths, PathFilter(finder, overrides))
    except ConfigError as exc:
        raise CliError(str(exc)) from exc
    files = blueprint_files(found, paths, warn_skipped=warn_skipped)
    chosen = shard_files(files, overrides.shard)
    if not chosen and overrides.shard is not None:
        part, parts = overrides.shard
        echo_problem(f"note: shard {part}/{parts} holds none of the {len(files)} file(s) found; nothing to check")
    return chosen


def blueprint_files(found: "Discovery", paths: tuple[str, ...], *, warn_skipped: bool = True) -> tuple[str, ...]:
    """The files `discover(paths)` found; a missing path, or no blueprint at all, is a
    `CliError`. Directories that could not be listed are warned about on stderr."""
    if found.missing:
        raise CliError(f"path '{found.missing[0]}' does not exist")
    if warn_skipped:
        for problem in found.skipped:
            echo_problem(f"warning: cannot read directory {problem}; skipped")
    if not found.files:
        where = ", ".join(f"'{p}'" for p in paths)
        left_out = ""
        if found.excluded:
            left_out = f"; {len(found.excluded)} path(s) left out by exclude patterns or .gitignore"
        raise CliError(f"no blueprints found in {where} (looked for agent.leviath and *.leviath files{left_out})")
    return found.files


def with_installation(overrides: Overrides, leviath_config: str | None, leviath_models: str | None) -> Overrides:
    return replace(overrides, leviath_config=leviath_config, leviath_models=leviath_models)


def settings_per_file(
    files: tuple[str, ...], overrides: Overrides, finder: ConfigFinder | None = None
) -> dict[str, Settings]:
    """Each file's settings; configuration problems (a Leviath file named that cannot be read
    included) stop the run before any file is checked. Configuration files passed over (a file
    of higher precedence beside them) are warned about."""
    from ..installation import InstallationError, load_config, load_models

    finder = finder if finder is not None else ConfigFinder(explicit=overrides.config_file)
    try:
        settings = {path: settings_for(finder.for_file(path), overrides, path).for_file(path) for path in files}
        for each in {s.leviath_config for s in settings.values() if s.leviath_config is not None}:
            load_config(each)
        for each in {s.leviath_models for s in settings.values() if s.leviath_models is not None}:
            load_models(each)
    except (ConfigError, InstallationError) as exc:
        raise CliError(str(exc)) from exc
    for warning in dict.fromkeys(finder.warnings):
        echo_problem(f"warning: {warning}")
    finder.warnings.clear()
    return settings


def read_with_settings(path: str, overrides: Overrides = Overrides()) -> tuple[bytes, Settings]:
    """One blueprint's bytes and the settings of its `[tool.blueprint]` (with `overrides`);
    I/O and configuration problems become a `CliError` (exit 2)."""
    try:
        data = read_blueprint(path)
    except OSError as exc:
        raise CliError(f"cannot read '{path}': {exc.strerror or exc}") from exc
    return data, settings_per_file((path,), overrides)[path]


def check_file(path: str) -> "FileResult":
    """Read and validate one blueprint with its own settings (see `read_with_settings`)."""
    from ..pipeline import validate_bytes

    data, settings = read_with_settings(path)
    return validate_bytes(path, data, settings)


def report_errors(result: "FileResult", color: str) -> bool:
    """Print the file's errors on stderr (or that it is not a blueprint); True when it has any."""
    from ..parse.other_files import blocking
    from ..render.text import render_report

    errors = blocking(result.diagnostics)
    if errors:
        paint = use_color(color, sys.stderr)
        echo(render_report([(errors, result.source)], color=paint), nl=False, err=True, color=paint)
    return bool(errors)


def human_only(spec: "ReporterSpec", output_format: str, *, statistics: bool = False, quiet: bool = False) -> None:
    """`--statistics` and `--quiet` shape the human formats; with a machine format they are a
    usage error rather than silently dropped."""
    if (statistics or quiet) and not spec.human:
        flag = "--statistics" if statistics else "--quiet"
        human = ", ".join(name for name, reporter in REPORTERS.items() if reporter.human)
        raise CliError(f"{flag} shapes the human formats ({human}), not '{output_format}'")


def fixes_of(results: "Iterable[FileResult]", settings: dict[str, Settings]) -> "dict[Diagnostic, Fix]":
    """The fixable findings of every result, with their edits (as `--fix` would make them).
    The fixing engine is imported only for a result with a fixable finding."""
    from ..rulebook.registry import REGISTRY

    codes = REGISTRY.fixable_codes()
    fixes: dict["Diagnostic", "Fix"] = {}
    for result in results:
        if any(d.code in codes for d in result.diagnostics):
            from ..fix.edits import fixes_for

            fixes.update(fixes_for(result, settings[result.path]))
    return fixes


def suggestion_fixes_of(
    results: "Iterable[FileResult]", settings: dict[str, Settings], safe: "dict[Diagnostic, Fix]"
) -> "dict[Diagnostic, Fix]":
    """The findings of every result that only `--unsafe-fixes` fixes (not in `safe`), with
    their edits. The fixing engine is imported only for a finding that suggests a name."""
    fixes: dict["Diagnostic", "Fix"] = {}
    for result in results:
        wanted = [d for d in result.diagnostics if d not in safe and "did you mean '" in (d.fix or "")]
        if wanted:
            from ..fix.suggestions import suggestion_fixes_for

            fixes.update(suggestion_fixes_for(result, settings[result.path], only=wanted))
    return fixes


def rule_docs_url(finder: ConfigFinder) -> str | None:
    """`rule-docs-url` of the configuration that applies to the working directory."""
    try:
        config = finder.for_directory(os.getcwd())
    except (ConfigError, OSError):  # reported where the files' own settings are read
        return None
    return config.rule_docs_url if config is not None else None
