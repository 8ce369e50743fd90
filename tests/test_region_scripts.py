"""Custom-region scripts, resolved as Leviath resolves them (`crates/leviath-cli/src/daemon/spawn/
scripts.rs`, `resolve_region_scripts` and `script_within_blueprint`; `crates/leviath-core/src/
paths.rs`, `resolves_within`): joined to the folder the blueprint file is in (an absolute path
replaces it), canonicalized as far as the path exists with the rest appended as written, and
compared with the canonical folder component by component. A `..` met while walking up the
part that does not exist makes the path unverifiable, so it is refused. Then the file must be
readable. Only the drivers look at the disk (`Settings.blueprint_folder`); the checks read the
looked-up facts."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from compiler import check_file, validate_bytes, validate_file, validate_text
from compiler.config import Settings
from compiler.discover import blueprint_folder, region_scripts

CODES = ("custom-region-script-not-found", "custom-region-script-outside")
HEAD = '[agent]\nname = "s"\n\n[stages.work]\nmax_iterations = 3\n\n[context.regions]\nconversation = { kind = "sliding_window" }\n'


def blueprint_with(folder: Path, *scripts: str) -> Path:
    regions = "".join(f'r{i} = {{ kind = "custom", script = {_toml(s)} }}\n' for i, s in enumerate(scripts))
    path = folder / "agent.leviath"
    path.write_text(HEAD + regions, encoding="utf-8")
    return path


def _toml(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\0", "\\u0000") + '"'


def found(path: Path, settings: Settings | None = None) -> list[tuple[str, str]]:
    """(code, the script's key) of each script finding of the blueprint at `path`."""
    result = validate_file(path, settings or Settings(select=CODES))
    return [(d.code, d.path[-2]) for d in result.diagnostics]


def statuses(folder: Path, *scripts: str) -> list[str]:
    looked_up = region_scripts(str(folder), scripts)
    return [looked_up[s].status for s in scripts]


def test_a_missing_script_and_one_outside_are_errors_at_the_value(tmp_path: Path):
    (tmp_path / "regions").mkdir()
    (tmp_path / "regions" / "board.rhai").write_text('fn render(ctx) { "" }\n', encoding="utf-8")
    path = blueprint_with(tmp_path, "regions/board.rhai", "missing.rhai", "../../etc/passwd")
    result = validate_file(path, Settings(select=CODES))
    assert [(d.code, d.severity, d.path[-2]) for d in result.diagnostics] == [
        ("custom-region-script-not-found", "error", "r1"),
        ("custom-region-script-outside", "error", "r2"),
    ]
    outside = result.diagnostics[1]
    line = path.read_text(encoding="utf-8").splitlines()[outside.span.line - 1]
    assert line[outside.span.column - 1 : outside.span.end_column - 1] == '"../../etc/passwd"'


def test_text_and_bytes_without_a_folder_read_nothing_and_report_nothing(tmp_path: Path):
    path = blueprint_with(tmp_path, "missing.rhai", "../../etc/passwd")
    text = path.read_text(encoding="utf-8")
    assert validate_text(text, str(path)).ok
    assert validate_bytes(str(path), text.encode()).ok
    assert not validate_file(path).ok
    # the folder given as data: exactly what validate_file looks up
    given = Settings(blueprint_folder=str(tmp_path))
    assert [d.code for d in validate_text(text, "x.leviath", given).diagnostics if d.code in CODES] == list(CODES)


def test_every_driver_looks_beside_the_file(tmp_path: Path):
    path = blueprint_with(tmp_path, "missing.rhai")
    assert "custom-region-script-not-found" in [d.code for d in check_file(path).result.diagnostics]
    from compiler import BlueprintError, compile

    with pytest.raises(BlueprintError):
        compile(path)


def test_the_folder_is_the_parent_of_the_path_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = blueprint_with(tmp_path, "missing.rhai")
    monkeypatch.chdir(tmp_path)
    assert blueprint_folder("agent.leviath") == os.path.join(str(tmp_path), "")
    assert blueprint_folder(str(path)) == str(tmp_path)
    assert blueprint_folder("absent.leviath") is None and blueprint_folder("\0") is None
    assert blueprint_folder(str(tmp_path)) is None  # a folder is not a blueprint file
    assert found(Path("agent.leviath")) == [("custom-region-script-not-found", "r0")]


def test_absolute_paths_count_where_they_lead(tmp_path: Path):
    (tmp_path / "board.rhai").write_text("x\n", encoding="utf-8")
    inside, elsewhere = str(tmp_path / "board.rhai"), str(tmp_path.parent / "elsewhere.rhai")
    assert statuses(tmp_path, inside, elsewhere) == ["ok", "outside"]


def test_dot_dot_is_followed_on_the_disk(tmp_path: Path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "board.rhai").write_text("x\n", encoding="utf-8")
    (tmp_path / "file.rhai").write_text("x\n", encoding="utf-8")
    assert statuses(tmp_path, "a/../a/board.rhai", "./a//board.rhai", "a/../../x.rhai") == ["ok", "ok", "outside"]
    # `..` after a folder that does not exist: Leviath cannot verify it and refuses it
    assert statuses(tmp_path, "nowhere/../a/board.rhai", "nowhere/board.rhai") == ["outside", "missing"]
    # `..` after a file: the operating system refuses the walk, so does Leviath
    assert statuses(tmp_path, "file.rhai/../a/board.rhai") == ["outside"]


def test_symbolic_links_are_followed(tmp_path: Path):
    home, away = tmp_path / "agent", tmp_path / "away"
    home.mkdir()
    away.mkdir()
    (away / "board.rhai").write_text("x\n", encoding="utf-8")
    (home / "inside.rhai").write_text("x\n", encoding="utf-8")
    (home / "out.rhai").symlink_to(away / "board.rhai")
    (home / "outdir").symlink_to(away, target_is_directory=True)
    (home / "alias.rhai").symlink_to(home / "inside.rhai")
    (home / "dangling.rhai").symlink_to(home / "gone.rhai")
    got = statuses(home, "out.rhai", "outdir/board.rhai", "outdir/new.rhai", "alias.rhai", "dangling.rhai")
    assert got == ["outside", "outside", "outside", "ok", "missing"]
    assert region_scripts(str(home), ["out.rhai"])["out.rhai"].reason.endswith("through a symbolic link")
    # the blueprint's folder reached through a link is the same folder
    (tmp_path / "link").symlink_to(home, target_is_directory=True)
    assert statuses(tmp_path / "link", "inside.rhai", str(home / "inside.rhai")) == ["ok", "ok"]


def test_what_cannot_be_read(tmp_path: Path):
    (tmp_path / "folder.rhai").mkdir()
    os.mkfifo(tmp_path / "pipe.rhai")  # never opened, so nothing blocks
    got = region_scripts(str(tmp_path), ["folder.rhai", "pipe.rhai", "bad\0name.rhai"])
    assert [(s.status, s.reason) for s in got.values()] == [
        ("unreadable", "is a folder, not a file"),
        ("unreadable", "is not a regular file"),
        ("unreadable", "cannot be read (the path contains a NUL character)"),
    ]
    path = blueprint_with(tmp_path, "folder.rhai", "pipe.rhai", "bad\0name.rhai")
    assert [code for code, _ in found(path)] == ["custom-region-script-not-found"] * 3


def test_a_very_long_path_is_judged_in_a_few_calls(tmp_path: Path):
    deep = "a/" * 200_000 + "board.rhai"
    began = time.perf_counter()
    looked_up = region_scripts(str(tmp_path), [deep, "../" * 100_000 + "x.rhai"])
    assert time.perf_counter() - began < 2
    long_name, climbing = looked_up.values()
    assert (long_name.status, long_name.reason) == ("unreadable", "cannot be read (File name too long)")
    assert climbing.status == "outside"


def test_stage_layouts_are_checked_and_each_region_is_reported(tmp_path: Path):
    text = HEAD + 'a = { kind = "custom", script = "gone.rhai" }\nb = { kind = "custom", script = "gone.rhai" }\n'
    text += '\n[stages.work.context.regions]\nc = { kind = "custom", script = "  gone.rhai " }\n'
    (tmp_path / "agent.leviath").write_text(text, encoding="utf-8")
    result = validate_file(tmp_path / "agent.leviath", Settings(select=CODES))
    assert [d.path for d in result.diagnostics] == [
        ("context", "regions", "a", "script"),
        ("context", "regions", "b", "script"),
        ("stages", "work", "context", "regions", "c", "script"),
    ]
    assert "custom region 'c' of stage 'work': script 'gone.rhai' does not exist" in result.diagnostics[2].message


def test_scripts_on_other_kinds_are_not_looked_up(tmp_path: Path):
    text = HEAD + 'notes = { kind = "temporary", script = "gone.rhai" }\n'
    (tmp_path / "agent.leviath").write_text(text, encoding="utf-8")
    assert [d.code for d in validate_file(tmp_path / "agent.leviath").diagnostics if d.code in CODES] == []


def test_the_language_server_looks_beside_the_document(tmp_path: Path):
    from compiler.lsp.diagnostics import _analyse

    path = blueprint_with(tmp_path, "missing.rhai")
    analysis, problem = _analyse(str(path), path.read_text(encoding="utf-8"), 1, "utf-16", False)
    assert problem is None
    assert [d.code for d in analysis.result.diagnostics if d.code in CODES] == ["custom-region-script-not-found"]
    untitled, _ = _analyse("untitled:Untitled-1", path.read_text(encoding="utf-8"), 1, "utf-16", False)
    assert [d.code for d in untitled.result.diagnostics if d.code in CODES] == []
