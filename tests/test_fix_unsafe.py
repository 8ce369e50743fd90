"""`--unsafe-fixes`: the names findings suggest ("did you mean 'max_iterations'?") are written
only when asked for, marked apart from `--fix`'s fixes, and refused when they would break the
file."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import Result

from compiler.fix.suggestions import suggestion_fix, suggestion_fixes_for
from compiler.pipeline import validate_text
from tests.conftest import invoke_cli
from tests.helpers import CORPUS, requires_shared

MODEL = 'model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }'
#: `max_iteration` (a misspelt key) and a missing mode (a safe fix).
MISSPELT = f'[agent]\nname = "a"\n\n[stages.work]\n{MODEL}\nmax_iteration = 3  # the cap\n'
SAFE_ONLY = f'[agent]\nname = "a"\n\n[stages.work]\nmode = "autonomous"\n{MODEL}\nmax_iteration = 3  # the cap\n'
FIXED = f'[agent]\nname = "a"\n\n[stages.work]\nmode = "autonomous"\n{MODEL}\nmax_iterations = 3  # the cap\n'
#: An edge to a misspelt stage name.
EDGE = (
    f'[agent]\nname = "e"\n\n[stages.work]\nmode = "autonomous"\n{MODEL}\nmax_iterations = 3\n\n'
    "[stages.work.transitions.reveiw]\n\n"
    f'[stages.review]\nmode = "output"\n{MODEL}\nmax_iterations = 3\n\n[stages.review.transitions]\n'
)


def invoke(*args: str) -> Result:
    return invoke_cli("validate", *args)


def blueprint(tmp_path: Path, text: str, name: str = "a.leviath") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_report_marks_unsafe_fixes_apart(tmp_path: Path) -> None:
    result = invoke(str(blueprint(tmp_path, MISSPELT)))
    lines = result.stdout.splitlines()
    assert any("[stage-missing-mode] [*] " in line for line in lines)
    assert any("error[rejected-key] [~] unknown key 'max_iteration'" in line for line in lines)
    assert lines[-2:] == ["[*] 1 fixable with `--fix`", "[~] 1 fixable with `--fix --unsafe-fixes`"]


def test_check_marks_them_as_validate_does(tmp_path: Path) -> None:
    result = invoke_cli("check", str(blueprint(tmp_path, MISSPELT)))
    assert "error[rejected-key] [~] " in result.stdout
    assert result.stdout.splitlines()[-1] == "[~] 1 fixable with `--fix --unsafe-fixes`"


def test_plain_fix_never_writes_a_suggestion(tmp_path: Path) -> None:
    path = blueprint(tmp_path, MISSPELT)
    result = invoke(str(path), "--fix")
    assert path.read_text(encoding="utf-8") == SAFE_ONLY
    assert "fixed 1 finding in 1 file (1 more fixable with --unsafe-fixes)" in result.stderr
    assert result.exit_code == 1 and "[~] 1 fixable with `--fix --unsafe-fixes`" in result.stdout


def test_unsafe_fixes_writes_the_suggestion_with_the_safe_fixes(tmp_path: Path) -> None:
    path = blueprint(tmp_path, MISSPELT)
    result = invoke(str(path), "--fix", "--unsafe-fixes")
    assert path.read_text(encoding="utf-8") == FIXED  # the comment and every other byte kept
    assert "fixed 2 findings in 1 file" in result.stderr
    assert result.exit_code == 0, result.output
    assert "rejected-key" not in result.stdout and "[~]" not in result.stdout


def test_diff_shows_the_suggestion_only_with_unsafe_fixes(tmp_path: Path) -> None:
    path = blueprint(tmp_path, MISSPELT)
    plain = invoke(str(path), "--diff")
    assert "+max_iterations = 3" not in plain.stdout and "+mode = " in plain.stdout
    assert "1 fixable finding in 1 file (1 more fixable with --unsafe-fixes)" in plain.stderr
    unsafe = invoke(str(path), "--diff", "--unsafe-fixes")
    assert "-max_iteration = 3  # the cap\n+max_iterations = 3  # the cap\n" in unsafe.stdout
    assert "2 fixable findings in 1 file" in unsafe.stderr and "more fixable" not in unsafe.stderr
    assert path.read_text(encoding="utf-8") == MISSPELT


def test_a_misspelt_stage_reference_is_renamed(tmp_path: Path) -> None:
    path = blueprint(tmp_path, EDGE)
    assert "error[unknown-stage] [~] " in invoke(str(path)).stdout
    result = invoke(str(path), "--fix", "--unsafe-fixes")
    assert "[stages.work.transitions.review]\n" in path.read_text(encoding="utf-8")
    assert result.exit_code == 0, result.output


def test_the_configuration_turns_them_on_and_the_flag_off(tmp_path: Path) -> None:
    (tmp_path / "blueprint.toml").write_text("unsafe-fixes = true\n", encoding="utf-8")
    path = blueprint(tmp_path, MISSPELT)
    settings = invoke("--show-settings", str(path)).stdout
    line = next(line for line in settings.splitlines() if line.startswith("unsafe-fixes"))
    assert line.startswith("unsafe-fixes = true  # ") and line.endswith("blueprint.toml"), line
    invoke(str(path), "--fix", "--no-unsafe-fixes")
    assert path.read_text(encoding="utf-8") == SAFE_ONLY
    invoke(str(path), "--fix")
    assert path.read_text(encoding="utf-8") == FIXED


def test_a_bad_value_in_the_configuration_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "blueprint.toml").write_text('unsafe-fixes = "yes"\n', encoding="utf-8")
    result = invoke(str(blueprint(tmp_path, MISSPELT)))
    assert result.exit_code == 2 and "unsafe-fixes must be true or false" in result.stderr


def test_a_suggestion_that_would_break_the_file_is_not_written(tmp_path: Path) -> None:
    text = MISSPELT.replace("max_iteration = 3", "max_iterations = 2\nmax_iteration = 3")
    path = blueprint(tmp_path, text)  # renaming would write the key twice: not TOML any more
    invoke(str(path), "--fix", "--unsafe-fixes")
    assert "max_iteration = 3" in path.read_text(encoding="utf-8")
    assert "[~]" not in invoke(str(path)).stdout


def test_a_suggestion_is_written_only_over_the_token_the_message_quotes() -> None:
    text = (
        f'[agent]\nname = "p"\n[agent.nudge]\ntext = "In {{Stage}} now"\n\n[stages.a]\nmode = "autonomous"\n{MODEL}\n'
    )
    result = validate_text(text)
    placeholder = [d for d in result.diagnostics if d.code == "unknown-placeholder"]
    assert placeholder and placeholder[0].fix == "did you mean '{stage}'?"
    assert suggestion_fix(text, placeholder[0]) is None  # the range is the whole string


def test_a_single_quoted_value_keeps_its_quotes() -> None:
    text = f"[agent]\nname = 'q'\n\n[stages.a]\nmode = 'autonomus'\n{MODEL}\nmax_iterations = 3\n"
    result = validate_text(text)
    fixes = suggestion_fixes_for(result)
    assert [(fix.title, fix.edits[0].new_text) for fix in fixes.values()] == [
        ("Replace 'autonomus' with 'autonomous'", "'autonomous'")
    ]


@requires_shared
def test_typos_in_the_real_blueprints_are_fixed_back_to_the_original(tmp_path: Path) -> None:
    """A key and a value misspelt in each real blueprint: `--fix --unsafe-fixes` writes back
    exactly the original bytes, and plain `--fix` leaves both typos."""
    originals = sorted(CORPUS.glob("*/agent.leviath"))
    assert originals
    copies = []
    for original in originals:
        folder = tmp_path / original.parent.name
        shutil.copytree(original.parent, folder)
        text = original.read_text(encoding="utf-8")
        assert "max_iterations =" in text and '"autonomous"' in text
        typos = text.replace("max_iterations =", "max_iteration =", 1).replace('"autonomous"', '"autonomus"', 1)
        (folder / "agent.leviath").chmod(0o644)  # the corpus is read-only
        (folder / "agent.leviath").write_text(typos, encoding="utf-8")
        copies.append((folder / "agent.leviath", original.read_bytes(), typos))
    assert invoke(str(tmp_path), "--fix").exit_code == 1
    assert all(path.read_text(encoding="utf-8") == typos for path, _, typos in copies)
    result = invoke(str(tmp_path), "--fix", "--unsafe-fixes")
    assert f"fixed {2 * len(copies)} findings in {len(copies)} files" in result.stderr
    assert [path.read_bytes() == original for path, original, _ in copies] == [True] * len(copies)
    assert result.exit_code == 0, result.output
