"""Bad input never breaks `validate`: property tests over mutated blueprints (hypothesis).

Real blueprints (the examples, and the corpus when present) are parsed, mutated as documents
(a value of the wrong type anywhere, keys removed, unknown and oddly spelled keys added, huge
numbers, deep nesting), written back as TOML, then mutated as text (random bytes spliced
in, truncation, CRLF, a BOM, a duplicated line). Whatever comes out:

- no exception escapes `validate_bytes`, and no check crashes (`internal-error`);
- every finding has a registered code and a severity;
- every finding about a key has a position inside the file (line within the file, column
  within the line, end not before start), and so do its related locations;
- `blueprint validate` exits with 0, 1 or 2.

Bounded for CI: a few hundred examples in all, no deadline.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hypothesis import HealthCheck, example, find, given, settings
from hypothesis import strategies as st

from compiler.diagnostics import SEVERITIES, Diagnostic, Span
from compiler.pipeline import FileResult, validate_bytes
from compiler.rulebook.registry import REGISTRY
from tests.conftest import invoke_cli
from tests.helpers import CORPUS, ROOT

SOURCES = sorted((ROOT / "blueprints").glob("*.leviath")) + sorted(CORPUS.glob("*/agent.leviath"))
BASES: list[dict[str, Any]] = [tomllib.loads(path.read_text(encoding="utf-8")) for path in SOURCES]

FUZZ = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

# --- values and keys ------------------------------------------------------------------------

odd_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12) | st.sampled_from(
    ["", " ", "a.b", '"q"', "'s'", "é", "日本", "\t", "#", "=", "[x]", "\\u0000", "stages"]
)
keys = st.sampled_from(["mode", "condition", "max_iterations", "gate", "transitions", "kind", "seed", "x"]) | odd_text
scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.integers(min_value=2**63, max_value=2**80) | st.integers(min_value=-(2**80), max_value=-(2**63) - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    odd_text,
    st.sampled_from(["autonomous", "llm_choice", "stuck", "compact", "pinned", "ALLOW", "-1", "10", "true"]),
    st.dates(min_value=dt.date(1, 1, 1)),
    st.times(),
    st.datetimes(),
    st.datetimes(timezones=st.just(dt.UTC)),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)


def paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value below `node` (tables and arrays included)."""
    out = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in items:
        out.append(prefix + (key,))
        out.extend(paths(child, prefix + (key,)))
    return out


def parent_of(document: dict, path: tuple) -> Any:
    node: Any = document
    for part in path[:-1]:
        node = node[part]
    return node


# --- mutations ------------------------------------------------------------------------------


def mutate_document(data: st.DataObject, document: dict) -> dict:
    for _ in range(data.draw(st.integers(1, 4), label="document mutations")):
        everywhere = paths(document)
        kind = data.draw(st.sampled_from(["replace", "delete", "add", "nest"]), label="kind")
        if kind == "add" or not everywhere:
            tables = [()] + [p for p in everywhere if isinstance(parent_of(document, p + ("",)), dict)]
            where = data.draw(st.sampled_from(tables), label="table")
            parent_of(document, where + ("",))[data.draw(keys, label="key")] = data.draw(values, label="value")
            continue
        path = data.draw(st.sampled_from(everywhere), label="path")
        parent = parent_of(document, path)
        if kind == "delete":
            del parent[path[-1]]
        elif kind == "replace":
            parent[path[-1]] = data.draw(values, label="value")
        else:  # wrap the value in many levels of arrays or inline tables
            value = parent[path[-1]]
            for _ in range(data.draw(st.integers(10, 60), label="depth")):
                value = [value] if data.draw(st.booleans(), label="array") else {"k": value}
            parent[path[-1]] = value
    return document


def mutate_text(data: st.DataObject, raw: bytes) -> bytes:
    for _ in range(data.draw(st.integers(0, 3), label="text mutations")):
        kind = data.draw(st.sampled_from(["splice", "truncate", "crlf", "bom", "duplicate", "line"]), label="kind")
        at = data.draw(st.integers(0, len(raw)), label="offset")
        if kind == "splice":
            raw = raw[:at] + data.draw(st.binary(min_size=1, max_size=6), label="bytes") + raw[at:]
        elif kind == "truncate":
            raw = raw[:at]
        elif kind == "crlf":
            raw = raw.replace(b"\n", b"\r\n")
        elif kind == "bom":
            raw = b"\xef\xbb\xbf" + raw
        elif kind == "duplicate" and raw:
            lines = raw.split(b"\n")
            line = data.draw(st.sampled_from(lines), label="line")
            raw = b"\n".join(lines + [line])
        else:
            line = data.draw(
                st.sampled_from(
                    [
                        b'[stages."odd name".transitions."x y"]',
                        b"a.b.c = 1",
                        b"'lit' . \"q\" = 2",
                        b"[[stages.p.interaction_points]]",
                        b'[context.regions."\xc3\xa9t\xc3\xa9"]',
                        b"max_iterations = 99999999999999999999999",
                        b"x = [[[[[[1]]]]]]",
                        b"=",
                        b"[",
                    ]
                ),
                label="line",
            )
            raw = raw[:at] + b"\n" + line + b"\n" + raw[at:]
    return raw


