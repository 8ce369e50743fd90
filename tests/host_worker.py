"""A host in its own process, for tests/test_host.py: killed with SIGKILL mid-run, then resumed.

    python tests/host_worker.py RUNS.db LEDGER.txt N

Runs a blueprint whose model asks for N file writes, one per reply. The tool appends
`<key> <path>` to the ledger (unless the key is there already: the idempotent tool
docs/hosts.md describes) and takes a moment, so the parent can kill the process between two
calls or inside one. Prints the run's end as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

from compiler.host import Call, Host, ModelReply, SqliteStore, ToolResult
from tests.runtime.harness import blueprint

BLUEPRINT = """
[stages.work]
available_tools = ["write_file"]
[stages.work.tool_permissions]
write_file = "allow"
[stages.work.transitions]
"""


class Model:
    def __init__(self, writes: int) -> None:
        self.writes = writes

    def infer(self, action, context):
        done = sum(1 for entry in context.get("conversation", []) if entry.startswith("[write_file]"))
        if done < self.writes:
            return ModelReply(calls=(Call("write_file", {"path": f"f{done}.txt", "content": "x"}),))
        return ModelReply(text="all written")

    def route(self, action, context):
        return action.options[0].target


class Ledger:
    def __init__(self, path: Path) -> None:
        self.path = path

    def run(self, use):
        keys = (
            {line.split()[0] for line in self.path.read_text(encoding="utf-8").splitlines()}
            if self.path.exists()
            else set()
        )
        if use.key not in keys:
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(f"{use.key} {use.args['path']}\n")
                handle.flush()
                os.fsync(handle.fileno())
        time.sleep(0.15)
        return ToolResult(f"wrote {use.args['path']}")


class Approve:
    def ask(self, action):
        raise AssertionError("no interaction points here")

    def approve(self, use):
        return True


def main() -> None:
    database, ledger, writes = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    host = Host(
        blueprint(BLUEPRINT), model=Model(writes), tools=Ledger(ledger), person=Approve(), store=SqliteStore(database)
    )
    result = asyncio.run(host.run("killed"))
    print(json.dumps({"status": result.status, "stage": result.stage}))


if __name__ == "__main__":
    main()
