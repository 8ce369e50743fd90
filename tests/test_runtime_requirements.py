"""runner.md §8, acceptance scenarios S29–S31: required regions, required output, transforms.

Driven through `tests/runtime/harness.py`, whose `feed` checks persistence at every step; a
documented deviation (docs/runner.md) is named in the test's docstring.
"""

from __future__ import annotations

from compiler.runtime import (
    TakeEdge,
)
from tests.runtime.harness import C, Driver

S29 = """
[context.regions]
conversation = { kind = "sliding_window", max_items = 100, max_tokens = 20000 }
plan = { kind = "pinned", max_tokens = 4000, required = true, required_message = "Fill {region} via context_write first." }
[stages.gather]
available_tools = ["context_write", "read_file"]
[stages.analyze]
available_tools = ["context_write"]
"""


def test_s29_required_region_reruns_then_abandons_and_records():
    d = Driver(S29)
    d.C("read_file")
    for n in (1, 2, 3):
        d.T()
        assert d.stage == "gather" and d.visit.required_rounds == n
        assert d.injected() == ["[System] Fill plan via context_write first."]
    d.T()
    assert d.stage == "analyze" and d.flags.required_regions_abandoned == ("plan",)
    d.C("context_write")
    d.region("plan", 1)
    d.T()
    assert d.status == "complete" and d.flags.required_regions_abandoned == ()


def test_s29_max_revisits_zero_abandons_at_once_and_an_outcome_skips_the_rerun():
    d = Driver(S29.replace("[stages.gather]\n", "[stages.gather]\nmax_revisits = 0\n"))
    d.T()
    assert d.stage == "analyze" and d.flags.required_regions_abandoned == ("plan",)
    d = Driver(S29.replace("[stages.gather]\n", "[stages.gather]\nmax_iterations = 1\n"))
    d.C("read_file")
    assert d.stage == "analyze" and d.flags.max_iterations_hit == 1


S30 = """
[stages.summary]
mode = "output"
max_revisits = 20
"""


def test_s30_required_output_three_reruns_then_forced_then_error():
    d = Driver(S30)
    for n in (1, 2, 3):
        d.T()
        (text,) = d.injected()
        assert "submit_output" in text and d.visit.output_rounds == n
    d.T()
    assert d.flags.output_forced == 1 and d.status == "error"
    assert "final output" in d.ended.reason and "submit_output" in d.ended.reason


def test_s30_a_submitted_output_completes():
    d = Driver(S30)
    d.C(C("submit_output", result="accepted"))
    d.T()
    assert d.status == "complete" and d.ended.flags["produced_output"] is True
    assert d.ended.flags["empty_output"] is False


def test_s30_an_earlier_stage_output_does_not_satisfy_this_one():
    d = Driver('[stages.draft]\navailable_tools = ["submit_output"]\n' + S30)
    d.C("submit_output")
    d.T()
    assert d.stage == "summary"
    d.T()
    assert d.stage == "summary" and d.visit.output_rounds == 1


def test_s30_a_capped_stage_records_the_missing_output_without_a_rerun():
    d = Driver(S30 + 'max_iterations = 1\navailable_tools = ["read_file"]\n')
    d.C("read_file")
    assert d.flags.output_forced == 1 and d.status == "error" and d.visit.output_rounds == 0


S31 = """
[context.regions]
sys = {{ kind = "pinned", max_tokens = 2000 }}
conversation = {{ kind = "sliding_window", max_items = 100, max_tokens = 20000 }}
keep = {{ kind = "temporary" }}
scratch = {{ kind = "temporary" }}
drop = {{ kind = "pinned" }}
[stages.a.transitions.b]
{transform}
[stages.b]
"""


def test_s31_transforms_on_the_way_out():
    d = Driver(S31.format(transform='transform = "clear"'))
    d.region("conversation", 3)
    d.region("sys", 1)
    d.T()
    (edge,) = d.of(TakeEdge)
    assert "conversation" in edge.clear and "sys" not in edge.clear and edge.summarize == ()
    assert d.state.region("conversation").empty and not d.state.region("sys").empty

    d = Driver(S31.format(transform='transform = "compact"'))
    d.region("conversation", 3)
    d.region("keep", 0)
    d.T()
    (edge,) = d.of(TakeEdge)
    assert edge.clear == () and "conversation" in edge.summarize and "keep" not in edge.summarize
    assert d.inference.summarize == edge.summarize and not d.state.region("conversation").empty

    custom = (
        'transform = "custom"\ntransform_config = { carry = ["keep"], compact = ["scratch", "keep", "ghost"], '
        'clear = ["drop", "keep", "missing"] }'
    )
    d = Driver(S31.format(transform=custom))
    for name in ("keep", "scratch", "drop"):
        d.region(name)
    d.T()
    (edge,) = d.of(TakeEdge)
    assert edge.clear == ("drop",) and edge.summarize == ("scratch",)
    assert d.state.compact == ("scratch",)
    d.T()
    assert d.state.compact == ()
