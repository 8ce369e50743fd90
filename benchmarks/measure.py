"""The measurements of `run.py`, each returning a `Row` (value, target, met or not).

In-process timings use CPU time (`time.process_time`): it counts only the work this process
did, so a busy machine (other jobs, a CI neighbour) changes it far less than wall time. Each
input (a file, a run of the event stream, a batch of states) is timed on its own, repeatedly
and interleaved with its baseline, and a total is the sum of the per-input medians: a burst
of load then spoils one sample of one input, not a whole pass. Subprocess timings use wall
time, which is what a user waits for; the two commands run interleaved so they share
whatever else the machine is doing, and each side's value is its median.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import generate
import host

from compiler.config import Settings
from compiler.pipeline import validate_bytes

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "schemas" / "blueprint.schema.json"


@dataclass
class Row:
    name: str
    value: float
    unit: str
    target: str
    met: bool | None  # None: informational, no target
    shown: str
    details: dict[str, Any] = field(default_factory=dict)


def cpu(fn: Callable[[], Any]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def cpu_median(fn: Callable[[], Any], repeat: int) -> float:
    return statistics.median(cpu(fn) for _ in range(repeat))


def summed_medians(inputs: list, *functions: Callable[[Any], Any], repeat: int) -> list[float]:
    """For each function, the sum over `inputs` of the median CPU time of `function(input)`;
    the functions take turns on each input so they see the same conditions."""
    samples = [[[] for _ in inputs] for _ in functions]
    for _ in range(repeat):
        for i, item in enumerate(inputs):
            for f, function in enumerate(functions):
                samples[f][i].append(cpu(lambda: function(item)))  # noqa: B023 - called right here
    return [sum(statistics.median(times) for times in per_input) for per_input in samples]


# --- 1. corpus throughput ---------------------------------------------------------------------


def corpus_throughput(files: list[tuple[str, bytes]], repeat: int) -> Row:
    """Every file through `validate_bytes` vs `tomllib.loads` of the same bytes, interleaved."""
    # The settings `validate FILE` uses: the tool scripts beside each file are known.
    settings = {name: Settings().for_file(name) for name, _ in files}
    errors = {
        name: sum(d.severity == "error" for d in validate_bytes(name, data, settings[name]).diagnostics)
        for name, data in files
    }
    ours, theirs = summed_medians(
        files,
        lambda file: validate_bytes(file[0], file[1], settings[file[0]]),
        lambda file: tomllib.loads(file[1].decode("utf-8")),
        repeat=repeat,
    )
    ratio = ours / theirs
    per_file = ours / len(files) * 1000
    return Row(
        "corpus: validate_bytes / tomllib.loads",
        ratio,
        "x",
        "≤ 1.5×",
        ratio <= 1.5,
        f"{ratio:.2f}× ({per_file:.2f} ms per file, {len(files)} files)",
        {
            "files": len(files),
            "validate_ms_per_file": per_file,
            "tomllib_ms_per_file": theirs / len(files) * 1000,
            "files_with_errors": sorted(name for name, count in errors.items() if count),
        },
    )


# --- 2. one file, as a process -----------------------------------------------------------------


def _tool(name: str) -> str | None:
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else shutil.which(name)


def _blueprint(*args: str) -> list[str]:
    """The `blueprint` command installed beside this Python (else `python -m compiler`)."""
    tool = _tool("blueprint")
    return [tool, *args] if tool else [sys.executable, "-m", "compiler", *args]


def _cached_bytecode_env(cache: str) -> dict[str, str]:
    """Bytecode caching on, in `cache`, as an installed tool has it (this machine may set
    PYTHONDONTWRITEBYTECODE); a first, untimed run fills the cache."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache
    return env


