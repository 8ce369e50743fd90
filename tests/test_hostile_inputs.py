"""Tampered and endless inputs through the library: only the documented errors escape.

- NDJSON event streams: any line is read or skipped and counted, never an exception (SSE,
  partial-message, whole-message and junk lines mixed in any order included); a `type` that
  is not a string is a skipped line; lines end at `\\n` only.
- Run states: `RunState.from_json` refuses negative counters and a non-finite clock with a
  `StateError` naming the field; any tampered state is a state or a `StateError`.
- IR documents: negative limits and zero stuck thresholds are an `IRError` naming the field;
  any tampered document is a model or an `IRError`.
- Reads are bounded: `/dev/zero`, a FIFO, a directory and a path with a NUL are an `OSError`
  at once; an event stream's long lines are skipped and counted, a huge stream refused.

The hypothesis parts are bounded for CI (a few hundred examples in all, a few seconds).
"""

from __future__ import annotations

import functools
import io
import json
import math
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import compiler
from compiler.ir import serialize
from compiler.ir.codec import MINIMUMS
from compiler.ir.ir_schema import ir_schema
from compiler.ir.serialize import IRError, load_ir, to_ir
from compiler.pipeline import validate_bytes, validate_text
from compiler.runtime import InferenceFinished, RunnerError, RunState, StateError, start, step
from compiler.runtime.ndjson import StreamReader, read_events
from compiler.runtime.streamfile import read_event_file
from tests.conftest import invoke_cli
from tests.helpers import ROOT
from tests.test_ir_serialize import HASH, rich_blueprint

REVIEW_LOOP = ROOT / "blueprints" / "review-loop.leviath"
EVENTS = ROOT / "tests" / "runtime" / "review-loop.ndjson"
BOUNDED = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
#: Keys the reader and the state look at, so tampering reaches the interesting branches.
KEYS = st.sampled_from(
    [
        "type",
        "event",
        "message",
        "content",
        "id",
        "name",
        "input",
        "index",
        "delta",
        "now",
        "timestamp",
        "tool_use_id",
        "is_error",
        "error",
        "result",
        "region",
        "entries",
        "clock",
        "visit",
        "iterations",
    ]
) | st.text(max_size=6)


# --- NDJSON -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        '{"type":[]}',
        "{}",
        '{"type":{}}',
        '{"type":1}',
        '{"type":null}',
        '{"type":"stream_event","event":{"type":[]}}',
        '{"type":"stream_event","event":{}}',
        '{"type":"stream_event","event":{"type":{"a":1}}}',
        '{"event":[]}',
    ],
)
def test_a_type_that_is_not_a_string_is_a_skipped_line(line: str) -> None:
    reader = StreamReader()
    assert reader.feed_line(line) == [] and reader.skipped == 1


def test_feed_line_refuses_a_value_that_is_not_a_line_with_a_type_error() -> None:
    for value in (None, 3, ["{}"], {"type": "assistant"}):
        with pytest.raises(TypeError, match="feed_line takes one line"):
            StreamReader().feed_line(value)  # type: ignore[arg-type]


def test_a_huge_integer_time_is_no_time_not_a_crash() -> None:
    events, skipped = read_events(['{"event": "tick", "now": ' + "9" * 400 + "}"])
    assert skipped == 0 and len(events) == 1 and events[0].now is None


def test_line_and_paragraph_separators_inside_a_string_do_not_split_a_line() -> None:
    line = json.dumps(
        {"type": "assistant", "message": {"id": "m", "content": "a\u2028b\x85c\u2029d"}}, ensure_ascii=False
    )
    for stream in (line + "\n", (line + "\n").encode("utf-8")):
        events, skipped = read_events(stream)
        assert skipped == 0 and events == [InferenceFinished(text="a\u2028b\x85c\u2029d")]


@BOUNDED
@given(st.lists(st.dictionaries(KEYS, json_values, max_size=5) | json_values | st.text(max_size=20), max_size=8))
def test_any_stream_is_read_or_skipped_never_an_exception(objects: list[Any]) -> None:
    lines = [o if isinstance(o, str) else json.dumps(o) for o in objects]
    events, skipped = read_events(lines)
    assert skipped <= len(lines)
    ir = review_loop()
    state, _ = start(ir)
    for event in events:  # whatever the reader made, the runner accepts
        state, _ = step(ir, state, event)


