"""The values of configuration keys: each kind's reader, which checks a value and names the
file and the key when it is wrong. `compiler.config` holds the keys and where they come from."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

#: Names that select every rule.
ALL_RULES = ("all", "ALL")


class ConfigError(Exception):
    """A configuration that cannot be used; the message names the file and the key."""


def check_rule_names(names: Iterable[str], where: str) -> tuple[str, ...]:
    """`names` unchanged when each is a rule code, a family or `all`; else `ConfigError`."""
    from .rulebook.registry import FAMILIES, REGISTRY

    known = {*REGISTRY.load().rules, *FAMILIES, *ALL_RULES}
    names = tuple(names)
    for name in names:
        if name not in known:
            raise ConfigError(f"{where}: unknown rule or family '{name}'{did_you_mean(name, sorted(known))}")
    return names


def check_globs(patterns: Iterable[str], where: str) -> tuple[str, ...]:
    """`patterns` unchanged when each is a gitignore-style pattern; else `ConfigError`."""
    from .ignore import check_patterns

    patterns = tuple(patterns)
    try:
        check_patterns(patterns)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    return patterns


def did_you_mean(name: str, known: list[str]) -> str:
    from .suggestions import closest  # bounded, whatever the length of the name

    close = closest(name, known)
    return f" (did you mean '{close}'?)" if close is not None else ""


def _read_bool(value: Any, label: str, base: Path) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{label} must be true or false, not {type_name(value)}")
    return value


def _read_strings(value: Any, label: str, base: Path | None = None) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{label} must be a list of strings, not {type_name(value)}")
    return tuple(item.strip() for item in value if item.strip())


def _read_count(value: Any, label: str, base: Path) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        shown = str(value) if isinstance(value, int) and not isinstance(value, bool) else type_name(value)
        raise ConfigError(f"{label} must be a whole number of 0 or more, not {shown}")
    return value


def _read_path(value: Any, label: str, base: Path) -> str:
    """A path, relative to the folder of the configuration file (`~` is the home folder)."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{label} must be a path (a string), not {type_name(value)}")
    return str(base / os.path.expanduser(value))


def _read_url(value: Any, label: str, base: Path) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{label} must be a string, not {type_name(value)}")
    if not value.startswith(("https://", "http://")) or "{code}" not in value:
        raise ConfigError(f"{label} must be an http(s) URL with {{code}} where the rule's code goes, not '{value}'")
    return value


def _read_per_file(value: Any, label: str, base: Path) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`{ "pattern" = ["rule", …] }`: the rules to drop in the files each pattern matches."""
    if not isinstance(value, dict):
        raise ConfigError(f"{label} must be a table of patterns, each with a list of rules, not {type_name(value)}")
    pairs = []
    for pattern, rules in value.items():
        where = f"{label} '{pattern}'"
        check_globs([pattern], where)
        pairs.append((pattern, check_rule_names(_read_strings(rules, where), where)))
    return tuple(pairs)


#: kind → reader of a value of that kind (checks it; `label` names the file and the key, and
#: relative paths start from the configuration file's folder).
READERS: dict[str, Callable[[Any, str, Path], Any]] = {
    "bool": _read_bool,
    "count": _read_count,
    "path": _read_path,
    "strings": _read_strings,
    "rules": lambda value, label, base: check_rule_names(_read_strings(value, label), label),
    "globs": lambda value, label, base: check_globs(_read_strings(value, label), label),
    "url": _read_url,
    "per-file": _read_per_file,
}


def type_name(value: Any) -> str:
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
