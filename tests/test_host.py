"""The reference host (`compiler.host`): runs, crashes, resumes, and does what each action says."""

from __future__ import annotations

import asyncio
import json
import os
import re
import runpy
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compiler.host import (
    Answer,
    Call,
    Host,
    HostError,
    JsonFileStore,
    MemoryStore,
    ModelError,
    ModelReply,
    SqliteStore,
    ToolResult,
    WorkersDone,
)
from compiler.host.context import REVISED_MARK
from compiler.runtime import BlueprintMismatch
from tests.runtime.harness import blueprint

ROOT = Path(__file__).resolve().parent.parent
HOSTS = ROOT / "docs" / "hosts.md"
WORKER = Path(__file__).resolve().parent / "host_worker.py"


def test_the_documented_runtime_runs_as_written(tmp_path, capsys):
    (example,) = re.findall(r"```python\n(.*?)```", HOSTS.read_text(encoding="utf-8"), re.S)[:1]
    script = tmp_path / "runtime.py"
    script.write_text(example, encoding="utf-8")
    namespace = runpy.run_path(str(script))
    assert namespace["result"].status == "complete"
    assert capsys.readouterr().out.startswith("complete")


# --- a scripted model and a ledger of tool effects -----------------------------------------------

CHAIN = """
[stages.work]
available_tools = ["write_file", "read_file"]
[stages.work.tool_permissions]
write_file = "allow"
[stages.work.transitions.check]
[stages.check]
available_tools = ["read_file"]
[stages.check.transitions]
"""


