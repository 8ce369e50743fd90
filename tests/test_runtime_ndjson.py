"""The NDJSON reader: Claude/Anthropic stream-json shapes and native events become runner events."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.runtime import InferenceFailed, InferenceFinished, RegionChanged, RoutingAnswer, ToolCall
from compiler.runtime.ndjson import StreamReader, read_events
from compiler.runtime.streamfile import read_event_file
from tests.conftest import invoke_cli


def lines(*objects) -> list[str]:
    return [o if isinstance(o, str) else json.dumps(o) for o in objects]


def assistant(message_id, *blocks):
    return {"type": "assistant", "message": {"id": message_id, "role": "assistant", "content": list(blocks)}}


def tool_use(call_id, name, **arguments):
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def results(*pairs):
    content = [{"type": "tool_result", "tool_use_id": i, "content": text, **extra} for i, text, extra in pairs]
    return {"type": "user", "message": {"role": "user", "content": content}}


def test_claude_code_messages_become_inferences_with_outcomes():
    events, skipped = read_events(
        lines(
            {"type": "system", "subtype": "init", "tools": ["Write"]},
            assistant("m1", {"type": "text", "text": "Let me write it."}),
            assistant("m1", tool_use("t1", "Write", file_path="/w/a.py", content="x")),
            assistant("m1", tool_use("t2", "Edit", file_path="/w/b.py")),
            results(
                ("t1", "File created", {}),
                ("t2", [{"type": "text", "text": "[denied] not allowed"}], {"is_error": True}),
            ),
            assistant("m2", {"type": "text", "text": "All done."}),
            {"type": "result", "subtype": "success", "is_error": False, "result": "All done."},
        )
    )
    assert skipped == 0
    assert events == [
        InferenceFinished(
            text="Let me write it.",
            tool_calls=(
                ToolCall("write_file", "/w/a.py", "ok", "File created"),
                ToolCall("edit_file", "/w/b.py", "denied", "[denied] not allowed"),
            ),
        ),
        InferenceFinished(text="All done."),
    ]


def test_streaming_api_events_are_assembled_and_the_final_message_not_read_twice():
    stream = [
        {"type": "message_start", "message": {"id": "m1", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Edit"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ing."}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "t1", "name": "edit_file", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"path": "x'},
        },
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '.py"}'}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
        {"type": "message_stop"},
    ]
    events, skipped = read_events(
        lines(
            *({"type": "stream_event", "event": e} for e in stream),
            assistant("m1", tool_use("t1", "edit_file", path="x.py")),
            {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
        )
    )
    assert skipped == 0
    assert events == [InferenceFinished(text="Editing.", tool_calls=(ToolCall("edit_file", "x.py", "ok", "ok"),))]


def test_calls_without_results_are_flushed_as_not_done():
    events, _ = read_events(lines(assistant("m1", tool_use("t1", "write_file", path="a")), assistant("m2")))
    assert events[0].tool_calls == (ToolCall("write_file", "a", "error", "[error] no result was recorded"),)
    assert events[1] == InferenceFinished(text="")


def test_errors_and_failed_sessions():
    events, _ = read_events(
        lines(
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}},
            {"type": "result", "subtype": "error_during_execution", "is_error": True},
        )
    )
    assert events == [
        InferenceFailed("Overloaded", "error"),
        InferenceFailed("bad key", "auth"),
        InferenceFailed("error_during_execution", "error"),
    ]


def test_bad_lines_are_skipped_never_fatal():
    events, skipped = read_events(
        [
            "not json",
            "[1, 2]",
            '{"type": "nonsense"}',
            '{"type": "assistant", "message": 5}',
            '{"type": "content_block_start", "index": 0, "content_block": 3}',
            '{"event": "no-such-event"}',
            '{"event": "routing", "reply": "b", "now": 2}',
            "",
            '{"type": "tool_use", "id": "t", "name": 3}',
        ]
    )
    assert events == [RoutingAnswer(reply="b", now=2)]
    assert skipped == 7


def test_native_region_events_do_not_cut_a_tool_turn_short():
    events, _ = read_events(
        lines(
            assistant("m1", tool_use("t1", "context_write", region="plan")),
            {"event": "region", "region": "plan", "hash": "h1", "entries": 1},
            {"type": "tool_result", "tool_use_id": "t1", "content": "written"},
        )
    )
    assert events == [
        RegionChanged(region="plan", hash="h1", entries=1),
        InferenceFinished(tool_calls=(ToolCall("context_write", None, "ok", "written"),)),
    ]


def test_timestamps_and_now():
    reader = StreamReader()
    out = reader.feed(
        {"type": "assistant", "message": {"id": "a", "content": "hi"}, "timestamp": "2026-01-01T00:00:10Z"}
    )
    out += reader.feed({"type": "assistant", "message": {"id": "b", "content": "hi"}, "now": 99})
    out += reader.finish()
    assert [e.now for e in out] == [1767225610.0, 99]


def test_tool_names_can_be_left_as_they_are():
    events, _ = read_events(lines(assistant("m", tool_use("t", "Write", file_path="a"))), tool_names={})
    assert events[0].tool_calls[0].name == "Write"


# --- partial-message recordings ------------------------------------------------------------------

RUNTIME = Path(__file__).parent / "runtime"
WHOLE = RUNTIME / "review-loop.ndjson"
PARTIAL = RUNTIME / "review-loop-partial.ndjson"
SSE = RUNTIME / "review-loop-sse.ndjson"


def wrapped(event):
    return {"type": "stream_event", "event": event, "session_id": "s", "parent_tool_use_id": None}


def streamed_message(message_id, *blocks, whole_after_each_block=True):
    """A message as Claude Code records it with --include-partial-messages: stream events, and a
    whole `assistant` line (one block) after each block's `content_block_stop`."""
    out = [wrapped({"type": "message_start", "message": {"id": message_id, "content": []}})]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            out.append(
                wrapped({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})
            )
            for piece in (block["text"][:3], block["text"][3:]):
                delta = {"type": "text_delta", "text": piece}
                out.append(wrapped({"type": "content_block_delta", "index": index, "delta": delta}))
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            out.append(wrapped({"type": "content_block_start", "index": index, "content_block": start}))
            text = json.dumps(block["input"])
            for piece in (text[:5], text[5:]):
                delta = {"type": "input_json_delta", "partial_json": piece}
                out.append(wrapped({"type": "content_block_delta", "index": index, "delta": delta}))
        out.append(wrapped({"type": "content_block_stop", "index": index}))
        if whole_after_each_block:
            out.append(assistant(message_id, block))
    out.append(wrapped({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}))
    out.append(wrapped({"type": "message_stop"}))
    return out


