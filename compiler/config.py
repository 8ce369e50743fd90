"""Settings that shape a validation run, and where they come from.

Library users construct `Settings` directly. The CLI builds one per file from two sources:
the nearest configuration file above the file, then its own flags, which replace the same
keys of the file. In each directory, from the file's own up to the filesystem root, the first
of `.blueprint.toml`, `blueprint.toml` and a `pyproject.toml` with a `[tool.blueprint]` table
is the configuration (the same keys; the dedicated files write them at the top level). Tables
further up are not merged into it, as with ruff. `--config FILE` names the one configuration
instead (`ConfigFinder(explicit=...)`). A mistake in a file is placed at its line and column.

Rules are named by code, by family (`lint`, `schema`, …) or `all`; a name that is none of
these is a configuration error, never silently ignored (a typo in `ignore` would otherwise
re-enable nothing and hide nothing, with no sign that it was wrong). So is an unknown key.

To add a key: a line in `KEYS` (name, attribute, kind, default, help), a field of that
attribute in `FileConfig` (None = not set) and, when the validation pipeline reads it, in
`Settings` (`settings_for` copies every field the two share). A new kind of value is one
reader in `READERS`.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from compiler.records import record

from .config_values import ALL_RULES, READERS, ConfigError, check_globs, check_rule_names, did_you_mean
from .discover import blueprint_folder, local_tools
from .ignore import DEFAULT_EXCLUDE
from .ir.model import DEFAULT_MAX_ITERATIONS
from .prices import PriceError, Prices, read_prices
from .reading import read_limited

#: Configuration files, in the order they are looked for in each directory: the first one
#: present wins (a `pyproject.toml` only when it has a `[tool.blueprint]` table).
CONFIG_FILES = (".blueprint.toml", "blueprint.toml", "pyproject.toml")
PYPROJECT = "pyproject.toml"
#: Where tomllib's message places a syntax error.
_TOML_AT = re.compile(r"\(at line (?P<line>\d+), column (?P<column>\d+)\)")
#: The table of `pyproject.toml` that holds the keys.
CONFIG_TABLE = "tool.blueprint"
#: Kept for callers of the first version, which read only `pyproject.toml`.
CONFIG_FILE = PYPROJECT
#: A configuration file larger than this is not read (a real one is a few kilobytes).
MAX_CONFIG_BYTES = 8 * 1024 * 1024


@record
class Settings:
    #: Codes or families to run; empty means every rule.
    select: tuple[str, ...] = ()
    #: Codes or families to drop (wins over `select`).
    ignore: tuple[str, ...] = ()
    #: Tool names to accept in addition to the built-in catalog (`unknown-tool`).
    known_tools: tuple[str, ...] = ()
    #: Warnings fail the run too (the CLI's exit status; the pipeline does not read it).
    deny_warnings: bool = False
    #: `--fix` also writes the names findings suggest (`compiler.fix.suggestions`).
    unsafe_fixes: bool = False
    #: The user's Leviath `config.toml` and `lev models list` printout, for the checks that
    #: need the installation (`compiler.installation`); None leaves those checks off.
    leviath_config: str | None = None
    leviath_models: str | None = None
    #: The iteration cap of a stage whose `max_iterations` is unset or 0, as the user's Leviath
    #: configuration sets it (`[limits] default_max_iterations`, 50 by default); 0 for none.
    default_max_iterations: int = DEFAULT_MAX_ITERATIONS
    #: Names of the `tools/*.rhai` scripts beside the blueprint (`unknown-tool` accepts them).
    #: None: not looked up, so no script is known and the result depends on nothing on disk;
    #: `for_file(path)` looks them up (`validate_file`, `check_file` and the CLI do).
    local_tools: tuple[str, ...] | None = None
    #: The folder of the blueprint file, against which its custom regions' scripts resolve
    #: (`custom-region-script-not-found`, `custom-region-script-outside`). None: the blueprint
    #: is not a file on disk, so no script is looked up; `for_file(path)` sets it.
    blueprint_folder: str | None = None
    #: `provider/model` → its prices and limits (`compiler.prices`), for the token and cost ceilings.
    prices: Prices = ()

    def for_file(self, path: str | os.PathLike[str]) -> "Settings":
        """These settings with what lies beside the blueprint file `path` (its `local_tools`
        and its `blueprint_folder`), each unless given; nothing when `path` is not a file."""
        if self.local_tools is not None and self.blueprint_folder is not None:
            return self
        path = os.fspath(path)
        tools = self.local_tools if self.local_tools is not None else local_tools(path)
        folder = self.blueprint_folder if self.blueprint_folder is not None else blueprint_folder(path)
        return replace(self, local_tools=tools, blueprint_folder=folder)

    def enabled(self, code: str, family: str) -> bool:
        if not self.ignore and not self.select:  # the default: every rule (asked per check, per file)
            return True

        def named(names: tuple[str, ...]) -> bool:
            return any(n in (*ALL_RULES, code, family) for n in names)

        if self.ignore and named(self.ignore):
            return False
        return not self.select or named(self.select)


DEFAULT_SETTINGS = Settings()


@record
class ConfigKey:
    """One configuration key: the attribute it fills, the kind of value, its default, its meaning."""

    attribute: str
    kind: str
    default: Any
    help: str


#: Every configuration key, by the name written in the file.
KEYS: dict[str, ConfigKey] = {
    "select": ConfigKey("select", "rules", (), "run only these rule codes or families (empty: every rule)"),
    "extend-select": ConfigKey("extend_select", "rules", (), "more rules to run, added to a non-empty select"),
    "ignore": ConfigKey("ignore", "rules", (), "drop these rule codes or families (wins over select)"),
    "per-file-ignores": ConfigKey(
        "per_file_ignores", "per-file", (), "rules to drop in the files a pattern matches: { pattern = [rules] }"
    ),
    "known-tools": ConfigKey("known_tools", "strings", (), "tool names to accept besides the built-in catalog"),
    "deny-warnings": ConfigKey("deny_warnings", "bool", False, "warnings fail the run too"),
    "unsafe-fixes": ConfigKey("unsafe_fixes", "bool", False, "--fix also writes the names findings suggest"),
    "leviath-config": ConfigKey("leviath_config", "path", None, "your Leviath config.toml, for installation checks"),
    "leviath-models": ConfigKey("leviath_models", "path", None, "what `lev models list` prints, saved to a file"),
    "default-max-iterations": ConfigKey(
        "default_max_iterations",
        "count",
        DEFAULT_MAX_ITERATIONS,
        "the iteration cap of a stage whose max_iterations is unset or 0, as Leviath's configuration sets it (0: none)",
    ),
    "exclude": ConfigKey(
        "exclude", "globs", DEFAULT_EXCLUDE, "paths a directory search leaves out (replaces defaults)"
    ),
    "extend-exclude": ConfigKey("extend_exclude", "globs", (), "more paths a directory search leaves out"),
    "respect-gitignore": ConfigKey("respect_gitignore", "bool", True, "a search leaves out what .gitignore ignores"),
    "rule-docs-url": ConfigKey("rule_docs_url", "url", None, "where rule pages are published ({code}: the rule)"),
    "prices": ConfigKey(
        "prices", "prices", (), "per provider/model: dollars per million input and output tokens, window, max_output"
    ),
}


@record
class FileConfig:
    """The keys of one configuration file; None means the key is not set."""

    path: Path
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    #: (gitignore-style pattern, rules) pairs, patterns relative to the file's folder.
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    known_tools: tuple[str, ...] | None = None
    deny_warnings: bool | None = None
    unsafe_fixes: bool | None = None
    #: Paths, resolved against the folder of the configuration file.
    leviath_config: str | None = None
    leviath_models: str | None = None
    default_max_iterations: int | None = None
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] | None = None
    respect_gitignore: bool | None = None
    rule_docs_url: str | None = None
    prices: Prices | None = None
    #: How messages name the file (relative to the working directory where it can be).
    display: str = field(default="", compare=False)

    @property
    def directory(self) -> Path:
        """The folder its relative patterns start from."""
        return self.path.parent

    @property
    def label(self) -> str:
        """Where its keys are written: `blueprint.toml`, `pyproject.toml [tool.blueprint]`."""
        where = self.display or str(self.path)
        return f"{where} [{CONFIG_TABLE}]" if self.path.name == PYPROJECT else where

    def ignores_for(self, path: str | os.PathLike[str]) -> tuple[str, ...]:
        """The rules `per-file-ignores` drops in the blueprint at `path`."""
        if not self.per_file_ignores:
            return ()
        from .ignore import PatternSet

        relative = os.path.relpath(os.path.abspath(path), self.directory).replace(os.sep, "/")
        if relative == os.pardir or relative.startswith(os.pardir + "/"):
            return ()
        found: list[str] = []
        for pattern, rules in self.per_file_ignores:
            decision = PatternSet(str(self.directory), self.label, (pattern,)).decide(relative)
            if decision is not None and decision[0]:
                found.extend(rule for rule in rules if rule not in found)
        return tuple(found)

    def value(self, key: str) -> Any:
        """The value of `key` (a name of `KEYS`): as written, or its default when not set."""
        spec = KEYS[key]
        written = getattr(self, spec.attribute, None)
        return spec.default if written is None else written


@record
class Overrides:
    """What the command line says; None means the flag was not given."""

    select: tuple[str, ...] | None = None
    #: `--extend-select`: rules added to the select in effect (when it is not every rule).
    extend_select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    deny_warnings: bool | None = None
    unsafe_fixes: bool | None = None
    #: `--config FILE`: the one configuration file every blueprint reads (`ConfigFinder`).
    config_file: str | None = None
    leviath_config: str | None = None
    leviath_models: str | None = None
    default_max_iterations: int | None = None
    #: `--exclude`: patterns added to the configuration's, relative to the working directory.
    exclude: tuple[str, ...] | None = None
    respect_gitignore: bool | None = None
    #: `--shard K/N`: check only part K of N of the files a search finds (`cli/shard.py`).
    shard: tuple[int, int] | None = None


#: The command-line flag that overrides each key, for `--show-settings`.
FLAGS: dict[str, str] = {
    "select": "--select",
    "extend-select": "--extend-select",
    "ignore": "--ignore",
    "deny-warnings": "--[no-]deny-warnings",
    "unsafe-fixes": "--[no-]unsafe-fixes",
    "leviath-config": "--leviath-config",
    "leviath-models": "--leviath-models",
    "default-max-iterations": "--default-max-iterations",
    "respect-gitignore": "--[no-]respect-gitignore",
}


def settings_for(
    config: FileConfig | None, overrides: Overrides = Overrides(), path: str | os.PathLike[str] | None = None
) -> Settings:
    """The settings of one file: the configuration, with every given flag replacing its key
    (`Settings.for_file` adds what lies beside the file). `extend-select` adds to a select
    that is not every rule (`--select` replaces the configuration's); with `path`, the rules
    `per-file-ignores` names for it are added to `ignore`, whatever `--ignore` says."""
    shared = [f.name for f in fields(Settings)]
    values: dict[str, Any] = {}
    for source in (config, overrides):
        for name in shared:
            value = getattr(source, name, None)
            if value is not None:
                values[name] = value
    extend = (config.extend_select or ()) if config is not None and overrides.select is None else ()
    extend += overrides.extend_select or ()
    if extend and values.get("select"):
        values["select"] = (*values["select"], *(name for name in extend if name not in values["select"]))
    if path is not None and config is not None and (dropped := config.ignores_for(path)):
        values["ignore"] = (*values.get("ignore", ()), *dropped)
    return Settings(**values)


def load_config(path: Path, display: str | None = None) -> FileConfig | None:
    """The configuration in `path`: a `blueprint.toml` / `.blueprint.toml` (keys at the top
    level), or the `[tool.blueprint]` table of a `pyproject.toml` (None when it has none)."""
    from .parse.reader import loads

    where = display or str(path)
    data = b""
    try:
        data = read_limited(path, MAX_CONFIG_BYTES)
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{where}: larger than {MAX_CONFIG_BYTES:,} bytes; not read")
        text = data.decode("utf-8")
        document = loads(text)
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read: {exc.strerror or exc}") from exc
    except ValueError as exc:  # not UTF-8, or not TOML (tomllib.TOMLDecodeError)
        raise ConfigError(_syntax_error(str(exc), where, data)) from exc
    if path.name == PYPROJECT:
        tool = document.get("tool")
        if not isinstance(tool, dict) or "blueprint" not in tool:
            return None
        table = tool["blueprint"]
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: [{CONFIG_TABLE}] must be a table")
        prefix = f"{where}: [{CONFIG_TABLE}] "
        unknown = f" in [{CONFIG_TABLE}]"
        table_path: tuple[str, ...] = ("tool", "blueprint")
    else:
        table = document
        if "tool" in table and isinstance(table["tool"], dict) and "blueprint" in table["tool"]:
            raise ConfigError(f"{where}: write the keys at the top level: [{CONFIG_TABLE}] is for pyproject.toml only")
        prefix = f"{where}: "
        unknown = ""
        table_path = ()
    values: dict[str, Any] = {}
    for key, value in table.items():
        spec = KEYS.get(key)
        try:
            if spec is None:
                raise ConfigError(f"{where}: unknown key '{key}'{unknown}{did_you_mean(key, list(KEYS))}")
            if spec.kind == "prices":
                try:
                    values["prices"] = read_prices(value, where, text, (*table_path, key))
                except PriceError as exc:
                    raise ConfigError(str(exc)) from exc
                continue
            values[spec.attribute] = READERS[spec.kind](value, prefix + key, path.parent)
        except ConfigError as exc:
            if spec is not None and spec.kind == "prices":
                raise  # already placed at its value
            key_path = (*table_path, key)
            raise ConfigError(_positioned(str(exc), where, data, key_path, "key" if spec is None else "value")) from exc
    return FileConfig(path=path, display=display or "", **values)


def _syntax_error(reason: str, where: str, data: bytes) -> str:
    """tomllib's message, placed as a finding is: `ci.toml:3:5: not valid TOML: …` (the end
    of the file for an error at its end)."""
    at = _TOML_AT.search(reason)
    if at is not None:
        return f"{where}:{at['line']}:{at['column']}: not valid TOML: {reason[: at.start()].rstrip()}"
    if reason.endswith("(at end of document)"):
        text = data.decode("utf-8", "replace")
        line = text.count("\n") + 1
        column = len(text) - (text.rfind("\n") + 1) + 1
        return f"{where}:{line}:{column}: not valid TOML: {reason[: -len('(at end of document)')].rstrip()}"
    return f"{where}: not valid TOML: {reason}"


def _positioned(message: str, where: str, data: bytes, key_path: tuple[str, ...], prefer: str) -> str:
    """`message` (which starts with `where: `) with the line and column of the key or value
    it is about: `blueprint.toml:3:10: ignore: …`, as a blueprint's findings are placed."""
    from .parse.positions import PositionIndex

    span, _ = PositionIndex(data.decode("utf-8")).locate(key_path, prefer)
    head = f"{where}: "
    if span is None or not message.startswith(head):
        return message
    return f"{where}:{span.line}:{span.column}: {message[len(head) :]}"