_STREAM_TYPES = st.sampled_from(
    [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
        "assistant",
        "user",
        "tool_use",
        "tool_result",
        "result",
    ]
)
_stream_objects = st.builds(
    lambda kind, extra: {**extra, "type": kind}, _STREAM_TYPES, st.dictionaries(KEYS, json_values, max_size=4)
)
_message_ids = st.sampled_from(["m1", "m2", None])
_blocks = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, st.text(max_size=6)),
    st.builds(
        lambda i, n: {"type": "tool_use", "id": i, "name": n, "input": {}},
        st.sampled_from(["t1", "t2"]),
        st.sampled_from(["Write", "Bash", "x"]),
    ),
    json_values,
)
_assistant_lines = st.builds(
    lambda i, blocks: {"type": "assistant", "message": {"id": i, "content": blocks}},
    _message_ids,
    st.lists(_blocks, max_size=3),
)
_wrapped = st.builds(lambda event: {"type": "stream_event", "event": event}, _stream_objects)
_sse_lines = st.one_of(
    st.builds(lambda o: "data: " + json.dumps(o), _stream_objects | _wrapped | _assistant_lines),
    st.builds(lambda t: "data: " + t, st.text(max_size=10)),
    st.sampled_from(["", "event: message_start", "event: ping", "id: 7", "retry: 10", ": keep-alive", "data", "data:"]),
)
_mixed_lines = st.lists(
    st.one_of(
        _sse_lines,
        st.builds(json.dumps, _stream_objects | _wrapped | _assistant_lines),
        st.text(max_size=12),
        st.builds(lambda o: json.dumps(o), json_values),
    ).map(lambda line: line.replace("\n", " ")),  # one line each
    max_size=14,
)


@BOUNDED
@given(_mixed_lines)
def test_any_mix_of_sse_partial_whole_and_junk_lines_is_read_or_skipped(lines: list[str]) -> None:
    reader = StreamReader()
    events = [event for line in lines for event in reader.feed_line(line)] + reader.finish()
    assert reader.skipped <= len(lines) and len(reader.skipped_lines) == reader.skipped
    assert all(1 <= n <= len(lines) for n in reader.skipped_lines)
    assert read_events("\n".join(lines)) == (events, reader.skipped)  # one string reads the same
    ir = review_loop()
    state, _ = start(ir)
    for event in events:  # whatever the reader made, the runner accepts
        state, _ = step(ir, state, event)


@BOUNDED
@given(st.binary(max_size=300))
def test_any_bytes_from_a_pipe_are_lines_read_or_skipped(data: bytes) -> None:
    events, skipped = read_event_file(io.BytesIO(data), max_line=64)
    assert skipped <= data.count(b"\n") + 1 and isinstance(events, list)


# --- bounded reads ------------------------------------------------------------------------------


def test_long_lines_are_skipped_and_counted_without_being_kept() -> None:
    good = EVENTS.read_bytes()
    stream = io.BytesIO(b"x" * 5000 + b"\n" + good + b"{" * 5000)  # a long line, the stream, a long last line
    events, skipped = read_event_file(stream, max_line=4096)
    reference, reference_skipped = read_event_file(str(EVENTS))
    assert events == reference and skipped == reference_skipped + 2