def test_a_partial_message_recording_is_one_inference_per_message_id():
    stream = [
        *streamed_message("m1", {"type": "text", "text": "Running it."}, tool_use("t1", "Bash", command="make")),
        results(("t1", "built", {})),
        *streamed_message("m2", {"type": "text", "text": "Done."}),
    ]
    events, skipped = read_events(lines(*stream))
    assert skipped == 0
    assert events == [
        InferenceFinished(text="Running it.", tool_calls=(ToolCall("shell", None, "ok", "built"),)),
        InferenceFinished(text="Done."),
    ]
    # The same stream without its partial messages, and with only them, reads the same.
    whole_only = [line for line in stream if line["type"] != "stream_event"]
    deltas_only = [line for line in stream if line["type"] != "assistant"]
    assert read_events(lines(*whole_only)) == (events, 0)
    assert read_events(lines(*deltas_only)) == (events, 0)


def test_the_whole_message_wins_over_its_deltas_and_a_cut_stream_keeps_the_rest():
    call = tool_use("t1", "Write", file_path="a.py", content="x")
    stream = streamed_message("m1", {"type": "text", "text": "First."}, {"type": "text", "text": "Second."}, call)
    # Whole lines for the first block only (the recording stops), and deltas that disagree.
    cut = [line for line in stream if line["type"] != "assistant"]
    cut.insert(5, assistant("m1", {"type": "text", "text": "First!"}))
    events, _ = read_events(lines(*cut, {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}))
    assert events == [InferenceFinished(text="First!Second.", tool_calls=(ToolCall("write_file", "a.py", "ok", "ok"),))]


def test_a_whole_message_after_its_stream_ended_adds_nothing_twice():
    call = tool_use("t1", "Edit", file_path="b.py")
    stream = streamed_message("m1", call, whole_after_each_block=False)
    events, skipped = read_events(lines(*stream, assistant("m1", call), results(("t1", "edited", {}))))
    assert skipped == 0
    assert events == [InferenceFinished(tool_calls=(ToolCall("edit_file", "b.py", "ok", "edited"),))]


def test_the_recorded_session_with_partial_messages_reads_as_it_does_without():
    whole, whole_skipped = read_event_file(str(WHOLE))
    partial, partial_skipped = read_event_file(str(PARTIAL))
    assert partial == whole and partial_skipped == whole_skipped == 1
    # The fixture really is a partial-message recording: every message is in it twice.
    records = [
        json.loads(line) for line in PARTIAL.read_text(encoding="utf-8").splitlines() if line.startswith('{"type')
    ]
    streamed = {
        r["event"]["message"]["id"]
        for r in records
        if r["type"] == "stream_event" and r["event"]["type"] == "message_start"
    }
    whole_ids = {r["message"]["id"] for r in records if r["type"] == "assistant"}
    assert streamed == whole_ids and len(streamed) == 17


def test_blueprint_run_prints_the_same_timeline_for_the_partial_recording():

    junk = next(n for n, line in enumerate(PARTIAL.read_text(encoding="utf-8").splitlines(), 1) if "not JSON" in line)
    result = invoke_cli("run", RUNTIME / "review-loop.leviath", "--events", PARTIAL)
    assert result.exit_code == 0, result.output
    expected = (RUNTIME / "review-loop.txt").read_text(encoding="utf-8")
    assert result.output == expected.replace("(line 14)", f"(line {junk})")


