"""Before and after in one process: `python benchmarks/ab.py REV` times the `compiler` package of
git revision REV against the working tree's, in turn, on the paths a change to the analysis or
the drawings (or validation) can slow down.

Both packages are loaded into this process; before each call the modules of the version being
timed are put in `sys.modules`, so the imports made inside functions find their own version.
Each input is timed in CPU time, the two versions alternating (the order flips every round),
and each side's value is its median. The script also checks that both versions find the same
run graph, the same findings and the same SVG bytes, and says so on every line.

    python benchmarks/ab.py main                       # the run graph, check per stage, SVG
    python benchmarks/ab.py main --sizes 100,1000 --rounds 9 --only runs
    python benchmarks/ab.py v1 --after v2               # two revisions
    python benchmarks/ab.py main --only validate --rounds 9   # validate_bytes over the corpus

Run it from the root of a checkout, bytecode compiled (unset PYTHONDONTWRITEBYTECODE) and
memory-capped: the 10,000-stage file holds both versions' analyses at once (about 0.7 GB).
On a shared machine two loads of the same code can differ by several per cent: compare
`ab.py HEAD --after HEAD` (the same code twice) to see the noise of the moment.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from io import BytesIO
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from corpus import locate  # noqa: E402

CORPUS = locate()
PARTS = ("runs", "check", "svg", "validate")


class Version:
    """One `compiler` package, loaded from `root`, and the entry points the timings call."""

    #: The version whose modules are in `sys.modules`.
    active: Version | None = None

    def __init__(self, label: str, root: Path) -> None:
        self.label = label
        self.modules = _load(root)
        Version.active = self
        module = self.modules.__getitem__
        self.validate_bytes = module("compiler.pipeline").validate_bytes
        self.settings = module("compiler.config").Settings()
        self.explore_runs = module("compiler.analysis.runs").explore_runs
        self.stage_graph = module("compiler.graph").StageGraph.from_blueprint
        self.drawing = module("compiler.render.diagram").drawing
        self.to_svg = module("compiler.render.diagram_svg").to_svg
        library = self.modules.get("compiler.check")
        self.check_bytes = library.check_bytes if library else module("compiler.cli.check_cmd").check_bytes

    def use(self) -> None:
        """Put this version's modules in `sys.modules`, keeping the ones the version in use
        imported on first use (a rule family loaded by name, say) for that version."""
        ours = [name for name in sys.modules if name == "compiler" or name.startswith("compiler.")]
        if Version.active is not None:
            Version.active.modules.update((name, sys.modules[name]) for name in ours)
        for name in ours:
            del sys.modules[name]
        sys.modules.update(self.modules)
        Version.active = self

    def blueprint(self, data: bytes) -> Any:
        self.use()
        return self.validate_bytes("ab.leviath", data, self.settings).blueprint

    def check(self, data: bytes) -> Any:
        self.use()
        return self.check_bytes("ab.leviath", data, self.settings)

    def findings(self, data: bytes) -> list[dict]:
        """What `validate_bytes` reports, comparable between versions."""
        self.use()
        return [d.to_dict() for d in self.validate_bytes("ab.leviath", data, self.settings).diagnostics]


def _load(root: Path) -> dict[str, ModuleType]:
    for name in [name for name in sys.modules if name == "compiler" or name.startswith("compiler.")]:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    try:
        for name in (
            "compiler.pipeline",
            "compiler.config",
            "compiler.analysis.core",
            "compiler.analysis.runs",
            "compiler.analysis.rules",
            "compiler.graph",
            "compiler.render.diagram",
            "compiler.render.diagram_svg",
            "compiler.cli.check_cmd",
            "compiler.check",
        ):
            try:
                importlib.import_module(name)
            except ImportError:  # a module one of the versions does not have
                pass
        loaded = sys.modules["compiler"].__file__ or ""
        if not loaded.startswith(str(root)):
            raise SystemExit(f"compiler was imported from {loaded}, not from {root}")
        return {name: m for name, m in sys.modules.items() if name == "compiler" or name.startswith("compiler.")}
    finally:
        sys.path.remove(str(root))


def _checkout(rev: str, directory: Path) -> Path:
    """The package (and its schemas) of git revision `rev`, written under `directory`."""
    archive = subprocess.run(["git", "archive", rev, "compiler", "schemas"], cwd=ROOT, capture_output=True, check=True)
    directory.mkdir(parents=True)
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and later
            tar.extractall(directory, filter="data")
        else:
            tar.extractall(directory)  # our own repository's archive
    return directory


def timed(versions: list[Version], calls: Sequence[Callable[[], Any]], rounds: int) -> list[float]:
    """Per version, the median CPU time of its call, the versions alternating."""
    samples: list[list[float]] = [[] for _ in versions]
    for round_number in range(rounds):
        order = list(enumerate(zip(versions, calls)))
        for i, (version, call) in order if round_number % 2 == 0 else order[::-1]:
            version.use()
            gc.collect()
            start = time.process_time()
            call()
            samples[i].append(time.process_time() - start)
    return [statistics.median(times) for times in samples]


def twenty(function: Callable[[Any], Any], argument: Any) -> Callable[[], None]:
    """`function(argument)` twenty times: one call of a small drawing is too short to time."""

    def call() -> None:
        for _ in range(20):
            function(argument)

    return call


def run_graph(graph: Any) -> str:
    """Everything the run graph holds, as text both versions can be compared by."""
    visits = {
        key: (
            [exit.key for exit in result.exits],
            [exit.max_calls for exit in result.exits],
            result.max_calls,
            result.endless,
            [(node.key, node.parent, node.move, node.pad_limit) for node in result.nodes],
        )
        for key, result in graph.visits.items()
    }
    return repr(
        (
            [tuple(n) for n in graph.nodes],
            [p and tuple(p) for p in graph.parents],
            graph.visit_keys,
            graph.out,
            graph.successors,
            graph.masks,
            graph.held,
            graph.most_visits,
            graph.truncated,
            visits,
        )
    )


def ratio_line(label: str, times: list[float], unit: float, suffix: str, same: bool) -> str:
    before, after = times
    return (
        f"{label:<40} {before * unit:10.1f} → {after * unit:10.1f} {suffix:<3} ({after / before:.3f}×)  "
        f"{'same' if same else 'DIFFERENT'}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rev", help="the git revision to compare the working tree with")
    parser.add_argument("--after", metavar="REV", help="compare with this revision instead of the working tree")
    parser.add_argument("--sizes", default="100,1000,10000", help="generated blueprints' stage counts")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", choices=PARTS, action="append", help="run only these parts (repeatable)")
    args = parser.parse_args(argv)
    parts = args.only or PARTS
    sizes = [int(size) for size in args.sizes.split(",")]
    files = [
        (path.parent.name if path.name == "agent.leviath" else path.stem, path.read_bytes())
        for path in list(CORPUS.files) + sorted((ROOT / "blueprints").glob("*.leviath"))
    ]
    scaled = [(f"{size:,} stages", generate.scaled(size).encode()) for size in sizes]
    same_everywhere = True
    with tempfile.TemporaryDirectory() as work:
        before = _checkout(args.rev, Path(work) / "before")
        after = _checkout(args.after, Path(work) / "after") if args.after else ROOT
        versions = [Version(args.rev, before), Version(args.after or "working tree", after)]
        print(
            f"before = {args.rev}, after = {args.after or 'the working tree'}; "
            f"CPU time, median of {args.rounds} alternating rounds; corpus: {CORPUS.describe()}"
        )

        if "runs" in parts:
            for name, data in files + scaled:
                blueprints = [version.blueprint(data) for version in versions]
                graphs = []
                for version, blueprint in zip(versions, blueprints):
                    version.use()
                    graphs.append(run_graph(version.explore_runs(blueprint)))
                same = graphs[0] == graphs[1]
                del graphs
                calls = [partial(v.explore_runs, blueprint) for v, blueprint in zip(versions, blueprints)]
                times = timed(versions, calls, args.rounds)
                print(ratio_line(f"explore_runs {name}", times, 1e3, "ms", same), flush=True)
                same_everywhere &= same

        if "check" in parts:
            for (name, data), size in zip(scaled, sizes):
                outcomes = [version.check(data) for version in versions]
                same = [d.to_dict() for d in outcomes[0].result.diagnostics] == [
                    d.to_dict() for d in outcomes[1].result.diagnostics
                ]
                del outcomes
                times = timed(versions, [partial(v.check, data) for v in versions], args.rounds)
                print(
                    ratio_line(f"check_bytes per stage, {name}", [t / size for t in times], 1e6, "µs", same), flush=True
                )
                same_everywhere &= same

        if "svg" in parts:
            for name, data in files + scaled[:2]:
                drawings = []
                for version in versions:
                    blueprint = version.blueprint(data)
                    drawings.append(version.drawing(version.stage_graph(blueprint), blueprint.name))
                pictures = []
                for version, drawing in zip(versions, drawings):
                    version.use()
                    pictures.append(version.to_svg(drawing))
                same = pictures[0] == pictures[1]
                times = timed(versions, [twenty(v.to_svg, d) for v, d in zip(versions, drawings)], args.rounds)
                print(ratio_line(f"to_svg {name} (×20)", times, 1e3, "ms", same), flush=True)
                same_everywhere &= same

        if "validate" in parts:
            # The corpus row of run.py: the real blueprints and the seeded generated ones,
            # the total being the sum of per-file medians.
            corpus = files + generate.corpus(40)
            totals = [0.0, 0.0]
            same = True
            for _name, data in corpus:
                same &= versions[0].findings(data) == versions[1].findings(data)
                calls = [twenty(partial(v.validate_bytes, "ab.leviath", settings=v.settings), data) for v in versions]
                totals = [total + t for total, t in zip(totals, timed(versions, calls, args.rounds))]
            print(ratio_line(f"validate_bytes, {len(corpus)} files (×20)", totals, 1e3, "ms", same), flush=True)
            same_everywhere &= same
    return 0 if same_everywhere else 1


if __name__ == "__main__":
    sys.exit(main())
