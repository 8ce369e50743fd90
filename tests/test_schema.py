"""The published blueprint schema: valid Draft-07, complete, in step with the model, and
accepting every real blueprint."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compiler.ir.model import CONDITIONS, HOOK_EVENTS, MODES, REGION_KINDS, TRANSFORMS
from compiler.resources import SCHEMA_NAMES, load_schema, schema_path
from compiler.schema.validator import blueprint_validator, inline_refs
from tests.helpers import CORPUS, ROOT, requires_shared

SCHEMA = load_schema("blueprint")
DEFS = SCHEMA["definitions"]

#: format.md §2.1, the 38 keys a stage table accepts.
STAGE_KEYS = {
    "accepts_messages",
    "allow_as_worker",
    "allow_blocking_tools",
    "allow_complete",
    "available_connectors",
    "available_tools",
    "batch_tool_hint",
    "context",
    "description",
    "hooks",
    "interaction_points",
    "max_attempts",
    "max_items",
    "max_iterations",
    "max_revisits",
    "max_workers",
    "merge_stage",
    "mode",
    "model",
    "nudge",
    "on_worker_failure",
    "output",
    "require_output",
    "required_tools",
    "requires_children",
    "results_region",
    "sandbox",
    "security",
    "shell_hint",
    "split_prompt",
    "system_prompt",
    "tool_permissions",
    "tool_routing",
    "transition_prompt",
    "transitions",
    "worker_agent",
    "worker_query",
    "worker_stage",
}
EDGE_KEYS = {
    "condition",
    "gate",
    "hint",
    "stuck_after_iterations",
    "stuck_after_minutes",
    "stuck_after_same_file_edits",
    "stuck_after_tool_calls",
    "transform",
    "transform_config",
}
GATE_KEYS = {
    "max_attempts",
    "message",
    "region",
    "require_modifications",
    "require_no_open_items",
    "require_region_updated",
    "require_regions",
    "tools",
}
TOP_LEVEL_KEYS = {
    "agent",
    "stages",
    "context",
    "compaction",
    "security",
    "sandbox",
    "read_paths",
    "safe_commands",
    "tool_permissions",
    "repetition_detection",
    "transforms",
}
#: Keywords that came after Draft-07: editors such as Taplo would not understand them.
POST_DRAFT_07 = {
    "$defs",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "$vocabulary",
    "unevaluatedProperties",
    "unevaluatedItems",
    "dependentRequired",
    "dependentSchemas",
    "prefixItems",
    "minContains",
    "maxContains",
    "contentSchema",
}


def subschemas(node: Any, where: str = "#") -> Iterator[tuple[str, dict]]:
    """Every schema object in the document, with a JSON-pointer-like location."""
    if not isinstance(node, dict):
        return
    yield where, node
    for key in ("properties", "definitions"):
        for name, sub in node.get(key, {}).items():
            yield from subschemas(sub, f"{where}/{key}/{name}")
    for key in ("items", "additionalProperties", "not"):
        if isinstance(node.get(key), dict):
            yield from subschemas(node[key], f"{where}/{key}")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(node.get(key, [])):
            yield from subschemas(sub, f"{where}/{key}/{i}")


def resolve(node: dict) -> dict:
    ref = node.get("$ref")
    return DEFS[ref.rsplit("/", 1)[1]] if ref else node


def props(definition: str) -> dict:
    return DEFS[definition]["properties"]


# --- the document itself --------------------------------------------------------------------


def test_schema_is_valid_draft_07():
    from jsonschema import Draft7Validator

    assert SCHEMA["$schema"] == "http://json-schema.org/draft-07/schema#"
    Draft7Validator.check_schema(SCHEMA)


def test_schema_file_is_formatted_json():
    text = schema_path("blueprint").read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"


def test_no_keyword_newer_than_draft_07():
    used = {key for _, node in subschemas(SCHEMA) for key in node}
    assert not used & POST_DRAFT_07


def test_every_reference_resolves():
    for where, node in subschemas(SCHEMA):
        ref = node.get("$ref")
        if ref is not None:
            assert ref.startswith("#/definitions/") and ref.rsplit("/", 1)[1] in DEFS, where
            assert set(node) <= {"$ref", "description"}, f"{where}: Draft-07 ignores siblings of $ref"


def test_every_table_states_additional_properties():
    for where, node in subschemas(SCHEMA):
        types = node.get("type", [])
        if "object" in ([types] if isinstance(types, str) else types):
            assert "additionalProperties" in node, where


def test_every_key_has_a_description():
    for where, node in subschemas(SCHEMA):
        for name, sub in node.get("properties", {}).items():
            assert isinstance(sub.get("description"), str) and sub["description"], f"{where}/{name}"


def test_defaults_are_valid_for_their_keys():
    validator = blueprint_validator()
    for where, node in subschemas(inline_refs(SCHEMA)):
        if "default" in node:
            errors = list(validator.evolve(schema=node).iter_errors(node["default"]))
            assert not errors, f"{where}: default {node['default']!r} fails its own schema"


def test_root_accepts_a_schema_key_and_the_ignored_model_table():
    top = SCHEMA["properties"]
    assert top["$schema"]["type"] == "string"
    assert "type" not in top["model"], "a top-level [model] is reported by a lint, not by the schema"
    assert set(top) == TOP_LEVEL_KEYS | {"$schema", "model"}
    assert SCHEMA["required"] == ["agent"]


# --- in step with the format and the model --------------------------------------------------


def test_stage_keys_are_exactly_the_38_of_the_format():
    assert set(props("stage")) == STAGE_KEYS


def test_edge_and_gate_keys():
    assert set(props("edge")) == EDGE_KEYS
    assert set(props("gate")) == GATE_KEYS
    assert "regionEntries" not in DEFS


def test_enums_match_the_model_constants():
    assert props("stage")["mode"]["enum"] == list(MODES)
    assert set(props("edge")["condition"]["enum"]) == set(CONDITIONS)
    assert props("edge")["transform"]["enum"] == list(TRANSFORMS)
    assert set(props("region")["kind"]["enum"]) == set(REGION_KINDS) | {"hash_map"}
    assert list(props("hooks")) == list(HOOK_EVENTS)


def test_strict_tables_are_exactly_the_ones_the_reference_refuses_unknown_keys_in():
    strict = {where for where, node in subschemas(SCHEMA) if node.get("x-strict")}
    assert strict == {
        "#/definitions/stage",
        "#/definitions/stage/properties/context",
        "#/definitions/toolRouting",
        "#/definitions/routingOverride",
        "#/definitions/edge",
        "#/definitions/gate",
        "#/definitions/hooks",
    }


def test_integer_keys_have_a_minimum():
    for where, node in subschemas(SCHEMA):
        if node.get("type") == "integer":
            assert node.get("minimum") in (0, 1), where


def test_stuck_thresholds_start_at_one():
    for name in EDGE_KEYS:
        if name.startswith("stuck_after_"):
            assert props("edge")[name]["minimum"] == 1


def test_pattern_enumerations_match_exactly_their_values():
    """Case-insensitive enumerations use a portable pattern; it must accept what the
    reference accepts and nothing else."""
    import re

    policy, refresh = DEFS["policy"], DEFS["refresh"]
    policy_pattern = re.compile(policy["anyOf"][1]["pattern"])
    for word in ("allow", "ASK", "Deny", "dEnY"):
        assert policy_pattern.search(word)
    for word in ("allowed", " allow", "no", ""):
        assert not policy_pattern.search(word)
    refresh_pattern = re.compile(refresh["anyOf"][1]["pattern"])
    for word in ("once", " Each_Stage ", "SPAWN", "stage\t"):
        assert refresh_pattern.search(word)
    for word in ("always", "each stage", "stages", ""):
        assert not refresh_pattern.search(word)
    assert policy["x-values"] == ["allow", "ask", "deny"]
    assert refresh["x-values"] == ["once", "spawn", "each_stage", "stage"]


# --- real blueprints ------------------------------------------------------------------------


@requires_shared
@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/agent.leviath")), ids=lambda p: p.parent.name)
def test_corpus_has_no_schema_findings(path: Path):
    from compiler.rules.schema.findings import schema_findings

    document = tomllib.loads(path.read_text(encoding="utf-8"))
    assert schema_findings(document) == []


@requires_shared
@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/agent.leviath")), ids=lambda p: p.parent.name)
def test_corpus_passes_a_stock_draft_07_validator(path: Path):
    """What check-jsonschema and editors do with the schema (no TOML-specific types)."""
    from jsonschema import Draft7Validator

    document = tomllib.loads(path.read_text(encoding="utf-8"))
    assert [e.message for e in Draft7Validator(SCHEMA).iter_errors(document)] == []


# --- resources and start-up -----------------------------------------------------------------


def test_schema_path_finds_the_checkout_copy():
    assert schema_path("blueprint") == ROOT / "schemas" / "blueprint.schema.json"


def test_load_schema_is_cached_and_names_are_checked():
    assert load_schema("blueprint") is load_schema("blueprint")
    assert SCHEMA_NAMES == ("blueprint", "ir", "report", "scenario")
    with pytest.raises(ValueError, match="unknown schema"):
        schema_path("nope")


def test_validator_is_built_once():
    assert blueprint_validator() is blueprint_validator()


def test_inlined_schema_has_no_references_left():
    flat = json.dumps(inline_refs(SCHEMA)["properties"])
    assert "$ref" not in flat


def test_importing_the_schema_rules_does_not_import_jsonschema():
    code = "import sys, compiler.rules.schema.codes; print('jsonschema' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_format_doc_names_every_key():
    doc = ROOT / "docs" / "format.md"
    text = doc.read_text(encoding="utf-8")
    missing = sorted(
        {name for _, node in subschemas(SCHEMA) for name in node.get("properties", {})}
        - {name for name in _backticked(text)}
    )
    assert not missing, f"docs/format.md does not mention: {missing}"


def _backticked(text: str) -> set[str]:
    import re

    return set(re.findall(r"`([^`\s=]+)", text))
