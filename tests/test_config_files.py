"""`blueprint.toml` and `.blueprint.toml` beside `[tool.blueprint]`: which file applies, what
each key accepts, and `--show-settings`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import compiler.pipeline  # noqa: F401 (registers every rule: `load_config` checks rule names against them)
from compiler.config import KEYS, ConfigError, ConfigFinder, FileConfig, load_config
from tests.conftest import invoke_cli

AGENT = '[agent]\nname = "a"\n[stages.s]\nmode = "output"\n[stages.s.transitions]\n'


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_blueprint_toml_takes_the_keys_at_the_top_level(tmp_path: Path) -> None:
    path = write(tmp_path / "blueprint.toml", 'ignore = ["lint"]\nextend-exclude = ["/fixtures/"]\n')
    config = load_config(path)
    assert config is not None and config.ignore == ("lint",) and config.extend_exclude == ("/fixtures/",)
    assert load_config(write(tmp_path / "empty" / "blueprint.toml", "")) == FileConfig(
        path=tmp_path / "empty" / "blueprint.toml"
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('extend-exlude = ["x"]\n', "unknown key 'extend-exlude' (did you mean 'extend-exclude'?)"),
        ('[tool.blueprint]\nignore = ["lint"]\n', "write the keys at the top level"),
        ('exclude = ["!"]\n', "exclude: '!' is not a valid pattern"),
        ("respect-gitignore = 1\n", "respect-gitignore must be true or false, not a number"),
        ('rule-docs-url = "https://docs.example.org/rules/"\n', "rule-docs-url must be an http(s) URL with {code}"),
        ('rule-docs-url = "file:///x/{code}"\n', "rule-docs-url must be an http(s) URL"),
    ],
)
def test_mistakes_in_a_blueprint_toml_name_the_file_and_the_key(tmp_path: Path, body: str, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path / "blueprint.toml", body), "blueprint.toml")
    message = str(caught.value)
    if "top level" in expected:  # about the whole table, not a key of it
        assert message.startswith("blueprint.toml: ")
    else:  # where the key (unknown) or its value (wrong) is, as a blueprint's findings are placed
        assert re.match(r"blueprint\.toml:1:(1|\d\d): ", message), message
    assert expected in message


def test_in_one_folder_the_dedicated_files_win_and_the_other_is_named(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.blueprint]\nignore = ["meta"]\n')
    write(tmp_path / "blueprint.toml", 'ignore = ["lint"]\n')
    write(tmp_path / ".blueprint.toml", 'ignore = ["schema"]\n')
    finder = ConfigFinder()
    config = finder.for_file(tmp_path / "agent.leviath")
    assert config is not None and config.ignore == ("schema",)
    assert len(finder.warnings) == 2 and all(".blueprint.toml" in w for w in finder.warnings)


def test_the_nearest_folder_with_a_configuration_wins_and_nothing_is_merged(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.blueprint]\nignore = ["meta"]\nknown-tools = ["deploy"]\n')
    write(tmp_path / "agents" / "pyproject.toml", '[project]\nname = "no table"\n')
    write(tmp_path / "agents" / "team" / "blueprint.toml", "")
    finder = ConfigFinder()
    inner = finder.for_file(tmp_path / "agents" / "team" / "x" / "agent.leviath")
    outer = finder.for_file(tmp_path / "agents" / "agent.leviath")
    assert inner is not None and inner.path.name == "blueprint.toml" and inner.value("ignore") == ()
    assert outer is not None and outer.path == tmp_path / "pyproject.toml" and outer.value("known-tools") == ("deploy",)


def test_the_cli_reads_a_blueprint_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "agents" / "a.leviath", AGENT + "[stages.s.bogus]\n")
    monkeypatch.chdir(tmp_path)
    assert invoke_cli("validate").exit_code == 1
    write(tmp_path / "blueprint.toml", 'ignore = ["schema"]\n')
    result = invoke_cli("validate")
    assert result.exit_code == 0, result.output
    write(tmp_path / "blueprint.toml", 'ignore = ["shcema"]\n')
    result = invoke_cli("validate")
    assert result.exit_code == 2
    assert "blueprint.toml:1:10: ignore: unknown rule or family 'shcema' (did you mean 'schema'?)" in result.stderr


def test_show_settings_names_the_source_of_every_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "blueprint.toml", 'ignore = ["lint"]\nextend-exclude = ["/agents/old/"]\n')
    target = write(tmp_path / "agents" / "old" / "agent.leviath", AGENT)
    monkeypatch.chdir(tmp_path)
    result = invoke_cli("validate", "--show-settings", "--deny-warnings", "agents/old/agent.leviath")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:2] == ["# Settings for agents/old/agent.leviath", "# Configuration: blueprint.toml"]
    assert 'ignore = ["lint"]  # blueprint.toml' in lines
    assert "deny-warnings = true  # --[no-]deny-warnings" in lines
    assert "select = []  # default" in lines and "respect-gitignore = true  # default" in lines
    assert "# rule-docs-url is not set (default)" in lines
    assert every_key_once(lines)
    assert (
        lines[-1]
        == "# A search of '.' leaves this path out: its folder agents/old matches '/agents/old/' in blueprint.toml extend-exclude"
    )
    assert target.read_text(encoding="utf-8") == AGENT  # nothing checked, nothing changed


def every_key_once(lines: list[str]) -> bool:
    named = [line.lstrip("# ").split(" ")[0] for line in lines[2:] if not line.startswith("# A search")]
    return sorted(named) == sorted(KEYS)


def test_show_settings_without_configuration_and_with_a_wrong_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "a.leviath", AGENT)
    monkeypatch.chdir(tmp_path)
    result = invoke_cli("validate", "--show-settings", "a.leviath")
    assert "# Configuration: none found; the defaults apply" in result.stdout
    assert invoke_cli("validate", "--show-settings").exit_code == 2
    assert invoke_cli("validate", "--show-settings", "a.leviath", "a.leviath").exit_code == 2


# --- Leviath installation files are read bounded ------------------------------------------------------


@pytest.mark.parametrize("special", ["/dev/zero", "fifo", "folder"])
def test_a_leviath_file_that_is_a_device_fifo_or_folder_is_refused_at_once(tmp_path: Path, special: str) -> None:
    import os

    from compiler.installation import InstallationError, load_models
    from compiler.installation import load_config as load_leviath_config

    if special == "fifo":
        os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    path = special if special.startswith("/") else str(tmp_path / special)
    for load in (load_leviath_config, load_models):
        with pytest.raises(InstallationError, match="cannot read"):
            load(path)


def test_a_leviath_file_larger_than_the_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler import reading
    from compiler.installation import InstallationError, load_models

    monkeypatch.setattr(reading.read_capped, "__defaults__", (100,))
    big = write(tmp_path / "models.txt", "x" * 101)
    with pytest.raises(InstallationError, match="larger than 100 bytes"):
        load_models(str(big))


def test_a_committed_configuration_naming_a_fifo_stops_validate_with_exit_2(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "models.fifo")
    write(tmp_path / "blueprint.toml", 'leviath-models = "models.fifo"\n')
    write(tmp_path / "agent.leviath", '[agent]\nname = "x"\n[stages.a]\nmode = "autonomous"\n')
    result = invoke_cli("validate", tmp_path / "agent.leviath")
    assert result.exit_code == 2
    assert "models.fifo: cannot read: not a regular file" in result.output


@pytest.mark.parametrize("name", ["pyproject.toml", "blueprint.toml"])
def test_a_fifo_named_as_a_configuration_file_is_a_configuration_error(tmp_path: Path, name: str) -> None:
    import os

    os.mkfifo(tmp_path / name)
    write(tmp_path / "agent.leviath", '[agent]\nname = "x"\n[stages.a]\nmode = "autonomous"\n')
    result = invoke_cli("validate", tmp_path / "agent.leviath")
    assert result.exit_code == 2
    assert f"{name}: cannot read: not a regular file" in result.output


def test_a_device_linked_as_a_configuration_file_is_a_configuration_error(tmp_path: Path) -> None:
    (tmp_path / "blueprint.toml").symlink_to("/dev/zero")
    write(tmp_path / "agent.leviath", '[agent]\nname = "x"\n[stages.a]\nmode = "autonomous"\n')
    result = invoke_cli("validate", tmp_path / "agent.leviath")
    assert result.exit_code == 2 and "blueprint.toml: cannot read: not a regular file" in result.output
