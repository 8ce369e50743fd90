"""What `validate` says where Leviath's own reading decides: keys it refuses, choices it leaves
to a hash map, values it accepts in another type, old spellings. Each test states the Leviath
fact it pins (read from its parser, `crates/leviath-core/src/manifest/stage.rs`, and its
runtime, `crates/leviath-runtime/src/pipeline/transition_choice.rs`)."""

from __future__ import annotations

import pytest
from helpers import run

from compiler.config import Settings


def found(source: str, *only: str) -> list[str]:
    """Sorted codes of the findings, restricted to `only` when given."""
    settings = Settings(select=only) if only else None
    return sorted(d.code for d in run(source, settings=settings).diagnostics)


# --- a gate allows exactly Leviath's eight keys --------------------------------------------


@pytest.mark.parametrize(
    "gate",
    [
        'gate = { require_region_entries = { region = "notes", at_least = 2 } }',
        'gate = { require_region_entries = "notes" }',
    ],
)
def test_require_region_entries_is_refused_like_any_unknown_gate_key(gate):
    source = f"[stages.a]\n[stages.a.transitions.b]\n{gate}\n[stages.b]\ntransitions = {{}}"
    assert found(source, "schema") == ["rejected-key"]


def test_the_gate_model_has_no_entry_count():
    from compiler.ir.model import Gate

    assert "require_region_entries" not in Gate.__dataclass_fields__


# --- edges whose order Leviath leaves to a hash map ----------------------------------------

EDGE_ORDER = ("ambiguous-edge-order", "unordered-routing-fallback")


def _stage_with(*edges: str, extra: str = "") -> str:
    targets = sorted({line.split("]")[0].rsplit(".", 1)[1] for line in edges})
    body = "\n".join(f"[stages.{t}]\ntransitions = {{}}" for t in targets if t != "a")
    return f"[stages.a]\n{extra}\n" + "\n".join(edges) + "\n" + body


@pytest.mark.parametrize("condition", ["error", "dead_end", "max_iterations"])
def test_two_edges_of_one_condition_are_ambiguous(condition):
    source = _stage_with(
        "[stages.a.transitions.done]",
        f'[stages.a.transitions.x]\ncondition = "{condition}"',
        f'[stages.a.transitions.y]\ncondition = "{condition}"',
    )
    assert found(source, *EDGE_ORDER) == ["ambiguous-edge-order"]


def test_two_stuck_edges_are_ambiguous_and_say_only_one_is_watched():
    source = _stage_with(
        "[stages.a.transitions.done]",
        '[stages.a.transitions.x]\ncondition = "stuck"\nstuck_after_iterations = 3',
        '[stages.a.transitions.y]\ncondition = "stuck"\nstuck_after_minutes = 3',
    )
    (finding,) = [d for d in run(source).diagnostics if d.code == "ambiguous-edge-order"]
    assert "only the drawn edge's thresholds are watched" in finding.message


def test_one_edge_per_condition_is_determined():
    source = _stage_with(
        "[stages.a.transitions.done]",
        '[stages.a.transitions.x]\ncondition = "error"',
        '[stages.a.transitions.y]\ncondition = "dead_end"',
    )
    assert found(source, *EDGE_ORDER) == []


def test_targets_differing_only_in_ascii_case_match_one_answer():
    source = _stage_with("[stages.a.transitions.Done]", "[stages.a.transitions.done]", extra="allow_complete = true")
    assert found(source, *EDGE_ORDER) == ["ambiguous-edge-order"]


def test_the_routing_fallback_is_a_note_and_allow_complete_removes_it():
    two = ("[stages.a.transitions.x]", "[stages.a.transitions.y]")
    assert found(_stage_with(*two), *EDGE_ORDER) == ["unordered-routing-fallback"]
    assert found(_stage_with(*two, extra="allow_complete = true"), *EDGE_ORDER) == []
    assert found(_stage_with(two[0]), *EDGE_ORDER) == []
    (note,) = [d for d in run(_stage_with(*two)).diagnostics if d.code == "unordered-routing-fallback"]
    assert note.severity == "note"


def test_shadowed_edge_says_it_follows_declaration_order():
    source = _stage_with(
        "[stages.a.transitions.done]",
        '[stages.a.transitions.x]\ncondition = "error"',
        '[stages.a.transitions.y]\ncondition = "error"',
    )
    (finding,) = [d for d in run(source).diagnostics if d.code == "shadowed-edge"]
    assert finding.message.startswith("in declaration order") and "ambiguous-edge-order" in finding.message
