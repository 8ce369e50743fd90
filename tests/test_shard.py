"""`--shard K/N` and `blueprint merge-reports`: the parts of a tree are disjoint, complete and
balanced, and their merged report is byte for byte the report of one run over the tree."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.cli.errors import CliError
from compiler.cli.shard import parse_shard, shard_files
from compiler.render.merge import MergeError, merge_reports
from tests.conftest import invoke_cli
from tests.helpers import ROOT, SARIF_SCHEMA

EXAMPLES = ROOT / "blueprints"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Nine blueprints in nested folders, with names whose order by path components differs from
    their order as strings (`a/b` before `a.b`), clean ones and ones with errors and notes."""
    root = tmp_path_factory.mktemp("tree")
    examples = sorted(EXAMPLES.glob("*.leviath"))
    places = ["a/agent.leviath", "a.b/agent.leviath", "a/b/x.leviath", "z.leviath", "m/n/o/p.leviath", "b-c.leviath"]
    for place, example in zip(places, examples):
        (root / place).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(example, root / place)
    (root / "broken").mkdir()
    (root / "broken" / "agent.leviath").write_text('[agent]\nname = "x"\n\n[stages.s]\nmode = "autonomus"\n')
    (root / "syntax.leviath").write_text("[agent\n")
    (root / "a" / "typo.leviath").write_text(
        '[agent]\nname = "t"\nentry_stage = "s"\n\n[stages.s]\nmode = "autonomous"\n\n[stages.s.transitions.nowhere]\n'
    )
    return root


def blueprint(tree: Path, *args: str) -> tuple[int, str]:
    """`blueprint ARGS` run in `tree`, as a user runs it there: its exit status and stdout."""
    result = invoke_cli(*args, cwd=tree)
    return result.exit_code, result.stdout


def test_parts_are_disjoint_complete_and_balanced(tree: Path) -> None:
    files = tuple(f"f{i}" for i in range(23))
    for parts in range(1, 8):
        chosen = [shard_files(files, (k, parts)) for k in range(1, parts + 1)]
        assert sorted(f for part in chosen for f in part) == sorted(files)
        sizes = [len(part) for part in chosen]
        assert max(sizes) - min(sizes) <= 1, sizes


@pytest.mark.parametrize("command", ["validate", "check"])
@pytest.mark.parametrize("output_format", ["json", "sarif"])
@pytest.mark.parametrize("parts", [2, 3, 4])
def test_merged_shards_are_the_whole_report(tree: Path, command: str, output_format: str, parts: int) -> None:
    status, whole = blueprint(tree, command, ".", "--format", output_format)
    assert status == 1  # the tree holds errors
    for k in range(1, parts + 1):
        status, text = blueprint(tree, command, ".", "--shard", f"{k}/{parts}", "--format", output_format)
        assert status in (0, 1)
        (tree.parent / f"{tree.name}-{command}-{k}.{output_format}").write_text(text)
    names = [str(tree.parent / f"{tree.name}-{command}-{k}.{output_format}") for k in reversed(range(1, parts + 1))]
    status, merged = blueprint(tree, "merge-reports", *names)
    assert merged == whole
    assert status == 1  # as one run over the tree exits


def test_every_file_is_in_exactly_one_shard(tree: Path) -> None:
    _, whole = blueprint(tree, "validate", ".", "--format", "json")
    everything = [entry["path"] for entry in json.loads(whole)["files"]]
    seen: list[str] = []
    for k in (1, 2, 3):
        _, text = blueprint(tree, "validate", ".", "--shard", f"{k}/3", "--format", "json")
        seen += [entry["path"] for entry in json.loads(text)["files"]]
    assert sorted(seen) == sorted(everything) and len(everything) == 9


