"""`blueprint validate --show-settings PATH`: the settings that apply to PATH, and where each
comes from (a flag, a configuration file, or the default).

The output is TOML, one key per line with its source as a comment, so a line can be pasted
into a configuration file as it is:

    # Settings for agents/coder/agent.leviath
    # Configuration: blueprint.toml
    select = []  # default
    ignore = ["unknown-key"]  # blueprint.toml
    deny-warnings = true  # --[no-]deny-warnings
"""

from __future__ import annotations

import json
import os
from typing import Any

from ..config import FLAGS, KEYS, ConfigError, ConfigFinder, FileConfig, Overrides
from ..display import visible_lines
from ..prices import prices_toml
from .errors import CliError


def show_settings(path: str, overrides: Overrides) -> str:
    """The settings of `path` (a file, or a folder: the settings of the files in it)."""
    if not os.path.lexists(path):
        raise CliError(f"path '{path}' does not exist")
    finder = ConfigFinder(explicit=overrides.config_file)
    try:
        config = finder.for_directory(path) if os.path.isdir(path) else finder.for_file(path)
        left_out = _left_out(path, finder, overrides)
    except ConfigError as exc:
        raise CliError(str(exc)) from exc
    lines = [f"# Settings for {path}"]
    lines.append(f"# Configuration: {config.label}" if config else "# Configuration: none found; the defaults apply")
    lines.extend(f"# Also found, not read: {warning}" for warning in dict.fromkeys(finder.warnings))
    for name in KEYS:
        value, source = _resolve(name, config, overrides)
        if name == "prices" and value is not None:
            shown = prices_toml(value)
        else:
            shown = _table(value) if KEYS[name].kind == "per-file" else _toml(value)
        lines.append(f"{name} = {shown}  # {source}" if value is not None else f"# {name} is not set ({source})")
    dropped = config.ignores_for(path) if config is not None and not os.path.isdir(path) else ()
    if dropped:
        lines.append(f"# per-file-ignores drop {_toml(dropped)} in this file")
    if overrides.exclude:
        lines.append(f"# --exclude adds {_toml(overrides.exclude)} (relative to the working directory)")
    if left_out is not None:
        lines.append(f"# A search of '{left_out[0]}' leaves this path out: {left_out[1]}")
    return visible_lines(lines) + "\n"


def _resolve(name: str, config: FileConfig | None, overrides: Overrides) -> tuple[Any, str]:
    """The value of key `name` and where it comes from."""
    attribute = KEYS[name].attribute
    flag = getattr(overrides, attribute, None) if name in FLAGS else None
    if flag is not None:
        return flag, FLAGS[name]
    if config is not None and getattr(config, attribute, None) is not None:
        return config.value(name), config.label
    return KEYS[name].default, "default"


def _left_out(path: str, finder: ConfigFinder, overrides: Overrides) -> tuple[str, str] | None:
    """(the folder searched, why) when `blueprint validate` run from here would not reach `path`."""
    from ..ignore import PathFilter

    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    if os.path.commonpath([absolute, cwd]) != cwd or absolute == cwd:
        return None
    why = PathFilter(finder, overrides).explain(absolute, cwd)
    return (".", why) if why is not None else None


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(json.dumps(item) for item in value) + "]"
    return json.dumps(value)


def _table(pairs: tuple[tuple[str, tuple[str, ...]], ...]) -> str:
    """`per-file-ignores` as the inline table it is written as."""
    return "{ " + ", ".join(f"{json.dumps(key)} = {_toml(rules)}" for key, rules in pairs) + " }" if pairs else "{}"
