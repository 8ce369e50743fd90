"""The cost of declared properties: `check` on the slowest real blueprint with ten `[[property]]`
tables (every form) against `check` without them, as a ratio measured in one run.

Both sides are `check_bytes` in this process (validation and a fresh exploration of every run:
`check_bytes` forgets its analysis after each file), timed in CPU, interleaved round by round
so that a noisy neighbour slows both alike. The properties are answered over the exploration
`check` makes anyway, so the ratio is what the searches of the run graph add.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from measure import Row


def ten_properties(path: Path) -> str:
    """Ten properties over the blueprint's own stages and tools, two or three of each form."""
    from compiler import load

    ir = load(path)
    stages = list(ir.stage_names)
    tools = list(dict.fromkeys(tool for stage in ir.stages for tool in stage.available_tools)) or ["read_file"]
    first, last = stages[0], stages[-1]
    middle = stages[len(stages) // 2]

    def table(name: str, body: str) -> str:
        return f'[[property]]\nname = "{name}"\n{body}\n\n'

    return "".join(
        [
            table("p1", f'precedes = {{ first = "{first}", then = "{last}" }}'),
            table("p2", f'precedes = {{ first = "{middle}", then = "{last}" }}'),
            table("p3", f'precedes = {{ first = "{last}", then = "{middle}" }}'),
            table("p4", f'never = {{ tool = "{tools[0]}", before = "{middle}" }}'),
            table("p5", f'never = {{ tool = "{tools[-1]}", before = "{last}" }}'),
            table("p6", f'reaches = "{last}"'),
            table("p7", f'reaches = "{middle}"'),
            table("p8", "at_most = { inferences = 100 }"),
            table("p9", f"at_most = {{ visits = {{ {first} = 1, {last} = 1 }} }}"),
            table("p10", f"at_most = {{ inferences = 1000000, visits = {{ {middle} = 3 }} }}"),
        ]
    )


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def slowest(files: list[Path]) -> Path:
    """The file `check_bytes` takes longest on (one timing each, after a warm-up)."""
    from compiler.check import check_bytes
    from compiler.config import Settings

    for path in files[:1]:
        check_bytes(str(path), path.read_bytes(), Settings())
    return max(files, key=lambda path: _cpu(lambda: check_bytes(str(path), path.read_bytes(), Settings())))


def check_properties_row(files: list[Path], repeat: int) -> Row:
    from compiler.check import check_bytes
    from compiler.config import Settings

    path = slowest(files)
    data = path.read_bytes()
    properties = ("agent.scenarios.toml", ten_properties(path).encode())

    def plain() -> None:
        check_bytes(str(path), data, Settings())

    def with_properties() -> None:
        item = check_bytes(str(path), data, Settings(), properties=properties)
        if len(item.properties) != 10 or any(v.status == "invalid" for v in item.properties):
            raise SystemExit(f"the ten properties were not all checked: {[v.message for v in item.properties]}")

    with_properties()  # first use: the property modules load
    without, withp = [], []
    for _ in range(repeat):
        without.append(_cpu(plain))
        withp.append(_cpu(with_properties))
    base, loaded = statistics.median(without), statistics.median(withp)
    ratio = loaded / base
    name = path.parent.name if path.name == "agent.leviath" else path.stem
    return Row(
        "check properties: check with ten properties / without, the slowest file",
        ratio,
        "x",
        "≤ 1.5×",
        ratio <= 1.5,
        f"{ratio:.2f}× ({loaded * 1e3:.0f} ms vs {base * 1e3:.0f} ms, {name})",
        {"file": str(path), "seconds_with": loaded, "seconds_without": base},
    )
