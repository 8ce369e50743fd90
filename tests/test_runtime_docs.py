"""docs/runner.md: the complete host loop it shows runs, and completes its scripted run."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "runner.md"


def test_the_documented_host_loop_runs_to_completion(tmp_path, capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    (example,) = [b for b in blocks if "def host(" in b]
    script = tmp_path / "host.py"
    script.write_text(example, encoding="utf-8")
    namespace = runpy.run_path(str(script))
    final = namespace["final"]
    assert final.status == "complete" and final.stage == "done"
    assert final.visits == {"plan": 1, "build": 1, "done": 1}
    assert capsys.readouterr().out.startswith("complete")

