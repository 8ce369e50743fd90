"""Settings that shape a validation run, and where they come from.

Library users construct `Settings` directly. The CLI builds one per file from two sources:
`[tool.blueprint]` in the nearest `pyproject.toml` above the file that has such a table,
then its own flags, which replace the same keys of the file. Rules are named by code, by
family (`lint`, `schema`, …) or `all`; a name that is none of these is a configuration
error, never silently ignored (a typo in `ignore` would otherwise re-enable nothing and
hide nothing, with no sign that it was wrong).
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable

from .ir.model import DEFAULT_MAX_ITERATIONS
from .reading import read_limited

#: The file and table the CLI reads configuration from.
CONFIG_FILE = "pyproject.toml"
CONFIG_TABLE = "tool.blueprint"
#: A pyproject.toml larger than this is not read (a real one is a few kilobytes).
MAX_CONFIG_BYTES = 8 * 1024 * 1024
#: Names that select every rule.
ALL_RULES = ("all", "ALL")


@dataclass(frozen=True)
class Settings:
    #: Codes or families to run; empty means every rule.
    select: tuple[str, ...] = ()
    #: Codes or families to drop (wins over `select`).
    ignore: tuple[str, ...] = ()
    #: Tool names to accept in addition to the built-in catalog (`unknown-tool`).
    known_tools: tuple[str, ...] = ()
    #: Warnings fail the run too (the CLI's exit status; the pipeline does not read it).
    deny_warnings: bool = False
    #: The user's Leviath `config.toml` and `lev models list` printout, for the checks that
    #: need the installation (`compiler.installation`); None leaves those checks off.
    leviath_config: str | None = None
    leviath_models: str | None = None
    #: The iteration cap of a stage whose `max_iterations` is unset or 0, as the user's Leviath
    #: configuration sets it (`[limits] default_max_iterations`, 50 by default); 0 for none.
    default_max_iterations: int = DEFAULT_MAX_ITERATIONS

    def enabled(self, code: str, family: str) -> bool:
        if not self.ignore and not self.select:  # the default: every rule (asked per check, per file)
            return True

        def named(names: tuple[str, ...]) -> bool:
            return any(n in (*ALL_RULES, code, family) for n in names)

        if self.ignore and named(self.ignore):
            return False
        return not self.select or named(self.select)


DEFAULT_SETTINGS = Settings()


class ConfigError(Exception):
    """A configuration that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class FileConfig:
    """`[tool.blueprint]` of one `pyproject.toml`; None means the key is not set."""

    path: Path
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    known_tools: tuple[str, ...] = ()
    deny_warnings: bool | None = None
    #: Paths, resolved against the folder of the configuration file.
    leviath_config: str | None = None
    leviath_models: str | None = None
    default_max_iterations: int | None = None


