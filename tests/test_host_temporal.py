"""The Temporal host (`compiler.host.temporal`) and `blueprint run --temporal`, on a real server.

One `temporal server start-dev` serves the module (tests/temporal_server.py); the test that
restarts a server starts its own. Workers run in this process, except the one killed with
SIGKILL (tests/temporal_worker.py). Every run that finishes here is replayed at the end by
Temporal's `Replayer` from the history the server recorded.
"""

from __future__ import annotations

import asyncio
import os
import re
import runpy
import signal
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest

pytest.importorskip("temporalio", reason="the Temporal tests need temporalio (the [test] extra installs it)")

from temporalio.client import WorkflowUpdateFailedError
from temporalio.worker import Worker

from compiler import load
from compiler.host import Call, Host, ModelError, ModelReply, ToolResult
from compiler.host.temporal import (
    Approval,
    Reply,
    RunSettings,
    RunWorkflow,
    connect,
    make_worker,
    replay_histories,
    sandbox_runner,
    start_run,
)
from compiler.host.temporal.replay import Desk, ReplayWorkflow, replay_recording
from compiler.runtime import RegionChanged, Resumed, RunState, start, step
from compiler.runtime.ndjson import read_events
from compiler.runtime.timeline import render_json, render_text, replay
from compiler.scenarios.loader import default_blueprint, load_scenarios
from compiler.scenarios.player import play
from tests.conftest import invoke_cli
from tests.runtime.harness import blueprint
from tests.temporal_server import server_or_skip

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "tests" / "runtime"
HOSTS = ROOT / "docs" / "hosts.md"
WORKER = Path(__file__).resolve().parent / "temporal_worker.py"
#: Runs finished in this module: (workflow id, the blueprints of its worker), replayed last.
FINISHED: list[tuple[str, list]] = []
#: Short timeouts: a dead worker's activity is retried on another within a second or two. This
#: launch lets `write_file` run without asking a person (its built-in default is `ask`).
LAUNCH = {"write_file": "allow"}
FAST = RunSettings(heartbeat_timeout=1.0, attempts=3, launch_permissions=LAUNCH)


def queue() -> str:
    return f"test-{uuid.uuid4().hex[:12]}"


def run(coroutine):
    return asyncio.run(coroutine)


# --- recordings: the same timeline in-process and on Temporal ------------------------------------


def recordings() -> list[tuple[str, object, list, dict]]:
    """(name, blueprint, events, start options) of every example recording and scenario script."""
    out = []
    for path in sorted([*(ROOT / "blueprints").glob("*.scenarios.toml"), *RUNTIME.glob("*.scenarios.toml")], key=str):
        ir = load(default_blueprint(str(path)))
        for scenario in load_scenarios(str(path), path.read_bytes()).scenarios:
            if scenario.events_file is not None:
                continue
            played = play(ir, scenario)
            events = [fed.event for visit in played.visits for fed in visit.fed]
            seeded = [RegionChanged(n, hash=f"seed:{n}", entries=k) for n, k in scenario.regions.items()]
            options = {"regions": seeded or None, "unattended": scenario.unattended}
            out.append((f"{path.name}: {scenario.name}", ir, events, options))
    events, _ = read_events((RUNTIME / "review-loop.ndjson").read_text(encoding="utf-8"))
    out.append(("review-loop.ndjson", load(str(RUNTIME / "review-loop.leviath")), events, {}))
    return out


def test_every_example_recording_gives_the_same_timeline_in_process_and_on_temporal(temporal_server):
    cases = recordings()
    assert len(cases) >= 30

    async def on_server():
        client = await connect(temporal_server.address)
        desk, task_queue = Desk(), queue()
        worker = Worker(
            client,
            task_queue=task_queue,
            workflows=[ReplayWorkflow],
            activities=[desk.read_events, desk.write_steps],
            workflow_runner=sandbox_runner(),
        )
        async with worker:
            return await asyncio.gather(
                *(
                    replay_recording(client, ir, events, desk=desk, task_queue=task_queue, **options)
                    for _, ir, events, options in cases
                )
            )

    traces = run(on_server())
    for (name, ir, events, options), (remote, output) in zip(cases, traces, strict=True):
        local = replay(ir, events, **options)
        assert remote.entries == local.entries, name
        assert render_text(ir, remote) == render_text(ir, local), name
        assert render_json(ir, remote) == render_json(ir, local), name
        assert output.steps == len(local.entries) and output.unused == local.unused, name


