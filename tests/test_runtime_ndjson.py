"""The NDJSON reader: Claude/Anthropic stream-json shapes and native events become runner events."""

from __future__ import annotations

import json

from compiler.runtime import InferenceFailed, InferenceFinished, RegionChanged, RoutingAnswer, ToolCall
from compiler.runtime.ndjson import StreamReader, read_events


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
