"""`check` per stage and peak memory on each stage-graph shape of `generate.shaped`.

Each (shape, size) is measured in a fresh process: the CPU time of `check_bytes` (the median
of the repeats, after a small warm-up file so the analysis modules are loaded) and the
process's peak resident memory, so one large file's heap never weighs on the next one's
numbers. A shape whose time per stage grows with the file's size shows as a spread above 2×.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import generate
from measure import Row

HERE = Path(__file__).resolve().parent

PROBE = """
import resource, statistics, sys, time
import generate
from compiler.check import check_bytes
from compiler.config import Settings
shape, size, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
check_bytes("warm.leviath", generate.shaped(shape, generate.SHAPE_UNIT[shape] * 2).encode(), Settings())
data = generate.shaped(shape, size).encode()
times = []
for _ in range(repeat):
    start = time.process_time()
    item = check_bytes("shaped.leviath", data, Settings())
    times.append(time.process_time() - start)
    if item.analysis is None or not item.analysis.complete:
        raise SystemExit(f"the {shape} blueprint of {size} stages was not analysed completely")
    del item
print(statistics.median(times), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def measure_shape(shape: str, size: int, repeat: int) -> tuple[float, int]:
    """(CPU µs per stage, peak resident KB) of `check` on one `shaped(shape, size)` file."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), str(HERE.parent)]))
    done = subprocess.run(
        [sys.executable, "-c", PROBE, shape, str(size), str(repeat)], env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"check on the {shape} shape ({size} stages) failed: {done.stderr.strip()}")
    seconds, peak_kb = done.stdout.split()
    return float(seconds) / size * 1e6, int(peak_kb)


def check_shape_rows(sizes: tuple[int, ...], repeats: dict[int, int]) -> list[Row]:
    """One row per shape: time per stage, largest / smallest (target ≤ 2×), with the peak
    memory at each size alongside."""
    rows = []
    for shape in generate.SHAPES:
        per_stage: dict[int, float] = {}
        peak_kb: dict[int, int] = {}
        for size in sizes:
            per_stage[size], peak_kb[size] = measure_shape(shape, size, repeats[size])
        spread = max(per_stage.values()) / min(per_stage.values())
        times = ", ".join(f"{n:,}: {per_stage[n]:,.0f} µs" for n in sizes)
        peaks = " / ".join(f"{peak_kb[n] / 1024:,.0f}" for n in sizes)
        rows.append(
            Row(
                f"check shapes: {shape}, time per stage, largest / smallest",
                spread,
                "x",
                "≤ 2.0×",
                spread <= 2.0,
                f"{spread:.2f}× ({times}; peak {peaks} MB)",
                {"us_per_stage": per_stage, "peak_rss_kb": peak_kb},
            )
        )
    return rows
