"""What every test shares: an environment that does not depend on the developer's shell.

Tests import their helpers from the `tests` package (`from tests.helpers import ROOT`): the
root of the checkout is the one import root, for test modules and helper modules alike. The
one helper that runs the command line in-process is here: `from tests.conftest import invoke_cli`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from click.testing import Result


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Colour and debug switches of the shell that runs pytest do not reach the code under test
    (a test that wants one sets it)."""
    for name in ("NO_COLOR", "FORCE_COLOR", "BLUEPRINT_DEBUG"):
        monkeypatch.delenv(name, raising=False)


def invoke_cli(
    *args: object,
    input: str | bytes | None = None,
    env: Mapping[str, str | None] | None = None,
    catch_exceptions: bool = True,
    color: bool = False,
    cwd: "str | os.PathLike[str] | None" = None,
) -> "Result":
    """`blueprint ARGS…` run in this process by click's test runner: what every test that drives
    the command line calls (`from tests.conftest import invoke_cli`). Paths and numbers may be
    passed as they are; `input` is standard input; `cwd` is the folder it runs in (the working
    directory is restored afterwards)."""
    from click.testing import CliRunner

    from compiler.cli.app import cli

    before = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return CliRunner().invoke(
            cli, [str(arg) for arg in args], input=input, env=env, catch_exceptions=catch_exceptions, color=color
        )
    finally:
        os.chdir(before)


# A real Temporal server, for the tests of the Temporal host (tests/temporal_server.py).
from tests.temporal_server import temporal_server  # noqa: E402, F401

#: The scenario files of the `check` golden cases declare properties that are meant to fail
#: (tests/test_analysis_golden.py reads them); the scenario plugin must not run them as tests.
collect_ignore_glob = ["check_cases/*/*.scenarios.toml"]
