"""Bounded fuzzing of the surfaces around the blueprints: the language server's transport,
configuration and ignore files, and the "did you mean" guesses on long and many names.

Each input gets a time ceiling (hypothesis's `deadline`) and the transport a memory one (no
read may ask for more than the message limit). The whole module runs in well under a minute.
Scenario writing has its own round-trip property in tests/test_scenarios_format.py.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import compiler.pipeline  # noqa: F401 - the rules, loaded before a configuration names one
from compiler.config import ConfigError, ConfigFinder
from compiler.discover import discover
from compiler.ignore import PathFilter
from compiler.lsp.transport import MAX_MESSAGE_BYTES, BoundedInput, TransportError
from compiler.pipeline import validate_text

FAST = dict(deadline=3000, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# --- the language server's transport -------------------------------------------------------------------

_HEADER = st.one_of(
    st.integers(min_value=0, max_value=10**30).map(lambda n: b"Content-Length: %d\r\n" % n),
    st.binary(max_size=64).map(lambda b: b + b"\r\n"),
    st.just(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"),
    st.integers(min_value=4000, max_value=20_000).map(lambda n: b"X: " + b"x" * n + b"\r\n"),
)
_FRAME = st.tuples(st.lists(_HEADER, max_size=3), st.binary(max_size=200)).map(
    lambda parts: b"".join(parts[0]) + b"\r\n" + parts[1]
)


class _Recorder(io.BytesIO):
    """A stream that remembers the largest read asked of it."""

    largest = 0

    def read(self, size: int | None = -1) -> bytes:
        self.largest = max(self.largest, size or 0)
        return super().read(size)

    def readline(self, size: int | None = -1) -> bytes:
        self.largest = max(self.largest, size or 0)
        return super().readline(size)


class _Protocol:
    """Enough of pygls's protocol for its read loop: messages are counted, not handled."""

    def __init__(self) -> None:
        self.handled = 0

    def structure_message(self, data):
        return data

    def handle_message(self, message) -> None:
        self.handled += 1


@settings(max_examples=300, **FAST)
@given(frames=st.lists(_FRAME, max_size=6))
def test_any_frames_are_read_or_refused_within_the_limits(frames: list[bytes]) -> None:
    import threading

    from pygls.io_ import run

    stream = _Recorder(b"".join(frames))
    try:
        run(threading.Event(), BoundedInput(stream), _Protocol())  # type: ignore[arg-type]
    except TransportError:
        pass
    assert stream.largest <= MAX_MESSAGE_BYTES


# --- configuration and ignore files ----------------------------------------------------------------------

_PATTERN = st.text(alphabet="ab/*?[]!-^\\# .z", max_size=12)
_CONFIG_LINE = st.one_of(
    _PATTERN.map(lambda p: f"exclude = [{p!r}]".replace("'", '"')),
    st.sampled_from(["respect-gitignore = false", 'select = ["nope"]', 'leviath-models = "/dev/zero"', "x = 1"]),
    st.text(max_size=20),
)


@settings(max_examples=150, **FAST)
@given(
    gitignore=st.lists(_PATTERN, max_size=6),
    config=st.lists(_CONFIG_LINE, max_size=3),
    special=st.sampled_from([None, "fifo", "device", "folder"]),
)
def test_any_configuration_and_ignore_files_give_files_or_a_configuration_error(
    tmp_path_factory: pytest.TempPathFactory, gitignore: list[str], config: list[str], special: str | None
) -> None:
    root = tmp_path_factory.mktemp("fuzz")
    (root / ".git").mkdir()
    for name in ("a/agent.leviath", "b/z.leviath"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text('[agent]\nname = "x"\n', encoding="utf-8")
    (root / ".gitignore").write_bytes("\n".join(gitignore).encode("utf-8", "surrogatepass"))
    (root / "blueprint.toml").write_bytes("\n".join(config).encode("utf-8", "surrogatepass"))
    if special == "fifo":
        os.mkfifo(root / "a" / ".gitignore")
    elif special == "device":
        (root / "b" / ".gitignore").symlink_to("/dev/zero")
    elif special == "folder":
        (root / "a" / ".gitignore").mkdir()
    try:
        found = discover([str(root)], PathFilter(ConfigFinder(), cwd=str(root)))
    except ConfigError:
        return
    assert {Path(f).name for f in found.files} <= {"agent.leviath", "z.leviath"}


# --- "did you mean" on long and many names ---------------------------------------------------------------


@settings(max_examples=25, **FAST)
@example(length=32_000, count=2, where="transition")  # one name and its near twin
@example(length=12, count=2000, where="transition")  # many names, each target misspelt
@example(length=12, count=2000, where="region")
@given(
    length=st.integers(min_value=1, max_value=32_000),
    count=st.integers(min_value=1, max_value=400),
    where=st.sampled_from(["transition", "entry", "region"]),
)
def test_long_and_many_misspelt_names_validate_quickly(length: int, count: int, where: str) -> None:
    stems = [("n" * length)[: max(1, length - 4)] + f"{i:04d}" for i in range(count)]
    lines = ['[agent]\nname = "x"\n']
    if where == "entry":
        lines.append(f'entry_stage = "{stems[0]}x"\n')
    for i, stem in enumerate(stems):
        lines.append(f'[stages."{stem}"]\nmode = "autonomous"\n')
        if where == "transition":
            lines.append(f'[stages."{stem}".transitions]\n"{stems[(i + 1) % count]}x" = {{}}\n')
        elif where == "region":
            lines.append(f'context = {{ regions = ["{stem}y"] }}\n')
    result = validate_text("".join(lines), "many.leviath")
    assert result.diagnostics
