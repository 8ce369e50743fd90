"""`[tool.blueprint]`: reading it, finding it, and how flags override it."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler import config as config_module
from compiler.config import (
    ConfigError,
    ConfigFinder,
    FileConfig,
    Overrides,
    Settings,
    check_rule_names,
    load_config,
    settings_for,
)


def pyproject(directory: Path, body: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "pyproject.toml"
    path.write_text(body, encoding="utf-8")
    return path


def test_reads_every_key(tmp_path: Path) -> None:
    path = pyproject(
        tmp_path,
        '[tool.blueprint]\nselect = ["syntax", "toml-syntax"]\nignore = ["meta"]\n'
        'known-tools = ["deploy"]\ndeny-warnings = true\n',
    )
    assert load_config(path) == FileConfig(
        path=path, select=("syntax", "toml-syntax"), ignore=("meta",), known_tools=("deploy",), deny_warnings=True
    )


def test_the_default_iteration_cap_is_read_and_a_flag_replaces_it(tmp_path: Path) -> None:
    path = pyproject(tmp_path, "[tool.blueprint]\ndefault-max-iterations = 20\n")
    config = load_config(path)
    assert config == FileConfig(path=path, default_max_iterations=20)
    assert settings_for(config).default_max_iterations == 20
    assert settings_for(config, Overrides(default_max_iterations=0)).default_max_iterations == 0
    assert settings_for(None).default_max_iterations == Settings().default_max_iterations == 50


@pytest.mark.parametrize("value", ["-1", "true", '"50"', "2.5", "[3]"])
def test_the_default_iteration_cap_must_be_a_whole_number(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError, match="default-max-iterations must be a whole number of 0 or more"):
        load_config(pyproject(tmp_path, f"[tool.blueprint]\ndefault-max-iterations = {value}\n"))


def test_a_pyproject_without_the_table_has_no_configuration(tmp_path: Path) -> None:
    assert load_config(pyproject(tmp_path, '[project]\nname = "x"\n[tool.other]\na = 1\n')) is None


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('[tool.blueprint]\nselct = ["all"]\n', "unknown key 'selct' in [tool.blueprint] (did you mean 'select'?)"),
        ('[tool.blueprint]\nselect = "all"\n', "select must be a list of strings, not a string"),
        ("[tool.blueprint]\nignore = [1]\n", "ignore must be a list of strings"),
        ('[tool.blueprint]\ndeny-warnings = "yes"\n', "deny-warnings must be true or false, not a string"),
        (
            '[tool.blueprint]\nignore = ["toml-syntx"]\n',
            "unknown rule or family 'toml-syntx' (did you mean 'toml-syntax'?)",
        ),
        ("[tool]\nblueprint = 3\n", "[tool.blueprint] must be a table"),
        ("[tool.blueprint\n", "not valid TOML"),
    ],
)
def test_invalid_configuration_names_the_file_and_the_key(tmp_path: Path, body: str, expected: str) -> None:
    path = pyproject(tmp_path, body)
    with pytest.raises(ConfigError) as caught:
        load_config(path, "proj/pyproject.toml")
    assert str(caught.value).startswith("proj/pyproject.toml")
    assert expected in str(caught.value)


def test_rule_names_are_codes_families_or_all() -> None:
    assert check_rule_names(["toml-syntax", "lint", "all", "ALL"], "--select") == ("toml-syntax", "lint", "all", "ALL")
    with pytest.raises(ConfigError, match="--select: unknown rule or family 'nope'"):
        check_rule_names(["nope"], "--select")


def test_the_nearest_pyproject_with_the_table_wins(tmp_path: Path) -> None:
    pyproject(tmp_path, '[tool.blueprint]\nignore = ["meta"]\n')
    pyproject(tmp_path / "project", '[project]\nname = "no table here"\n')
    pyproject(tmp_path / "project" / "inner", '[tool.blueprint]\nselect = ["syntax"]\n')
    finder = ConfigFinder()
    inner = finder.for_file(tmp_path / "project" / "inner" / "deep" / "agent.leviath")
    outer = finder.for_file(tmp_path / "project" / "agent.leviath")
    assert inner is not None and inner.select == ("syntax",)
    assert outer is not None and outer.ignore == ("meta",) and outer.path == tmp_path / "pyproject.toml"


def test_each_directory_and_file_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pyproject(tmp_path, '[tool.blueprint]\nignore = ["meta"]\n')
    calls: list[Path] = []
    real = config_module.load_config

    def counting(path: Path, display: str | None = None):
        calls.append(path)
        return real(path, display)

    monkeypatch.setattr(config_module, "load_config", counting)
    finder = ConfigFinder()
    for name in ("a/agent.leviath", "a/b.leviath", "c/d/agent.leviath"):
        assert finder.for_file(tmp_path / name) is not None
    assert calls == [tmp_path / "pyproject.toml"]


def test_flags_replace_the_keys_they_name() -> None:
    file_config = FileConfig(
        path=Path("pyproject.toml"), select=("lint",), ignore=("meta",), known_tools=("x",), deny_warnings=True
    )
    assert settings_for(file_config) == Settings(
        select=("lint",), ignore=("meta",), known_tools=("x",), deny_warnings=True
    )
    overridden = settings_for(file_config, Overrides(select=("syntax",), deny_warnings=False))
    assert overridden == Settings(select=("syntax",), ignore=("meta",), known_tools=("x",), deny_warnings=False)
    assert settings_for(None, Overrides(ignore=("lint",))) == Settings(ignore=("lint",))


def test_enabled_by_code_family_and_all() -> None:
    assert Settings().enabled("toml-syntax", "syntax")
    assert Settings(select=("syntax",)).enabled("toml-syntax", "syntax")
    assert not Settings(select=("lint",)).enabled("toml-syntax", "syntax")
    assert not Settings(select=("all",), ignore=("toml-syntax",)).enabled("toml-syntax", "syntax")
    assert Settings(select=("ALL",)).enabled("anything", "lint")
