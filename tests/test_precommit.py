"""The pre-commit hook (.pre-commit-hooks.yaml): its manifest, its `files` pattern, its entry,
and real `pre-commit run`s of the hooks from a copy of this checkout.

The first real run builds the hook's virtual environment the way a user's pre-commit does
(pip-installing the project and its dependencies from PyPI), so it is slow and needs the
network; the others reuse it (one pre-commit store for the session). They are marked `slow`
(`pytest -m "not slow"` leaves them out) but run by default.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from compiler.cli.app import COMMANDS
from compiler.discover import is_blueprint_name
from tests.helpers import ROOT

yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit (the 'test' extra)")

MANIFEST = ROOT / ".pre-commit-hooks.yaml"
HOOK_ID = "blueprint-validate"
TEST_HOOK_ID = "blueprint-test"
#: Every hook of the manifest, in order (`blueprint-diff`: its entry is tested in test_diff_cli.py).
HOOK_IDS = [HOOK_ID, "blueprint-diff", TEST_HOOK_ID]

GOOD = (ROOT / "blueprints" / "linear-pipeline.leviath").read_text(encoding="utf-8")
BAD = '[agent]\nname = "bad"\n\n[stages.plan]\n\n[stages.plan.transitions.reviw]\n'

#: Paths (as pre-commit passes them: relative to the repository root) the hook must check.
MATCHING = [
    "agent.leviath",
    "agents/coder/agent.leviath",
    "review-loop.leviath",
    "a.leviath",
    "deep/nested/dir/x.y.leviath",
    ".github/agents/agent.leviath",
    "with space/a b.leviath",
    "-dash.leviath",
    "日本/エージェント.leviath",
]
#: Paths it must leave alone.
NOT_MATCHING = [
    "agent.toml",
    "agent.leviath.bak",
    "agent.leviath~",
    "agent.leviath.toml",
    "agent.leviath/README.md",
    "agent.Leviath",
    "AGENT.LEVIATH",
    "x.leviathan",
    "agentleviath",
    "leviath",
    ".leviath",
    "dir/.leviath",
    ".hidden.leviath",
    "dir/.hidden.leviath",
    "agent.leviath\n",
    "README.md",
]


@pytest.fixture(scope="module")
def hook() -> dict:
    hooks = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    (found,) = [h for h in hooks if h.get("id") == HOOK_ID]
    return found


def test_the_manifest_is_valid_for_pre_commit() -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib")
    hooks = clientlib.load_manifest(str(MANIFEST))
    assert [h["id"] for h in hooks] == HOOK_IDS


def test_the_hook_declares_what_users_rely_on(hook: dict) -> None:
    assert hook["language"] == "python"
    assert hook["entry"] == "blueprint validate"
    assert hook["require_serial"] is False
    assert re.fullmatch(r"\d+\.\d+\.\d+", hook["minimum_pre_commit_version"])
    assert "types" not in hook, "identify has no tag for .leviath files; `files` selects them"
    assert hook["name"] and hook["description"]


@pytest.mark.parametrize("path", MATCHING)
def test_files_matches_blueprints(hook: dict, path: str) -> None:
    assert re.search(hook["files"], path), path


@pytest.mark.parametrize("path", NOT_MATCHING)
def test_files_matches_nothing_else(hook: dict, path: str) -> None:
    assert not re.search(hook["files"], path), path


@pytest.mark.parametrize("path", MATCHING + NOT_MATCHING)
def test_files_agrees_with_directory_search(hook: dict, path: str) -> None:
    """The hook checks a file exactly when `blueprint validate DIR` would find it by name."""
    assert bool(re.search(hook["files"], path)) == is_blueprint_name(path.rsplit("/", 1)[-1])


def test_the_entry_is_our_console_script_and_command(hook: dict) -> None:
    script, command, *rest = shlex.split(hook["entry"])
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert script in scripts
    assert command in COMMANDS
    assert rest == []


def test_the_entry_runs_as_pre_commit_runs_it(hook: dict, tmp_path: Path) -> None:
    """pre-commit appends the matching files to the entry; exit 0 passes, anything else fails."""
    script, *args = shlex.split(hook["entry"])
    executable = shutil.which(script, path=str(Path(sys.executable).parent))
    if executable is None:
        pytest.skip(f"the '{script}' console script is not installed next to {sys.executable}")
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "good.leviath").write_text(GOOD, encoding="utf-8")
    (tmp_path / "agents" / "bad.leviath").write_text(BAD, encoding="utf-8")

    def run(*files: str) -> subprocess.CompletedProcess:
        return subprocess.run([executable, *args, *files], cwd=tmp_path, capture_output=True, text=True, timeout=120)

    good = run("agents/good.leviath")
    assert good.returncode == 0, good.stdout + good.stderr
    both = run("agents/good.leviath", "agents/bad.leviath")
    assert both.returncode == 1, both.stdout + both.stderr
    assert "agents/bad.leviath:6:26: error[unknown-stage]" in both.stdout
    assert "agents/good.leviath" not in both.stdout


def test_the_documented_recipes_parse_and_name_the_hook() -> None:
    """Every YAML example in docs/ci.md is valid YAML; the pre-commit one names our hook."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    blocks = [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", text, flags=re.S)]
    assert len(blocks) >= 4
    configs = [block for block in blocks if isinstance(block, dict) and "repos" in block]
    named = [hook["id"] for config in configs for repo in config["repos"] for hook in repo["hooks"]]
    assert named[0] == HOOK_ID and set(named) == set(HOOK_IDS)


