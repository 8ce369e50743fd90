"""The runner is standard library only: importing it pulls in no heavy or CLI dependency."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ("jsonschema", "networkx", "jinja2", "click", "tomlkit")


def test_importing_the_runner_loads_none_of_the_heavy_dependencies():
    code = (
        "import sys, compiler.runtime, compiler.runtime.ndjson, compiler.runtime.timeline\n"
        f"print(','.join(m for m in {FORBIDDEN!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"compiler.runtime imported {out.stdout.strip()}"


def test_the_check_can_fail():
    code = "import sys, compiler.runtime, click\nprint('click' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
