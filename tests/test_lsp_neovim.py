"""The docs/editors.md story in a real editor: headless Neovim runs the Neovim configuration
of docs/editors.md as its init.lua, attaches to `blueprint lsp`, and `neovim/drive.lua`, with
the keys the recipe maps, types a misspelt transition target, sees `unknown-stage` under it,
completes a key (<C-x><C-o>), hovers a key (K), jumps to a stage's definition (gd), renames it
(<leader>rn) and applies the quick fix (<leader>ca). Skips (with the reason) where Neovim 0.7+ is missing;
.ci/run installs Debian's package."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import ROOT

NVIM = shutil.which("nvim")
BLUEPRINT = textwrap.dedent(
    """\
    [agent]
    name = "fixer"

    [stages.plan]
    mode = "autonomous"
    model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
    max_iterations = 10

    [stages.plan.transitions.review]

    [stages.plan.transitions.fix]
    condition = "error"

    [stages.fix]
    mode = "autonomous"
    model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
    max_iterations = 10

    [stages.fix.transitions.review]

    [stages.review]
    mode = "output"
    model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
    max_iterations = 5

    [stages.review.transitions]
    """
)


def _nvim_version() -> tuple[int, int] | None:
    if NVIM is None:
        return None
    out = subprocess.run([NVIM, "--version"], capture_output=True, text=True, timeout=30).stdout
    match = re.search(r"NVIM v(\d+)\.(\d+)", out)
    return (int(match.group(1)), int(match.group(2))) if match else None


VERSION = _nvim_version()
pytestmark = pytest.mark.skipif(
    VERSION is None or VERSION < (0, 7),
    reason="needs Neovim 0.7 or newer (`nvim`); .ci/run installs Debian's neovim package",
)


def docs_config() -> str:
    """The Lua block of the Neovim section of docs/editors.md, as a user would copy it."""
    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    section = text[text.index("### Neovim") :]
    return section[section.index("```lua\n") + len("```lua\n") : section.index("```\n", section.index("```lua"))]


def test_the_editors_md_story_in_neovim(tmp_path: Path) -> None:
    blueprint = tmp_path / "agents" / "agent.leviath"
    blueprint.parent.mkdir()
    blueprint.write_text(BLUEPRINT, encoding="utf-8")
    init = tmp_path / "init.lua"
    init.write_text(docs_config(), encoding="utf-8")
    result = tmp_path / "result.json"
    env = {
        **os.environ,
        # `blueprint` as the editor finds it: on PATH, from the environment running the tests.
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "BLUEPRINT_FILE": str(blueprint),
        "BLUEPRINT_RESULT": str(result),
    }
    drive = ROOT / "tests" / "neovim" / "drive.lua"
    done = subprocess.run(
        [NVIM, "--headless", "-n", "-i", "NONE", "-u", str(init), "-c", f"luafile {drive}"],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=tmp_path,
    )
    assert result.exists(), f"Neovim wrote no result (exit {done.returncode}): {done.stderr[-2000:]}"
    seen = json.loads(result.read_text(encoding="utf-8"))
    assert "error" not in seen, seen
    steps = seen["steps"]

    assert steps["opened"]["filetype"] == "toml"
    assert steps["opened"]["findings"] == []  # the blueprint starts clean

    typed = steps["typed"]
    assert typed["line"] == "[stages.plan.transitions.reveiw]" and typed["modified"]  # typed, not saved
    finding = typed["finding"]
    assert finding["code"] == "unknown-stage"
    assert (finding["lnum"], finding["col"], finding["end_col"]) == (8, 25, 31)  # under "reveiw"
    assert "did you mean 'review'?" in finding["message"]

    # Completion as the recipe sets it up: <C-x><C-o> asks the server (no E764).
    assert steps["omnifunc"] == "v:lua.vim.lsp.omnifunc"
    completed = steps["completed"]
    assert "max_revisits" in completed["labels"] and completed["line"] == "max_revisits"

    # K shows the key's meaning as docs/format.md has it.
    hovered = steps["hovered"]["text"]
    assert "max_iterations" in hovered and "unset or `0` takes the default cap" in hovered

    jumped = steps["jumped"]
    assert jumped["line"] == "[stages.review]" and jumped["col"] == len("[stages.")

    renamed = steps["renamed"]["text"]
    assert "[stages.reviewed]" in renamed and "[stages.fix.transitions.reviewed]" in renamed
    assert "[stages.plan.transitions.reveiw]" in renamed  # the typo is not the stage: untouched

    fixed = steps["fixed"]
    assert "Replace 'reveiw' with 'reviewed'" in fixed["offered"]
    assert fixed["line"] == "[stages.plan.transitions.reviewed]"
    assert fixed["findings"] == []
