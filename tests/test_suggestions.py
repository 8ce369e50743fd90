"""The "did you mean" guess stays cheap on long and many names, and still finds the name meant."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.pipeline import validate_text
from compiler.suggestions import MAX_LENGTH, closest

BOUNDED = settings(max_examples=60, deadline=2000, suppress_health_check=[HealthCheck.too_slow])


def _many_misspelt(count: int) -> str:
    out = ['[agent]\nname = "x"\n']
    for i in range(count):
        out.append(
            f'[stages.stage_number_{i}]\nmode = "autonomous"\n'
            f'[stages.stage_number_{i}.transitions]\nstage_numbr_{(i + 1) % count} = {{ when = "done" }}\n'
        )
    return "".join(out)


def test_a_32000_character_name_and_its_near_twin_validate_in_seconds() -> None:
    name, near = "a" * 32_000, "a" * 31_999 + "b"
    text = f'[agent]\nname = "x"\n[stages.{name}]\nmode = "autonomous"\n[stages.{name}.transitions]\n{near} = {{}}\n'
    started = time.perf_counter()
    result = validate_text(text, "long.leviath")
    assert time.perf_counter() - started < 10
    assert any(d.code == "unknown-stage" for d in result.diagnostics)


def test_two_thousand_misspelt_targets_validate_in_seconds_and_each_gets_its_stage() -> None:
    started = time.perf_counter()
    result = validate_text(_many_misspelt(2000), "many.leviath")
    assert time.perf_counter() - started < 20
    unknown = [d for d in result.diagnostics if d.code == "unknown-stage"]
    assert len(unknown) == 2000
    assert all(d.fix == f"did you mean 'stage_number_{d.path[-1].rsplit('_', 1)[1]}'?" for d in unknown)


def test_ordinary_guesses_are_difflibs() -> None:
    assert closest("reveiw", ["plan", "review", "write"]) == "review"
    assert closest("x" * (MAX_LENGTH + 1), ["x" * MAX_LENGTH]) is None
    assert closest("plan", ["plan"]) is None


@BOUNDED
@given(
    word=st.text(min_size=1, max_size=400),
    candidates=st.lists(st.text(max_size=400), max_size=300),
)
def test_any_name_and_candidates_get_a_candidate_or_none_quickly(word: str, candidates: list[str]) -> None:
    guess = closest(word, candidates)
    assert guess is None or (guess in candidates and guess != word)