# --- the scenario hook ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def test_hook() -> dict:
    hooks = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    (found,) = [h for h in hooks if h.get("id") == TEST_HOOK_ID]
    return found


def test_the_scenario_hook_runs_every_scenario(test_hook: dict) -> None:
    """A scenario tests a blueprint as a whole: the hook takes no file names and runs them all."""
    script, command, *rest = shlex.split(test_hook["entry"])
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert script in scripts and command == "test" and command in COMMANDS and rest == []
    assert test_hook["pass_filenames"] is False
    assert test_hook["language"] == "python"


@pytest.mark.parametrize(
    ("path", "runs"),
    [
        ("agents/agent.leviath", True),
        ("agents/agent.scenarios.toml", True),
        ("runs/review.ndjson", True),
        ("pyproject.toml", False),
        ("agents/.hidden.scenarios.toml", False),
        ("README.md", False),
    ],
)
def test_the_scenario_hook_runs_when_a_blueprint_or_scenario_changes(test_hook: dict, path: str, runs: bool) -> None:
    assert bool(re.search(test_hook["files"], path)) == runs


def test_the_scenario_hook_entry_passes_and_fails(tmp_path: Path) -> None:
    """`blueprint test` with no paths, as the hook runs it, in a repository with scenarios."""
    executable = shutil.which("blueprint", path=str(Path(sys.executable).parent))
    if executable is None:
        pytest.skip(f"the 'blueprint' console script is not installed next to {sys.executable}")
    (tmp_path / "agent.leviath").write_text(GOOD, encoding="utf-8")
    scenario = '[[scenario]]\nname = "s"\nscript = [{ stage = "collect", do = ["call list_dir"] }]\nexpect = { status = "%s" }\n'
    (tmp_path / "agent.scenarios.toml").write_text(scenario % "unfinished", encoding="utf-8")
    passed = subprocess.run([executable, "test"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    (tmp_path / "agent.scenarios.toml").write_text(scenario % "complete", encoding="utf-8")
    failed = subprocess.run([executable, "test"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "agent.scenarios.toml:4:21: error[expectation-failed]" in failed.stdout


# --- a real run ---------------------------------------------------------------------------------

#: What a checkout holds that is not the project: never copied into the hook repository.
_NOT_PROJECT = shutil.ignore_patterns(
    ".git",
    "__pycache__",
    "*.pyc",
    "*.egg-info",
    ".pytest_cache",
    ".hypothesis",
    ".ruff_cache",
    ".mypy_cache",
    ".venv",
    "venv",
    "build",
    "dist",
)


def _git_env() -> dict[str, str]:
    """The environment without a caller's GIT_* variables (a hook may set GIT_INDEX_FILE)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for role in ("AUTHOR", "COMMITTER"):
        env[f"GIT_{role}_NAME"] = "blueprint tests"
        env[f"GIT_{role}_EMAIL"] = "tests@blueprint.invalid"
    return env


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        env=_git_env(),
        check=True,
        capture_output=True,
        timeout=120,
    )


@pytest.fixture(scope="session")
def hook_repository(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This checkout's working tree, committed in a repository of its own, and that commit.

    pre-commit reads a hook repository at a commit: in a checkout with uncommitted changes it
    would see tracked files only, so new files (the manifest itself, before it is committed)
    would be missing. A committed copy of the working tree is what a user would clone.
    """
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    pytest.importorskip("pre_commit")
    repo = tmp_path_factory.mktemp("hook") / "blueprint-compiler"
    shutil.copytree(ROOT, repo, ignore=_NOT_PROJECT)
    _git("init", "-q", cwd=repo)
    _git("add", "-A", cwd=repo)
    _git("commit", "-q", "--no-verify", "-m", "snapshot", cwd=repo)
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True).stdout
    return repo, rev.strip()


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit store for the session: the hook's environment is built by the first run
    (pip-installing the project as a user's pre-commit does) and reused by the others."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _pre_commit(
    hook_repository: tuple[Path, str], home: Path, project: Path, hook_id: str, *args: str
) -> subprocess.CompletedProcess:
    """`pre-commit run HOOK` in `project`, with a configuration naming the hook repository at
    its commit (kept outside the project, as a user's is inside theirs: the hook sees no file
    of it)."""
    repo, rev = hook_repository
    config = project.parent / "pre-commit-config.yaml"
    config.write_text(yaml.safe_dump({"repos": [{"repo": str(repo), "rev": rev, "hooks": [{"id": hook_id}]}]}))
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--color=never", "--config", str(config), hook_id, *args],
        cwd=project,
        env={**_git_env(), "PRE_COMMIT_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=1200,
    )


@pytest.mark.slow
@pytest.mark.parametrize(("blueprint", "expected"), [("good", 0), ("bad", 1)])
def test_pre_commit_runs_the_hook(
    hook_repository: tuple[Path, str], pre_commit_home: Path, tmp_path: Path, blueprint: str, expected: int
) -> None:
    project = tmp_path / "project"
    (project / "agents").mkdir(parents=True)
    (project / "agents" / "agent.leviath").write_text(GOOD if blueprint == "good" else BAD, encoding="utf-8")
    # Not blueprints: the hook must not be handed them (each would fail if it were).
    (project / "config.toml").write_text("not = [valid toml\n", encoding="utf-8")
    (project / "agents" / "agent.leviath.bak").write_text(BAD, encoding="utf-8")
    _git("init", "-q", cwd=project)
    _git("add", "-A", cwd=project)

    done = _pre_commit(hook_repository, pre_commit_home, project, HOOK_ID, "--all-files")
    output = done.stdout + done.stderr
    assert done.returncode == expected, output
    if blueprint == "good":
        assert re.search(r"validate agent blueprints\.+Passed", output), output
    else:
        assert re.search(r"validate agent blueprints\.+Failed", output), output
        assert "agents/agent.leviath:6:26: error[unknown-stage]" in output
        assert "agent.leviath.bak" not in output and "config.toml" not in output


@pytest.mark.slow
def test_pre_commit_runs_the_diff_hook(
    hook_repository: tuple[Path, str], pre_commit_home: Path, tmp_path: Path
) -> None:
    """A real pre-commit run of `blueprint-diff` on a staged change: breaking fails the commit."""
    project = tmp_path / "project"
    (project / "agents").mkdir(parents=True)
    base = (ROOT / "tests" / "diff_cases" / "budget-raised" / "build-revisits.old.leviath").read_text(encoding="utf-8")
    (project / "agents" / "agent.leviath").write_text(base, encoding="utf-8")
    _git("init", "-q", cwd=project)
    _git("add", "-A", cwd=project)
    _git("commit", "-q", "--no-verify", "-m", "base", cwd=project)

    risky_text = base.replace("max_revisits = 2", "max_revisits = 4", 1)
    (project / "agents" / "agent.leviath").write_text(risky_text, encoding="utf-8")
    _git("add", "-A", cwd=project)
    risky = _pre_commit(hook_repository, pre_commit_home, project, "blueprint-diff")
    assert risky.returncode == 0, risky.stdout + risky.stderr
    assert re.search(r"review agent blueprint changes\.+Passed", risky.stdout)
    (project / "agents" / "agent.leviath").write_text(base.replace('name = "shop"', 'name = "store"'), encoding="utf-8")
    _git("add", "-A", cwd=project)
    breaking = _pre_commit(hook_repository, pre_commit_home, project, "blueprint-diff")
    assert breaking.returncode == 1, breaking.stdout + breaking.stderr
    assert re.search(r"review agent blueprint changes\.+Failed", breaking.stdout)
    assert "agent renamed from 'shop' to 'store'" in breaking.stdout