def test_a_stream_larger_than_the_limit_is_an_os_error() -> None:
    with pytest.raises(OSError, match="larger than 1,000 bytes"):
        read_event_file(io.BytesIO(b"{}\n" * 1000), max_total=1000)
    with pytest.raises(OSError, match="larger than"):
        read_event_file(io.BytesIO(b"z" * 50_000), max_line=100, max_total=1000)  # one endless line


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("reader", [load_ir, read_event_file, compiler.validate_file, compiler.load])
def test_devices_directories_and_nul_paths_are_os_errors(reader, tmp_path: Path) -> None:
    for path in ("/dev/zero", str(tmp_path), "a\0b"):
        with pytest.raises(OSError):
            reader(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("reader", [load_ir, read_event_file, compiler.validate_file])
def test_a_fifo_is_refused_at_once_not_waited_on(reader, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def attempt() -> None:
        try:
            reader(str(fifo))
        except BaseException as exc:  # collected for the assertion
            outcome.append(exc)

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(10)
    if thread.is_alive():  # unblock the reader before failing
        with open(fifo, "wb"):
            pass
        pytest.fail(f"{reader.__name__} blocked on a FIFO")
    assert len(outcome) == 1 and isinstance(outcome[0], OSError)


def test_an_ir_file_larger_than_the_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.ir.json"
    path.write_text(serialize.dumps(to_ir(rich_blueprint(), path="x", sha256=HASH)), encoding="utf-8")
    assert load_ir(path)
    monkeypatch.setattr(serialize, "MAX_IR_BYTES", 1000)
    with pytest.raises(IRError, match="larger than 1,000 bytes"):
        load_ir(path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_run_refuses_an_endless_event_file() -> None:
    result = invoke_cli("run", REVIEW_LOOP, "--events", "/dev/zero")
    assert result.exit_code == 2 and "not a regular file" in result.stderr


# --- run states ---------------------------------------------------------------------------------


@functools.cache
def review_loop() -> compiler.Blueprint:
    return compiler.load(REVIEW_LOOP)


def saved_state() -> dict[str, Any]:
    ir = review_loop()
    state, _ = start(ir, 10.0)
    state, _ = step(ir, state, InferenceFinished(text="draft", request=1, now=12.0))
    return json.loads(state.to_json())


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("visit.iterations", -1000, "visit.iterations must not be negative"),
        ("visit.tool_calls", -1, "visit.tool_calls must not be negative"),
        ("visit.point_cursor", -1, "visit.point_cursor must not be negative"),
        ("visit.stuck_since", math.inf, "visit.stuck_since must be a finite number"),
        ("iteration", -1, "iteration must not be negative"),
        ("requests", -3, "requests must not be negative"),
        ("visits.draft", -2, "visits must hold no negative count"),
        ("flags.gates_forced", -1, "flags.gates_forced must not be negative"),
        ("default_max_iterations", -1, "default_max_iterations must not be negative"),
        ("clock", math.inf, "clock must be a finite number"),
        ("clock", -math.inf, "clock must be a finite number"),
        ("clock", math.nan, "clock must be a finite number"),
        ("clock", 10**400, "clock must be a finite number"),
    ],
)
def test_a_state_out_of_range_is_a_state_error_naming_the_field(field: str, value: Any, message: str) -> None:
    data = saved_state()
    node = data
    *parents, last = field.split(".")
    for part in parents:
        node = node[part]
    node[last] = value
    with pytest.raises(StateError, match=message.replace(".", r"\.")):
        RunState.from_json(json.dumps(data))
    with pytest.raises(StateError, match=message.replace(".", r"\.")):
        RunState.from_dict(data)


def test_a_state_read_once_is_range_checked_again_after_a_bad_one() -> None:
    """The reader learns the field types it has seen; a known type pattern must not skip ranges."""
    text = json.dumps(saved_state())
    assert RunState.from_json(text) == RunState.from_json(text)
    data = saved_state()
    data["visit"]["iterations"] = -5
    with pytest.raises(StateError, match="iterations must not be negative"):
        RunState.from_json(json.dumps(data))


def tampered(data: Any, draw) -> Any:
    """`data` with one value somewhere replaced (or one key dropped)."""
    if isinstance(data, dict) and data:
        key = draw(st.sampled_from(sorted(data)))
        copy = dict(data)
        if draw(st.booleans()):
            copy[key] = tampered(copy[key], draw)
        elif draw(st.booleans()):
            del copy[key]
        else:
            copy[key] = draw(json_values | st.sampled_from([-1, -(2**70), math.inf, math.nan, 2**64]))
        return copy
    if isinstance(data, list) and data:
        index = draw(st.integers(0, len(data) - 1))
        return [tampered(item, draw) if i == index else item for i, item in enumerate(data)]
    return draw(json_values | st.sampled_from([-1, math.inf, math.nan, 10**400]))


@BOUNDED
@given(st.data())
def test_a_tampered_state_is_a_state_or_a_state_error(data) -> None:
    document = tampered(saved_state(), data.draw)
    try:
        state = RunState.from_json(json.dumps(document))
    except StateError:
        return
    assert RunState.from_json(state.to_json()) == state  # whatever is accepted round-trips
    try:  # and is stepped, or refused as not this blueprint's
        step(review_loop(), state, InferenceFinished(text="more", now=20.0))
    except RunnerError:
        pass


# --- IR documents -------------------------------------------------------------------------------


def compiled() -> dict[str, Any]:
    return to_ir(rich_blueprint(), path="x.leviath", sha256=HASH)


@pytest.mark.parametrize(
    "where, value, message",
    [
        (("stages", 0, "max_iterations"), -5, r"stages\[0\]\.max_iterations: must not be negative, got -5"),
        (("stages", 0, "max_revisits"), -1, r"stages\[0\]\.max_revisits: must not be negative, got -1"),
        (("stages", 0, "transitions", 1, "stuck", "minutes"), 0, r"stuck\.minutes: must be at least 1, got 0"),
        (("layout", "regions", 0, "max_items"), -1, r"max_items: must not be negative"),
    ],
)
def test_an_ir_out_of_range_is_an_ir_error_naming_the_field(where: tuple, value: int, message: str) -> None:
    document = compiled()
    node = document["blueprint"]
    for part in where[:-1]:
        node = node[part]
    assert where[-1] in node, where
    node[where[-1]] = value
    with pytest.raises(IRError, match=message):
        load_ir(document)


def test_the_ir_schema_states_the_same_minimums() -> None:
    definitions = ir_schema()["definitions"]
    assert definitions["Stage"]["properties"]["max_iterations"]["minimum"] == 0
    for (cls, field), minimum in MINIMUMS.items():
        assert definitions[cls]["properties"][field]["minimum"] == minimum


def every_integer_is_non_negative(schema: Any) -> bool:
    if isinstance(schema, dict):
        types = schema.get("type")
        if (types == "integer" or (isinstance(types, list) and "integer" in types)) and schema.get("minimum", -1) < 0:
            return False
        return all(every_integer_is_non_negative(v) for v in schema.values())
    if isinstance(schema, list):
        return all(every_integer_is_non_negative(v) for v in schema)
    return True


def test_every_integer_of_the_ir_schema_has_a_minimum() -> None:
    assert every_integer_is_non_negative(ir_schema())


@BOUNDED
@given(st.data())
@example(data=None)
def test_a_tampered_ir_is_a_model_or_an_ir_error(data) -> None:
    document = compiled() if data is None else tampered(compiled(), data.draw)
    try:
        blueprint = load_ir(json.loads(json.dumps(document)))
    except IRError:
        return
    # Whatever is accepted round-trips: compared as written, since a NaN (which the IR keeps as
    # "NaN") is never equal to itself.
    written = serialize.to_ir(blueprint, path="x", sha256=HASH)
    assert serialize.to_ir(load_ir(written), path="x", sha256=HASH) == written


# --- wrong library arguments --------------------------------------------------------------------


def test_wrong_settings_are_a_type_error() -> None:
    for settings_value in (None, {}, "all"):
        with pytest.raises(TypeError, match=r"settings must be a compiler\.Settings"):
            validate_text('[agent]\nname = "x"\n', "a.leviath", settings=settings_value)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"settings must be a compiler\.Settings"):
            validate_bytes("a.leviath", b"", settings_value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "deep, line",
    [
        (".".join(f"k{i}" for i in range(60)) + " = 1\n", 3),  # dotted keys
        ("\n[" + ".".join(f"k{i}" for i in range(60)) + "]\nv = 1\n", 4),  # a table header
        ("\n[" + ".".join(f"k{i}" for i in range(30)) + "]\nv = " + "[" * 25 + "]" * 25 + "\n", 5),  # both
    ],
)
def test_nesting_too_deep_points_at_the_deep_key_not_the_start(deep: str, line: int) -> None:
    (finding,) = validate_text('[agent]\nname = "x"\n' + deep, "deep.leviath").diagnostics
    assert finding.code == "nesting-too-deep"
    assert finding.span is not None and finding.span.line == line and finding.span.column > 1
