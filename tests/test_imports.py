"""Start-up stays lean: `blueprint validate` imports only what checking a file needs.

Each test runs the command in a fresh interpreter and reads `sys.modules` afterwards, so a
module-level import anywhere on the path (a rule module pulling in networkx, a reporter
pulling in jinja2) fails here. docs/performance.md gives the cost of each module.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

#: Never needed to validate: click (the commonest `validate` lines are read without it,
#: `compiler.cli.quick`), tomllib (plain TOML, this checkout's `pyproject.toml` included, is
#: read by `compiler.parse.reader`; tomllib reads the rest), the graph drawing library, templates, the round-trip TOML
#: library, package metadata (slow to import; the version is a constant), the language
#: server with its protocol stack, the file watcher, the test-only property library, and the
#: parts of the project other commands use (the stage-runner, the run analysis engine,
#: `diff`, scenarios, diagrams and pages). pathspec too: the patterns of this checkout's own
#: configuration (`/tests/`, read from the working directory) are plain paths, checked
#: without it.
NEVER = (
    "click",
    "tomllib",
    "networkx",
    "jinja2",
    "tomlkit",
    "importlib.metadata",
    "pygls",
    "lsprotocol",
    "watchfiles",
    "hypothesis",
    "pathspec",
    "compiler.lsp",
    "compiler.runtime",
    "compiler.analysis.core",
    "compiler.diff",
    "compiler.scenarios",
    "compiler.render.diagram",
    "compiler.render.blueprint_docs",
)
#: Needed only to explain a schema problem: a valid file is decided without it.
ONLY_ON_SCHEMA_ERRORS = ("jsonschema",)
#: The fixing engine: only for a file with a fixable finding (the report shows its fixes).
ONLY_FOR_FIXABLE_FINDINGS = ("compiler.fix",)

EXAMPLE = ROOT / "blueprints" / "review-loop.leviath"
SCHEMA_ERROR = (
    '[agent]\nname = "t"\n\n[stages.work]\nmode = "autonomous"\nmax_iterations = "five"\n\n[stages.work.transitions]\n'
)
#: A schema error whose fix hint suggests a name ("did you mean 'autonomous'?").
SUGGESTING_ERROR = '[agent]\nname = "t"\n\n[stages.work]\nmode = "autonomus"\n\n[stages.work.transitions]\n'

#: Runs `blueprint ARGS` and prints, for each watched module it imported, which module (file
#: and line) imported it.
_PROBE = """
import json, sys
watched = set(json.loads(sys.argv[1]))
importers = {}

class Watch:
    def find_spec(self, name, path=None, target=None):
        if name in watched and name not in importers:
            frame = sys._getframe(1)
            while frame is not None and frame.f_code.co_filename.startswith("<frozen"):
                frame = frame.f_back
            where = frame.f_globals.get("__name__", "?") if frame is not None else "?"
            importers[name] = f"{where}:{frame.f_lineno if frame is not None else 0}"
        return None

sys.meta_path.insert(0, Watch())
from compiler.cli.main import main
try:
    main(sys.argv[2:])
except SystemExit as done:
    code = done.code
loaded = {m: importers.get(m, "?") for m in sorted(watched) if m in sys.modules}
print(json.dumps({"exit": code, "loaded": loaded}), file=sys.stderr)
"""


def imported_by(*args: str) -> tuple[int, dict[str, str]]:
    """Exit code of `blueprint ARGS`, and the watched modules it left in sys.modules, each
    with the module and line that imported it."""
    watched = json.dumps([*NEVER, *ONLY_ON_SCHEMA_ERRORS, *ONLY_FOR_FIXABLE_FINDINGS])
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, watched, *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["exit"], report["loaded"]


def shown(loaded: dict[str, str]) -> str:
    return ", ".join(f"{module} (imported by {importer})" for module, importer in loaded.items())


def test_validating_a_valid_blueprint_imports_no_heavy_module() -> None:
    code, loaded = imported_by("validate", str(EXAMPLE))
    assert code == 0
    assert loaded == {}, f"blueprint validate imported {shown(loaded)}"


@pytest.mark.parametrize("output_format", ["json", "github"])
def test_machine_formats_import_no_heavy_module(output_format: str) -> None:
    code, loaded = imported_by("validate", "--format", output_format, str(EXAMPLE))
    assert code == 0
    assert loaded == {}, f"blueprint validate --format {output_format} imported {shown(loaded)}"


def test_sarif_reads_package_metadata_and_nothing_heavier() -> None:
    """SARIF names the tool's home page from the installed package's metadata (only there)."""
    code, loaded = imported_by("validate", "--format", "sarif", str(EXAMPLE))
    assert code == 0
    assert list(loaded) == ["importlib.metadata"], shown(loaded)


def test_a_schema_error_brings_in_jsonschema_and_nothing_else(tmp_path: Path) -> None:
    """jsonschema explains what is wrong; the other heavy modules stay out even then (and
    this shows the probe does see a lazily imported module)."""
    broken = tmp_path / "agent.leviath"
    broken.write_text(SCHEMA_ERROR, encoding="utf-8")
    code, loaded = imported_by("validate", str(broken))
    assert code == 1
    assert list(loaded) == ["jsonschema"], shown(loaded)
    assert loaded["jsonschema"].startswith("compiler.schema.")


def test_a_directory_of_blueprints_imports_no_heavy_module() -> None:
    """A search reads the checkout's `.gitignore`, whose glob patterns need pathspec."""
    code, loaded = imported_by("validate", str(ROOT / "blueprints"))
    assert code == 0
    assert set(loaded) <= {"pathspec"}, f"blueprint validate DIR imported {shown(loaded)}"


def test_a_suggested_name_brings_in_the_fixing_engine(tmp_path: Path) -> None:
    """The report marks a finding `--unsafe-fixes` fixes (the suggestion written over the
    misspelt token, checked by the engine), so the engine loads for it, tomlkit does not."""
    broken = tmp_path / "agent.leviath"
    broken.write_text(SUGGESTING_ERROR, encoding="utf-8")
    code, loaded = imported_by("validate", str(broken))
    assert code == 1
    assert list(loaded) == ["compiler.fix", "jsonschema", "tomllib"], shown(loaded)
    assert loaded["compiler.fix"].startswith("compiler.cli.common")


def test_a_fixable_finding_brings_in_the_fixing_engine_only(tmp_path: Path) -> None:
    """The report shows how to fix a fixable finding, so the engine (and tomlkit, which it
    edits with, and tomllib, which it reads the file with) loads then; this also shows the probe
    names the importer."""
    fixable = tmp_path / "agent.leviath"
    fixable.write_text('[agent]\nname = "t"\n\n[stages.work]\n\n[stages.work.transitions]\n', encoding="utf-8")
    code, loaded = imported_by("validate", str(fixable))
    assert code == 0  # a missing mode is a warning
    assert list(loaded) == ["compiler.fix", "tomlkit", "tomllib"], shown(loaded)
    assert loaded["compiler.fix"].startswith("compiler.cli.") and loaded["tomlkit"].startswith("compiler.fix.")
