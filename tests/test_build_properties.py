"""Property tests: the builder and the structure rules survive any document tomllib can produce.

Documents are generated in the shape of a blueprint (the real keys at the real depths, so
deep paths such as an edge's gate are reached), with any TOML value anywhere: wrong types,
huge integers, nan, dates, unicode and quoted keys, empty names.
"""

from __future__ import annotations

import datetime
import math
import string

import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.config import Settings
from compiler.ir.build import build_blueprint
from compiler.pipeline import validate_text

NAMES = ["a", "b", "main", "plan", "conversation", "todo", "task", "", "два", "x y"]
WORDS = NAMES + [
    "fan_out",
    "output",
    "interactive_points",
    "autonomous",
    "stuck",
    "error",
    "llm_choice",
    "dead_end",
    "custom",
    "compact",
    "summarize",
    "checklist",
    "compacting",
    "sliding_window",
    "hash_map",
    "bulk",
    "50%",
    "0%",
    "120%",
    " 35 % ",
    "nan%",
    "1e3%",
    "input",
    "task_input",
    "ASK",
    "allow",
    "glob:~/x/**",
    "regex:/a(",
    "glob:../../..",
    "~bob",
    "write_file",
    "submit_output",
]

scalars = st.one_of(
    st.sampled_from(WORDS),
    st.text(max_size=8),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.sampled_from([0, 1, -1, 3, 10, 20000]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.datetimes(min_value=datetime.datetime(1, 1, 2), max_value=datetime.datetime(9999, 12, 30)),
    st.dates(),
    st.times(),
)
keys = st.one_of(st.sampled_from(NAMES), st.text(alphabet=string.printable + "éß€", max_size=6))
anything = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3)),
    max_leaves=8,
)


def table(**spec):
    """A table holding some of `spec`'s keys (each value shaped by its strategy, or anything)."""
    return st.fixed_dictionaries({}, optional={k: st.one_of(v, anything) for k, v in spec.items()})


def named(values, max_size=3):
    return st.dictionaries(st.sampled_from(NAMES), values, max_size=max_size)


def leaf():
    return scalars


seed = st.one_of(
    st.sampled_from(["input", "task_input", "x"]),
    table(
        glob=leaf(),
        files=st.lists(leaf()),
        literal=leaf(),
        tool=leaf(),
        refresh=leaf(),
        caller=leaf(),
        tools=st.lists(st.one_of(leaf(), table(name=leaf(), args=anything))),
    ),
)
region = table(
    kind=leaf(),
    budget=leaf(),
    compact_at=leaf(),
    max_tokens=leaf(),
    min_tokens=leaf(),
    threshold_tokens=leaf(),
    strategy=leaf(),
    overflow=leaf(),
    max_items=leaf(),
    source_region=leaf(),
    script=leaf(),
    persistent=leaf(),
    seed=seed,
    admission=leaf(),
    description=leaf(),
)
regions = named(region)
gate = table(
    require_modifications=leaf(),
    tools=st.lists(leaf()),
    region=leaf(),
    max_attempts=leaf(),
    require_region_updated=leaf(),
    require_regions=st.lists(leaf()),
    require_no_open_items=leaf(),
    message=leaf(),
)
edge = table(
    condition=leaf(),
    hint=leaf(),
    transform=leaf(),
    gate=gate,
    stuck_after_iterations=leaf(),
    stuck_after_minutes=leaf(),
    transform_config=table(carry=st.lists(leaf()), compact=st.lists(leaf())),
)
stage = table(
    mode=leaf(),
    model=table(
        models=st.lists(table(provider=leaf(), model=leaf())),
        provider=leaf(),
        model=leaf(),
        fallbacks=st.lists(anything),
        parameters=anything,
        system_prompt=leaf(),
    ),
    available_tools=st.lists(leaf()),
    required_tools=st.lists(leaf()),
    require_output=leaf(),
    allow_complete=leaf(),
    max_revisits=leaf(),
    allow_as_worker=leaf(),
    worker_stage=leaf(),
    worker_agent=leaf(),
    merge_stage=leaf(),
    results_region=leaf(),
    max_workers=leaf(),
    interaction_points=st.lists(
        table(options=anything, choices=anything, directives=anything, followups=anything, document_region=leaf())
    ),
    tool_routing=table(
        default_region=leaf(), overrides=named(st.one_of(leaf(), table(region=leaf(), max_result_tokens=leaf())))
    ),
    context=table(regions=regions),
    nudge=table(enabled=leaf(), max=leaf(), text=leaf()),
    tool_permissions=named(leaf()),
    hooks=named(leaf()),
    transitions=named(edge),
)
document = table(
    agent=table(name=leaf(), entry_stage=leaf(), nudge=table(enabled=leaf(), max=leaf())),
    stages=named(stage, max_size=4),
    context=table(regions=regions, file_tracking=table(region=leaf())),
    read_paths=table(allow=st.lists(leaf())),
    tool_permissions=named(leaf()),
    transforms=st.lists(table(mappings=st.lists(table(to_region=leaf(), transform=leaf())))),
    sandbox=table(kind=leaf(), mount=anything),
    compaction=table(temperature=leaf()),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document)
def test_builder_never_raises(doc):
    blueprint = build_blueprint(doc)
    assert blueprint.stages
    assert blueprint.stage(blueprint.entry) is not None
    for s in blueprint.stages:
        for e in s.transitions or ():
            assert e.condition in ("always", "llm_choice", "error", "max_iterations", "stuck", "dead_end")
            assert e.stuck is None or e.stuck.armed


def _toml_text(doc) -> str | None:
    """`doc` as TOML text, or None when TOML cannot spell it (tomlkit's limits, not ours)."""
    try:
        return tomlkit.dumps(doc)
    except Exception:
        return None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document)
def test_structure_rules_never_crash(doc):
    text = _toml_text(doc)
    if text is None:
        return
    result = validate_text(text, "prop.leviath", Settings(select=("structure",)))
    crashed = [d.message for d in result.diagnostics if d.code == "internal-error"]
    assert not crashed


def test_floats_that_json_cannot_hold_become_null():
    bp = build_blueprint({"stages": {"s": {"model": {"parameters": {"a": math.inf, "b": [math.nan, 1.5]}}}}})
    assert bp.stage("s").model.parameters == {"a": None, "b": [None, 1.5]}
