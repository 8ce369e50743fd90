"""Numeric keys whose special values mean something else than their number (`0` = the default
cap, `0` = unlimited, …) are described alike wherever a user reads them: the schema the editor
shows on hover and in completion, the table in `docs/format.md`, and what the checker and the
runner do. `tests/test_lsp.py` hovers each one in a running server."""

from __future__ import annotations

import re

import pytest

from compiler.config import Settings
from compiler.ir.model import DEFAULT_MAX_ITERATIONS
from compiler.lsp.keys import key_doc
from compiler.pipeline import validate_bytes
from tests.helpers import ROOT

#: (key path, the special value's meaning as docs/format.md and the schema both say it).
SPECIAL_VALUES = (
    (("stages", "a", "max_iterations"), "unset or 0 takes the default cap"),
    (("stages", "a", "max_revisits"), "0: no edge enters it again once it has run"),
    (("stages", "a", "max_workers"), "0 = unlimited"),
    (("stages", "a", "max_items"), "0 = no cap"),
    (("stages", "a", "max_attempts"), "0 = do not ask again"),
    (("stages", "a", "transitions", "b", "gate", "max_attempts"), "0 records but never holds"),
)

STAGES = """\
[agent]
name = "t"

[stages.a]
mode = "autonomous"
model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
{key}

[stages.a.transitions.b]

[stages.b]
mode = "autonomous"
model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }

[stages.b.transitions]
"""


def plain(text: str) -> str:
    """Text as read, without Markdown's code marks."""
    return re.sub(r"\s+", " ", text.replace("`", "")).lower()


def format_rows(key: str) -> list[str]:
    text = (ROOT / "docs" / "format.md").read_text(encoding="utf-8")
    return [plain(line) for line in text.splitlines() if line.startswith(f"| `{key}` |")]


@pytest.mark.parametrize(("path", "meaning"), SPECIAL_VALUES, ids=lambda v: ".".join(v) if isinstance(v, tuple) else v)
def test_the_editor_and_the_format_reference_say_the_same(path: tuple[str, ...], meaning: str) -> None:
    doc = key_doc(path)
    assert doc is not None
    assert meaning in plain(doc.markdown()), doc.markdown()
    assert any(meaning in row for row in format_rows(path[-1])), format_rows(path[-1])


def test_hover_no_longer_says_zero_iterations_is_no_cap() -> None:
    doc = key_doc(("stages", "a", "max_iterations"))
    assert doc is not None and "no cap" not in plain(doc.markdown())


def stage_a(key: str):
    result = validate_bytes("t.leviath", STAGES.replace("{key}", key).encode(), Settings())
    assert result.blueprint is not None
    assert [d.code for d in result.diagnostics if d.severity == "error"] == []
    stage = result.blueprint.stage("a")
    assert stage is not None
    return result.blueprint, stage


@pytest.mark.parametrize("key", ["max_iterations = 0", ""])
def test_zero_iterations_takes_the_default_cap_as_unset_does(key: str) -> None:
    _, stage = stage_a(key)
    assert stage.iteration_cap() == DEFAULT_MAX_ITERATIONS
    assert stage.iteration_cap(7) == 7  # default-max-iterations, when configured


def test_zero_revisits_lets_no_edge_enter_the_stage_again() -> None:
    from compiler.runtime.policy import within_budget

    ir, _ = stage_a("max_revisits = 0")
    assert within_budget(ir, {}, "a")
    assert not within_budget(ir, {"a": 1}, "a")