@dataclass(frozen=True)
class Overrides:
    """What the command line says; None means the flag was not given."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    deny_warnings: bool | None = None
    leviath_config: str | None = None
    leviath_models: str | None = None
    default_max_iterations: int | None = None


#: Keys of `[tool.blueprint]`: name → (FileConfig field, expected kind).
_KEYS: dict[str, tuple[str, str]] = {
    "select": ("select", "rules"),
    "ignore": ("ignore", "rules"),
    "known-tools": ("known_tools", "strings"),
    "deny-warnings": ("deny_warnings", "bool"),
    "leviath-config": ("leviath_config", "path"),
    "leviath-models": ("leviath_models", "path"),
    "default-max-iterations": ("default_max_iterations", "count"),
}


def settings_for(config: FileConfig | None, overrides: Overrides = Overrides()) -> Settings:
    """The settings of one file: the configuration, with every given flag replacing its key."""
    base = Settings()
    if config is not None:
        base = Settings(
            select=config.select or (),
            ignore=config.ignore or (),
            known_tools=config.known_tools,
            deny_warnings=bool(config.deny_warnings),
            leviath_config=config.leviath_config,
            leviath_models=config.leviath_models,
        )
        if config.default_max_iterations is not None:
            base = replace(base, default_max_iterations=config.default_max_iterations)
    changes: dict[str, Any] = {}
    if overrides.select is not None:
        changes["select"] = overrides.select
    if overrides.ignore is not None:
        changes["ignore"] = overrides.ignore
    if overrides.deny_warnings is not None:
        changes["deny_warnings"] = overrides.deny_warnings
    for key in ("leviath_config", "leviath_models"):
        if getattr(overrides, key) is not None:
            changes[key] = getattr(overrides, key)
    if overrides.default_max_iterations is not None:
        changes["default_max_iterations"] = overrides.default_max_iterations
    return replace(base, **changes)


def check_rule_names(names: Iterable[str], where: str) -> tuple[str, ...]:
    """`names` unchanged when each is a rule code, a family or `all`; else `ConfigError`."""
    from .rules.registry import FAMILIES, REGISTRY

    known = {*REGISTRY.load().rules, *FAMILIES, *ALL_RULES}
    names = tuple(names)
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(f"{where}: unknown rule or family '{name}'{hint}")
    return names


def load_config(pyproject: Path, display: str | None = None) -> FileConfig | None:
    """`[tool.blueprint]` of `pyproject`, or None when the file has no such table."""
    import tomllib

    where = display or str(pyproject)
    try:
        data = read_limited(pyproject, MAX_CONFIG_BYTES)
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{where}: larger than {MAX_CONFIG_BYTES:,} bytes; not read")
        document = tomllib.loads(data.decode("utf-8"))
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}") from exc
    tool = document.get("tool")
    if not isinstance(tool, dict) or "blueprint" not in tool:
        return None
    table = tool["blueprint"]
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [{CONFIG_TABLE}] must be a table")
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in _KEYS:
            close = difflib.get_close_matches(key, list(_KEYS), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(f"{where}: unknown key '{key}' in [{CONFIG_TABLE}]{hint}")
        attribute, kind = _KEYS[key]
        label = f"{where}: [{CONFIG_TABLE}] {key}"
        if kind == "bool":
            if not isinstance(value, bool):
                raise ConfigError(f"{label} must be true or false, not {_type_name(value)}")
            values[attribute] = value
            continue
        if kind == "path":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{label} must be a path (a string), not {_type_name(value)}")
            values[attribute] = str(pyproject.parent / os.path.expanduser(value))
            continue
        if kind == "count":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"{label} must be a whole number of 0 or more, not {_count_name(value)}")
            values[attribute] = value
            continue
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{label} must be a list of strings, not {_type_name(value)}")
        items = tuple(item.strip() for item in value if item.strip())
        values[attribute] = check_rule_names(items, label) if kind == "rules" else items
    return FileConfig(path=pyproject, **values)


def _count_name(value: Any) -> str:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else _type_name(value)


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list with a non-string item" if value else "a list"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


@dataclass
class ConfigFinder:
    """Finds the configuration that applies to a file, caching every directory it visits."""

    _by_directory: dict[Path, FileConfig | None] = field(default_factory=dict)
    _by_file: dict[Path, FileConfig | None] = field(default_factory=dict)

    def for_file(self, path: str | os.PathLike[str]) -> FileConfig | None:
        """`[tool.blueprint]` of the nearest `pyproject.toml` above `path` that has one."""
        start = Path(os.path.abspath(path)).parent
        visited: list[Path] = []
        found: FileConfig | None = None
        directory: Path | None = start
        while directory is not None:
            if directory in self._by_directory:
                found = self._by_directory[directory]
                break
            visited.append(directory)
            candidate = directory / CONFIG_FILE
            if _is_file(candidate):
                found = self._load(candidate)
                if found is not None:
                    break
            directory = directory.parent if directory.parent != directory else None
        for seen in visited:
            self._by_directory[seen] = found
        return found

    def _load(self, pyproject: Path) -> FileConfig | None:
        if pyproject not in self._by_file:
            self._by_file[pyproject] = load_config(pyproject, _display(pyproject))
        return self._by_file[pyproject]


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a directory we may not look into holds no configuration we can use
        return False


def _display(path: Path) -> str:
    """A path relative to the working directory when it lies below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except (ValueError, OSError):  # elsewhere, or the working directory is gone
        return str(path)