def test_merged_sarif_is_valid_against_the_official_schema(tree: Path) -> None:
    if not SARIF_SCHEMA.is_file():
        pytest.skip("../shared/data/sarif is not present (fresh clone)")
    import jsonschema

    logs = [
        (f"s{k}", json.loads(blueprint(tree, "check", ".", "--shard", f"{k}/2", "--format", "sarif")[1]))
        for k in (1, 2)
    ]
    merged = merge_reports(logs)
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(merged)
    (run,) = merged["runs"]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert rules == sorted(rules)
    assert all(rules[result["ruleIndex"]] == result["ruleId"] for result in run["results"])


def test_an_empty_shard_checks_nothing_and_passes(tree: Path) -> None:
    status, text = blueprint(tree, "validate", ".", "--shard", "12/12", "--format", "json")
    assert status == 0
    assert json.loads(text)["summary"] == {"files": 0, "errors": 0, "warnings": 0, "notes": 0}


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("0/3", "from 1 to N"),
        ("4/3", "from 1 to N"),
        ("1/0", "from 1 to N"),
        ("x", "takes K/N"),
        ("1/2/3", "takes K/N"),
    ],
)
def test_a_bad_spec_is_a_usage_error(tree: Path, spec: str, words: str) -> None:
    with pytest.raises(CliError, match=words):
        parse_shard(spec)
    status, _ = blueprint(tree, "validate", ".", "--shard", spec)
    assert status == 2


def test_what_cannot_be_merged_is_refused_with_the_reason(tmp_path: Path) -> None:
    report = {
        "version": 1,
        "files": [{"path": "a.leviath", "diagnostics": []}],
        "summary": dict.fromkeys(("files", "errors", "warnings", "notes"), 0),
    }
    sarif = {"version": "2.1.0", "runs": []}
    with pytest.raises(MergeError, match="the shards overlap"):
        merge_reports([("one", report), ("two", report)])
    with pytest.raises(MergeError, match="one format at a time"):
        merge_reports([("one", report), ("two", sarif)])
    with pytest.raises(MergeError, match="neither"):
        merge_reports([("one", [1, 2])])
    with pytest.raises(MergeError, match="report version"):
        merge_reports([("one", report), ("two", report | {"version": 2, "files": []})])
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1,\n  "files": [\n')
    result = invoke_cli("merge-reports", bad)
    assert result.exit_code == 2
    assert re.search(r"bad\.json:3:1: not JSON", result.stderr)


def test_the_ci_recipe_runs_as_written(tree: Path, tmp_path: Path) -> None:
    """docs/ci.md's matrix recipe: each job's commands, run in turn as the matrix would run them,
    leave a merged log equal to one run's."""
    import yaml

    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- sharded-recipe -->\s*```yaml\n(.*?)```", text, re.S)
    assert block, "docs/ci.md has no sharded recipe"
    workflow = yaml.safe_load(block[1])
    shard_job, merge_job = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    work = tmp_path / "checkout"
    shutil.copytree(tree, work)
    bin_dir = Path(sys.executable).parent
    env = os.environ | {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    steps = [step["run"] for step in shard_job["steps"] if "run" in step and "pip install" not in step["run"]]
    for shard in shard_job["strategy"]["matrix"]["shard"]:
        total = len(shard_job["strategy"]["matrix"]["shard"])
        for script in steps:
            script = script.replace("${{ matrix.shard }}", str(shard)).replace("${{ strategy.job-total }}", str(total))
            subprocess.run(["bash", "-c", script], cwd=work, env=env, check=False)
        # upload-artifact, then download-artifact into shards/: one folder per job
        (work / "shards" / f"shard-{shard}").mkdir(parents=True)
        shutil.move(work / "shard.sarif", work / "shards" / f"shard-{shard}" / "shard.sarif")
    for step in merge_job["steps"]:
        if "run" in step and "pip install" not in step["run"]:
            subprocess.run(["bash", "-c", step["run"]], cwd=work, env=env, check=False)
    whole = subprocess.run(
        [str(bin_dir / "blueprint"), "validate", ".", "--format", "sarif"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert (work / "blueprints.sarif").read_text() == whole.stdout
