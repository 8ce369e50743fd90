"""Reading never crashes: every bad file gets a positioned diagnostic instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.parse.source import MAX_FILE_BYTES
from compiler.pipeline import validate_bytes
from compiler.rulebook.registry import REGISTRY
from tests.helpers import TOML_TEST, requires_shared

#: What reading a file reports (the syntax family).
READ_CODES = {rule.code for rule in REGISTRY.all() if rule.family == "syntax"}


def invalid_toml_files() -> list[Path]:
    return sorted(TOML_TEST.glob("invalid/**/*.toml")) if TOML_TEST.is_dir() else []


def assert_positioned_inside(result, data: bytes) -> None:
    lines = data.decode("utf-8", errors="replace").split("\n")
    for d in result.diagnostics:
        assert d.span is not None, d
        assert 1 <= d.span.line <= len(lines), d
        assert d.span.column >= 1, d
        assert (d.span.end_line, d.span.end_column) >= (d.span.line, d.span.column), d


@requires_shared
@pytest.mark.parametrize("path", invalid_toml_files(), ids=lambda p: p.relative_to(TOML_TEST).as_posix())
def test_every_invalid_toml_file_gives_one_positioned_read_error(path: Path) -> None:
    data = path.read_bytes()
    result = validate_bytes(path.name, data)
    read_errors = [d for d in result.diagnostics if d.code in READ_CODES]
    assert read_errors, f"accepted invalid TOML: {[d.code for d in result.diagnostics]}"
    assert result.blueprint is None or any(d.code == "invalid-encoding" for d in read_errors)
    assert_positioned_inside(result, data)


def test_syntax_error_position_is_the_parsers() -> None:
    result = validate_bytes("x.leviath", b'[agent]\nname = "a"\nversion = \n')
    (d,) = result.diagnostics
    assert (d.code, d.line, d.column) == ("toml-syntax", 3, 11)


def test_duplicate_key_points_at_both_definitions() -> None:
    data = b'[agent]\nname = "a"\n[stages.s]\nmax_iterations = 1\nmax_iterations = 2\n'
    (d,) = validate_bytes("x.leviath", data).diagnostics
    assert (d.code, d.line, d.column, d.end_column) == ("duplicate-key", 5, 1, 15)
    assert d.related[0].span.line == 4


def test_duplicate_table_header() -> None:
    data = b'[agent]\nname = "a"\n[stages.s]\n[stages.t]\n[stages.s]\n'
    (d,) = validate_bytes("x.leviath", data).diagnostics
    assert (d.code, d.line, d.column) == ("duplicate-key", 5, 9)
    assert d.related[0].span.line == 3


def test_invalid_utf8_is_positioned_and_the_rest_is_still_read() -> None:
    data = b'[agent]\nname = "caf' + b"\xe9" + b'"\n[stages.a]\nmode = "autonomous"\n'
    result = validate_bytes("x.leviath", data)
    enc = [d for d in result.diagnostics if d.code == "invalid-encoding"]
    assert len(enc) == 1 and (enc[0].line, enc[0].column) == (2, 12)
    assert result.blueprint is not None and result.blueprint.stage_names == ("a",)


def test_bom_and_crlf_are_accepted_with_exact_positions() -> None:
    data = b'\xef\xbb\xbf[agent]\r\nname = "a"\r\nversion = \r\n'
    (d,) = validate_bytes("x.leviath", data).diagnostics
    assert (d.code, d.line, d.column) == ("toml-syntax", 3, 11)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x00\x01\x02\xff\xfe binary",
        bytes(range(256)) * 4,
        b"\n\n\n",
        b"# only a comment\n",
        b"[agent]\nname = " + b"[" * 200 + b"]" * 200 + b"\n",
        b"a = {" * 300,
        b'"\xff" = 1\n',
    ],
    ids=["empty", "binary", "all-bytes", "blank", "comment", "deep-array", "deep-inline", "bad-key"],
)
def test_bad_input_never_crashes(data: bytes) -> None:
    result = validate_bytes("x.leviath", data)
    assert_positioned_inside(result, data)
    assert all(d.code != "internal-error" for d in result.diagnostics), result.diagnostics


def test_deep_nesting_is_refused_where_it_happens() -> None:
    data = b"[agent]\nname = 1\nx = " + b"[" * 60 + b"]" * 60 + b"\n"
    (d,) = validate_bytes("x.leviath", data).diagnostics
    assert d.code == "nesting-too-deep" and (d.line, d.column) == (3, 53)


def test_huge_file_is_refused_up_front() -> None:
    data = b"# " + b"x" * (MAX_FILE_BYTES + 10) + b"\n"
    (d,) = validate_bytes("x.leviath", data).diagnostics
    assert d.code == "file-too-large" and d.line == 1


def test_ten_megabyte_file_gets_a_clear_diagnostic() -> None:
    data = b'[agent]\nname = "big"\n' + (b"# padding line\n" * (10 * 1024 * 1024 // 15))
    result = validate_bytes("x.leviath", data)
    assert [d.code for d in result.diagnostics] == ["file-too-large"]


def test_integers_beyond_64_bits_are_invalid_toml_but_the_rest_is_checked() -> None:
    data = (
        b'[agent]\nname = "a"\n[stages.s]\nmax_iterations = 9223372036854775808\nmax_revisits = 9223372036854775807\n'
    )
    result = validate_bytes("x.leviath", data)
    huge = [d for d in result.diagnostics if d.code == "toml-syntax"]
    assert [(d.line, d.column, d.end_column) for d in huge] == [(4, 18, 37)]
    assert result.blueprint is not None


@pytest.mark.parametrize("digits", ["1" * 5000, "1_" * 4400 + "1"])
def test_an_integer_too_long_for_python_to_convert_is_a_positioned_syntax_error(digits: str) -> None:
    """Python refuses to convert more than 4,300 digits (a guard against slow conversions):
    that is a finding at the number, not an internal error."""
    data = f'[agent]\nname = "a"\nx = {digits}\n'.encode()
    (d,) = validate_bytes("x.leviath", data).diagnostics
    assert (d.code, d.severity, d.line, d.column, d.end_column) == ("toml-syntax", "error", 3, 5, 5 + len(digits))
    assert d.message.startswith("invalid TOML: integer 111111111111…(") and "does not fit in 64 bits" in d.message


def test_only_regular_files_are_read_and_never_past_the_limit(tmp_path) -> None:
    import os

    from compiler.parse.source import read_blueprint

    fifo = tmp_path / "pipe.leviath"
    os.mkfifo(fifo)  # no writer: a blocking open would hang here
    with pytest.raises(OSError, match="not a regular file"):
        read_blueprint(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        read_blueprint(tmp_path)
    if os.path.exists("/dev/zero"):
        with pytest.raises(OSError, match="not a regular file"):
            read_blueprint("/dev/zero")
    big = tmp_path / "big.leviath"
    big.write_bytes(b"#" * (MAX_FILE_BYTES + 100))
    assert len(read_blueprint(big)) == MAX_FILE_BYTES + 1