def test_a_long_replay_continues_as_new_and_still_gives_the_same_timeline(temporal_server):
    ir = load(str(RUNTIME / "review-loop.leviath"))
    events, _ = read_events((RUNTIME / "review-loop.ndjson").read_text(encoding="utf-8"))

    async def go():
        client = await connect(temporal_server.address)
        return await replay_recording(client, ir, events * 2, history_events=20, page_events=10)

    remote, output = run(go())
    local = replay(ir, events * 2)
    assert output.continued >= 1 and output.unused == local.unused > 0
    assert render_text(ir, remote) == render_text(ir, local)


def invoke(*args: str):
    return invoke_cli("run", *args)


def test_blueprint_run_on_temporal_prints_what_it_prints_in_process(temporal_server, tmp_path):
    blueprint_path, events = str(RUNTIME / "review-loop.leviath"), RUNTIME / "review-loop.ndjson"
    cut = tmp_path / "cut.ndjson"  # the events run out before the run ends: exit 1
    cut.write_text("".join(events.read_text(encoding="utf-8").splitlines(keepends=True)[:6]), encoding="utf-8")
    for stream in (events, cut):
        for output_format in ("text", "json"):
            common = [blueprint_path, "--events", str(stream), "--format", output_format]
            here = invoke(*common)
            there = invoke(*common, "--temporal", temporal_server.address)
            assert (there.exit_code, there.output) == (here.exit_code, here.output), there.output
            assert here.exit_code == (0 if stream == events else 1)
    golden = invoke(blueprint_path, "--events", str(events), "--temporal", temporal_server.address)
    assert golden.output == (RUNTIME / "review-loop.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("localhost", "a Temporal server's address is HOST:PORT (as in localhost:7233), not 'localhost'"),
        ("localhost:99999", "not 'localhost:99999'"),
        ("127.0.0.1:1", "cannot reach a Temporal server at 127.0.0.1:1: Connection refused"),
    ],
)
def test_blueprint_run_on_a_server_it_cannot_use_says_why_and_exits_2(address, message):
    result = invoke(
        str(RUNTIME / "review-loop.leviath"), "--events", str(RUNTIME / "review-loop.ndjson"), "--temporal", address
    )
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.startswith("Error: --temporal: ") and message in result.output


def test_blueprint_run_on_temporal_without_temporalio_says_how_to_install_it(monkeypatch):
    for name in [
        name
        for name in sys.modules
        if name == "temporalio" or name.startswith(("temporalio.", "compiler.host.temporal"))
    ]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "temporalio", None)  # `import temporalio` now fails
    result = invoke(
        str(RUNTIME / "review-loop.leviath"),
        "--events",
        str(RUNTIME / "review-loop.ndjson"),
        "--temporal",
        "localhost:7233",
    )
    assert result.exit_code == 2, result.output
    assert result.output == (
        "Error: --temporal needs the temporalio package: pip install 'agent-blueprint-compiler[temporal]'\n"
    )


# --- runs: the run workflow -------------------------------------------------------------------------

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
    """Replies in order (shared by every attempt); `route` answers with the first target."""

    def __init__(self, replies):
        self.replies, self.calls = list(replies), []

    def infer(self, action, context):
        self.calls.append(action.id)
        return self.replies.pop(0)

    def route(self, action, context):
        return action.options[0].target


class Ledger:
    """A tool whose effects are written down by key; it looks its key up first."""

    def __init__(self):
        self.effects: dict[str, str] = {}
        self.runs = 0

    def run(self, use):
        self.runs += 1
        self.effects.setdefault(use.key, use.args.get("path", ""))
        return ToolResult(f"done {use.args.get('path')}")


def writes(n: int) -> list[ModelReply]:
    out = [ModelReply(calls=(Call("write_file", {"path": f"f{i}.txt", "content": "x"}),)) for i in range(n)]
    return [*out, ModelReply(text="written"), ModelReply(text="checked")]