def _interleaved(
    commands: dict[str, list[str]], env: dict[str, str], repeat: int
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Wall times of each command over `repeat` rounds, the commands taking turns, after an
    untimed round that warms the bytecode cache; and each command's exit code."""
    samples: dict[str, list[float]] = {key: [] for key in commands}
    codes = {}
    for i in range(repeat + 1):
        for key, command in commands.items():
            start = time.perf_counter()
            done = subprocess.run(command, env=env, capture_output=True)
            if i:
                samples[key].append(time.perf_counter() - start)
            codes[key] = done.returncode
    return samples, codes


def process_rows(blueprint: Path, invalid: Path, repeat: int) -> list[Row]:
    """`blueprint validate FILE` vs `check-jsonschema` on the same file, wall time, interleaved."""
    peer = _tool("check-jsonschema")
    if peer is None:
        print(
            "check-jsonschema is not installed; skipping the process rows.\n"
            "  install it with: pip install -e '.[bench]'   (or: pip install check-jsonschema)",
            file=sys.stderr,
        )
        return []
    ours = _blueprint("validate", "--quiet")
    theirs = [peer, "--schemafile", str(SCHEMA), "--default-filetype", "toml"]
    with tempfile.TemporaryDirectory() as cache:
        env = _cached_bytecode_env(cache)  # for both tools
        rows = []
        for label, path in (("a valid blueprint", blueprint), ("a blueprint with schema errors", invalid)):
            samples, codes = _interleaved({"ours": [*ours, str(path)], "theirs": [*theirs, str(path)]}, env, repeat)
            mine, peer_s = statistics.median(samples["ours"]), statistics.median(samples["theirs"])
            ratio = mine / peer_s
            valid = path is blueprint
            rows.append(
                Row(
                    f"process: blueprint validate / check-jsonschema, {label}",
                    ratio,
                    "x",
                    "≤ 0.5×" if valid else "(information)",
                    ratio <= 0.5 if valid else None,
                    f"{ratio:.2f}× ({mine * 1000:.0f} ms vs {peer_s * 1000:.0f} ms)",
                    {
                        "file": path.name,
                        "blueprint_ms": mine * 1000,
                        "check_jsonschema_ms": peer_s * 1000,
                        "exit_codes": codes,
                    },
                )
            )
    return rows


def startup_row(blueprint: Path, repeat: int) -> Row:
    """`blueprint validate FILE` vs a bare `tomllib.load` of the same file, both as processes
    with cached bytecode, interleaved: what start-up adds to reading the file."""
    ours = _blueprint("validate", str(blueprint))
    baseline = [sys.executable, "-c", "import sys, tomllib; tomllib.load(open(sys.argv[1], 'rb'))", str(blueprint)]
    with tempfile.TemporaryDirectory() as cache:
        samples, codes = _interleaved({"ours": ours, "tomllib": baseline}, _cached_bytecode_env(cache), repeat)
    mine, theirs = statistics.median(samples["ours"]), statistics.median(samples["tomllib"])
    ratio = mine / theirs
    return Row(
        "process: blueprint validate FILE / python -c tomllib.load(FILE)",
        ratio,
        "x",
        "≤ 2.5×",
        ratio <= 2.5,
        f"{ratio:.2f}× ({mine * 1000:.0f} ms vs {theirs * 1000:.0f} ms)",
        {
            "file": blueprint.name,
            "blueprint_ms": mine * 1000,
            "tomllib_ms": theirs * 1000,
            "exit_codes": codes,
            "blueprint_ms_runs": [round(t * 1000, 1) for t in samples["ours"]],
            "tomllib_ms_runs": [round(t * 1000, 1) for t in samples["tomllib"]],
        },
    )


# --- 3. scaling ---------------------------------------------------------------------------------


def scaling_rows(sizes: tuple[int, ...], repeats: dict[int, int]) -> list[Row]:
    """Library time per stage at each size; the largest file also through the CLI (median wall
    time of three runs), whose process manages the collector itself (a library leaves it alone)."""
    per_stage, seconds, wall, megabytes = {}, {}, {}, {}
    for size in sizes:
        data = generate.scaled(size).encode()
        megabytes[size] = len(data) / 1e6
        errors = [d for d in validate_bytes("scaled.leviath", data).diagnostics if d.severity == "error"]
        if errors:
            raise SystemExit(f"the generated {size}-stage blueprint has errors: {errors[0].message}")
        seconds[size] = cpu_median(lambda: validate_bytes("scaled.leviath", data), repeats[size])  # noqa: B023 - called right here
        start = time.perf_counter()
        validate_bytes("scaled.leviath", data)
        wall[size] = time.perf_counter() - start
        per_stage[size] = seconds[size] / size * 1e6
    spread = max(per_stage.values()) / min(per_stage.values())
    largest = max(sizes)
    with tempfile.TemporaryDirectory() as work:
        big = Path(work) / "scaled.leviath"
        big.write_text(generate.scaled(largest), encoding="utf-8")
        command = _blueprint("validate", "--quiet", str(big))
        # The median of three runs: one run of several seconds is easily caught by a burst of load.
        cli_runs = []
        for _ in range(3 if largest >= 1000 else 1):
            start = time.perf_counter()
            subprocess.run(command, capture_output=True)
            cli_runs.append(time.perf_counter() - start)
        cli_seconds = statistics.median(cli_runs)
    return [
        Row(
            "scaling: time per stage, largest / smallest",
            spread,
            "x",
            "≤ 2.0×",
            spread <= 2.0,
            f"{spread:.2f}× (" + ", ".join(f"{n:,}: {per_stage[n]:.0f} µs" for n in sizes) + ")",
            {"us_per_stage": per_stage},
        ),
        Row(
            f"scaling: one {largest:,}-stage file",
            seconds[largest],
            "s",
            "< 5 s",
            seconds[largest] < 5.0,
            f"{seconds[largest]:.2f} s ({megabytes[largest]:.1f} MB; blueprint validate: {cli_seconds:.2f} s wall)",
            {
                "cpu_seconds": seconds,
                "wall_seconds_one_run": wall,
                "cli_wall_seconds": cli_seconds,
                "cli_wall_seconds_runs": cli_runs,
            },
        ),
    ]


# --- 4. blueprint check ---------------------------------------------------------------------------


def check_row(files: list[Path], repeat: int) -> Row:
    """`blueprint check FILE` as a process, each file on its own: the slowest file's median
    wall time (start-up, validation and the exploration of every run)."""
    medians: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as cache:
        env = _cached_bytecode_env(cache)
        for path in files:
            runs = []
            for i in range(repeat + 1):
                start = time.perf_counter()
                done = subprocess.run(_blueprint("check", str(path)), env=env, capture_output=True)
                if i:
                    runs.append(time.perf_counter() - start)
                if done.returncode == 2:
                    raise SystemExit(f"blueprint check {path} failed: {done.stderr.decode(errors='replace')}")
            name = path.parent.name if path.name == "agent.leviath" else path.stem
            medians[name] = statistics.median(runs)
    slowest = max(medians, key=medians.__getitem__)
    worst = medians[slowest]
    return Row(
        "check: blueprint check FILE, the slowest file",
        worst,
        "s",
        "< 1 s",
        worst < 1.0,
        f"{worst:.2f} s ({slowest}; {len(files)} files, median {statistics.median(medians.values()):.2f} s)",
        {"seconds_per_file": medians},
    )


def check_scaling_rows(sizes: tuple[int, ...], repeats: dict[int, int]) -> list[Row]:
    """`check` (validation and the run analysis, `check_bytes`) per stage of `generate.scaled`
    at each size, in CPU time; the largest file also through the CLI, with its peak memory."""
    from compiler.check import check_bytes
    from compiler.config import Settings

    def checked(data: bytes) -> None:
        item = check_bytes("scaled.leviath", data, Settings())
        if item.analysis is None or not item.analysis.complete:
            raise SystemExit("the generated blueprint was not analysed completely")

    checked(generate.scaled(10).encode())  # first use: the analysis modules load, their tables fill
    per_stage = {}
    for size in sizes:
        data = generate.scaled(size).encode()
        per_stage[size] = cpu_median(lambda: checked(data), repeats[size]) / size * 1e6  # noqa: B023 - called right here
    spread = max(per_stage.values()) / min(per_stage.values())
    largest = max(sizes)
    with tempfile.TemporaryDirectory() as work:
        big = Path(work) / "scaled.leviath"
        big.write_text(generate.scaled(largest), encoding="utf-8")
        peak_kb, wall = peak_memory(_blueprint("check", str(big)))
    return [
        Row(
            "check scaling: time per stage, largest / smallest",
            spread,
            "x",
            "≤ 2.0×",
            spread <= 2.0,
            f"{spread:.2f}× (" + ", ".join(f"{n:,}: {per_stage[n]:,.0f} µs" for n in sizes) + ")",
            {"us_per_stage": per_stage},
        ),
        Row(
            f"check scaling: one {largest:,}-stage file, blueprint check",
            wall,
            "s",
            "(information)",
            None,
            f"{wall:.1f} s wall, peak {peak_kb / 1024:,.0f} MB",
            {"wall_seconds": wall, "peak_rss_kb": peak_kb},
        ),
    ]


def check_tree_row(sizes: tuple[int, int]) -> Row:
    """`blueprint check DIR` on a tree of small real blueprints (the examples `linear-pipeline`
    and `review-loop`, alternately), as a process: its peak memory at the smaller and the larger
    number of files. A file's analysis is released once it is reported, so the peak stays
    where one file puts it; kept, it grew by about 100 KB a file (2 GB at 2,000 coder-sized ones)."""
    sources = [ROOT / "blueprints" / "linear-pipeline.leviath", ROOT / "blueprints" / "review-loop.leviath"]
    peaks, walls = {}, {}
    with tempfile.TemporaryDirectory() as work:
        for count in sizes:
            tree = Path(work) / f"tree-{count}"
            for i in range(count):
                folder = tree / f"team-{i // 100:02d}"
                folder.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(sources[i % 2], folder / f"agent-{i:04d}.leviath")
            peaks[count], walls[count] = peak_memory(_blueprint("check", str(tree)))
    return memory_growth_row("check memory", sizes, peaks, walls)


def memory_growth_row(what: str, sizes: tuple[int, int], peaks: dict, walls: dict) -> Row:
    """How a command's peak memory grows from the smaller tree to the larger (≤ 1.5×): the
    peaks in KB and the wall seconds, by number of files."""
    small, large = sizes
    ratio = peaks[large] / peaks[small]
    return Row(
        f"{what}: a tree of {large:,} files / of {small:,}",
        ratio,
        "x",
        "≤ 1.5×",
        ratio <= 1.5,
        f"{ratio:.2f}× ({peaks[small] / 1024:,.0f} MB → {peaks[large] / 1024:,.0f} MB peak; "
        f"{walls[large]:.0f} s for {large:,} files)",
        {"peak_rss_kb": peaks, "wall_seconds": walls},
    )


def peak_memory(command: list[str]) -> tuple[int, float]:
    """(peak resident memory in KB, wall seconds) of `command` (a `blueprint` command), run
    in a fresh process whose only child it is, with bytecode caching on and its cache filled
    by an untimed `blueprint check` of an example first."""
    probe = (
        "import resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
        "if done.returncode == 2: sys.exit(done.stderr.decode(errors='replace'))\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter() - start)\n"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = _cached_bytecode_env(cache)
        subprocess.run(
            _blueprint("check", str(ROOT / "blueprints" / "review-loop.leviath")), env=env, capture_output=True
        )
        done = subprocess.run(
            [sys.executable, "-c", probe, *command], env=env, capture_output=True, text=True, check=True
        )
    peak, wall = done.stdout.split()
    return int(peak), float(wall)


# --- 5. the runner ------------------------------------------------------------------------------


def runner_rows(events: int, repeat: int) -> list[Row]:
    import random

    from compiler.api import compile_bytes, load_ir
    from compiler.runtime import RunState, start, step

    text = generate.realistic(random.Random(5), "runner")
    ir = load_ir(compile_bytes(text.encode(), "runner.leviath"))
    recording = host.record(ir, events)
    steps = recording.events
    runs = [(start(ir, run_start)[0], events) for run_start, events in recording.runs]
    (total,) = summed_medians(runs, lambda run: host.feed(ir, *run), repeat=repeat)
    step_us = total / steps * 1e6

    every = max(1, steps // 5000)
    sample, seen = [], 0
    for run_start, stream in recording.runs:  # keep only the sample alive: less for the GC to walk
        state, _ = start(ir, run_start)
        for event in stream:
            state, _ = step(ir, state, event)
            if seen % every == 0:
                sample.append(state)
            seen += 1
    batches = [sample[i : i + 50] for i in range(0, len(sample), 50)]
    (total,) = summed_medians(batches, lambda batch: [RunState.from_json(s.to_json()) for s in batch], repeat=repeat)
    round_trip_us = total / len(sample) * 1e6
    size = statistics.median(len(s.to_json()) for s in sample)
    return [
        Row(
            "runner: step, per event",
            step_us,
            "µs",
            "≤ 25 µs",
            step_us <= 25,
            f"{step_us:.1f} µs ({steps:,} events, {len(recording.runs)} runs)",
            {"events": steps, "runs": len(recording.runs)},
        ),
        Row(
            "runner: RunState to_json + from_json",
            round_trip_us,
            "µs",
            "≤ 100 µs",
            round_trip_us <= 100,
            f"{round_trip_us:.1f} µs ({len(sample):,} states, median {size:.0f} bytes)",
            {"states": len(sample), "median_json_bytes": size},
        ),
    ]
