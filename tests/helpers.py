"""Shared test helpers: run the pipeline on text, compare code lists and golden outputs, find
shared data."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compiler.config import Settings
from compiler.pipeline import FileResult, validate_text

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus" / "leviath"
TOML_TEST = SHARED / "data" / "toml-test"
SARIF_SCHEMA = SHARED / "data" / "sarif" / "sarif-schema-2.1.0.json"

requires_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared is not present (fresh clone)")

#: A golden case folder may hold a Leviath installation for the checks that need one:
#: `Settings` key → file name in the folder.
INSTALLATION = {"leviath_config": "leviath-config.toml", "leviath_models": "lev-models.txt"}

#: Prepended by `run` when a snippet has no [agent] table, so tests stay short.
AGENT = '[agent]\nname = "t"\n\n'


def run(source: str, *, settings: Settings | None = None, agent: bool = True) -> FileResult:
    """Validate a dedented snippet (with a minimal [agent] table unless it has one)."""
    text = textwrap.dedent(source).lstrip("\n")
    if agent and "[agent]" not in text:
        text = AGENT + text
    return validate_text(text, "test.leviath", settings or Settings())


def rules_of(*modules: str) -> tuple[str, ...]:
    """The codes of every rule the named modules define (`"lint.graph"` for
    `compiler.rules.lint.graph`), as the registry has them."""
    from compiler.rulebook.registry import REGISTRY

    names = {f"compiler.rules.{m}" for m in modules}
    return tuple(rule.code for rule in REGISTRY.all() if rule.module in names)


def codes(source: str, **kwargs) -> list[str]:
    """Sorted codes of every finding (pyflakes-style: wording changes break no test)."""
    return sorted(d.code for d in run(source, **kwargs).diagnostics)


def installation(folder: Path) -> dict[str, str]:
    """The installation files of a case folder, as `Settings` keywords (paths relative to the
    checkout, so run from there)."""
    return {
        key: (folder / name).relative_to(ROOT).as_posix()
        for key, name in INSTALLATION.items()
        if (folder / name).is_file()
    }


def golden_id(case: Path) -> str:
    """A golden case's test id: `<code>/<case>`."""
    return f"{case.parent.name}/{case.stem}"


def assert_golden(case: Path, output: str, codes: list[str]) -> None:
    """A golden case (`<code>/<case>.leviath`): an `ok-*` case must not report its folder's
    code, any other must; `output` must equal `<case>.out` (rewritten first when
    UPDATE_GOLDEN is set, for review)."""
    expected_file = case.with_suffix(".out")
    if os.environ.get("UPDATE_GOLDEN"):
        expected_file.write_text(output, encoding="utf-8")
    code = case.parent.name
    if case.stem.startswith("ok-"):
        assert code not in codes, f"near-miss case {case.name} must not report {code}"
    else:
        assert code in codes, f"case {case.name} must report {code}, got {codes}"
    assert expected_file.exists(), f"missing {expected_file.name}; run with UPDATE_GOLDEN=1 and review it"
    assert output == expected_file.read_text(encoding="utf-8")


def assert_codes(source: str, *expected: str, **kwargs) -> None:
    result = run(source, **kwargs)
    got = sorted(d.code for d in result.diagnostics)
    assert got == sorted(expected), "\n".join(
        f"{d.line}:{d.column} {d.severity}[{d.code}] {d.message}" for d in result.diagnostics
    )


def run_with_stdin_closed(*args: str, descriptor: int = 0) -> "subprocess.CompletedProcess[bytes]":
    """`python -m compiler ARGS` started with file descriptor 0 (or `descriptor`) closed, as
    some daemons do, or a shell for `>&-`."""
    env = {k: v for k, v in os.environ.items() if k != "BLUEPRINT_DEBUG"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "compiler", *args],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=60,
        preexec_fn=lambda: os.close(descriptor),
    )


def run_pytest(folder: Path, *args: str) -> "subprocess.CompletedProcess[str]":
    """`python -m pytest ARGS` in `folder`, as a user runs it there: a pytest of its own, with
    none of this run's `PYTEST*` settings (the scenario plugin tests run through it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
