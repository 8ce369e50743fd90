"""What every test shares: an environment that does not depend on the developer's shell.

Tests import their helpers from the `tests` package (`from tests.helpers import ROOT`): the
root of the checkout is the one import root, for test modules and helper modules alike.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Colour and debug switches of the shell that runs pytest do not reach the code under test
    (a test that wants one sets it)."""
    for name in ("NO_COLOR", "FORCE_COLOR", "BLUEPRINT_DEBUG"):
        monkeypatch.delenv(name, raising=False)


# A real Temporal server, for the tests of the Temporal host (tests/temporal_server.py).
from tests.temporal_server import temporal_server  # noqa: E402, F401

#: The scenario files of the `check` golden cases declare properties that are meant to fail
#: (tests/test_analysis_golden.py reads them); the scenario plugin must not run them as tests.
collect_ignore_glob = ["check_cases/*/*.scenarios.toml"]
