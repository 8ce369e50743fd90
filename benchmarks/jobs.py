"""`validate` and `check` over a tree: one process (`--jobs 1`) against every core (the default).

A tree of seeded realistic blueprints is checked by both commands as processes, the two
settings taking turns (`measure._interleaved`), wall time, medians; the value is one job's
time over every core's. Both runs' outputs are compared too: they must be the same bytes.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
from pathlib import Path

import generate
from measure import Row, _blueprint, _cached_bytecode_env, _interleaved


def jobs_rows(files: int, repeat: int) -> list[Row]:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    rows = []
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory() as cache:
        tree = Path(work) / "tree"
        tree.mkdir()
        for name, data in generate.corpus(files):
            (tree / name).write_bytes(data)
        env = _cached_bytecode_env(cache)
        for command in ("validate", "check"):
            runs = {jobs: _blueprint(command, "--jobs", jobs, str(tree)) for jobs in ("1", "0")}
            outputs = {jobs: subprocess.run(line, env=env, capture_output=True).stdout for jobs, line in runs.items()}
            samples, _codes = _interleaved(runs, env, repeat)
            one, every = statistics.median(samples["1"]), statistics.median(samples["0"])
            speedup = one / every
            same = outputs["1"] == outputs["0"]
            rows.append(
                Row(
                    f"jobs: blueprint {command} DIR, one process / every core",
                    speedup,
                    "x",
                    "≥ 1.6× on 2 cores",
                    (speedup >= 1.6 and same) if cores >= 2 else None,
                    f"{speedup:.2f}× ({files:,} files: {one:.2f} s vs {every:.2f} s on {cores} cores; "
                    f"output {'identical' if same else 'DIFFERENT'})",
                    {"seconds_one_job": samples["1"], "seconds_every_core": samples["0"], "same_output": same},
                )
            )
    return rows


def validate_tree_rows(sizes: tuple[int, int]) -> list[Row]:
    """`blueprint validate --jobs 1 DIR` (one process, so its own peak) on trees of the smaller
    and the larger number of seeded realistic blueprints, as text and as JSON: the larger
    tree's peak resident memory over the smaller's. Each file's result is reduced to what the
    report shows as soon as it is checked, so the peak should hardly grow with the files."""
    from measure import memory_growth_row, peak_memory

    rows = []
    with tempfile.TemporaryDirectory() as work:
        trees = {}
        for count in sizes:
            trees[count] = Path(work) / f"tree-{count}"
            trees[count].mkdir()
            for name, data in generate.corpus(count):
                (trees[count] / name).write_bytes(data)
        for output in ("text", "json"):
            peaks, walls = {}, {}
            for count in sizes:
                line = _blueprint("validate", "--jobs", "1", "--format", output, str(trees[count]))
                peaks[count], walls[count] = peak_memory(line)
            rows.append(memory_growth_row(f"validate memory, {output}", sizes, peaks, walls))
    return rows
