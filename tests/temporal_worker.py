"""A Temporal worker in its own process, for tests/test_host_temporal.py: killed with SIGKILL mid-run.

    python tests/temporal_worker.py ADDRESS TASK_QUEUE LEDGER.txt

Serves the blueprint of `BLUEPRINT` (one stage that writes files, one per reply, until it has
written `WRITES`) until it is killed. The tool appends `<key> <path>` to the ledger unless the
key is there already (the idempotent tool docs/hosts.md describes), appends the key to
`LEDGER.runs` on every call, and takes a moment, so the parent can kill the worker while a
call is under way.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from datetime import timedelta
from pathlib import Path

from compiler.host import Call, ModelReply, ToolResult
from compiler.host.temporal import connect, make_worker
from tests.runtime.harness import blueprint

WRITES = 8
BLUEPRINT = """
[stages.work]
available_tools = ["write_file"]
[stages.work.tool_permissions]
write_file = "allow"
[stages.work.transitions]
"""


class Model:
    def infer(self, action, context):
        done = sum(1 for entry in context.get("conversation", []) if entry.startswith("[write_file]"))
        if done < WRITES:
            return ModelReply(calls=(Call("write_file", {"path": f"f{done}.txt", "content": "x"}),))
        return ModelReply(text="all written")

    def route(self, action, context):
        return action.options[0].target


def append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
        handle.flush()
        os.fsync(handle.fileno())


class Ledger:
    def __init__(self, path: Path) -> None:
        self.path, self.runs = path, path.with_suffix(".runs")

    def run(self, use):
        append(self.runs, use.key)
        lines = self.path.read_text(encoding="utf-8").splitlines() if self.path.exists() else []
        if use.key not in {line.split()[0] for line in lines}:
            append(self.path, f"{use.key} {use.args['path']}")
        time.sleep(0.3)
        return ToolResult(f"wrote {use.args['path']}")


async def main() -> None:
    address, queue, ledger = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    client = await connect(address)
    worker = make_worker(
        client,
        queue,
        [blueprint(BLUEPRINT)],
        model=Model(),
        tools=Ledger(ledger),
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=1),
    )
    print("ready", flush=True)
    await worker.run()


if __name__ == "__main__":
    asyncio.run(main())