# --- raw server-sent events ----------------------------------------------------------------------


def sse_event(name, data, *, split=False):
    text = json.dumps(data, indent=1 if split else None)
    return [f"event: {name}", *(f"data: {part}" for part in text.split("\n")), ""]


def test_sse_data_lines_are_read_as_the_streaming_events_they_carry():
    stream = [
        ": a comment",
        "retry: 3000",
        "id: 1",
        *sse_event("message_start", {"type": "message_start", "message": {"id": "m1", "content": []}}, split=True),
        *sse_event(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        *sse_event("ping", {"type": "ping"}),
        *sse_event(
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        ),
        *sse_event("content_block_stop", {"type": "content_block_stop", "index": 0}),
        *sse_event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
        *sse_event("message_stop", {"type": "message_stop"}),
    ]
    reader = StreamReader()
    events = [e for line in stream for e in reader.feed_line(line)] + reader.finish()
    assert events == [InferenceFinished(text="Hi")]
    assert reader.skipped == 0 and reader.skipped_lines == []
    # CRLF line endings and bytes read the same.
    assert read_events([(line + "\r\n").encode() for line in stream]) == (events, 0)


def test_sse_event_names_fill_in_a_missing_type_and_events_without_data_are_not_dispatched():
    stream = [
        "event: error",
        'data: {"error": {"type": "overloaded_error", "message": "Overloaded"}}',
        "",
        "event: message_stop",
        "",
        "",
    ]
    assert read_events(stream) == ([InferenceFailed("Overloaded", "error")], 0)


def test_an_sse_event_without_its_blank_line_ends_at_the_next_line_of_another_kind():
    stream = [
        'data: {"type": "error", "error": {"message": "first"}}',
        '{"event": "routing", "reply": "b"}',
        'data: {"type": "error", "error": {"message": "last"}}',
    ]
    events, skipped = read_events(stream)
    assert skipped == 0
    assert events == [InferenceFailed("first"), RoutingAnswer(reply="b"), InferenceFailed("last")]


def test_unreadable_sse_data_is_one_skipped_line_at_its_first_data_line():
    reader = StreamReader()
    stream = ["event: content_block_delta", "data: {not json", "data: at all}", "", "hello", "data", ""]
    for line in stream:
        reader.feed_line(line)
    reader.finish()
    # The bad event (lines 2-3) counts once; `hello` is junk; `data` alone is an empty data field.
    assert reader.skipped == 3 and reader.skipped_lines == [2, 5, 6]


def test_an_sse_event_too_long_to_keep_is_dropped_and_counted(monkeypatch):
    from compiler.runtime import sse

    monkeypatch.setattr(sse, "EVENT_LIMIT", 100)
    reader = StreamReader()
    for line in ["data: " + "x" * 60, "data: " + "y" * 60, "data: more", "", 'data: {"type": "ping"}', ""]:
        reader.feed_line(line)
    assert reader.finish() == [] and reader.skipped == 1 and reader.skipped_lines == [1]


def test_the_recorded_session_as_raw_sse_reads_as_it_does_as_messages():
    whole, _ = read_event_file(str(WHOLE))
    raw, skipped = read_event_file(str(SSE))
    assert skipped == 1  # the one junk line; SSE framing is not junk
    assert [replace(e, now=None) for e in raw] == [replace(e, now=None) for e in whole]  # SSE has no times


_texts = st.text(alphabet="ab \n.", max_size=8)


@st.composite
def conversations(draw):
    """Messages of text blocks and tool calls (unique ids), each call with a result."""
    messages = []
    for m in range(draw(st.integers(1, 4))):
        blocks = []
        for b in range(draw(st.integers(1, 3))):
            if draw(st.booleans()):
                blocks.append({"type": "text", "text": draw(_texts)})
            else:
                name = draw(st.sampled_from(["Write", "Bash", "Read", "context_write"]))
                blocks.append(tool_use(f"t{m}-{b}", name, file_path=draw(_texts)))
        outcomes = [
            (blk["id"], draw(_texts), {"is_error": draw(st.booleans())}) for blk in blocks if blk["type"] == "tool_use"
        ]
        messages.append((f"m{m}", blocks, outcomes))
    return messages


@settings(max_examples=60, deadline=None)
@given(conversations())
def test_whole_partial_delta_and_sse_recordings_of_one_conversation_read_the_same(messages):
    def render(message_id, blocks, outcomes, form):
        if form == "whole":
            out = [assistant(message_id, block) for block in blocks]
        else:
            out = streamed_message(message_id, *blocks, whole_after_each_block=form == "partial")
        if form == "sse":
            out = [line for event in out for line in sse_event(event["event"]["type"], event["event"])]
        return out + ([results(*outcomes)] if outcomes else [])

    read = {
        form: read_events(lines(*(line for m in messages for line in render(*m, form))))
        for form in ("whole", "partial", "deltas", "sse")
    }
    assert read["whole"][1] == 0
    assert read["partial"] == read["deltas"] == read["sse"] == read["whole"]
    assert len(read["whole"][0]) == len(messages)
