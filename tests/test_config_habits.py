"""Configuration habits from ruff: `--config FILE`, `--extend-select` (and `extend-select`),
`per-file-ignores`, and configuration mistakes placed at their line and column."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import Result

from tests.conftest import invoke_cli

#: One warning (`unused-suppression`: the comment names no rule) and nothing else that fails.
WARNING_ONLY = '[agent]\nname = "w"  # blueprint: ignore[no-such-rule]\n'


def run(*args: str) -> Result:
    return invoke_cli(*args)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def codes(result: Result) -> list[str]:
    return [line.split("[", 1)[1].split("]", 1)[0] for line in result.stdout.splitlines() if ": warning[" in line]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write(tmp_path / "agents" / "a.leviath", WARNING_ONLY)
    write(tmp_path / "tests" / "fixtures" / "b.leviath", WARNING_ONLY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- --config FILE -------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["validate", "check"])
def test_config_file_is_read_for_every_blueprint_instead_of_the_nearest(project: Path, command: str) -> None:
    write(project / "blueprint.toml", "deny-warnings = true\n")
    assert run(command, ".").exit_code == 1
    write(project / "ci" / "strict.toml", 'ignore = ["unused-suppression"]\n')
    result = run(command, ".", "--config", "ci/strict.toml")
    assert result.exit_code == 0, result.output
    assert "Checked 2 files: 0 errors, 0 warnings" in result.stdout


def test_config_file_may_be_a_pyproject_and_shows_in_show_settings(project: Path) -> None:
    write(project / "ci" / "pyproject.toml", '[tool.blueprint]\nignore = ["meta"]\n')
    shown = run("validate", "--show-settings", "agents/a.leviath", "--config", "ci/pyproject.toml").stdout
    assert "# Configuration: ci/pyproject.toml [tool.blueprint]" in shown.splitlines()
    assert 'ignore = ["meta"]  # ci/pyproject.toml [tool.blueprint]' in shown.splitlines()


@pytest.mark.parametrize(
    ("body", "name", "expected"),
    [
        (None, "missing.toml", "Error: missing.toml: no such configuration file"),
        ('[project]\nname = "x"\n', "pyproject.toml", "Error: pyproject.toml: has no [tool.blueprint] table"),
        (
            'select = ["all"]\nignore = ["lnt"]\n',
            "ci.toml",
            "Error: ci.toml:2:10: ignore: unknown rule or family 'lnt'",
        ),
        ("select = [\n", "ci.toml", "Error: ci.toml:2:1: not valid TOML: Invalid value"),
        (b"select = [\xff]\n", "ci.toml", "Error: ci.toml: not valid TOML"),
        ('select = "all"\n', "ci.toml", "Error: ci.toml:1:10: select must be a list of strings, not a string"),
        ("\n\nslect = []\n", "ci.toml", "Error: ci.toml:3:1: unknown key 'slect' (did you mean 'select'?)"),
        ("a = = 1\n", "ci.toml", "Error: ci.toml:1:5: not valid TOML: Invalid value"),
    ],
)
def test_a_config_file_that_cannot_be_used_is_a_usage_error_with_its_position(
    project: Path, body: str | bytes | None, name: str, expected: str
) -> None:
    if isinstance(body, bytes):
        (project / name).write_bytes(body)
    elif body is not None:
        write(project / name, body)
    result = run("validate", ".", "--config", name)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(expected), result.stderr


def test_a_pyproject_mistake_is_placed_inside_its_table(project: Path) -> None:
    write(project / "pyproject.toml", '[project]\nname = "x"\n\n[tool.blueprint]\nknown-tools = [1]\n')
    result = run("validate", ".")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "Error: pyproject.toml:5:15: [tool.blueprint] known-tools must be a list of strings"
    )


# --- --extend-select -----------------------------------------------------------------------


def test_extend_select_adds_to_the_configured_select(project: Path) -> None:
    write(project / "blueprint.toml", 'select = ["toml-syntax"]\n')
    assert codes(run("validate", ".")) == []
    assert codes(run("validate", ".", "--extend-select", "unused-suppression")) == ["unused-suppression"] * 2
    # --select replaces the configuration's select; --extend-select adds to the flag's
    assert codes(run("validate", ".", "--select", "schema", "--extend-select", "meta")) == ["unused-suppression"] * 2


def test_extend_select_in_the_configuration_and_with_every_rule(project: Path) -> None:
    write(project / "blueprint.toml", 'select = ["toml-syntax"]\nextend-select = ["meta"]\n')
    assert codes(run("validate", ".")) == ["unused-suppression"] * 2
    assert codes(run("validate", ".", "--select", "toml-syntax")) == []  # the flag replaces both keys
    write(project / "blueprint.toml", 'extend-select = ["meta"]\nignore = ["meta"]\n')
    assert codes(run("validate", ".")) == []  # every rule is selected already; ignore still wins


def test_an_unknown_rule_in_extend_select_is_a_usage_error(project: Path) -> None:
    result = run("validate", ".", "--extend-select", "mta")
    assert (
        result.exit_code == 2
        and "--extend-select: unknown rule or family 'mta' (did you mean 'meta'?)" in result.stderr
    )


# --- per-file-ignores ---------------------------------------------------------------------


def test_per_file_ignores_drop_rules_in_the_files_a_pattern_matches(project: Path) -> None:
    write(project / "blueprint.toml", 'per-file-ignores = { "tests/" = ["unused-suppression"] }\n')
    result = run("validate", ".", "--format", "concise")
    assert result.exit_code == 0
    assert [line.split(":")[0] for line in result.stdout.splitlines() if "[unused-suppression]" in line] == [
        "agents/a.leviath"
    ]
    # --ignore replaces `ignore`, but the per-file rules still apply
    assert "tests/fixtures/b.leviath" not in run("validate", ".", "--ignore", "schema", "--format", "concise").stdout


def test_per_file_ignores_in_a_pyproject_table_with_glob_patterns(project: Path) -> None:
    write(project / "pyproject.toml", '[tool.blueprint.per-file-ignores]\n"**/fixtures/*.leviath" = ["meta"]\n')
    shown = run("validate", "--show-settings", "tests/fixtures/b.leviath").stdout
    assert 'per-file-ignores = { "**/fixtures/*.leviath" = ["meta"] }  # pyproject.toml [tool.blueprint]' in shown
    assert '# per-file-ignores drop ["meta"] in this file' in shown.splitlines()
    assert "per-file-ignores drop" not in run("validate", "--show-settings", "agents/a.leviath").stdout
    assert "Checked 2 files: 0 errors, 1 warning" in run("validate", ".").stdout


def test_per_file_ignores_apply_to_standard_input_under_its_name(project: Path) -> None:
    write(project / "blueprint.toml", 'per-file-ignores = { "tests/" = ["meta"] }\n')
    args = ["validate", "-", "--stdin-filename"]
    kept = invoke_cli(*args, "agents/x.leviath", input=WARNING_ONLY)
    dropped = invoke_cli(*args, "tests/x.leviath", input=WARNING_ONLY)
    assert "unused-suppression" in kept.stdout and "unused-suppression" not in dropped.stdout


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('per-file-ignores = ["x"]\n', "1:20: per-file-ignores must be a table of patterns"),
        ('per-file-ignores = { "tests/" = ["nope"] }\n', "1:20: per-file-ignores 'tests/': unknown rule or family"),
        ('per-file-ignores = { "tests/" = "meta" }\n', "1:20: per-file-ignores 'tests/' must be a list of strings"),
        ('per-file-ignores = { "!" = ["meta"] }\n', "1:20: per-file-ignores '!': '!' is not a valid pattern"),
    ],
)
def test_mistakes_in_per_file_ignores(project: Path, body: str, expected: str) -> None:
    write(project / "blueprint.toml", body)
    result = run("validate", ".")
    assert result.exit_code == 2 and f"Error: blueprint.toml:{expected}" in result.stderr, result.stderr


def test_the_flags_are_in_help() -> None:
    for command in ("validate", "check"):
        text = run(command, "--help").stdout
        assert "--config FILE" in text and "--extend-select RULES" in text and "--exit-zero" in text


def test_the_language_server_applies_per_file_ignores(project: Path) -> None:
    pytest.importorskip("lsprotocol")
    from compiler.lsp.diagnostics import project_settings

    write(project / "blueprint.toml", 'per-file-ignores = { "tests/" = ["meta"] }\n')
    inside, problem = project_settings(str(project / "tests" / "fixtures" / "b.leviath"))
    outside, _ = project_settings(str(project / "agents" / "a.leviath"))
    assert problem is None and "meta" in inside.ignore and "meta" not in outside.ignore