class Script:
    """Replies in order; `route` answers with the first offered target."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.calls = 0

    def infer(self, action, context):
        self.calls += 1
        return self.replies.pop(0)

    def route(self, action, context):
        return action.options[0].target


class Crash(BaseException):
    """Stands for the process dying (not an error the host could handle)."""


class Ledger:
    """A tool whose effects are written down; it looks its key up first, as docs/hosts.md asks."""

    def __init__(self, crash_after: int | None = None):
        self.effects: dict[str, str] = {}
        self.runs = 0
        self.crash_after = crash_after

    def run(self, use):
        self.runs += 1
        if use.key not in self.effects:
            self.effects[use.key] = use.args.get("path", "")
        if self.crash_after is not None and self.runs == self.crash_after:
            raise Crash
        return ToolResult(f"done {use.args.get('path')}")


class Approving:
    def ask(self, action):
        return Answer(text=action.options[0] if action.options else "ok")

    def approve(self, use):
        return True


def writes(n: int) -> list[ModelReply]:
    out = [ModelReply(calls=(Call("write_file", {"path": f"f{i}.txt", "content": "x"}),)) for i in range(n)]
    return [*out, ModelReply(text="written"), ModelReply(text="checked")]


@pytest.mark.parametrize("store_kind", ["json", "sqlite"])
def test_a_run_that_crashes_resumes_from_its_store_with_every_tool_effect_once(tmp_path, store_kind):
    ir = blueprint(CHAIN)
    make_store = (lambda: JsonFileStore(tmp_path)) if store_kind == "json" else (lambda: SqliteStore(tmp_path / "r.db"))
    model, ledger = Script(writes(5)), Ledger(crash_after=3)
    with pytest.raises(Crash):
        asyncio.run(Host(ir, model=model, tools=ledger, person=Approving(), store=make_store()).run("job-1"))
    assert len(ledger.effects) == 3
    ledger.crash_after = None
    result = asyncio.run(Host(ir, model=model, tools=ledger, person=Approving(), store=make_store()).run("job-1"))
    assert result.status == "complete" and result.stage == "check"
    assert sorted(ledger.effects.values()) == [f"f{i}.txt" for i in range(5)]  # each exactly once
    assert model.calls == 7  # no model call was repeated: the third reply was in the journal
    assert ledger.runs == 6  # the call that died before returning ran again, with the same key
    # A finished run asked again just reports how it ended.
    again = asyncio.run(Host(ir, model=Script([]), tools=ledger, store=make_store()).run("job-1"))
    assert again.status == "complete" and ledger.runs == 6


def test_a_resumed_run_with_an_edited_blueprint_is_refused(tmp_path):
    store = JsonFileStore(tmp_path)
    with pytest.raises(Crash):
        asyncio.run(
            Host(
                blueprint(CHAIN), model=Script(writes(3)), tools=Ledger(crash_after=1), person=Approving(), store=store
            ).run("j")
        )
    edited = blueprint(CHAIN.replace('[stages.check]\navailable_tools = ["read_file"]', "[stages.check]"))
    with pytest.raises(BlueprintMismatch):
        asyncio.run(Host(edited, model=Script(writes(3)), tools=Ledger(), store=store).run("j"))


def test_a_host_killed_with_sigkill_mid_run_loses_and_repeats_nothing(tmp_path):
    """Real processes: the first is killed while its tool calls are under way, a second resumes."""
    ledger, database = tmp_path / "ledger.txt", tmp_path / "runs.db"
    command = [sys.executable, str(WORKER), str(database), str(ledger), "8"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        lines = ledger.read_text(encoding="utf-8").splitlines() if ledger.exists() else []
        if len(lines) >= 3 or first.poll() is not None:
            break
        time.sleep(0.02)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    assert first.returncode == -signal.SIGKILL, first.stderr.read() if first.stderr else ""
    killed_at = len(ledger.read_text(encoding="utf-8").splitlines())
    assert 3 <= killed_at < 8
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["status"] == "complete"
    keys = [line.split()[0] for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert len(keys) == len(set(keys)) == 8  # every effect exactly once, across the kill


# --- what each action does ------------------------------------------------------------------------


def test_a_stuck_deadline_interrupts_a_model_call_that_takes_too_long():
    ir = blueprint(
        """
        [stages.work]
        available_tools = ["read_file"]
        [stages.work.transitions.rethink]
        condition = "stuck"
        stuck_after_minutes = 1
        [stages.work.transitions.done]
        [stages.rethink]
        [stages.rethink.transitions.done]
        [stages.done]
        transitions = {}
        """
    )
    offset = [0.0]

    class Slow:
        async def infer(self, action, context):
            if action.stage == "work":
                offset[0] += 61  # a minute goes by while the model thinks
                await asyncio.sleep(30)
            return ModelReply(text="ok")

        def route(self, action, context):
            return action.options[0].target

    host = Host(ir, model=Slow(), clock=lambda: 1000.0 + offset[0], poll=0.01)
    started = time.monotonic()
    result = asyncio.run(host.run("slow"))
    assert time.monotonic() - started < 10
    assert result.status == "complete" and result.state.visits == {"work": 1, "rethink": 1, "done": 1}
    assert any("Stuck detected" in entry for entry in result.context.regions["conversation"])


def test_tools_are_judged_before_they_run():
    ir = blueprint(
        """
        [stages.a]
        available_tools = ["write_file", "shell", "read_file"]
        [stages.a.tool_permissions]
        shell = "deny"
        [stages.a.transitions]
        """
    )
    calls = (Call("write_file", {"path": "x"}), Call("shell", {"command": "ls"}), Call("edit_file", {"path": "y"}))
    ledger = Ledger()
    host = Host(ir, model=Script([ModelReply(calls=calls), ModelReply(text="done")]), tools=ledger)
    result = asyncio.run(host.run("judged"))
    assert ledger.runs == 0  # write_file asks, and nobody approved; shell is denied; edit_file is not offered
    conversation = " ".join(result.context.regions["conversation"])
    assert "[denied] write_file needs a person's approval" in conversation
    assert "[denied] shell is denied here" in conversation and "[unavailable]" in conversation
    assert result.state.flags.modified_file_count == 0


def test_the_context_tools_submit_output_and_gates_work_through_the_host():
    ir = blueprint(
        """
        [context.regions]
        conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
        todo = { kind = "checklist", max_tokens = 1000 }
        [stages.plan]
        available_tools = ["todo_add", "todo_done"]
        [stages.plan.transitions.out]
        gate = { require_no_open_items = "todo", max_attempts = 5 }
        [stages.out]
        mode = "output"
        """
    )
    replies = [
        ModelReply(calls=(Call("todo_add", {"region": "todo", "item": "write it"}),)),
        ModelReply(text="planned"),  # an item is open: the gate holds
        ModelReply(calls=(Call("todo_done", {"region": "todo", "id": 1}),)),
        ModelReply(text="all done"),
        ModelReply(calls=(Call("submit_output", {"content": "the report"}),)),
        ModelReply(text="submitted"),
    ]
    result = asyncio.run(Host(ir, model=Script(replies)).run("ctx"))
    assert result.status == "complete" and result.output == "the report"
    assert result.context.items["todo"] == [{"id": 1, "text": "write it", "done": True}]


def test_an_interaction_point_shows_its_document_and_writes_it_to_its_region():
    ir = blueprint(
        """
        [context.regions]
        conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
        plan_doc = { kind = "pinned", max_tokens = 4000 }
        [stages.plan]
        mode = "interactive_points"
        [[stages.plan.interaction_points]]
        name = "review"
        prompt = "OK?"
        options = ["Approve", "Edit"]
        edit_options = ["Edit"]
        document_region = "plan_doc"
        [stages.plan.transitions]
        """
    )
    seen = []

    class Reviewer:
        def ask(self, action):
            seen.append((action.body, action.revised))
            return Answer(text="Edit", edited="my plan") if len(seen) == 1 else Answer(text="Approve")

        def approve(self, use):
            return False

    result = asyncio.run(Host(ir, model=Script([ModelReply(text="plan v1")]), person=Reviewer()).run("ip"))
    assert seen == [("plan v1", False), ("my plan", True)]
    assert result.context.regions["plan_doc"] == [f"{REVISED_MARK}\nmy plan"]
    assert result.status == "complete"


def test_a_run_that_needs_a_person_and_has_none_says_so():
    ir = blueprint(
        """
        [stages.plan]
        mode = "interactive_points"
        [[stages.plan.interaction_points]]
        name = "review"
        prompt = "OK?"
        [stages.plan.transitions]
        """
    )
    with pytest.raises(HostError, match="interaction point 'review'"):
        asyncio.run(Host(ir, model=Script([ModelReply(text="plan")])).run("nobody"))


def test_fan_out_hands_its_items_to_the_workers_and_their_report_to_its_region():
    ir = blueprint(
        """
        [context.regions]
        conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
        findings = { kind = "pinned", max_tokens = 4000 }
        [stages.split]
        mode = "fan_out"
        worker_stage = "work"
        results_region = "findings"
        merge_stage = "merge"
        [stages.work]
        allow_as_worker = true
        [stages.work.transitions]
        [stages.merge]
        [stages.merge.transitions]
        """
    )

    class Pool:
        def __init__(self):
            self.items = None

        async def fan_out(self, action, items):
            self.items = items
            return WorkersDone(completed=len(items), report="2 findings")

    pool = Pool()
    replies = [ModelReply(calls=(Call("fan_out", {"items": ["a", "b"]}),)), ModelReply(text="merged")]
    result = asyncio.run(Host(ir, model=Script(replies), workers=pool).run("fan"))
    assert pool.items == ["a", "b"] and result.context.regions["findings"] == ["2 findings"]
    assert result.status == "complete" and result.stage == "merge"


def test_a_model_failure_takes_the_error_edge():
    ir = blueprint(
        """
        [stages.a]
        [stages.a.transitions.b]
        [stages.a.transitions.rescue]
        condition = "error"
        [stages.b]
        transitions = {}
        [stages.rescue]
        transitions = {}
        """
    )

    class Failing:
        def infer(self, action, context):
            if action.stage == "a":
                raise ModelError("overloaded")
            return ModelReply(text="recovered")

        def route(self, action, context):
            return "b"

    result = asyncio.run(Host(ir, model=Failing()).run("fails"))
    assert result.status == "complete" and result.stage == "rescue"


def test_a_run_id_that_is_no_safe_name_is_refused():
    ir = blueprint(CHAIN)
    for bad in ("../x", "", "a b", "x" * 201):
        with pytest.raises(ValueError, match="run id"):
            asyncio.run(Host(ir, model=Script([]), store=MemoryStore()).run(bad))


def test_a_routing_call_that_fails_fails_the_stage_and_its_error_edge_catches_it():
    ir = blueprint(
        """
        [stages.a]
        [stages.a.transitions.b]
        hint = "on"
        [stages.a.transitions.c]
        hint = "off"
        [stages.a.transitions.rescue]
        condition = "error"
        [stages.b]
        transitions = {}
        [stages.c]
        transitions = {}
        [stages.rescue]
        transitions = {}
        """
    )

    class Unroutable(Script):
        def route(self, action, context):
            raise ModelError("no route today", "error")

    result = asyncio.run(Host(ir, model=Unroutable([ModelReply(text="done"), ModelReply(text="saved")])).run("r"))
    assert result.status == "complete" and result.stage == "rescue"
    assert result.state.visits == {"a": 1, "rescue": 1}
