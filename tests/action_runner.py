"""Runs the shell steps of `action.yml` the way a GitHub runner runs a composite action.

Each `run:` step goes to bash with its `env:` (whose `${{ … }}` expressions are evaluated
here), `GITHUB_OUTPUT`, `GITHUB_PATH` and `RUNNER_TEMP` files, and the step's `if:`
decides whether it runs. `uses:` steps are not run: they are other people's actions (the
test checks which ones they are). The expression language covered is the one the action
uses: `inputs.*`, `github.action_path`, `steps.<id>.outputs.*`, string literals, `==`, `!=`,
`&&` and `!cancelled()`; anything else fails loudly.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.helpers import ROOT

ACTION = ROOT / "action.yml"
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_TOKEN = re.compile(r"\s*(?:(?P<ref>[A-Za-z_][\w.-]*)|'(?P<str>[^']*)'|(?P<op>==|!=|&&|!cancelled\(\)))")


def load_action() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


@dataclass
class StepRun:
    name: str
    ran: bool
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""


@dataclass
class ActionRun:
    steps: list[StepRun] = field(default_factory=list)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)

    def step(self, name: str) -> StepRun:
        return next(s for s in self.steps if s.name == name)

    @property
    def failed(self) -> bool:
        return any(s.ran and s.returncode != 0 for s in self.steps)


def run_action(workspace: Path, inputs: dict[str, str], path: list[str], runner_temp: Path) -> ActionRun:
    """Every step of the action in `workspace`, with `path` first on PATH."""
    action = load_action()
    values = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    unknown = set(inputs) - set(values)
    assert not unknown, f"the action has no input {unknown}"
    values.update(inputs)
    run = ActionRun()
    for number, step in enumerate(action["runs"]["steps"]):
        name = step["name"]
        context = {"inputs": values, "steps": run.outputs, "action_path": str(ROOT)}
        if "if" in step and not _condition(step["if"], context):
            run.steps.append(StepRun(name, ran=False))
            continue
        if "uses" in step:
            run.steps.append(StepRun(name, ran=False))
            continue
        output = runner_temp / f"output-{number}"
        output.write_text("", encoding="utf-8")
        env = {
            **{k: v for k, v in os.environ.items() if k not in ("BLUEPRINT_DEBUG", "FORCE_COLOR", "NO_COLOR")},
            "PATH": os.pathsep.join([*path, os.environ.get("PATH", "")]),
            "GITHUB_OUTPUT": str(output),
            "GITHUB_PATH": str(runner_temp / "path"),
            "RUNNER_TEMP": str(runner_temp),
            "GITHUB_ACTIONS": "true",
        }
        env.update({key: _interpolate(str(value), context) for key, value in step.get("env", {}).items()})
        assert step["shell"] == "bash"
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        run.steps.append(StepRun(name, True, done.returncode, done.stdout, done.stderr))
        if "id" in step:
            run.outputs[step["id"]] = _outputs(output.read_text(encoding="utf-8"))
        if done.returncode != 0:
            break
    return run


def _outputs(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def _lookup(reference: str, context: dict[str, Any]) -> str:
    parts = reference.split(".")
    if parts[0] == "inputs" and len(parts) == 2:
        return context["inputs"][parts[1]]
    if parts[:2] == ["github", "action_path"] and len(parts) == 2:
        return context["action_path"]
    if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
        return context["steps"].get(parts[1], {}).get(parts[3], "")
    raise AssertionError(f"expression not understood: {reference}")


def _interpolate(text: str, context: dict[str, Any]) -> str:
    return _EXPRESSION.sub(lambda m: _lookup(m.group(1), context), text)


def _condition(text: str, context: dict[str, Any]) -> bool:
    inner = _EXPRESSION.fullmatch(text.strip())
    expression = inner.group(1) if inner else text
    tokens = []
    position = 0
    while position < len(expression.rstrip()):
        match = _TOKEN.match(expression, position)
        assert match, f"condition not understood: {text}"
        tokens.append(match)
        position = match.end()
    # A conjunction of comparisons and `!cancelled()` (never cancelled here).
    clauses: list[list[re.Match[str]]] = [[]]
    for token in tokens:
        if token.group("op") == "&&":
            clauses.append([])
        else:
            clauses[-1].append(token)
    result = True
    for clause in clauses:
        if len(clause) == 1 and clause[0].group("op") == "!cancelled()":
            continue
        assert len(clause) == 3 and clause[1].group("op") in ("==", "!="), f"condition not understood: {text}"
        left, right = (_value(t, context) for t in (clause[0], clause[2]))
        result = result and ((left == right) == (clause[1].group("op") == "=="))
    return result


def _value(token: re.Match[str], context: dict[str, Any]) -> str:
    if token.group("str") is not None:
        return token.group("str")
    assert token.group("ref"), token.group(0)
    return _lookup(token.group("ref"), context)
