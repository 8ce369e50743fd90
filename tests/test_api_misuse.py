"""The public API used as a library: wrong inputs raise the documented exception, clearly.

A runtime, an editor plugin or a CI script calls these with whatever it has at hand; each
mistake must surface as the exception the docstring names, with a message that says what to
do, never as an unrelated `KeyError`/`AttributeError`, and never as output or an exit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import compiler
from compiler.runtime import (
    BlueprintMismatch,
    Complete,
    InferenceFinished,
    RunInference,
    RunnerError,
    RunState,
    StateError,
    Tick,
    action_to_dict,
    event_to_dict,
    next_actions,
    rebind,
    start,
    step,
)
from compiler.runtime.ndjson import StreamReader, read_events

ROOT = Path(__file__).resolve().parent.parent
GATES = ROOT / "blueprints" / "gates.leviath"

TWO_STAGES = """
[agent]
name = "two"
[agent.nudge]
enabled = false
[stages.plan]
[stages.review]
"""

ONLY_REVIEW = """
[agent]
name = "one"
[stages.review]
"""

DEEP = "[" * 100_000 + "]" * 100_000


def load_text(tmp_path: Path, text: str, name: str = "agent.leviath"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return compiler.load(path)


# --- compiler.load / compile / validate_file --------------------------------------------------


@pytest.mark.parametrize("entry", ["load", "compile", "validate_file"])
def test_a_missing_file_or_a_directory_is_an_os_error(tmp_path, entry, capsys):
    function = getattr(compiler, entry)
    with pytest.raises(FileNotFoundError):
        function(tmp_path / "absent.leviath")
    with pytest.raises(OSError, match="not a regular file"):
        function(tmp_path)
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("entry", ["load", "compile"])
def test_bytes_that_are_not_utf8_are_a_blueprint_error_with_the_finding(tmp_path, entry):
    path = tmp_path / "agent.leviath"
    path.write_bytes(b'[agent]\nname = "\xff"\n')
    with pytest.raises(compiler.BlueprintError, match=r"agent.leviath:2:9: byte 0xff is not valid UTF-8") as caught:
        getattr(compiler, entry)(path)
    assert [d.code for d in caught.value.diagnostics] == ["invalid-encoding"]


def test_validate_text_takes_the_text_first_and_names_the_path(tmp_path):
    result = compiler.validate_text('[agent]\nname = "a"\n[stages.a]\n', "mine.leviath")
    assert result.path == "mine.leviath" and result.ok
    assert compiler.validate_text.__doc__


def test_validate_text_and_bytes_refuse_swapped_or_wrong_arguments_with_a_type_error():
    data = b'[agent]\nname = "a"\n[stages.a]\n'
    assert compiler.validate_bytes("mine.leviath", data).ok
    with pytest.raises(TypeError, match=r"validate_bytes\(path: str, data: bytes\), not \(bytes, str\)"):
        compiler.validate_bytes(data, "mine.leviath")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bytes: validate_bytes"):
        compiler.validate_text(data)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not NoneType"):
        compiler.validate_text(None)  # type: ignore[arg-type]


def test_every_public_name_is_documented():
    for name in compiler.__all__:
        assert getattr(compiler, name).__doc__, name
    assert "Diagnostic(" not in compiler.Diagnostic.__doc__  # its own docstring, not the signature


def test_the_package_ships_its_type_hints():
    assert (ROOT / "compiler" / "py.typed").is_file()


# --- compiler.load_ir -------------------------------------------------------------------------


def test_load_ir_of_a_future_version_says_to_upgrade():
    document = compiler.compile(GATES)
    with pytest.raises(compiler.IRError, match=r"ir_version 99 is newer.*upgrade agent-blueprint-compiler"):
        compiler.load_ir({**document, "ir_version": 99})


def test_load_ir_of_empty_text_is_an_ir_error_not_a_directory_read():
    for text in ("", "  \n"):
        with pytest.raises(compiler.IRError, match="empty"):
            compiler.load_ir(text)


def test_load_ir_of_a_path_that_cannot_be_read_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        compiler.load_ir(tmp_path / "absent.ir.json")
    with pytest.raises(OSError):
        compiler.load_ir(tmp_path)
    (tmp_path / "bad.ir.json").write_bytes(b"\xff{}")
    with pytest.raises(compiler.IRError, match="UTF-8"):
        compiler.load_ir(str(tmp_path / "bad.ir.json"))


def test_load_ir_of_a_value_of_no_accepted_kind_is_a_type_error():
    with pytest.raises(TypeError, match="dict, JSON text or a path"):
        compiler.load_ir(compiler.load(GATES))  # type: ignore[arg-type]


# --- the runtime ------------------------------------------------------------------------------


def test_the_runner_refuses_the_ir_dict_with_a_pointer_to_load_ir():
    document = compiler.compile(GATES)
    with pytest.raises(TypeError, match=r"not dict.*compiler\.load_ir"):
        start(document)  # type: ignore[arg-type]
    ir = compiler.load(GATES)
    state, _ = start(ir)
    with pytest.raises(TypeError, match=r"compiler\.load_ir"):
        step(document, state, Tick())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"compiler\.load_ir"):
        next_actions(document, state)  # type: ignore[arg-type]


def test_the_runner_refuses_a_state_that_is_not_a_run_state():
    ir = compiler.load(GATES)
    state, _ = start(ir)
    for wrong in (None, state.to_dict(), state.to_json()):
        with pytest.raises(TypeError, match=r"RunState\.from_json"):
            step(ir, wrong, Tick())  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"RunState\.from_json"):
            next_actions(ir, wrong)  # type: ignore[arg-type]


def test_an_event_of_the_wrong_type_is_ignored_as_documented():
    ir = compiler.load(GATES)
    state, actions = start(ir)
    for wrong in (None, "inference", {"event": "inference", "text": "x"}, actions[0]):
        assert step(ir, state, wrong) == (state, ())  # type: ignore[arg-type]


def test_a_state_from_another_blueprint_is_a_runner_error(tmp_path):
    two = load_text(tmp_path, TWO_STAGES)
    state, _ = start(two)
    state, actions = step(two, state, InferenceFinished(text="planned", request=1))
    assert state.stage == "review" and state.visits == {"plan": 1, "review": 1}
    saved = state.to_json()
    other = load_text(tmp_path, ONLY_REVIEW, "other.leviath")  # has the current stage, not 'plan'
    # The state pins its blueprint's digest: another blueprint is refused by name, whatever it holds.
    for call in (
        lambda: step(other, RunState.from_json(saved), InferenceFinished(text="done", request=2)),
        lambda: next_actions(other, RunState.from_json(saved)),
    ):
        with pytest.raises(BlueprintMismatch, match="belongs to blueprint"):
            call()
    assert issubclass(BlueprintMismatch, RunnerError)
    # Moving it on purpose checks that the new blueprint has every stage the run has been in.
    with pytest.raises(RunnerError, match="visited stage 'plan', which this blueprint does not have"):
        rebind(other, RunState.from_json(saved))
    unrelated = load_text(tmp_path, '[agent]\nname = "u"\n[stages.write]\n', "unrelated.leviath")
    with pytest.raises(RunnerError, match="stage 'review', which this blueprint does not have"):
        rebind(unrelated, RunState.from_json(saved))
    # A state written before digests were pinned is still checked stage by stage.
    unpinned = {**json.loads(saved), "blueprint": ""}
    with pytest.raises(RunnerError, match="stage 'review', which this blueprint does not have"):
        step(unrelated, RunState.from_dict(unpinned), InferenceFinished(text="done", request=2))
    # the state still steps the blueprint it came from
    _, actions = step(two, RunState.from_json(saved), InferenceFinished(text="reviewed", request=2))
    assert isinstance(actions[-1], Complete)


def test_a_run_state_json_that_cannot_be_read_is_a_state_error():
    ir = compiler.load(GATES)
    state, _ = start(ir)
    data = json.loads(state.to_json())
    for text in ("{", "[]", b"\xff", DEEP, json.dumps({**data, "state_version": 99})):
        with pytest.raises(StateError):
            RunState.from_json(text)
    assert RunState.from_json(state.to_json()) == state


def test_event_and_action_to_dict_refuse_other_values_with_a_type_error():
    ir = compiler.load(GATES)
    _, actions = start(ir)
    assert isinstance(actions[0], RunInference)
    assert action_to_dict(actions[0])["action"] == "run_inference"
    assert event_to_dict(Tick(now=1.0)) == {"event": "tick", "now": 1.0}
    for wrong in (None, {"event": "tick"}):
        with pytest.raises(TypeError, match="not a runner event"):
            event_to_dict(wrong)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="not a runner action"):
            action_to_dict(wrong)  # type: ignore[arg-type]


# --- the NDJSON adapter -----------------------------------------------------------------------


def test_a_line_nested_too_deeply_is_skipped_not_raised():
    lines = ['{"event": "tick", "now": 1}', DEEP, '{"type": "message_start", "message": ' + DEEP + "}"]
    events, skipped = read_events(lines)
    assert events == [Tick(now=1.0)] and skipped == 2
    reader = StreamReader()
    assert reader.feed_line(DEEP) == [] and reader.skipped == 1


def test_a_deeply_nested_tool_input_is_read_as_no_input():
    reader = StreamReader()
    lines = [
        {"type": "message_start", "message": {"id": "m1"}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t1", "name": "Write"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": DEEP}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_stop"},
    ]
    for line in lines:
        reader.feed_line(json.dumps(line))
    events = reader.finish()
    assert [call.name for event in events for call in event.tool_calls] == ["write_file"]


def test_read_events_splits_a_whole_stream_given_as_one_string():
    text = '{"event": "tick", "now": 1}\n{"event": "cancel"}\n'
    expected = read_events(text.splitlines(keepends=True))
    assert expected[0] and read_events(text) == expected
    assert read_events(text.encode("utf-8")) == expected


# --- the analysis -----------------------------------------------------------------------------


def test_analyze_refuses_what_is_not_the_typed_model():
    from compiler.analysis import analyze

    for wrong in (None, str(GATES), compiler.compile(GATES)):
        with pytest.raises(TypeError, match=r"compiler\.load"):
            analyze(wrong)  # type: ignore[arg-type]
    assert analyze(compiler.load(GATES)).complete


def test_the_analysis_package_lists_its_public_names():
    import compiler.analysis

    assert set(compiler.analysis.__all__) <= set(dir(compiler.analysis))


def test_a_lone_surrogate_in_text_is_an_invalid_encoding_finding_not_an_exception():
    from compiler import check_text, validate_text

    text = '[agent]\nname = "x\ud800"\n'
    assert [d.code for d in validate_text(text, "a.leviath").diagnostics] == ["invalid-encoding"]
    assert "invalid-encoding" in [d.code for d in check_text(text, "a.leviath").result.diagnostics]


def test_check_text_refuses_a_max_states_of_the_wrong_kind_or_below_one():
    from compiler import check_text

    text = (ROOT / "blueprints" / "review-loop.leviath").read_text(encoding="utf-8")
    for wrong in ("5", 2.5, True):
        with pytest.raises(TypeError, match="max_states must be an int"):
            check_text(text, max_states=wrong)  # type: ignore[arg-type]
    for low in (0, -1):
        with pytest.raises(ValueError, match="max_states must be at least 1"):
            check_text(text, max_states=low)
    assert check_text(text, max_states=5).analysis is not None
