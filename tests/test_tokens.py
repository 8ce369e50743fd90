"""Token and cost ceilings (`compiler.analysis.tokens`): figures worked out by hand from the
layout, the model's window and reply cap and the inference ceilings; where each limit comes
from (the prices table, Leviath's config.toml, `lev models list`); why there is no bound."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import compiler
from compiler.analysis.tokens import worst_case
from compiler.config import ConfigError, Settings, load_config
from compiler.installation import load_models
from compiler.prices import ModelPrice
from tests.conftest import invoke_cli
from tests.helpers import ROOT

MODEL = "anthropic/claude-test"
#: Two stages in a line: `a` makes at most 3 inferences, `b` 2. Its regions: task 1,000 and
#: notes 10% of the window (at most 30,000), plus what the runtime keeps in every stage
#: (conversation 10,000, tool_results 5,000, final_output 2,000) and the instructions region
#: sized to the widest prompt: "[Stage instructions: abcd]" is 26 bytes, 7 tokens.
BLUEPRINT = """\
[agent]
name = "costs"

[context.regions]
task = { kind = "pinned", max_tokens = 1000 }
notes = { kind = "temporary", budget = "10%", max_tokens = 30000 }

[stages.a]
mode = "autonomous"
model = { models = [{ provider = "anthropic", model = "claude-test" }] }
max_iterations = 3
system_prompt = "abcd"

