"""The published IR schema: current, Draft-07, and satisfied by every IR we compile.

`schemas/ir.schema.json` is generated from the model (`compiler.ir.ir_schema`); run with
`UPDATE_GOLDEN=1` to rewrite it after a change to the model, then read the diff. A change
to its shape also fails the frozen copy in `tests/fixtures/ir/v<IR_VERSION>/`: that is the
signal to bump `IR_VERSION` and add a migration (docs/ir.md).
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

import jsonschema
import pytest

import compiler
from compiler.ir.ir_schema import ir_schema, schema_text
from compiler.ir.serialize import IR_VERSION, dumps, load_ir, to_ir
from tests.helpers import CORPUS, ROOT, requires_shared
from tests.test_ir_serialize import HASH, rich_blueprint

PUBLISHED = ROOT / "schemas" / "ir.schema.json"
FIXTURES = Path(__file__).parent / "fixtures" / "ir"
CURRENT = FIXTURES / f"v{IR_VERSION}"
EXAMPLES = sorted((ROOT / "blueprints").glob("**/*.leviath"))
CORPUS_FILES = sorted(CORPUS.glob("*/agent.leviath")) if CORPUS.is_dir() else []

_BUMP = (
    "the IR changed shape: bump IR_VERSION, add the migration from the previous version to "
    "MIGRATIONS, and add a fixture folder for the new version (docs/ir.md, 'Versioning'). "
    "Only while no release has written this version: delete tests/fixtures/ir/v<N>/ instead "
    "(keep feature-rich.leviath) and regenerate it with UPDATE_GOLDEN=1"
)


@cache
def validator() -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(json.loads(PUBLISHED.read_text(encoding="utf-8")))


def schema_errors(instance) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator().iter_errors(instance)]


def test_published_schema_is_current():
    if os.environ.get("UPDATE_GOLDEN"):
        PUBLISHED.write_text(schema_text(), encoding="utf-8")
    assert PUBLISHED.read_text(encoding="utf-8") == schema_text(), (
        "schemas/ir.schema.json is stale; run UPDATE_GOLDEN=1 pytest tests/test_ir_schema.py"
    )


def test_schema_is_valid_draft_07():
    schema = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    jsonschema.Draft7Validator.check_schema(schema)


def test_every_object_is_closed():
    """Tools that assume a closed object when `additionalProperties` is missing must agree."""

    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                assert node.get("additionalProperties") is False, node.get("description")
                assert node["required"] == list(node["properties"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(ir_schema())


def shape(schema):
    """A schema without its prose and its name (`$id`): what a reader's code depends on."""
    if isinstance(schema, dict):
        return {k: shape(v) for k, v in schema.items() if k not in ("description", "title", "$id")}
    if isinstance(schema, list):
        return [shape(v) for v in schema]
    return schema


def test_the_schema_of_this_version_is_frozen():
    """Rewording a description is free; anything else about the shape needs a new version."""
    frozen = CURRENT / "ir.schema.json"
    if os.environ.get("UPDATE_GOLDEN") and not frozen.exists():
        frozen.parent.mkdir(parents=True, exist_ok=True)
        frozen.write_text(schema_text(), encoding="utf-8")
    assert shape(json.loads(frozen.read_text(encoding="utf-8"))) == shape(ir_schema()), _BUMP


def test_shape_ignores_prose_only():
    schema = ir_schema()
    reworded = json.loads(json.dumps(schema).replace('"description": "A float.', '"description": "Any float.'))
    assert shape(reworded) == shape(schema)
    reworded["definitions"]["Edge"]["properties"]["condition"]["enum"].append("sometimes")
    assert shape(reworded) != shape(schema)


@pytest.mark.parametrize("fixture", sorted(FIXTURES.glob("v*/*.ir.json")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_matches_the_schema_of_its_version(fixture):
    schema = json.loads((fixture.parent / "ir.schema.json").read_text(encoding="utf-8"))
    errors = list(jsonschema.Draft7Validator(schema).iter_errors(json.loads(fixture.read_text(encoding="utf-8"))))
    assert not errors, errors[0].message


def test_hand_built_ir_matches_the_schema():
    assert schema_errors(to_ir(rich_blueprint(), path="x", sha256=HASH)) == []
    assert schema_errors(to_ir(compiler.Blueprint(), path="x", sha256=HASH)) == []


@pytest.mark.parametrize(
    "change, fragment",
    [
        (lambda ir: ir["blueprint"].update(colour="red"), "Additional properties"),
        (lambda ir: ir["blueprint"]["stages"][0].pop("mode"), "'mode' is a required property"),
        (lambda ir: ir["blueprint"]["stages"][0].update(mode="outupt"), "is not one of"),
        (lambda ir: ir["blueprint"]["stages"][0].update(max_iterations=True), "is not of type"),
        (lambda ir: ir.update(ir_version=IR_VERSION + 1), f"{IR_VERSION} was expected"),
        (lambda ir: ir["source"].update(sha256="x"), "does not match"),
        (lambda ir: ir["blueprint"]["stages"][0]["interaction_points"][0]["directives"].append(["a"]), "is too short"),
        (
            lambda ir: ir["blueprint"]["compaction"].update(temperature="warm"),
            "is not valid under any of the given schemas",
        ),
    ],
)
def test_the_schema_rejects_what_load_ir_rejects(change, fragment):
    ir = to_ir(rich_blueprint(), path="x", sha256=HASH)
    change(ir)
    errors = schema_errors(ir)
    assert any(fragment in e for e in errors), errors
    with pytest.raises(compiler.IRError):
        load_ir(ir)


def test_the_schema_accepts_named_non_finite_floats():
    ir = to_ir(rich_blueprint(), path="x", sha256=HASH)
    ir["blueprint"]["compaction"]["temperature"] = "NaN"
    assert schema_errors(ir) == []


def test_blueprint_schema_command_serves_it():
    from compiler.resources import load_schema

    assert load_schema("ir") == ir_schema()


# --- real files ---------------------------------------------------------------------------


def check_compiled(path: Path) -> None:
    ir = compiler.compile(path)
    assert schema_errors(ir) == []
    assert load_ir(dumps(ir)) == compiler.validate_file(path).blueprint


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples_compile_to_schema_valid_ir_that_round_trips(path):
    check_compiled(path)


@requires_shared
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.parent.name)
def test_corpus_compiles_to_schema_valid_ir_that_round_trips(path):
    check_compiled(path)


def test_examples_exist():
    assert EXAMPLES, "blueprints/ holds no example to compile"


def test_the_fixture_source_compiles_to_the_fixture(monkeypatch):
    """The golden IR of this version. If it fails: a shape change needs a new version (see
    test_the_schema_of_this_version_is_frozen); a deliberate change of the builder's output
    for this file means deleting the fixture and regenerating it with UPDATE_GOLDEN=1 — and
    only while no release has written this version."""
    monkeypatch.chdir(ROOT)  # the fixture records its source path relative to the checkout
    source = (CURRENT / "feature-rich.leviath").relative_to(ROOT)
    fixture = CURRENT / "feature-rich.ir.json"
    text = dumps(compiler.compile(source))
    if os.environ.get("UPDATE_GOLDEN") and not fixture.exists():
        fixture.write_text(text, encoding="utf-8")
    assert fixture.read_text(encoding="utf-8") == text
