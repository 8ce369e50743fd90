"""`blueprint run` writes a long recording as it reads it: the same bytes as the library's
`render_text` / `render_json` of the whole replay, in both formats, whatever the stream holds
(unreadable lines, events after the end, a run that ends or one that waits)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.pipeline import validate_text
from compiler.runtime.streamfile import LEVIATH_LOG, open_lines, read_event_file, sniff_format
from compiler.runtime.timeline import Ending, render_json, render_text, replay, replay_entries
from tests.conftest import invoke_cli

ROOT = Path(__file__).resolve().parent.parent


def _agent_stream(path: Path) -> bool:
    with open_lines(path) as lines:
        return sniff_format(lines)[0] != LEVIATH_LOG


#: The suite's recorded agent streams (its Leviath logs are checked, not replayed).
STREAMS = [path for path in sorted((ROOT / "tests" / "runtime").glob("*.ndjson")) if _agent_stream(path)]
REVIEW_LOOP = ROOT / "blueprints" / "review-loop.leviath"


def long_stream(path: Path, events: int) -> None:
    """Inferences that write files, with an unreadable line now and then, and more events than
    the iteration cap allows (so some arrive after the end)."""
    lines = []
    for n in range(events):
        call = {"name": "write_file", "path": f"src/f{n % 7}.py"}
        lines.append(json.dumps({"event": "inference", "now": float(n), "tool_calls": [call]}))
        if n % 97 == 0:
            lines.append("{not json")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_the_streamed_timeline_is_the_librarys(tmp_path: Path, output_format: str) -> None:
    stream = tmp_path / "events.ndjson"
    long_stream(stream, 3000)
    result = validate_text(REVIEW_LOOP.read_text(encoding="utf-8"), str(REVIEW_LOOP))
    assert result.blueprint is not None
    skipped_lines: list[int] = []
    events, skipped = read_event_file(stream, skipped_lines=skipped_lines)
    trace = replay(result.blueprint, events, skipped=skipped, skipped_lines=skipped_lines)
    assert trace.unused > 0 and skipped > 0  # both tails of the summary are exercised
    expected = (render_json if output_format == "json" else render_text)(result.blueprint, trace)
    run = invoke_cli("run", REVIEW_LOOP, "--events", stream, "--format", output_format)
    assert run.stdout == expected
    assert run.exit_code == (0 if trace.state.status == "complete" else 1)


@pytest.mark.parametrize("stream", STREAMS, ids=[s.name for s in STREAMS])
def test_every_recorded_stream_prints_as_before(stream: Path) -> None:
    """The suite's recordings, replayed on review-loop: streaming changes no byte."""
    result = validate_text(REVIEW_LOOP.read_text(encoding="utf-8"), str(REVIEW_LOOP))
    assert result.blueprint is not None
    skipped_lines: list[int] = []
    events, skipped = read_event_file(stream, skipped_lines=skipped_lines)
    trace = replay(result.blueprint, events, skipped=skipped, skipped_lines=skipped_lines)
    for output_format, render in (("text", render_text), ("json", render_json)):
        run = invoke_cli("run", REVIEW_LOOP, "--events", stream, "--format", output_format)
        assert run.stdout == render(result.blueprint, trace), output_format


def test_replay_entries_keeps_nothing_behind() -> None:
    """The steps come one at a time from a generator: the replay holds only the current state
    (`ending`), so a caller that drops each step holds nothing of the run's past."""
    result = validate_text(REVIEW_LOOP.read_text(encoding="utf-8"), str(REVIEW_LOOP))
    assert result.blueprint is not None
    from compiler.runtime.events import InferenceFinished, ToolCall

    def events():
        for n in range(500):
            yield InferenceFinished(tool_calls=(ToolCall("write_file", f"f{n}.py"),), now=float(n))

    ending = Ending()
    entries = replay_entries(result.blueprint, events(), ending)
    first = next(entries)
    assert first.event is None and ending.state is first.after
    count = sum(1 for _ in entries)
    assert count + ending.unused == 500
    assert ending.state is not None and ending.state.iteration > 0
