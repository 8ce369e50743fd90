"""Suppression comments: same line, line before, file-level, and unused ones reported."""

from __future__ import annotations

from compiler.config import Settings
from tests.helpers import codes, run

UNKNOWN = """
[sandbox]
kind = "none"
mounts = ["/data"]{same}
"""


def test_without_directive_the_finding_shows() -> None:
    assert codes(UNKNOWN.format(same="")) == ["unknown-key"]


def test_directive_on_the_same_line() -> None:
    assert codes(UNKNOWN.format(same="  # blueprint: ignore[unknown-key]")) == []


def test_directive_on_the_line_before() -> None:
    source = """
    [sandbox]
    kind = "none"
    # blueprint: ignore[unknown-key]
    mounts = ["/data"]
    """
    assert codes(source) == []


def test_trailing_directive_does_not_reach_the_next_line() -> None:
    source = """
    [sandbox]
    kind = "none"  # blueprint: ignore[unknown-key]
    mounts = ["/data"]
    """
    result = run(source)
    assert sorted(d.code for d in result.diagnostics) == ["unknown-key", "unused-suppression"]


def test_several_codes_and_all() -> None:
    assert codes(UNKNOWN.format(same="  # blueprint: ignore[invalid-type, unknown-key]")) == ["unused-suppression"]
    assert codes(UNKNOWN.format(same="  # blueprint: ignore[all]")) == []
    assert codes(UNKNOWN.format(same="  # blueprint: ignore")) == []


def test_file_level_directive() -> None:
    source = """
    # blueprint: ignore-file[unknown-key]
    [sandbox]
    kind = "none"
    mounts = ["/data"]
    network = true
    mountz = 1
    """
    assert codes(source) == []


def test_unused_and_unknown_codes_are_reported_at_the_code() -> None:
    source = """
    [sandbox]
    kind = "none"  # blueprint: ignore[unknown-key, no-such-rule]
    """
    result = run(source)
    found = [(d.code, d.line, d.column, d.message) for d in result.diagnostics]
    assert [f[0] for f in found] == ["unused-suppression", "unused-suppression"]
    line = result.source.line_text(found[0][1])
    assert line[found[0][2] - 1 :].startswith("unknown-key")
    assert line[found[1][2] - 1 :].startswith("no-such-rule")
    assert "not a rule code" in found[1][3]


def test_misspelt_directive_is_reported_not_ignored() -> None:
    result = run('[sandbox]\nkind = "none"  # blueprint: ignroe[unknown-key]\n')
    (d,) = result.diagnostics
    assert d.code == "unused-suppression" and "ignore" in (d.fix or "")


def test_hash_inside_a_string_is_not_a_directive() -> None:
    source = '[agent]\nname = "# blueprint: ignore[unknown-key]"\n[sandbox]\nmounts = []\n'
    assert codes(source, agent=False) == ["unknown-key"]


def test_deselected_codes_are_not_called_unused() -> None:
    source = UNKNOWN.format(same="  # blueprint: ignore[unknown-key]")
    assert codes(source, settings=Settings(ignore=("unknown-key",))) == []
    assert codes(source, settings=Settings(select=("structure",))) == []


def test_unused_suppression_can_itself_be_ignored() -> None:
    source = '[sandbox]\nkind = "none"  # blueprint: ignore[unknown-key]\n'
    assert codes(source) == ["unused-suppression"]
    assert codes(source, settings=Settings(ignore=("unused-suppression",))) == []
