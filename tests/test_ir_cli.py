"""`compiler.compile` and `blueprint compile`: the IR out, exit codes 0/1/2, `-o`, no stray files."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import compiler
from compiler.api import compile_bytes, ir_source_path
from compiler.ir.serialize import IR_VERSION, dumps, load_ir
from tests.conftest import invoke_cli
from tests.helpers import CORPUS, ROOT, requires_shared

CLEAN = textwrap.dedent(
    """\
    [agent]
    name = "tiny"

    [stages.work]
    mode = "autonomous"
    max_iterations = 5
    model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
    description = "Ünïcode stays as it is"
    """
)
#: An unknown key in [agent] is a warning (the reference ignores it): it must not block.
WARNING = CLEAN.replace('name = "tiny"', 'name = "tiny"\ncolour = "blue"')
#: A duplicate key is an error.
BROKEN = CLEAN.replace('name = "tiny"', 'name = "tiny"\nname = "again"')


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    for name, text in (("clean.leviath", CLEAN), ("warning.leviath", WARNING), ("broken.leviath", BROKEN)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def run(*args: str):
    return invoke_cli("compile", *args, catch_exceptions=False)


def files_in(directory: Path) -> set[str]:
    return {p.relative_to(directory).as_posix() for p in directory.rglob("*")}


# --- the library --------------------------------------------------------------------------


def test_compile_returns_the_ir_document(workdir):
    ir = compiler.compile("clean.leviath")
    assert ir["ir_version"] == IR_VERSION
    assert ir["source"]["path"] == "clean.leviath"
    assert ir["source"]["sha256"] == hashlib.sha256(CLEAN.encode()).hexdigest()
    assert load_ir(ir) == compiler.load("clean.leviath")


def test_compile_refuses_a_blueprint_with_errors(workdir):
    with pytest.raises(compiler.BlueprintError) as caught:
        compiler.compile("broken.leviath")
    assert [d.code for d in caught.value.diagnostics] == ["duplicate-key"]


def test_compile_accepts_warnings(workdir):
    assert compiler.compile("warning.leviath")["blueprint"]["name"] == "tiny"


def test_compile_of_a_missing_file_is_an_os_error(workdir):
    with pytest.raises(FileNotFoundError):
        compiler.compile("absent.leviath")


def test_compile_bytes_records_the_given_path():
    ir = compile_bytes(CLEAN.encode(), "agents/tiny.leviath")
    assert ir["source"]["path"] == "agents/tiny.leviath"


def test_source_path_is_relative_below_the_working_directory(workdir):
    (workdir / "sub").mkdir()
    assert ir_source_path(workdir / "sub" / "a.leviath") == "sub/a.leviath"
    assert ir_source_path("./sub/../sub/a.leviath") == "sub/a.leviath"
    outside = workdir.parent / "elsewhere" / "a.leviath"
    assert ir_source_path(outside) == outside.as_posix()
    assert ir_source_path("../x/a.leviath") == "../x/a.leviath"


# --- the command --------------------------------------------------------------------------


def test_prints_the_ir_on_stdout(workdir):
    result = run("clean.leviath")
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes == dumps(compiler.compile("clean.leviath")).encode("utf-8")
    assert "Ünïcode" in result.stdout  # UTF-8, not \u escapes
    assert result.stderr == ""
    assert files_in(workdir) == {"clean.leviath", "warning.leviath", "broken.leviath"}


def test_writes_only_the_output_file(workdir):
    before = files_in(workdir)
    result = run("clean.leviath", "-o", "clean.ir.json")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    assert files_in(workdir) == before | {"clean.ir.json"}
    assert (workdir / "clean.ir.json").read_bytes() == dumps(compiler.compile("clean.leviath")).encode("utf-8")


def test_dash_means_stdout(workdir):
    result = run("clean.leviath", "--output", "-")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["blueprint"]["name"] == "tiny"
    assert not (workdir / "-").exists()


def test_errors_exit_1_with_the_report_and_write_nothing(workdir):
    (workdir / "old.json").write_text("previous", encoding="utf-8")
    result = run("broken.leviath", "-o", "old.json", "--color", "never")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "broken.leviath:3:1: error[duplicate-key]" in result.stderr
    assert "Checked 1 file: 1 error" in result.stderr
    assert (workdir / "old.json").read_text(encoding="utf-8") == "previous"
    result = run("broken.leviath", "-o", "new.json")
    assert result.exit_code == 1 and not (workdir / "new.json").exists()


def test_warnings_are_shown_but_do_not_block(workdir):
    result = run("warning.leviath", "--color", "never")
    assert result.exit_code == 0
    assert "warning[unknown-key]" in result.stderr and "'colour'" in result.stderr
    assert json.loads(result.stdout)["blueprint"]["name"] == "tiny"
    quiet = run("warning.leviath", "-q")
    assert quiet.exit_code == 0 and quiet.stderr == "" and quiet.stdout == result.stdout


def test_the_report_is_coloured_only_when_asked(workdir):
    assert "\x1b[" in run("broken.leviath", "--color", "always").stderr
    assert "\x1b[" not in run("broken.leviath", "--color", "never").stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["absent.leviath"], "cannot read 'absent.leviath'"),
        (["."], "cannot read '.'"),
        (["clean.leviath", "-o", "no/such/dir/out.json"], "cannot write 'no/such/dir/out.json'"),
        ([], "Missing argument 'PATH'"),
        (["clean.leviath", "--frobnicate"], "No such option"),
    ],
)
def test_usage_and_io_errors_exit_2_in_one_line(workdir, args, message):
    before = files_in(workdir)
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert files_in(workdir) == before


def test_configuration_applies_and_a_bad_one_exits_2(workdir):
    (workdir / "pyproject.toml").write_text('[tool.blueprint]\nignore = ["unknown-key"]\n', encoding="utf-8")
    assert run("warning.leviath").stderr == ""
    (workdir / "pyproject.toml").write_text('[tool.blueprint]\nignore = ["no-such-rule"]\n', encoding="utf-8")
    result = run("clean.leviath")
    assert result.exit_code == 2 and "no-such-rule" in result.stderr


# --- real processes -----------------------------------------------------------------------


def blueprint_process(args: list[str], cwd: Path, seed: str = "0") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "compiler", *args], capture_output=True, cwd=cwd, env=env)


def test_same_bytes_from_processes_with_different_hash_seeds(workdir):
    example = sorted((ROOT / "blueprints").glob("**/*.leviath"))[0]
    outputs = {blueprint_process(["compile", str(example)], ROOT, seed).stdout for seed in ("0", "7", "31337")}
    assert len(outputs) == 1
    assert json.loads(outputs.pop())["ir_version"] == IR_VERSION


_COMPILE_ALL = """
import sys
from compiler import compile
from compiler.ir.serialize import dumps
for path in sys.argv[1:]:
    sys.stdout.buffer.write(dumps(compile(path)).encode("utf-8"))
"""


@requires_shared
def test_corpus_compiles_the_same_in_processes_with_different_hash_seeds():
    corpus = [str(p) for p in sorted(CORPUS.glob("*/agent.leviath"))]
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", _COMPILE_ALL, *corpus], capture_output=True, cwd=ROOT, env=env)
        assert done.returncode == 0, done.stderr.decode()
        outputs.add(done.stdout)
    assert len(outputs) == 1 and outputs.pop().count(f'"ir_version": {IR_VERSION}'.encode()) == len(corpus)


def test_a_refused_compile_in_a_process_has_no_traceback(workdir):
    done = blueprint_process(["compile", "broken.leviath"], workdir)
    assert done.returncode == 1
    assert b"error[duplicate-key]" in done.stderr and b"Traceback" not in done.stderr
    assert done.stdout == b""
