"""Benchmarks: `python benchmarks/run.py` prints a table and writes benchmarks/results/latest.json.

One run measures, on the same inputs:

1. corpus throughput: `validate_bytes` (everything `validate` does) vs `tomllib.loads` over the
   real blueprints (`corpus.py` finds them: `BLUEPRINT_CORPUS`, or a `shared/corpus` beside
   this checkout or a folder above it) plus a seeded generated corpus;
2. one file as a process: `blueprint validate FILE` vs `python -c "tomllib.load(FILE)"`
   (start-up), and vs `check-jsonschema` with our schema (the `bench` extra installs it;
   without it those rows are skipped with a hint);
3. scaling: generated blueprints of 100 / 1,000 / 10,000 stages;
4. `blueprint check FILE` as a process on every real blueprint and example: the slowest file;
   `check` per stage at 100 / 1,000 / 10,000 stages; `blueprint check DIR` peak memory on a
   tree of 200 and of 2,000 files; `check` per stage and peak memory on each stage-graph shape
   (chain, fan-out, loops, nested loops, the generated mix) at 100 / 1,000 / 10,000 stages; `check` on the slowest real
   blueprint with ten declared properties against without them (`properties.py`);
5. the runner: `step` per event over a long generated event stream, and the RunState JSON
   round trip;
6. the language server: `didChange` → `publishDiagnostics` latency on the coder blueprint, and
   the server's memory over many edits (`lsp.py`);
7. the hosts: the reference host's overhead per step beyond `step` (MemoryStore, SqliteStore),
   and on a Temporal server of its own the time per stage inference and runs per second with
   several runs at once (`hosting.py`; skipped without temporalio or the `temporal` binary);
8. `blueprint run` on 100,000 events: its peak memory per output format (`streams.py`).

`--quick` runs tiny sizes (seconds, for a smoke test) and writes only where `--out` says.
docs/performance.md explains every row. Run from the root of a checkout.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import generate  # noqa: E402
import jobs  # noqa: E402
import measure  # noqa: E402
import shapes  # noqa: E402
from corpus import locate  # noqa: E402

CORPUS = locate()
PACKAGES = ("agent-blueprint-compiler", "tomlkit", "networkx", "jsonschema", "click", "jinja2", "check-jsonschema")
#: Sizes and repetitions: (full run, --quick).
PLAN = {
    "generated_files": (40, 4),
    "corpus_repeat": (15, 2),
    "process_repeat": (21, 2),
    "scaling_sizes": ((100, 1000, 10000), (10, 20, 40)),
    "scaling_repeat": ({100: 15, 1000: 5, 10000: 3}, {10: 2, 20: 2, 40: 2}),
    "check_repeat": (5, 1),
    "properties_repeat": (9, 1),
    "check_scaling_sizes": ((100, 1000, 10000), (10, 20, 40)),
    "check_scaling_repeat": ({100: 9, 1000: 3, 10000: 1}, {10: 1, 20: 1, 40: 1}),
    "check_shape_sizes": ((100, 1000, 10000), (20, 40, 80)),
    "check_shape_repeat": ({100: 5, 1000: 3, 10000: 1}, {20: 1, 40: 1, 80: 1}),
    "check_tree_files": ((200, 2000), (10, 40)),
    "jobs_files": (240, 8),
    "jobs_repeat": (3, 1),
    "validate_tree_files": ((200, 2000), (10, 40)),
    "runner_events": (20000, 400),
    "runner_repeat": (9, 2),
    "lsp_edits": (200, 10),
    "lsp_memory_edits": (2000, 20),
    "host_writes": (100, 10),
    "host_repeat": (7, 1),
    "temporal_inferences": (20, 3),
    "temporal_concurrent": (8, 2),
    "temporal_repeat": (3, 1),
    "run_memory_events": (100000, 2000),
}


SECTIONS = (
    "corpus",
    "process",
    "scaling",
    "check",
    "check-properties",
    "check-scaling",
    "check-shapes",
    "check-tree",
    "jobs",
    "validate-tree",
    "runner",
    "lsp",
    "host",
    "temporal",
    "run-memory",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, a smoke test of the script")
    parser.add_argument("--out", type=Path, help="where to write the JSON (default: results/latest.json)")
    parser.add_argument("--section", choices=SECTIONS, help=argparse.SUPPRESS)  # one section, as JSON
    parser.add_argument(
        "--markdown", type=Path, metavar="JSON", help="print the table of a written report as Markdown (no run)"
    )
    args = parser.parse_args(argv)
    if args.markdown:
        print(markdown_table(json.loads(args.markdown.read_text(encoding="utf-8"))))
        return 0
    pick = 1 if args.quick else 0
    plan = {key: value[pick] for key, value in PLAN.items()}
    if args.section:
        print(json.dumps([asdict(row) for row in run_section(args.section, plan)]))
        return 0
    out = args.out or (None if args.quick else HERE / "results" / "latest.json")

    header = machine_header(args.quick)
    print_header(header)
    rows = []
    for section in SECTIONS:
        # Each section in a fresh process: what one leaves on the heap (the 10,000-stage file
        # is hundreds of megabytes of objects) must not slow the next one down.
        command = [sys.executable, __file__, "--section", section] + (["--quick"] if args.quick else [])
        done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=True)
        rows.extend(measure.Row(**row) for row in json.loads(done.stdout))
    print_table(rows)

    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        document = {"header": header, "rows": [asdict(row) for row in rows]}
        out.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"\nwritten: {out}")
    return 0


def markdown_table(document: dict) -> str:
    """The table of docs/performance.md, from a report `run.py` wrote."""
    header = document["header"]
    load = ", ".join(f"{value:.2f}" for value in header["load_average"] or [])
    versions = ", ".join(f"{name} {version}" for name, version in header["packages"].items() if version)
    lines = [
        f"Run {header['date']} at commit `{header['commit']}`, {header['platform']}, {header['cpus']} CPUs "
        f"(load average {load}), {header['implementation']} {header['python']}; {versions}.",
        "",
        f"Corpus: {header.get('corpus', 'not recorded')}.",
        "",
        "| benchmark | measured | target | status |",
        "|---|---|---|---|",
    ]
    status = {True: "met", False: "NOT MET", None: "—"}
    for row in document["rows"]:
        lines.append(f"| {row['name']} | {row['shown']} | {row['target']} | {status[row['met']]} |")
    return "\n".join(lines)


def run_section(section: str, plan: dict) -> list:
    if section == "corpus":
        return [measure.corpus_throughput(corpus_files(plan["generated_files"]), plan["corpus_repeat"])]
    if section == "process":
        with tempfile.TemporaryDirectory() as work:
            valid, invalid = process_inputs(Path(work))
            startup = measure.startup_row(valid, plan["process_repeat"])
            return [startup, *measure.process_rows(valid, invalid, plan["process_repeat"])]
    if section == "scaling":
        return measure.scaling_rows(plan["scaling_sizes"], plan["scaling_repeat"])
    if section == "check":
        return [measure.check_row(check_inputs(quick=plan["check_repeat"] == 1), plan["check_repeat"])]
    if section == "check-properties":
        import properties

        files = check_inputs(quick=plan["properties_repeat"] == 1)
        return [properties.check_properties_row(files, plan["properties_repeat"])]
    if section == "check-scaling":
        return measure.check_scaling_rows(plan["check_scaling_sizes"], plan["check_scaling_repeat"])
    if section == "check-shapes":
        return shapes.check_shape_rows(plan["check_shape_sizes"], plan["check_shape_repeat"])
    if section == "jobs":
        return jobs.jobs_rows(plan["jobs_files"], plan["jobs_repeat"])
    if section == "validate-tree":
        return jobs.validate_tree_rows(plan["validate_tree_files"])
    if section == "check-tree":
        return [measure.check_tree_row(plan["check_tree_files"])]
    if section == "lsp":
        import lsp

        return lsp.lsp_rows(plan["lsp_edits"], plan["lsp_memory_edits"])
    if section == "host":
        import hosting

        return hosting.host_rows(plan["host_writes"], plan["host_repeat"])
    if section == "temporal":
        import hosting

        return hosting.temporal_rows(plan["temporal_inferences"], plan["temporal_concurrent"], plan["temporal_repeat"])
    if section == "run-memory":
        import streams

        return streams.run_memory_rows(plan["run_memory_events"])
    return measure.runner_rows(plan["runner_events"], plan["runner_repeat"])


def corpus_files(generated: int) -> list[tuple[str, bytes]]:
    files = [(str(path), path.read_bytes()) for path in CORPUS.files]
    return files + generate.corpus(generated)


def check_inputs(*, quick: bool) -> list[Path]:
    """The real blueprints (all of them: `check` is judged per file) and the examples; the
    examples only with --quick."""
    examples = sorted((HERE.parent / "blueprints").glob("*.leviath"))
    if quick or not CORPUS.real:
        return examples
    return list(CORPUS.files) + examples


def process_inputs(work: Path) -> tuple[Path, Path]:
    """The largest real blueprint (else a generated one), and a copy with schema errors."""
    real = sorted(CORPUS.files, key=lambda p: p.stat().st_size)
    text = real[-1].read_text(encoding="utf-8") if real else generate.corpus(1)[0][1].decode()
    valid = work / "agent.leviath"
    valid.write_text(text, encoding="utf-8")
    invalid = work / "broken.leviath"
    invalid.write_text(
        text.replace("max_iterations = ", "max_iteration = ", 1) + '\n[sandbox]\nkind = "vm"\n', encoding="utf-8"
    )
    return valid, invalid


def machine_header(quick: bool) -> dict:
    from importlib import metadata

    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = None
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "quick": quick,
        "commit": commit,
        "cpus": os.cpu_count(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "packages": versions,
        "shared_corpus": CORPUS.real,
        "corpus": CORPUS.describe(),
    }


def print_header(header: dict) -> None:
    load = ", ".join(f"{x:.2f}" for x in header["load_average"] or [])
    print(f"{header['date']}  commit {header['commit'] or '?'}{'  (quick)' if header['quick'] else ''}")
    print(f"{header['platform']}, {header['cpus']} CPUs (load {load}), {header['implementation']} {header['python']}")
    print("  ".join(f"{name} {version or '-'}" for name, version in header["packages"].items()))
    print(f"corpus: {header.get('corpus', 'unknown')}")
    print()


def print_table(rows: list) -> None:
    width = max(len(row.name) for row in rows)
    shown = max(len(row.shown) for row in rows)
    print(f"{'benchmark':<{width}}  {'measured':<{shown}}  {'target':<13}  status")
    for row in rows:
        status = "-" if row.met is None else ("met" if row.met else "NOT MET")
        print(f"{row.name:<{width}}  {row.shown:<{shown}}  {row.target:<13}  {status}")


if __name__ == "__main__":
    sys.exit(main())