[stages.b]
mode = "autonomous"
model = { models = [{ provider = "anthropic", model = "claude-test" }] }
max_iterations = 2
"""
RUNTIME = 10000 + 5000 + 2000 + 7


def check(text: str = BLUEPRINT, **price: float) -> compiler.CheckResult:
    settings = Settings(prices=((MODEL, ModelPrice(**price)),)) if price else Settings()
    result = compiler.check_text(text, "costs.leviath", settings)
    assert result.analysis is not None, [d.message for d in result.result.diagnostics]
    return result


def test_the_worst_case_is_the_layout_times_the_inferences() -> None:
    cost = worst_case(check(window=200_000, max_output=1000, input=3.0, output=15.0))
    assert cost is not None
    per_input = 1000 + 20_000 + RUNTIME  # notes: 10% of 200,000, under its cap
    a, b = cost.stages
    assert (a.input_per_inference, a.output_per_inference) == (per_input, 1000)
    assert (a.tokens, b.tokens) == (3 * (per_input + 1000), 2 * (per_input + 1000))
    assert (cost.tokens, cost.input_tokens, cost.output_tokens) == (5 * (per_input + 1000), 5 * per_input, 5000)
    assert cost.cost_usd == pytest.approx(5 * (per_input * 3.0 + 1000 * 15.0) / 1e6)
    assert (cost.why, cost.cost_why) == ("", "")


def test_the_window_bounds_what_the_layout_could_hold() -> None:
    cost = worst_case(check(window=20_000))  # notes 2,000: the regions could hold 20,007
    assert cost is not None
    assert cost.stages[0].input_per_inference == 20_000
    assert cost.stages[0].output_per_inference == 20_000  # no reply cap known: the window
    assert cost.tokens == 5 * 40_000
    assert cost.cost_usd is None and "no price is known for anthropic/claude-test" in cost.cost_why


def test_without_a_window_there_is_no_bound_and_the_report_says_how_to_get_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = check()
    cost = worst_case(result)
    assert cost is not None and not cost.known and cost.tokens is None
    assert cost.why.startswith("no context window is known for anthropic/claude-test (stage 'a')")
    (tmp_path / "costs.leviath").write_text(BLUEPRINT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    text = invoke_cli("check", "costs.leviath").output
    assert text.splitlines()[2].split() == ["stage", "visits", "inferences/visit", "inferences"]  # no token column
    assert "tokens and cost: no ceiling: no context window is known for anthropic/claude-test" in text
    assert "prices table of blueprint.toml" in text


def test_a_percentage_without_a_cap_needs_the_window() -> None:
    uncapped = BLUEPRINT.replace(", max_tokens = 30000 }", " }")
    cost = worst_case(check(uncapped, max_output=1000))
    assert cost is not None and cost.tokens is None
    assert "percentage budget without max_tokens" in cost.why
    capped = worst_case(check(max_output=1000))  # the cap bounds it without a window
    assert capped is not None and capped.stages[0].input_per_inference == 1000 + 30_000 + RUNTIME


def test_a_loop_has_no_token_ceiling() -> None:
    case = Path(__file__).parent / "check_cases" / "run-can-loop-forever" / "two-stage.leviath"
    looping = case.read_text(encoding="utf-8").replace("claude-sonnet-4-6", "claude-test")
    cost = worst_case(check(looping, window=1000))
    assert cost is not None and cost.tokens is None and cost.cost_usd is None
    assert cost.why == "a run can loop for ever (see run-can-loop-forever)"


def test_the_table_and_json_show_tokens_and_dollars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "costs.leviath").write_text(BLUEPRINT, encoding="utf-8")
    (tmp_path / "blueprint.toml").write_text(
        f'[prices]\n"{MODEL}" = {{ input = 3.0, output = 15.0, window = 200000, max_output = 1000 }}\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    text = invoke_cli("check", "costs.leviath").output
    rows = [line.split() for line in text.splitlines()[2:6]]
    assert rows == [
        ["stage", "visits", "inferences/visit", "inferences", "tokens", "cost"],
        ["a", "1", "3", "3", "117,021", "$0.3871"],
        ["b", "1", "2", "2", "78,014", "$0.2580"],
        ["total", "2", "5", "195,035", "$0.6451"],
    ]
    assert "tokens: every run carries at most 195,035 tokens (at most 190,035 in, 5,000 out)" in text
    report = json.loads(invoke_cli("check", "--format", "json", "costs.leviath").output)
    jsonschema.validate(report, json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8")))
    tokens = report["files"][0]["analysis"]["tokens"]
    assert tokens["tokens"] == 195_035 and tokens["why"] is None
    assert [s["tokens"] for s in tokens["stages"]] == [117_021, 78_014]


def test_leviath_files_give_windows_and_reply_caps(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[model_capabilities."claude-test"]\nmax_context_tokens = 20000\nmax_output_tokens = 500\n')
    result = compiler.check_text(BLUEPRINT, "costs.leviath", Settings(leviath_config=str(config)))
    cost = worst_case(result)
    assert cost is not None and cost.stages[0].input_per_inference == 20_000
    assert cost.stages[0].output_per_inference == 500
    models = tmp_path / "models.txt"
    models.write_text(
        "PROVIDER     MODEL ID                                 TEMP   TOOLS   CTX      OUTPUT\n"
        + "-" * 85
        + "\nanthropic    claude-test                              yes    yes     200K     8K\n"
    )
    assert load_models(str(models)).rows[0].max_output == 8000
    cost = worst_case(compiler.check_text(BLUEPRINT, "costs.leviath", Settings(leviath_models=str(models))))
    assert cost is not None and cost.stages[0].output_per_inference == 8000
    price = Settings(leviath_models=str(models), prices=((MODEL, ModelPrice(max_output=100)),))
    cost = worst_case(compiler.check_text(BLUEPRINT, "costs.leviath", price))
    assert cost is not None and cost.stages[0].output_per_inference == 100  # the prices table wins


def test_the_prices_table_is_read_and_its_mistakes_are_placed(tmp_path: Path) -> None:
    path = tmp_path / "blueprint.toml"
    path.write_text(f'[prices]\n"{MODEL}" = {{ input = 3, window = 1000 }}\n', encoding="utf-8")
    config = load_config(path, "blueprint.toml")
    assert config is not None and config.prices == ((MODEL, ModelPrice(input=3.0, window=1000)),)
    for entry, message in (
        ('"{m}" = {{ input = -1 }}', 'blueprint.toml:2:37: prices."{m}".input must be dollars per million'),
        ('"{m}" = {{ window = 1.5 }}', 'blueprint.toml:2:38: prices."{m}".window must be a count of tokens'),
        ('"{m}" = {{ price = 1 }}', "blueprint.toml:2:29: prices.\"{m}\": unknown key 'price'"),
        ('"claude" = {{ input = 1 }}', 'blueprint.toml:2:1: prices."claude": name a model as "provider/model"'),
    ):
        path.write_text("[prices]\n" + entry.format(m=MODEL) + "\n", encoding="utf-8")
        with pytest.raises(ConfigError) as caught:
            load_config(path, "blueprint.toml")
        assert str(caught.value).startswith(message.format(m=MODEL))
    path.write_text('prices = "cheap"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"^blueprint.toml:1:10: prices must be a table"):
        load_config(path, "blueprint.toml")


def test_huge_ceilings_stay_exact() -> None:
    case = Path(__file__).parent / "check_cases" / "analysis-incomplete" / "ok-gate-of-2-63.leviath"
    text = case.read_text(encoding="utf-8").replace("claude-sonnet-4-6", "claude-test")
    result = check(text, window=1000, max_output=1)
    cost = worst_case(result)
    assert result.analysis is not None and result.analysis.ceilings is not None
    inferences = result.analysis.ceilings.inferences
    assert cost is not None and inferences is not None and inferences > 2**63
    assert cost.output_tokens == inferences  # one token a reply: the count itself, not a float near it
