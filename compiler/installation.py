"""A Leviath installation, read only from the files the user points at.

Five of Leviath's lint checks answer questions about the machine a blueprint will run on:
which declared read paths the user granted, whether those grants compile, which providers
the user can reach, which models a closed provider serves, and how large a model's context
window is. blueprint-compiler never looks for that machine on its own (no home directory is
read unasked); `--leviath-config PATH` / `--leviath-models PATH` (or `leviath-config` /
`leviath-models` in `[tool.blueprint]`) name the files, and the checks stay off without them.

The formats are Leviath's own (read from its source, `crates/leviath-cli/src/config/` and
`commands/models.rs`):

- `config.toml`: `[security] read_paths` (machine-wide read grants) and
  `allow_blueprint_read_paths` (honour every blueprint's declarations), `[agent_read_paths.
  <agent>] allow` (one agent's grants), `[providers] anthropic_api_key` / `openai_api_key` /
  `google_api_key` (a key makes the provider reachable), `[model_providers.<name>]` (a script
  provider), and `[model_capabilities."<model>"] max_context_tokens` and `max_output_tokens` (the user's own
  window and reply cap for a model; Leviath has no price keys).
- the model list: what `lev models list` prints, a table of PROVIDER, MODEL ID, TEMP, TOOLS,
  CTX and OUTPUT columns, with windows written as `1M`, `200K` or a plain count (a `*` before
  the provider marks a row the config overrides).
"""

from __future__ import annotations

import os
from dataclasses import field
from functools import lru_cache
from typing import Any

from compiler.parse.reader import loads
from compiler.reading import read_capped
from compiler.records import record

#: Providers whose catalog Leviath treats as closed: a model it does not list is an error of
#: the blueprint. Others (ollama, openrouter, script providers) serve what they serve.
CLOSED_PROVIDERS = ("anthropic", "openai", "google")
#: `[providers]` keys whose presence makes a built-in provider reachable.
PROVIDER_KEYS = {"anthropic": "anthropic_api_key", "openai": "openai_api_key", "google": "google_api_key"}


class InstallationError(ValueError):
    """A Leviath file the user named that cannot be read; the message names the file."""


@record
class LeviathConfig:
    """What the lint reads from the user's `config.toml`."""

    path: str
    read_paths: tuple[str, ...] = ()
    agent_read_paths: dict[str, tuple[str, ...]] = field(default_factory=dict)
    allow_blueprint_read_paths: bool = False
    #: Providers the file gives a key or a script to.
    providers: frozenset[str] = frozenset()
    #: Model id → context window, from `[model_capabilities]`.
    windows: dict[str, int] = field(default_factory=dict)
    #: Model id → the most tokens one reply holds, from `[model_capabilities]`.
    max_outputs: dict[str, int] = field(default_factory=dict)

    def grants_for(self, agent: str) -> tuple[str, ...]:
        return self.read_paths + self.agent_read_paths.get(agent, ())


@record
class ModelRow:
    provider: str
    model: str
    #: The context window as printed (`1M` is read as 1,000,000: the list rounds down).
    window: int | None
    #: The OUTPUT column: the most tokens one reply holds.
    max_output: int | None = None


@record
class ModelCatalog:
    """The rows of a `lev models list` printout."""

    path: str
    rows: tuple[ModelRow, ...] = ()

    def listed(self, provider: str) -> frozenset[str]:
        return frozenset(row.model for row in self.rows if row.provider == provider)


@lru_cache(maxsize=16)
def _read(path: str, stamp: tuple[int, int]) -> str:
    del stamp  # part of the cache key only: a rewritten file is read again
    return read_capped(path).decode("utf-8")


def _text(path: str) -> str:
    try:
        info = os.stat(path)
        return _read(os.path.abspath(path), (info.st_mtime_ns, info.st_size))
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallationError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from exc


def load_config(path: str) -> LeviathConfig:
    """Leviath's `config.toml` at `path`; `InstallationError` if it cannot be read."""
    text = _text(path)
    try:
        document = loads(text)
    except ValueError as exc:  # tomllib.TOMLDecodeError
        raise InstallationError(f"{path}: not valid TOML: {exc}") from exc
    security = _table(document.get("security"))
    agents = {
        name: _strings(_table(value).get("allow")) for name, value in _table(document.get("agent_read_paths")).items()
    }
    providers = _table(document.get("providers"))
    reachable = {name for name, key in PROVIDER_KEYS.items() if isinstance(providers.get(key), str) and providers[key]}
    reachable |= set(_table(document.get("model_providers")))
    capabilities = _table(document.get("model_capabilities"))
    windows, max_outputs = _counts(capabilities, "max_context_tokens"), _counts(capabilities, "max_output_tokens")
    return LeviathConfig(
        path=path,
        read_paths=_strings(security.get("read_paths")),
        agent_read_paths=agents,
        allow_blueprint_read_paths=security.get("allow_blueprint_read_paths") is True,
        providers=frozenset(reachable),
        windows=windows,
        max_outputs=max_outputs,
    )


def _counts(capabilities: dict[str, Any], key: str) -> dict[str, int]:
    """Model id → its positive whole `key` in `[model_capabilities]`."""
    return {
        model: caps[key]
        for model, caps in capabilities.items()
        if isinstance(caps, dict) and type(caps.get(key)) is int and caps[key] > 0
    }


def load_models(path: str) -> ModelCatalog:
    """The `lev models list` printout at `path`; `InstallationError` if it has no table."""
    rows: list[ModelRow] = []
    header = False
    for line in _text(path).splitlines():
        cells = line.split()
        if cells[:2] == ["PROVIDER", "MODEL"]:
            header = True
            continue
        if not header or len(cells) < 6 or set(line.strip()) <= {"-"}:
            continue
        provider, model, window = cells[0].lstrip("*"), cells[1], _tokens(cells[4])
        rows.append(ModelRow(provider, model, window, _tokens(cells[5])))
    if not header:
        raise InstallationError(f"{path}: not a `lev models list` printout (no PROVIDER / MODEL ID header)")
    return ModelCatalog(path=path, rows=tuple(rows))


def _tokens(text: str) -> int | None:
    """`1M`, `200K` or `8192` as a count of tokens."""
    scale = {"M": 1_000_000, "K": 1_000}.get(text[-1:], 1)
    digits = text[:-1] if scale != 1 else text
    return int(digits) * scale if digits.isdigit() else None


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()


__all__ = [
    "CLOSED_PROVIDERS",
    "InstallationError",
    "LeviathConfig",
    "ModelCatalog",
    "ModelRow",
    "load_config",
    "load_models",
]