@st.composite
def blueprint_bytes(draw: st.DrawFn) -> bytes:
    data = draw(st.data())
    document = mutate_document(data, tomllib.loads(tomlkit.dumps(draw(st.sampled_from(BASES)))))
    try:
        text = tomlkit.dumps(document)
    except Exception:  # a value tomlkit cannot write: keep the unmutated file
        text = tomlkit.dumps(draw(st.sampled_from(BASES)))
    return mutate_text(data, text.encode("utf-8"))


# --- properties -----------------------------------------------------------------------------


def check_span(span: Span, lines: list[str], what: str) -> None:
    assert 1 <= span.line <= len(lines), f"{what}: line {span.line} of {len(lines)}"
    assert 1 <= span.column <= len(lines[span.line - 1]) + 1, f"{what}: column {span.column} past the line"
    assert (span.end_line, span.end_column) >= (span.line, span.column), f"{what}: ends before it starts"
    assert span.end_line <= len(lines), f"{what}: end line {span.end_line} of {len(lines)}"


def check_result(result: FileResult) -> None:
    lines = (result.source.text if result.source else "").split("\n")
    for d in result.diagnostics:
        assert isinstance(d, Diagnostic)
        assert d.code != "internal-error", d.message
        assert d.code in REGISTRY.rules, f"unregistered code {d.code}"
        assert d.severity in SEVERITIES
        if d.path:
            assert d.span is not None, f"{d.code} about '{d.key_path}' has no position"
        if d.span is not None:
            check_span(d.span, lines, f"{d.code} {d.message!r}")
        for related in d.related:
            if related.span is not None:
                check_span(related.span, lines, f"related location of {d.code}")


@FUZZ
@given(blueprint_bytes())
def test_validate_survives_mutated_blueprints(raw: bytes) -> None:
    check_result(validate_bytes("fuzz.leviath", raw))


@FUZZ
@given(st.binary(max_size=400) | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")))
@example(b"")
@example(b"\xef\xbb\xbf")
@example(b"\r\n" * 3 + b"\x00")
@example(b"a = " + b"[" * 5000 + b"]" * 5000)
@example(b"a = " + b"{ b = " * 300 + b"1" + b" }" * 300)
@example(b'[agent]\nname = "' + b"x" * (9 * 1024 * 1024) + b'"\n')
@example(b"[agent]\nname = 1\nname = 2\n[agent]\n")
def test_validate_survives_arbitrary_bytes(raw: bytes) -> None:
    check_result(validate_bytes("noise.leviath", raw))


@settings(FUZZ, max_examples=30)
@given(raw=blueprint_bytes())
def test_the_cli_exits_0_1_or_2(tmp_path_factory, raw: bytes) -> None:
    path = tmp_path_factory.mktemp("cli") / "agent.leviath"
    path.write_bytes(raw)
    result = invoke_cli("validate", "--format", "json", path)
    assert result.exit_code in (0, 1, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)


@pytest.mark.parametrize("code", ["toml-syntax", "invalid-type", "unknown-key"])
def test_the_mutations_reach_the_interesting_cases(code: str) -> None:
    """The generators are not vacuous: some mutated file produces each kind of finding.

    A search for one such file, not a count over a fixed draw: which examples a draw holds
    depends on what ran before it in the process, and a statement about what the generators
    can reach must not."""
    found = find(
        blueprint_bytes(),
        lambda raw: any(d.code == code for d in validate_bytes("fuzz.leviath", raw).diagnostics),
        settings=settings(FUZZ, max_examples=400, database=None, derandomize=True),
    )
    assert any(d.code == code for d in validate_bytes("fuzz.leviath", found).diagnostics)


def test_the_bases_are_real_blueprints() -> None:
    assert len(BASES) >= 6 and all("stages" in base for base in BASES)
    assert all(Path(p).suffix == ".leviath" for p in SOURCES)
