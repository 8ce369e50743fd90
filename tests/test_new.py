"""`blueprint new`: every template validates clean and passes `check` with no warning, with
the tool scripts it grants; nothing is overwritten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.scaffold import TEMPLATES, render_template
from tests.conftest import invoke_cli


@pytest.mark.parametrize("template", list(TEMPLATES))
def test_every_template_validates_clean_and_checks_without_warnings(
    template: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    made = invoke_cli("new", f"agents/my-{template}", "--template", template)
    assert made.exit_code == 0, made.output
    folder = Path("agents") / f"my-{template}"
    written = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert written == sorted(render_template(template, f"my-{template}"))
    assert f"created {folder / 'agent.leviath'}" in made.stderr
    text = (folder / "agent.leviath").read_text(encoding="utf-8")
    assert f'name = "my-{template}"' in text and text.count("\n#") >= 10  # commented throughout

    for command in ("validate", "check"):
        result = invoke_cli(command, str(folder), "--format", "json", "--deny-warnings")
        assert result.exit_code == 0, result.output
        document = json.loads(result.stdout)
        assert document["summary"]["errors"] == document["summary"]["warnings"] == 0
        assert document["files"][0]["diagnostics"] == [], document


@pytest.mark.parametrize("template", [t for t in TEMPLATES if any("/" in p for p in render_template(t, "x"))])
def test_the_tool_scripts_are_what_makes_the_tools_known(template: str, tmp_path: Path) -> None:
    assert invoke_cli("new", str(tmp_path / "a"), "--template", template).exit_code == 0
    scripts = list((tmp_path / "a" / "tools").glob("*.rhai"))
    assert scripts
    for script in scripts:
        assert script.read_text(encoding="utf-8").startswith(f"// @tool {script.stem}\n")
        script.unlink()
    result = invoke_cli("validate", str(tmp_path / "a"), "--format", "concise")
    assert result.exit_code == 1 and "[unknown-tool]" in result.stdout


def test_nothing_is_overwritten(tmp_path: Path) -> None:
    folder = tmp_path / "agent"
    assert invoke_cli("new", str(folder), "--template", "review-loop").exit_code == 0
    (folder / "agent.leviath").write_text("# mine\n", encoding="utf-8")
    (folder / "tools" / "style_check.rhai").unlink()
    again = invoke_cli("new", str(folder), "--template", "review-loop")
    assert again.exit_code == 2
    assert f"'{folder / 'agent.leviath'}' exists; refusing to overwrite it (nothing was written)" in again.stderr
    assert (folder / "agent.leviath").read_text(encoding="utf-8") == "# mine\n"
    assert not (folder / "tools" / "style_check.rhai").exists()  # not even the missing file


def test_list_and_usage_errors(tmp_path: Path) -> None:
    listed = invoke_cli("new", "--list")
    assert listed.exit_code == 0
    assert [line.split()[0] for line in listed.stdout.splitlines()] == list(TEMPLATES)
    assert invoke_cli("new").exit_code == 2
    assert invoke_cli("new", str(tmp_path / "x"), "--template", "nope").exit_code == 2
    bad = invoke_cli("new", str(tmp_path / "bad name"))
    assert bad.exit_code == 2 and "cannot name an agent" in bad.stderr
    assert not (tmp_path / "bad name").exists()


def test_a_name_cannot_inject_toml() -> None:
    with pytest.raises(ValueError):
        render_template("linear", 'x"\n[stages.evil]')


def test_a_linked_folder_inside_name_is_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "tools").symlink_to(outside)
    result = invoke_cli("new", str(tmp_path / "agent"), "--template", "review-loop")
    assert result.exit_code == 2
    assert f"'{tmp_path / 'agent' / 'tools'}' is a symbolic link; refusing to write through it" in result.stderr
    assert list(outside.iterdir()) == [] and not (tmp_path / "agent" / "agent.leviath").exists()
