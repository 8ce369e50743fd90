"""Settings that shape a validation run: which rules, which extra tool names.

Built by the CLI from flags and `[tool.blueprint]` in the nearest `pyproject.toml`; library
users construct `Settings` directly. Rules are named by code, by family (`lint`, `schema`,
…) or `all`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    #: Codes or families to run; empty means every rule.
    select: tuple[str, ...] = ()
    #: Codes or families to drop (wins over `select`).
    ignore: tuple[str, ...] = ()
    #: Tool names to accept in addition to the built-in catalog (`unknown-tool`).
    known_tools: tuple[str, ...] = ()

    def enabled(self, code: str, family: str) -> bool:
        def named(names: tuple[str, ...]) -> bool:
            return any(n in ("all", "ALL", code, family) for n in names)

        if self.ignore and named(self.ignore):
            return False
        return not self.select or named(self.select)


DEFAULT_SETTINGS = Settings()
