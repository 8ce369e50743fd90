"""Where the real blueprints are, for every benchmark that can use them.

`BLUEPRINT_CORPUS` names the folder outright; otherwise the first `shared/corpus` found
beside this checkout or any folder above it (or above the working directory), so a
worktree or a copy of the repository outside the development tree still finds it. Without
one the benchmarks measure generated blueprints, and say so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENVIRONMENT = "BLUEPRINT_CORPUS"


@dataclass(frozen=True)
class Corpus:
    #: The folder of the real blueprints (None: none was found).
    root: Path | None
    #: Its `*.leviath` files, sorted.
    files: tuple[Path, ...] = field(default=())

    @property
    def real(self) -> bool:
        return bool(self.files)

    def blueprint(self, name: str) -> Path | None:
        """The real blueprint `name/agent.leviath` (e.g. the coder), if the corpus has it."""
        return next((path for path in self.files if path.parent.name == name and path.name == "agent.leviath"), None)

    def describe(self) -> str:
        if self.real:
            count = len(self.files)
            return f"real: {count} blueprint{'s' if count != 1 else ''} in {self.root}"
        if self.root is not None:
            return f"generated ({self.root} holds no blueprint)"
        return f"generated (no shared/corpus found; set {ENVIRONMENT} to its folder)"


def locate(start: Path = ROOT, environ: dict[str, str] | None = None) -> Corpus:
    """The corpus for a checkout at `start`: the environment's folder, else the nearest
    `shared/corpus` beside `start`, beside the working directory, or beside a parent of either."""
    environ = os.environ if environ is None else environ
    named = environ.get(ENVIRONMENT)
    if named:
        folder = Path(named).expanduser().resolve()
        if not folder.is_dir():
            raise SystemExit(f"{ENVIRONMENT}={named}: no such folder")
        return _read(folder)
    for base in (start.resolve(), Path.cwd().resolve()):
        for folder in (base, *base.parents):
            candidate = folder / "shared" / "corpus"
            if candidate.is_dir():
                return _read(candidate)
    return Corpus(None)


def _read(folder: Path) -> Corpus:
    return Corpus(folder, tuple(sorted(folder.rglob("*.leviath"))))
