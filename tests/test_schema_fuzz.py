"""Property: any document tomllib could produce gets schema findings, never an exception,
and every finding points into the document."""

from __future__ import annotations

import datetime as dt

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.resources import load_schema
from compiler.rulebook.registry import REGISTRY
from compiler.rules.schema.findings import schema_findings
from tests.test_schema import subschemas

KEYS = sorted({name for _, node in subschemas(load_schema("blueprint")) for name in node.get("properties", {})})
SCHEMA_CODES = {r.code for r in REGISTRY.all() if r.family == "schema"}

keys = st.one_of(st.sampled_from(KEYS), st.text(min_size=0, max_size=8))
scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=10),
    st.sampled_from(["autonomous", "stuck", "hash_map", "ALLOW", " each_stage ", "summarize", ""]),
    st.dates(),
    st.times(),
    st.datetimes(),
    st.datetimes(timezones=st.just(dt.UTC)),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=5)),
    max_leaves=25,
)
tables = st.dictionaries(keys, values, max_size=6)
stage_names = st.one_of(st.sampled_from(["plan", "review"]), st.text(max_size=5))
documents = st.fixed_dictionaries(
    {},
    optional={
        "agent": st.one_of(tables, values),
        "stages": st.one_of(
            st.dictionaries(
                stage_names,
                st.one_of(
                    tables,
                    st.fixed_dictionaries({"transitions": st.dictionaries(stage_names, tables, max_size=3)}),
                ),
                max_size=3,
            ),
            values,
        ),
        "context": st.one_of(st.fixed_dictionaries({"regions": st.dictionaries(keys, tables, max_size=3)}), values),
        "tool_permissions": values,
        "sandbox": values,
        "transforms": values,
    },
)


def _exists(document, path) -> bool:
    node = document
    for part in path:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_any_document_gets_findings_not_exceptions(document):
    for finding in schema_findings(document):
        assert finding.code in SCHEMA_CODES
        assert (finding.message and finding.message[0].islower()) or finding.message[0] == "'"
        assert _exists(document, finding.path), finding


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(keys, values, max_size=8))
def test_any_top_level_table_gets_findings_not_exceptions(document):
    codes = [f.code for f in schema_findings(document)]
    assert ("missing-agent" in codes) == ("agent" not in document)
