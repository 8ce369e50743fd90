"""`check` stays bounded on hostile numbers: mutated real blueprints under a time and memory ceiling.

Real blueprints (the examples, and the corpus when present) get huge integers, up to
2**63 - 1, in every numeric key they have and in every numeric key the run analysis reads
that they leave out (`max_iterations`, `max_revisits`, a nudge `max`, stuck thresholds, gate
and fan-out `max_attempts`). Each mutated file goes through `validate_bytes` and
`check_bytes` (the library under `blueprint check`) and both of its reports, in a forked
child with an address-space ceiling and a CPU-time ceiling. Whatever the numbers:

- nothing escapes (no exception, no `internal-error` finding) and the child stays under both
  ceilings;
- every ceiling the analysis reports is an exact int, never a float;
- a blueprint analysed completely stays complete when only its per-visit thresholds (all but
  `max_revisits`) are huge: no threshold is counted up to, however large.

The ceilings are generous for a slow, shared CI machine (the worst input takes about a second
of CPU here) and far below what the old failures cost (a 16 GB tuple of tool calls, a visit
enumerated to its 20,000-state limit). Bounded: the examples are drawn deterministically.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import resource
import signal
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import CORPUS, ROOT

SOURCES = sorted((ROOT / "blueprints").glob("*.leviath")) + sorted(CORPUS.glob("*/agent.leviath"))
DOCUMENTS: list[dict[str, Any]] = [tomllib.loads(path.read_text(encoding="utf-8")) for path in SOURCES]

#: Per input: CPU seconds, and address space beyond what the test process already maps.
CPU_SECONDS = 10
MEMORY_BYTES = 1 << 30
#: The state limit the mutated files run with: above the largest real blueprint (21,448 run
#: states), so a huge `max_revisits` stops here rather than at the default 200,000.
MAX_STATES = 50_000
HUGE = st.sampled_from([2**63 - 1, 2**62 + 1, 2**32 + 1, 2**31, 2**31 - 1, 10**9 + 7]) | st.integers(2**20, 2**63 - 1)
STUCK_KEYS = ("stuck_after_iterations", "stuck_after_minutes", "stuck_after_same_file_edits", "stuck_after_tool_calls")

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or not Path("/proc/self/statm").exists(), reason="needs fork and /proc (Linux)"
)


# --- where the numbers go ---------------------------------------------------------------------------


def numeric_paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to an integer (not a boolean) below `node`."""
    out: list[tuple] = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        if isinstance(value, int) and not isinstance(value, bool):
            out.append(prefix + (key,))
        elif isinstance(value, (dict, list)):
            out.extend(numeric_paths(value, prefix + (key,)))
    return out


def analysis_paths(document: dict) -> list[tuple]:
    """The numeric keys the run analysis reads, whether the blueprint sets them or not."""
    out: list[tuple] = [("agent", "nudge", "max")]
    for name, stage in (document.get("stages") or {}).items():
        if not isinstance(stage, dict):
            continue
        base = ("stages", name)
        out += [base + ("max_iterations",), base + ("max_revisits",), base + ("nudge", "max")]
        if stage.get("mode") == "fan_out":
            out.append(base + ("max_attempts",))
        transitions = stage.get("transitions")
        for target, edge in transitions.items() if isinstance(transitions, dict) else ():
            if not isinstance(edge, dict):
                continue
            where = base + ("transitions", target)
            if edge.get("condition") == "stuck":
                out += [where + (key,) for key in STUCK_KEYS]
            if isinstance(edge.get("gate"), dict):
                out.append(where + ("gate", "max_attempts"))
    return out


def candidates(index: int) -> list[tuple]:
    document = DOCUMENTS[index]
    return sorted(set(numeric_paths(document)) | set(analysis_paths(document)), key=repr)


def mutated(index: int, changes: list[tuple[tuple, int]]) -> bytes:
    document = copy.deepcopy(DOCUMENTS[index])
    for path, value in changes:
        node = document
        for key in path[:-1]:
            child = node[key] if isinstance(node, list) else node.setdefault(key, {})
            if not isinstance(child, (dict, list)):
                break
            node = child
        else:
            node[path[-1]] = value
    return tomlkit.dumps(document).encode("utf-8")


# --- one input in a child with ceilings -----------------------------------------------------------------


