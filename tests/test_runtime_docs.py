"""The library docs run: the complete host loop of docs/runner.md completes its scripted run,
and every other Python example of the docs and module docstrings runs as written."""

from __future__ import annotations

import re
import runpy
import shutil
import textwrap
from pathlib import Path

import pytest

import compiler

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


# --- every Python example of the library's docs runs as written --------------------------------

ROOT = DOC.parent.parent
LIBRARY_DOCS = ("docs/runner.md", "docs/ir.md", "docs/architecture.md", "docs/format.md", "docs/diff.md", "README.md")


def _python_blocks(relative: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / relative).read_text(encoding="utf-8"), re.S)


def _examples() -> list:
    return [
        pytest.param(relative, number, block, id=f"{relative}#{number}")
        for relative in LIBRARY_DOCS
        for number, block in enumerate(_python_blocks(relative))
    ]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """The files the examples name: a blueprint, its compiled IR, a recorded run."""
    from compiler.ir.serialize import dumps

    shutil.copyfile(ROOT / "blueprints" / "gates.leviath", tmp_path / "agent.leviath")
    shutil.copyfile(ROOT / "tests" / "runtime" / "review-loop.ndjson", tmp_path / "run.ndjson")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "agent.ir.json").write_text(dumps(compiler.compile("agent.leviath")), encoding="utf-8")
    return tmp_path


def test_the_library_docs_have_python_examples():
    assert len(_examples()) >= 5  # the API, the host loop, NDJSON, compile, reading the IR


@pytest.mark.parametrize(("relative", "number", "block"), _examples())
def test_every_python_example_of_the_docs_runs(project, relative, number, block, capsys):
    script = project / f"example_{number}.py"
    script.write_text(block, encoding="utf-8")
    runpy.run_path(str(script), run_name="__main__")


def _docstring_example(module) -> str:
    """The indented code of a module docstring (the lines after its first `::` or blank line)."""
    lines = [line for line in (module.__doc__ or "").splitlines() if line.startswith("    ")]
    return textwrap.dedent("\n".join(lines))


def test_the_runtime_docstring_example_runs(project):
    import compiler.runtime

    code = _docstring_example(compiler.runtime)
    assert "start(ir" in code
    namespace = {"ir": compiler.load("agent.leviath")}
    exec(compile(code, "compiler.runtime.__doc__", "exec"), namespace)
    assert namespace["state"].visits == {"plan": 1}


STRANDING = """
[agent.nudge]
enabled = false
[stages.draft]
max_revisits = 2
[stages.draft.transitions.review]
[stages.review]
max_revisits = 1
[stages.review.transitions.draft]
[stages.review.transitions.publish]
[stages.publish]
transitions = {}
"""


def test_the_analysis_docstring_example_runs(project):
    import compiler.analysis

    (project / "strand.leviath").write_text(STRANDING, encoding="utf-8")
    code = _docstring_example(compiler.analysis)
    assert "analyze(blueprint)" in code
    namespace = {"blueprint": compiler.load("strand.leviath")}
    exec(compile(code, "compiler.analysis.__doc__", "exec"), namespace)
    assert namespace["analysis"].findings