@dataclass
class ConfigFinder:
    """Finds the configuration that applies to a file, caching every directory it visits.

    `warnings` collects configurations that were passed over because a file of higher
    precedence sits in the same folder (the CLI prints them once).
    """

    _by_directory: dict[Path, FileConfig | None] = field(default_factory=dict)
    _by_file: dict[Path, FileConfig | None] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: `--config FILE`: this file is the configuration of every blueprint; none is looked for.
    explicit: str | None = None

    def for_file(self, path: str | os.PathLike[str]) -> FileConfig | None:
        """The configuration of the nearest directory above `path` that has one."""
        return self.for_directory(Path(os.path.abspath(path)).parent)

    def for_directory(self, directory: str | os.PathLike[str]) -> FileConfig | None:
        """The configuration of `directory` or the nearest directory above it that has one."""
        if self.explicit is not None:
            return self._explicit()
        visited: list[Path] = []
        found: FileConfig | None = None
        current: Path | None = Path(os.path.abspath(directory))
        while current is not None:
            if current in self._by_directory:
                found = self._by_directory[current]
                break
            visited.append(current)
            found = self._in_directory(current)
            if found is not None:
                break
            current = current.parent if current.parent != current else None
        for seen in visited:
            self._by_directory[seen] = found
        return found

    def _in_directory(self, directory: Path) -> FileConfig | None:
        found: FileConfig | None = None
        for name in CONFIG_FILES:
            candidate = directory / name
            if not _is_file(candidate):
                continue
            config = self._load(candidate)
            if config is None:
                continue
            if found is None:
                found = config
            else:
                self.warnings.append(f"{config.label} is not read: {found.label} beside it takes precedence")
        return found

    def _explicit(self) -> FileConfig:
        assert self.explicit is not None
        path = Path(os.path.abspath(self.explicit))
        if not _is_file(path):
            raise ConfigError(f"{self.explicit}: no such configuration file")
        config = self._load(path)
        if config is None:
            raise ConfigError(f"{self.explicit}: has no [{CONFIG_TABLE}] table")
        return config

    def _load(self, path: Path) -> FileConfig | None:
        if path not in self._by_file:
            self._by_file[path] = load_config(path, _display(path))
        return self._by_file[path]


def _is_file(path: Path) -> bool:
    """Whether `path` is there to be read as configuration: anything but a folder, so a FIFO
    or a device is refused by `load_config` (a configuration error), not passed over."""
    try:
        return not stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):  # absent, or in a directory we may not look into
        return False


def _display(path: Path) -> str:
    """A path relative to the working directory when it lies below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except (ValueError, OSError):  # elsewhere, or the working directory is gone
        return str(path)


__all__ = [
    "ALL_RULES",
    "CONFIG_FILES",
    "DEFAULT_SETTINGS",
    "FLAGS",
    "KEYS",
    "ConfigError",
    "ConfigFinder",
    "FileConfig",
    "Overrides",
    "Settings",
    "check_globs",
    "check_rule_names",
    "load_config",
    "settings_for",
]