async def finish(address, ir, run_id, *, settings=FAST, served=None, on_start=None, **objects):
    """Run `run_id` of `ir` to its end with a worker of this process; its `RunOutput`."""
    client = await connect(address)
    task_queue, served = queue(), served or [ir]
    async with make_worker(client, task_queue, served, **objects):
        handle = await start_run(client, ir, run_id, task_queue=task_queue, settings=settings)
        if on_start is not None:
            await on_start(client, handle)
        output = await asyncio.wait_for(handle.result(), 60)
    FINISHED.append((handle.id, served))
    return output


def test_a_run_on_temporal_ends_as_the_reference_host_ends_it(temporal_server):
    ir = blueprint(CHAIN)
    here_ledger, there_ledger = Ledger(), Ledger()
    here = asyncio.run(Host(ir, model=Script(writes(3)), tools=here_ledger, launch_permissions=LAUNCH).run("same"))
    there = run(finish(temporal_server.address, ir, "same", model=Script(writes(3)), tools=there_ledger))
    state = RunState.from_json(there.state)
    assert (there.status, there.stage) == (here.status, here.stage) == ("complete", "check")
    assert state.visits == here.state.visits and state.flags == here.state.flags
    assert state.host["context"]["regions"] == here.context.to_dict()["regions"]
    assert there_ledger.effects == here_ledger.effects == {f"same:{i + 1}/0": f"f{i}.txt" for i in range(3)}


def test_a_model_error_reaches_the_runner_as_a_failed_inference_and_is_not_retried(temporal_server):
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
    tries = []

    class Failing:
        def infer(self, action, context):
            tries.append(action.stage)
            if action.stage == "a":
                raise ModelError("overloaded")
            return ModelReply(text="recovered")

        def route(self, action, context):
            return "b"

    output = run(finish(temporal_server.address, ir, "fails", model=Failing()))
    assert (output.status, output.stage) == ("complete", "rescue")
    assert tries == ["a", "rescue"]  # ModelError is final: no second attempt


