"""Golden pairs of `blueprint diff`: `tests/diff_cases/<kind>/<case>.old.leviath` and
`<case>.new.leviath`, beside `<case>.out` (the text report) and `<case>.json` (the JSON report).

A case must report its folder's change kind; a case whose name starts with `ok-` is a near
miss and must not. A side that is missing is a blueprint added or removed. Cases in
`_unchanged/` must report no change at all. Digests are checked for their form and written
as `<digest>`, so a change to the IR's shape does not rewrite every golden file. Run with
`UPDATE_GOLDEN=1` to rewrite the expected files after an intended change, then read the diff.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from compiler.config import Settings, load_config, settings_for
from compiler.diff.core import added, compare, read_version, removed
from compiler.diff.render import render_json, render_text
from compiler.diff.rules import RULES

CASES = Path(__file__).parent / "diff_cases"
CASE_IDS = sorted({f"{p.parent.name}/{p.name.split('.')[0]}" for p in CASES.glob("*/*.leviath")})
_LONG = re.compile(r"\b[0-9a-f]{64}\b")
_SHORT = re.compile(r"(digest |→ )[0-9a-f]{12}\b")


def _version(path: Path):
    """One side, with the settings of a `blueprint.toml` in its folder (prices), else the defaults."""
    if not path.exists():
        return None
    config = path.parent / "blueprint.toml"
    settings = settings_for(load_config(config)) if config.exists() else Settings()
    return read_version(path.relative_to(CASES).as_posix(), path.read_bytes(), settings)


def render_case(case_id: str):
    old = _version(CASES / f"{case_id}.old.leviath")
    new = _version(CASES / f"{case_id}.new.leviath")
    outcome = added(new) if old is None else removed(old) if new is None else compare(old, new)
    return outcome, render_text([outcome]), render_json([outcome])


def _expect(path: Path, output: str) -> None:
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(output, encoding="utf-8")
    assert path.exists(), f"missing {path.name}; run with UPDATE_GOLDEN=1 and review it"
    assert output == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_diff_golden(case_id: str) -> None:
    outcome, text, document = render_case(case_id)
    kind, name = case_id.split("/")
    kinds = [change.kind for change in outcome.changes]
    if kind == "_unchanged":
        assert outcome.status == "unchanged" and not kinds
    elif name.startswith("ok-"):
        assert kind not in kinds, f"near miss {case_id} must not report {kind}"
    else:
        assert kind in kinds, f"{case_id} must report {kind}, got {kinds}"
    for change in outcome.changes:  # its kind's class, and a place on a side that has it
        assert change.change_class == RULES[change.kind].change_class
        if RULES[change.kind].group == "blueprint":
            assert change.old_at or change.new_at, change
    assert json.loads(document)["files"][0]["counts"] == outcome.counts
    digests = [outcome.old.digest, outcome.new.digest]
    assert all(d is None or re.fullmatch("[0-9a-f]{64}", d) for d in digests)
    assert (digests[0] == digests[1]) == (outcome.status == "unchanged")
    _expect(CASES / f"{case_id}.out", _SHORT.sub(r"\1<digest>", text))
    _expect(CASES / f"{case_id}.json", _LONG.sub("<digest>", document))


def test_every_kind_has_a_case() -> None:
    folders = {case_id.split("/")[0] for case_id in CASE_IDS if not case_id.split("/")[1].startswith("ok-")}
    assert set(RULES) <= folders, sorted(set(RULES) - folders)
    assert folders - set(RULES) == {"_unchanged"}
