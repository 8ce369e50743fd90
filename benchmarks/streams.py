"""`blueprint run` on a long event stream, as a process: its peak memory per output format.

The stream is one run of a single autonomous stage with a high iteration cap: every event an
inference that writes a file, so every event is a real step of the runner and a line of the
timeline. The target is flat memory: under 100 MB at 100,000 events in every format, which a
replay that keeps its steps (or the events) misses by an order of magnitude.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import Row

ROOT = Path(__file__).resolve().parent.parent
#: The target for every format.
LIMIT_MB = 100
BLUEPRINT = """\
[agent]
name = "long-run"
version = "1.0.0"
entry_stage = "work"

[stages.work]
mode = "autonomous"
model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
max_iterations = 10000000
system_prompt = "Keep working."
available_tools = ["write_file"]

[stages.work.transitions.done]
condition = "always"

[stages.done]
mode = "autonomous"
model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
max_iterations = 3
system_prompt = "Summarise."
"""


def write_stream(path: Path, events: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for n in range(events):
            call = {"name": "write_file", "path": f"src/f{n % 50}.py"}
            out.write(json.dumps({"event": "inference", "now": float(n), "tool_calls": [call]}) + "\n")


def peak_mb(command: list[str]) -> tuple[float, int]:
    """The peak resident set of `command` (its own, from wait4) in MB, and its output's size."""
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL, cwd=ROOT)
        _, _, usage = os.wait4(process.pid, 0)
        process.returncode = 0
        size = out.tell()
    return usage.ru_maxrss / 1024, size


def run_memory_rows(events: int) -> list[Row]:
    rows = []
    with tempfile.TemporaryDirectory() as work:
        blueprint, stream = Path(work) / "long.leviath", Path(work) / "events.ndjson"
        blueprint.write_text(BLUEPRINT, encoding="utf-8")
        write_stream(stream, events)
        for output_format in ("text", "json"):
            command = [sys.executable, "-m", "compiler", "run", str(blueprint), "--events", str(stream)]
            peak, size = peak_mb([*command, "--format", output_format])
            rows.append(
                Row(
                    f"run: peak memory, {events:,} events, --format {output_format}",
                    peak,
                    "MB",
                    f"< {LIMIT_MB} MB",
                    peak < LIMIT_MB,
                    f"{peak:,.0f} MB ({size / 1e6:,.0f} MB written)",
                    {"events": events, "output_bytes": size},
                )
            )
    return rows
