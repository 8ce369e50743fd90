"""The scenario format: golden cases for every reading error, the JSON Schema, and the docs' examples.

`tests/scenario_cases/<code>/<case>.toml` beside `<case>.out`, the exact text report of reading
the file (as `blueprint test` shows it). A case named `ok-*` must read cleanly. Run with
`UPDATE_GOLDEN=1` to rewrite the `.out` files, then read the diff.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.render.text import render_report
from compiler.scenarios.loader import load_scenarios
from tests.helpers import ROOT, assert_golden, golden_id

CASES = Path(__file__).parent / "scenario_cases"
CASE_FILES = sorted(CASES.glob("*/*.toml"))
SCHEMA = json.loads((ROOT / "schemas" / "scenario.schema.json").read_text(encoding="utf-8"))
EXAMPLES = sorted((ROOT / "blueprints").glob("*.scenarios.toml"))
#: Cases only the loader can refuse: the schema cannot see a name used twice, or a step's
#: arguments.
SCHEMA_CANNOT_TELL = {"scenario-format/duplicate-name", "scenario-step/malformed-steps"}


def read_case(path: Path):
    return load_scenarios(path.relative_to(CASES).as_posix(), path.read_bytes())


@pytest.mark.parametrize("case", CASE_FILES, ids=golden_id)
def test_reading_errors_golden(case: Path) -> None:
    file = read_case(case)
    output = render_report([(file.diagnostics, file.source)], color=False)
    assert_golden(case, output, [d.code for d in file.diagnostics])


def test_every_code_has_a_case() -> None:
    folders = {p.parent.name for p in CASE_FILES}
    assert {"toml-syntax", "scenario-format", "scenario-step", "scenario-expect"} <= folders


def test_a_scenario_with_an_error_is_left_out_and_the_others_kept() -> None:
    file = read_case(CASES / "scenario-format" / "duplicate-name.toml")
    assert [s.name for s in file.scenarios] == ["same"] and file.declared == 2
    file = read_case(CASES / "scenario-step" / "malformed-steps.toml")
    assert file.scenarios == () and len(file.diagnostics) == 11


def test_every_error_is_positioned_in_the_file() -> None:
    for case in CASE_FILES:
        for diagnostic in read_case(case).diagnostics:
            assert diagnostic.span is not None, (case.name, diagnostic.message)


@pytest.mark.parametrize("case", [c for c in CASE_FILES if c.parent.name != "toml-syntax"], ids=golden_id)
def test_the_schema_agrees_with_the_loader(case: Path) -> None:
    document = tomllib.loads(case.read_text(encoding="utf-8"))
    errors = list(jsonschema.Draft7Validator(SCHEMA).iter_errors(document))
    if case.stem.startswith("ok-"):
        assert errors == []
    elif golden_id(case) not in SCHEMA_CANNOT_TELL:
        assert errors, f"the schema accepts {case.name}, which the loader refuses"


def test_the_schema_is_valid_and_every_example_matches_it() -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)
    assert EXAMPLES
    for path in EXAMPLES:
        jsonschema.validate(tomllib.loads(path.read_text(encoding="utf-8")), SCHEMA)
        assert load_scenarios(str(path), path.read_bytes()).diagnostics == ()


def test_the_docs_examples_read_cleanly_and_match_the_schema() -> None:
    text = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```toml\n(.*?)```", text, flags=re.S) if "[[scenario]]" in b]
    assert len(blocks) >= 2
    for block in blocks:
        jsonschema.validate(tomllib.loads(block), SCHEMA)
        assert load_scenarios("doc.scenarios.toml", block.encode()).diagnostics == ()


def test_the_schema_is_published() -> None:
    from compiler.resources import load_schema

    assert load_schema("scenario") == SCHEMA


# --- what scenario writing writes reads back ---------------------------------------------------------------

#: Any text a name, a path or a message can hold, controls and astral characters included
#: (a lone surrogate is no text a TOML file can hold, so none is drawn).
_ANY_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=24)


@settings(max_examples=200, deadline=2000)
@given(
    name=_ANY_TEXT,
    stage=_ANY_TEXT,
    steps=st.lists(_ANY_TEXT, max_size=3),
    comments=st.lists(_ANY_TEXT, max_size=3),
    key=_ANY_TEXT.filter(bool),
)
def test_a_written_scenario_reads_back_as_toml_with_the_same_values(
    name: str, stage: str, steps: list[str], comments: list[str], key: str
) -> None:
    from compiler.scenarios.record import scenario_toml

    block = scenario_toml(name, [(stage, steps)], {key: name}, None, comments)
    existing = '[[scenario]]\nname = "kept"\n'
    document = tomllib.loads(existing + "\n" + block)
    written = document["scenario"][1]
    assert document["scenario"][0] == {"name": "kept"}
    assert written["name"] == name
    assert written["script"] == [{"stage": stage, "do": steps}]
    assert written["expect"] == {key: name}


def test_del_and_controls_in_a_recorded_name_or_comment_are_valid_toml() -> None:
    from compiler.scenarios.record import scenario_toml

    block = scenario_toml("a\x7fb\x1b[31m", [("s\x00", ["x\x7f"])], comments=["c\x1b]0;title\x07 \x7f"])
    assert tomllib.loads(block)["scenario"][0]["name"] == "a\x7fb\x1b[31m"
    assert "\x7f" not in block and "\x1b" not in block