def in_child(function: Callable[[], Any]) -> Any:
    """`function()` in a forked child limited to CPU_SECONDS of CPU and MEMORY_BYTES more
    address space; its result, or an "over a ceiling" failure."""
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(reading)
        try:
            mapped = int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            resource.setrlimit(resource.RLIMIT_AS, (mapped + MEMORY_BYTES, mapped + MEMORY_BYTES))
            resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))
            payload = ("ok", function())
        except BaseException as exc:  # reported to the parent, which fails the test
            payload = ("raised", f"{type(exc).__name__}: {exc}"[:500])
        with os.fdopen(writing, "wb") as out:
            pickle.dump(payload, out)
        os._exit(0)
    os.close(writing)
    deadline = time.monotonic() + CPU_SECONDS * 12  # a loaded machine: wall time is no ceiling
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(reading)
            pytest.fail(f"no answer within {CPU_SECONDS * 12} s of wall time")
        time.sleep(0.01)
    with os.fdopen(reading, "rb") as source:
        data = source.read()
    if os.WIFSIGNALED(status):
        pytest.fail(f"the check went over its CPU ceiling of {CPU_SECONDS} s (signal {os.WTERMSIG(status)})")
    kind, value = pickle.loads(data)
    assert kind == "ok", f"the check raised (memory ceiling {MEMORY_BYTES >> 20} MB): {value}"
    return value


def checked(data: bytes) -> dict[str, Any]:
    """Everything `blueprint check` does with `data` at library level, summarised."""
    from compiler.check import check_bytes
    from compiler.config import Settings
    from compiler.pipeline import validate_bytes
    from compiler.render import ReportOptions
    from compiler.render.check_report import json_document, json_entry, text_report

    start = time.process_time()
    validated = validate_bytes("fuzz.leviath", data)
    item = check_bytes("fuzz.leviath", data, Settings(), max_states=MAX_STATES)
    text_report([item], ReportOptions())
    report = json.loads(json_document([json_entry(item, None)], item.result.counts))
    analysis = item.analysis
    ceilings = analysis.ceilings if analysis is not None else None
    numbers = (
        []
        if ceilings is None
        else [ceilings.visits, ceilings.inferences]
        + [value for stage in ceilings.stages for value in (stage.visits, stage.per_visit, stage.inferences)]
    )
    return {
        "internal": [
            d.message for d in (*validated.diagnostics, *item.result.diagnostics) if d.code == "internal-error"
        ],
        "analysed": analysis is not None,
        "complete": analysis is not None and analysis.complete,
        "numbers": [type(n).__name__ for n in numbers if n is not None],
        "reported": report["files"][0]["analysis"] is not None,
        "cpu": time.process_time() - start,
    }


def assert_bounded(outcome: dict[str, Any]) -> None:
    assert outcome["internal"] == []
    assert set(outcome["numbers"]) <= {"int"}
    assert outcome["reported"] == outcome["analysed"]


_ORIGINAL: dict[int, dict[str, Any]] = {}


def original(index: int) -> dict[str, Any]:
    if index not in _ORIGINAL:
        _ORIGINAL[index] = in_child(lambda: checked(mutated(index, [])))
    return _ORIGINAL[index]


def is_threshold(path: tuple) -> bool:
    return path[-1] != "max_revisits"


# --- the tests ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "index", range(len(SOURCES)), ids=[p.parent.name if p.name == "agent.leviath" else p.stem for p in SOURCES]
)
def test_every_threshold_at_2_63_leaves_check_complete_and_within_its_ceilings(index):
    changes = [(path, 2**63 - 1) for path in candidates(index) if is_threshold(path)]
    outcome = in_child(lambda: checked(mutated(index, changes)))
    assert_bounded(outcome)
    if original(index)["complete"] and outcome["analysed"]:
        assert outcome["complete"], "a huge threshold made the analysis stop at a limit"


@pytest.mark.parametrize(
    "index", range(len(SOURCES)), ids=[p.parent.name if p.name == "agent.leviath" else p.stem for p in SOURCES]
)
def test_every_number_at_2_63_leaves_check_within_its_ceilings(index):
    changes = [(path, 2**63 - 1) for path in candidates(index)]
    assert_bounded(in_child(lambda: checked(mutated(index, changes))))


@st.composite
def mutations(draw) -> tuple[int, list[tuple[tuple, int]]]:
    index = draw(st.integers(0, len(SOURCES) - 1))
    paths = candidates(index)
    chosen = draw(st.lists(st.sampled_from(paths), min_size=1, max_size=6, unique=True))
    return index, [(path, draw(HUGE)) for path in chosen]


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mutations())
def test_huge_numbers_anywhere_leave_check_within_its_ceilings(case):
    index, changes = case
    outcome = in_child(lambda: checked(mutated(index, changes)))
    assert_bounded(outcome)
    if all(is_threshold(path) for path, _ in changes) and original(index)["complete"] and outcome["analysed"]:
        assert outcome["complete"], f"{SOURCES[index].name}: {changes} made the analysis stop at a limit"
