"""Every write is careful: `--fix` (permissions, owners, links, failures, concurrent runs),
`docs -o` (nothing outside its directory), `--diff` (applies with git and patch), stdout.

The tests run as root in CI. Root writes anything, so what only a non-root user can show is
skipped there; what can be seen as root (a 0444 mode, an owner kept, an inode kept) is not.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import compiler.fix.files as files
import compiler.fix.writes as writes
from compiler.config import Settings
from compiler.fix import fix_bytes
from tests.conftest import invoke_cli
from tests.helpers import ROOT

MODEL = 'model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }'
#: Two kinds of fixable finding: a missing mode, and a policy spelled "ALLOW".
FIXABLE = f'[agent]\nname = "a"\n[tool_permissions]\nread_file = "ALLOW"\n\n[stages.work]  # one stage\n{MODEL}\nmax_iterations = 3\n'
FIXED = FIXABLE.replace('"ALLOW"', '"allow"').replace("# one stage\n", '# one stage\nmode = "autonomous"\n')
POSIX = pytest.mark.skipif(os.name != "posix", reason="needs POSIX permissions")
NON_ROOT = pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a non-root POSIX user")
ROOT_ONLY = pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0, reason="giving a file to another user needs root"
)


def validate(*args: str):
    return invoke_cli("validate", *args)


def blueprint(tmp_path: Path, text: str = FIXABLE, name: str = "a.leviath") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- --fix and the file it writes ---------------------------------------------------------------


@POSIX
def test_a_read_only_file_is_refused_even_for_root(tmp_path: Path) -> None:
    path = blueprint(tmp_path)
    path.chmod(0o444)
    result = validate(str(path), "--fix")
    assert result.exit_code == 2
    assert f"error: cannot write '{path}': the file is read-only (mode 0444)" in result.stderr
    assert "fixed" not in result.stderr  # nothing was written, so nothing is reported fixed
    assert path.read_text(encoding="utf-8") == FIXABLE and stat.S_IMODE(path.stat().st_mode) == 0o444


@POSIX
def test_hard_links_stay_linked_and_the_inode_is_kept(tmp_path: Path) -> None:
    path = blueprint(tmp_path)
    other = tmp_path / "other-name.txt"
    os.link(path, other)
    inode = path.stat().st_ino
    result = validate(str(path), "--fix")
    assert result.exit_code == 0, result.output
    assert path.stat().st_ino == inode and path.stat().st_nlink == 2
    assert other.read_text(encoding="utf-8") == FIXED


@ROOT_ONLY
def test_another_users_file_keeps_its_owner_group_and_mode(tmp_path: Path) -> None:
    path = blueprint(tmp_path)
    os.chown(path, 65534, 65534)
    path.chmod(0o664)
    result = validate(str(path), "--fix")
    assert result.exit_code == 0, result.output
    info = path.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (65534, 65534, 0o664)
    assert path.read_text(encoding="utf-8") == FIXED


@ROOT_ONLY
def test_when_the_owner_cannot_be_kept_the_file_is_written_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a non-root user gets on another user's group-writable file: fchown is refused."""
    path = blueprint(tmp_path)
    os.chown(path, 65534, 65534)
    inode = path.stat().st_ino

    def refuse(fd: int, uid: int, gid: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(writes.os, "fchown", refuse)
    assert validate(str(path), "--fix").exit_code == 0
    assert path.stat().st_ino == inode and path.stat().st_uid == 65534
    assert path.read_text(encoding="utf-8") == FIXED
    assert [p.name for p in tmp_path.iterdir()] == ["a.leviath"]  # no temporary file left


@NON_ROOT
def test_a_file_we_may_write_in_a_directory_we_may_not_is_written_in_place(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    path = blueprint(tmp_path / "sub")
    path.parent.chmod(0o555)
    try:
        result = validate(str(path), "--fix")
    finally:
        path.parent.chmod(0o755)
    assert result.exit_code == 0, result.output
    assert path.read_text(encoding="utf-8") == FIXED


@NON_ROOT
def test_a_file_we_may_not_write_is_a_permission_error(tmp_path: Path) -> None:
    path = blueprint(tmp_path)
    path.chmod(0o464)  # writable by the group, not by its owner
    result = validate(str(path), "--fix")
    assert result.exit_code == 2 and "Permission denied" in result.stderr


@pytest.mark.skipif(not hasattr(os, "posix_fallocate"), reason="needs a file size limit")
def test_a_write_that_fails_is_reported_and_never_counted_as_fixed(tmp_path: Path) -> None:
    """`ulimit -f` below the fixed file's size: the old file stays and nothing is 'fixed'."""
    stages = "".join(f"\n[stages.s{i}]\n{MODEL}\nmax_iterations = 3\n" for i in range(300))
    text = '[agent]\nname = "big"\n' + stages
    path = blueprint(tmp_path, text)
    limit = path.stat().st_size + 100  # room for the file as it is, not for 300 new lines
    code = (
        "import resource, sys\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))\n"
        "from compiler.cli.main import main\n"
        "main(sys.argv[1:])\n"
    )
    for link in ("", "hard"):  # an atomic replacement, then a write in place
        if link:
            os.link(path, tmp_path / "link.txt")
        done = subprocess.run(
            [sys.executable, "-c", code, "validate", "-q", "--fix", str(path)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert f"error: cannot write '{path}': File too large" in done.stderr
        assert "fixed" not in done.stderr
        assert path.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.leviath", "link.txt"]


def test_a_file_changed_after_it_was_read_is_fixed_again_not_overwritten(tmp_path: Path) -> None:
    """Another writer (here: a fix of the other finding) changed the file between our read
    and our write: our fix is applied to its content, and its change survives."""
    path = blueprint(tmp_path)
    settings = Settings(select=("stage-missing-mode",))
    ours = fix_bytes(str(path), FIXABLE.encode(), settings)
    theirs = FIXABLE.replace('"ALLOW"', '"allow"')
    path.write_text(theirs, encoding="utf-8")  # lands after our read
    saved = files.save(ours, settings)
    assert path.read_text(encoding="utf-8") == FIXED
    assert saved.original == theirs.encode() and [d.code for d in saved.fixed] == ["stage-missing-mode"]


def test_a_file_that_keeps_changing_is_left_alone_and_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = blueprint(tmp_path)
    calls = []

    def always_changed(target: str, expected: bytes, data: bytes) -> None:
        calls.append(target)
        raise writes.FileChanged(expected)

    monkeypatch.setattr(files, "replace_checked", always_changed)
    result = validate(str(path), "--fix")
    assert len(calls) == files.MAX_REFIXES
    assert result.exit_code == 2 and "the file changed while it was being fixed" in result.stderr
    assert "fixed" not in result.stderr.replace("being fixed", "")
    assert path.read_text(encoding="utf-8") == FIXABLE


@POSIX
def test_two_concurrent_fixes_of_one_file_both_land(tmp_path: Path) -> None:
    """Two processes, each fixing one of the two kinds: the second to write re-reads the file."""
    text = FIXABLE + "".join(f"\n[stages.s{i}]\n{MODEL}\nmax_iterations = 3\n" for i in range(150))
    path = blueprint(tmp_path, text)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(2):
        path.write_text(text, encoding="utf-8")
        runs = [
            subprocess.Popen(
                [sys.executable, "-m", "compiler", "validate", "-q", "--fix", "--select", code, str(path)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
            for code in ("stage-missing-mode", "non-canonical-value")
        ]
        errors = [run.communicate(timeout=120)[1] for run in runs]
        assert [run.returncode for run in runs] == [0, 0], errors
        fixed = path.read_text(encoding="utf-8")
        assert fixed.count('mode = "autonomous"') == 151 and 'read_file = "allow"' in fixed, errors


# --- docs -o ------------------------------------------------------------------------------------

PAGE = '[agent]\nname = "victim"\n[stages.only]\nmode = "autonomous"\n' + MODEL + "\n[stages.only.transitions]\n"


@POSIX
def test_docs_never_writes_through_a_planted_hard_link(tmp_path: Path) -> None:
    source = blueprint(tmp_path, PAGE, "victim.leviath")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    os.link(outside, out / "victim.md")
    result = invoke_cli("docs", source, "-o", out, "--diagram", "builtin")
    assert result.exit_code == 0, result.output
    assert outside.read_text(encoding="utf-8") == "keep me" and outside.stat().st_nlink == 1
    assert (out / "victim.md").read_text(encoding="utf-8").startswith("[All blueprints](index.md)\n\n# victim")
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "index.md", "victim.html", "victim.md"]


@POSIX
def test_docs_says_where_a_symlinked_output_directory_leads(tmp_path: Path) -> None:
    source = blueprint(tmp_path, PAGE, "victim.leviath")
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    result = invoke_cli("docs", source, "-o", tmp_path / "link" / "docs", "--diagram", "builtin")
    assert result.exit_code == 0, result.output
    assert f"leads through a symbolic link; the files go to '{real / 'docs'}'" in result.stderr
    assert sorted(p.name for p in (real / "docs").iterdir()) == ["index.html", "index.md", "victim.html", "victim.md"]


def test_docs_pages_are_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = blueprint(tmp_path, PAGE, "victim.leviath")
    out = tmp_path / "out"
    out.mkdir()
    (out / "victim.md").write_text("old page", encoding="utf-8")

    def fail(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    import compiler.cli.outdir as outdir

    monkeypatch.setattr(outdir.os, "replace", fail)
    result = invoke_cli("docs", source, "-o", out, "--diagram", "builtin")
    assert result.exit_code == 2 and "No space left on device" in result.stderr
    assert [p.name for p in out.iterdir()] == ["victim.md"]  # no temporary file left behind
    assert (out / "victim.md").read_text(encoding="utf-8") == "old page"


# --- --diff applies -----------------------------------------------------------------------------


def tools_that_apply() -> list[list[str]]:
    tools = []
    if shutil.which("git"):
        tools.append(["git", "apply", "--check", "-v"])
    if shutil.which("patch"):
        tools.append(["patch", "-p1", "--dry-run", "-s", "-f"])
    return tools


@pytest.mark.skipif(not tools_that_apply(), reason="needs git or patch")
@pytest.mark.parametrize(
    "comment",
    [
        "line\u2028separator",
        "paragraph\u2029separator",
        "next\x85line",
        "all\u2028\u2029\x85three",
        "bidi \u202eevil\u202c",
    ],
)
@pytest.mark.parametrize(
    "name", ["plain.leviath", "we ird\nname.leviath", 'quote"back\\slash.leviath', "tab\tname.leviath"]
)
def test_every_diff_applies_with_git_and_patch(tmp_path: Path, comment: str, name: str) -> None:
    text = FIXABLE.replace("# one stage", f"# {comment}") + f"# {comment} at the end, no newline"
    if os.name != "posix" and "\n" in name:
        pytest.skip("needs a POSIX file name")
    path = blueprint(tmp_path, text, name)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = validate(name, "--diff")
    finally:
        os.chdir(cwd)
    assert result.exit_code == 1, result.output
    diff = result.stdout_bytes
    for tool in tools_that_apply():
        done = subprocess.run(tool, input=diff, cwd=tmp_path, capture_output=True)
        assert done.returncode == 0, (tool[0], done.stdout, done.stderr, diff)
    if shutil.which("patch"):
        subprocess.run(["patch", "-p1", "-s"], input=diff, cwd=tmp_path, check=True)
        assert path.read_bytes() == text.replace('"ALLOW"', '"allow"').replace(
            f"# {comment}\n", f'# {comment}\nmode = "autonomous"\n', 1
        ).encode("utf-8")


# --- standard output ------------------------------------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["validate"], ["validate", "--format", "json"], ["check"], ["compile"], ["graph"]])
def test_a_full_disk_on_stdout_is_an_io_error_not_a_crash(args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "compiler", *args, str(ROOT / "blueprints" / "review-loop.leviath")],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=120,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    assert done.returncode == 2
    # `compile` shows the blueprint's findings (a note here) on stderr before it writes the IR
    assert done.stderr.endswith("Error: cannot write to standard output: No space left on device\n")
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_a_closed_pipe_on_stdout_ends_quietly_with_status_2() -> None:
    done = subprocess.Popen(
        [sys.executable, "-m", "compiler", "rules"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.stdout is not None and done.stderr is not None
    done.stdout.close()  # the reader is gone before the first byte
    error = done.stderr.read()
    assert done.wait(timeout=120) == 2 and error == b""