def test_a_worker_killed_with_sigkill_mid_run_loses_and_repeats_no_tool_effect(temporal_server, tmp_path, capsys):
    """Real processes: the first worker is killed while its tool calls are under way, a second finishes."""
    from tests.temporal_worker import BLUEPRINT, WRITES

    ledger, task_queue = tmp_path / "ledger.txt", queue()
    command = [sys.executable, str(WORKER), temporal_server.address, task_queue, str(ledger)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def worker() -> subprocess.Popen[bytes]:
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None and process.stdout.readline().strip() == b"ready"
        return process

    def lines() -> list[str]:
        return ledger.read_text(encoding="utf-8").splitlines() if ledger.exists() else []

    async def go():
        client = await connect(temporal_server.address)
        handle = await start_run(client, blueprint(BLUEPRINT), "killed", task_queue=task_queue, settings=FAST)
        first = worker()
        deadline = time.monotonic() + 60
        while len(lines()) < 3 and first.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        killed_at = len(lines())
        second = worker()
        try:
            output = await asyncio.wait_for(handle.result(), 90)
        finally:
            second.send_signal(signal.SIGKILL)
            second.wait(timeout=30)
        return first, killed_at, output, handle.id

    first, killed_at, output, workflow_id = run(go())
    assert first.returncode == -signal.SIGKILL
    assert 3 <= killed_at < WRITES
    assert (output.status, output.stage) == ("complete", "work")
    keys = [line.split()[0] for line in lines()]
    runs = ledger.with_suffix(".runs").read_text(encoding="utf-8").splitlines()
    assert len(keys) == len(set(keys)) == WRITES  # every effect exactly once, across the kill
    assert set(runs) == set(keys) and len(runs) >= WRITES
    with capsys.disabled():
        print(f"\n  kill-and-resume: killed after {killed_at} effects; ledger {len(keys)} keys, each once;")
        print(f"  {len(runs)} tool runs ({len(runs) - len(set(runs))} re-run with the same key after the kill)")
    FINISHED.append((workflow_id, [blueprint(BLUEPRINT)]))


def test_a_server_restarted_mid_run_loses_nothing(tmp_path):
    server = server_or_skip(tmp_path)
    ir = blueprint(CHAIN)
    effects: list[str] = []
    restarted_at: list[int] = []

    class SlowLedger:
        def run(self, use):
            effects.append(use.key)
            time.sleep(0.2)
            return ToolResult("done")

    async def restart_midway(client, handle):
        while len(effects) < 2:
            await asyncio.sleep(0.02)
        restarted_at.append(len(effects))
        await asyncio.to_thread(server.kill)  # as in a crash
        await asyncio.to_thread(server.start)  # the same port and database file

    try:
        output = run(
            finish(
                server.address, ir, "restarted", model=Script(writes(5)), tools=SlowLedger(), on_start=restart_midway
            )
        )
    finally:
        server.stop()
        server.kill()
    FINISHED.pop()  # its server is gone: its history cannot be fetched at the end
    assert (output.status, output.stage) == ("complete", "check")
    assert 2 <= restarted_at[0] < 5  # the server died with the run half done
    assert sorted(set(effects)) == [f"restarted:{n}/0" for n in range(1, 6)]
    state = RunState.from_json(output.state)
    assert state.flags.modified_file_count == 5


def test_a_worker_with_an_edited_blueprint_refuses_the_run_and_one_with_its_blueprint_finishes_it(temporal_server):
    ir = blueprint(CHAIN)
    edited = blueprint(CHAIN.replace('[stages.check]\navailable_tools = ["read_file"]', "[stages.check]"))
    entered = asyncio.Event()

    class Held:
        async def infer(self, action, context):
            entered.set()
            await asyncio.sleep(60)  # the first worker is stopped while its model thinks

    async def go():
        client = await connect(temporal_server.address)
        task_queue = queue()
        async with make_worker(client, task_queue, [ir], model=Held()):
            # A short task timeout: the task the refusing worker had under way when it stopped
            # is handed on within seconds.
            handle = await start_run(
                client, ir, "edited", task_queue=task_queue, settings=FAST, task_timeout=timedelta(seconds=2)
            )
            await asyncio.wait_for(entered.wait(), 30)
        # Restarted with the blueprint edited: its model answers, and the run is refused.
        async with make_worker(client, task_queue, [edited], model=Script([ModelReply(text="written")])):
            while not await _has(handle, "WORKFLOW_TASK_FAILED"):
                await asyncio.sleep(0.05)
        history = await handle.fetch_history()
        failed = [
            e.workflow_task_failed_event_attributes.failure.message
            for e in history.events
            if e.HasField("workflow_task_failed_event_attributes")
        ]
        # Restarted with the blueprint the run began with: it finishes.
        async with make_worker(client, task_queue, [ir], model=Script([ModelReply(text="checked")])):
            output = await asyncio.wait_for(handle.result(), 60)
        return failed, output, handle.id

    failed, output, workflow_id = run(go())
    assert failed and "belongs to the blueprint of digest" in failed[0] and "rebind" in failed[0]
    assert output.status == "complete"
    FINISHED.append((workflow_id, [ir]))


async def _has(handle, kind: str) -> bool:
    from temporalio.api.enums.v1 import EventType

    wanted = EventType.Value(f"EVENT_TYPE_{kind}")
    return any(event.event_type == wanted for event in (await handle.fetch_history()).events)


def test_a_state_pinned_to_another_blueprint_is_refused_by_digest(temporal_server):
    ir = blueprint(CHAIN)
    edited = blueprint(CHAIN.replace('[stages.check]\navailable_tools = ["read_file"]', "[stages.check]"))
    saved, _ = start(ir, 0.0, run_id="moved")

    async def go():
        client = await connect(temporal_server.address)
        task_queue = queue()
        async with make_worker(client, task_queue, [edited], model=Script([])):
            handle = await start_run(
                client, edited, "moved", task_queue=task_queue, state=saved.to_json(), settings=FAST
            )
            while not await _has(handle, "WORKFLOW_TASK_FAILED"):
                await asyncio.sleep(0.05)
            history = await handle.fetch_history()
            await handle.terminate("refused, as it should be")
        return [
            e.workflow_task_failed_event_attributes.failure.message
            for e in history.events
            if e.HasField("workflow_task_failed_event_attributes")
        ]

    failed = run(go())
    assert failed and failed[0].startswith(f"this run belongs to blueprint {saved.blueprint[:12]}…, not ")


def test_a_stuck_deadline_is_a_durable_timer_that_interrupts_the_stage_and_cancels_the_call(temporal_server):
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
    # A run whose stuck clock started 58 seconds ago: it trips 2 seconds into its first inference.
    saved, _ = start(ir, time.time() - 58, run_id="stuck")
    stopped = []

    class Slow:
        async def infer(self, action, context):
            if action.stage == "work":
                try:
                    await asyncio.sleep(30)
                except asyncio.CancelledError:
                    stopped.append(action.id)
                    raise
            return ModelReply(text="ok")

        def route(self, action, context):
            return action.options[0].target

    async def go():
        client = await connect(temporal_server.address)
        task_queue = queue()
        async with make_worker(client, task_queue, [ir], model=Slow()):
            began = time.monotonic()
            handle = await start_run(client, ir, "stuck", task_queue=task_queue, state=saved.to_json(), settings=FAST)
            output = await asyncio.wait_for(handle.result(), 30)
            took = time.monotonic() - began
        FINISHED.append((handle.id, [ir]))
        return output, took, await _has(handle, "TIMER_FIRED"), await _has(handle, "ACTIVITY_TASK_CANCEL_REQUESTED")

    output, took, fired, cancelled = run(go())
    state = RunState.from_json(output.state)
    assert output.status == "complete" and state.visits == {"work": 1, "rethink": 1, "done": 1}
    assert fired and cancelled and stopped == ["stuck:1"] and took < 20
    assert any("Stuck detected" in entry for entry in state.host["context"]["regions"]["conversation"])


def test_a_person_answers_through_updates_checked_against_the_outstanding_request(temporal_server):
    ir = blueprint(
        """
        [context.regions]
        conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
        plan_doc = { kind = "pinned", max_tokens = 4000 }
        [stages.plan]
        mode = "interactive_points"
        available_tools = ["write_file"]
        [[stages.plan.interaction_points]]
        name = "review"
        prompt = "OK?"
        options = ["Approve", "Edit"]
        edit_options = ["Edit"]
        document_region = "plan_doc"
        [stages.plan.transitions]
        """
    )
    ledger = Ledger()
    refused = []

    async def person(client, handle):
        async def waiting(kind):
            while True:
                seen = await handle.query(RunWorkflow.what_waits)
                if seen is not None and seen.kind == kind:
                    return seen
                await asyncio.sleep(0.05)

        use = (await waiting("approval")).use
        await handle.execute_update(RunWorkflow.approve, Approval(use["key"], True))
        asked = (await waiting("interaction")).action
        try:
            await handle.execute_update(RunWorkflow.answer, Reply(request=asked["request"] + 5, answer="Approve"))
        except WorkflowUpdateFailedError as error:
            refused.append(str(error.cause))
        await handle.execute_update(
            RunWorkflow.answer, Reply(request=asked["request"], answer="Edit", edited="my plan")
        )
        asked = (await waiting("interaction")).action
        assert (asked["body"], asked["revised"]) == ("my plan", True)
        await handle.execute_update(RunWorkflow.answer, Reply(request=asked["request"], answer="Approve"))

    replies = [ModelReply(calls=(Call("write_file", {"path": "plan.md"}),)), ModelReply(text="plan v1")]
    settings = RunSettings(heartbeat_timeout=1.0)  # write_file asks: a person approves it
    output = run(
        finish(
            temporal_server.address, ir, "asks", model=Script(replies), tools=ledger, on_start=person, settings=settings
        )
    )
    state = RunState.from_json(output.state)
    assert output.status == "complete" and ledger.effects == {"asks:1/0": "plan.md"}
    assert refused and "does not wait for an answer to request" in refused[0]
    assert state.host["context"]["regions"]["plan_doc"][0].endswith("my plan")


def test_a_cancelled_workflow_ends_its_run_cancelled(temporal_server):
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

    async def cancel_while_it_waits(client, handle):
        while await handle.query(RunWorkflow.what_waits) is None:
            await asyncio.sleep(0.05)
        await handle.cancel()

    output = run(
        finish(
            temporal_server.address,
            ir,
            "cancelled",
            model=Script([ModelReply(text="plan")]),
            on_start=cancel_while_it_waits,
        )
    )
    assert (output.status, output.stage) == ("cancelled", "plan")


def test_a_paused_run_ends_its_workflow_and_goes_on_from_its_state_once_resumed(temporal_server):
    ir = blueprint(CHAIN)
    paid = []

    class Credits(Script):
        def infer(self, action, context):
            if not paid:
                raise ModelError("out of credits", "credits")
            return super().infer(action, context)

    model = Credits(writes(0))
    paused = run(finish(temporal_server.address, ir, "broke", model=model))
    assert (paused.status, paused.stage) == ("paused", "work")
    paid.append(True)
    resumed, _ = step(ir, RunState.from_json(paused.state), Resumed(now=time.time()))

    async def go_on():
        client = await connect(temporal_server.address)
        task_queue = queue()
        async with make_worker(client, task_queue, [ir], model=model):
            handle = await start_run(
                client, ir, "broke", task_queue=task_queue, state=resumed.to_json(), workflow_id="blueprint-run-broke-2"
            )
            return await asyncio.wait_for(handle.result(), 60)

    output = run(go_on())
    assert (output.status, output.stage) == ("complete", "check")


def test_fan_out_items_are_child_workflows_and_the_circuit_breaker_stops_dispatching(temporal_server):
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
    worked = []

    class Items:
        def work(self, action, item, key):
            worked.append((item, key))
            if item.startswith("bad"):
                raise RuntimeError(f"cannot do {item}")
            return f"did {item}"

    items = ["a", "bad1", "bad2", "b", "c"]
    replies = [ModelReply(calls=(Call("fan_out", {"items": items}),)), ModelReply(text="merged")]
    settings = RunSettings(heartbeat_timeout=1.0, attempts=1, max_children=1, breaker=2)
    output = run(finish(temporal_server.address, ir, "fan", model=Script(replies), workers=Items(), settings=settings))
    state = RunState.from_json(output.state)
    assert (output.status, output.stage) == ("complete", "merge")
    assert worked == [("a", "fan:2/0"), ("bad1", "fan:2/1"), ("bad2", "fan:2/2")]  # then the breaker opened
    (report,) = state.host["context"]["regions"]["findings"]
    assert report.splitlines() == [
        "[1] did a",
        "[2] failed: cannot do bad1",
        "[3] failed: cannot do bad2",
        "circuit breaker: 2 consecutive failures; 2 item(s) not started",
    ]


def test_a_long_run_continues_as_new_and_ends_as_a_short_one(temporal_server):
    ir = blueprint(CHAIN)
    ledger = Ledger()
    settings = RunSettings(heartbeat_timeout=1.0, history_events=25, launch_permissions=LAUNCH)
    output = run(finish(temporal_server.address, ir, "long", model=Script(writes(6)), tools=ledger, settings=settings))
    assert output.continued >= 2 and (output.status, output.stage) == ("complete", "check")
    assert sorted(ledger.effects.values()) == [f"f{i}.txt" for i in range(6)] and ledger.runs == 6


def test_the_documented_temporal_worker_runs_as_written(temporal_server, tmp_path, monkeypatch, capsys):
    section = HOSTS.read_text(encoding="utf-8").split("## On Temporal", 1)[1]
    (example,) = re.findall(r"```python\n(.*?)```", section, re.S)[:1]
    script = tmp_path / "temporal_runtime.py"
    script.write_text(example, encoding="utf-8")
    monkeypatch.setenv("TEMPORAL_ADDRESS", temporal_server.address)
    namespace = runpy.run_path(str(script), run_name="__main__")
    assert namespace["output"].status == "complete"
    assert capsys.readouterr().out.startswith("complete")


def test_temporals_replayer_replays_every_recorded_history_without_a_non_determinism_error(temporal_server):
    """Last: the histories of the runs above, fetched from the server, replayed by this code."""
    if not FINISHED:
        run(finish(temporal_server.address, blueprint(CHAIN), "replayed", model=Script(writes(2)), tools=Ledger()))

    async def go():
        client = await connect(temporal_server.address)
        histories = [await client.get_workflow_handle(workflow_id).fetch_history() for workflow_id, _ in FINISHED]
        served = [ir for _, irs in FINISHED for ir in irs]
        await replay_histories(histories, served)
        return histories

    histories = run(go())
    assert len(histories) == len(FINISHED) and all(len(h.events) > 10 for h in histories)
