"""`blueprint graph`: formats, output file, exit statuses, broken blueprints."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import invoke_cli
from tests.helpers import ROOT

GOLDEN = Path(__file__).parent / "diagrams"
REVIEW = ROOT / "blueprints" / "review-loop.leviath"


def invoke(*args: str):
    return invoke_cli("graph", *args)


def test_each_format_prints_the_golden_drawing() -> None:
    for fmt, suffix in (("mermaid", ".mmd"), ("dot", ".dot"), ("text", ".txt")):
        result = invoke(str(REVIEW), "--format", fmt)
        assert result.exit_code == 0, result.output
        assert result.stdout == (GOLDEN / f"review-loop{suffix}").read_text(encoding="utf-8")
        assert result.stderr == ""


def test_default_format_is_mermaid_and_output_goes_to_a_file(tmp_path: Path) -> None:
    out = tmp_path / "graph.mmd"
    result = invoke(str(REVIEW), "-o", str(out))
    assert result.exit_code == 0 and result.stdout == ""
    assert out.read_text(encoding="utf-8") == (GOLDEN / "review-loop.mmd").read_text(encoding="utf-8")


def test_a_broken_blueprint_is_drawn_and_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "broken.leviath"
    path.write_text(
        '[agent]\nname = "broken"\n[stages.a]\n[stages.a.transitions.ghost]\n[stages.a.transitions.b]\n'
        '[stages.b]\nmode = "output"\n[stages.b.transitions]\n',
        encoding="utf-8",
    )
    result = invoke(str(path), "--format", "text")
    assert result.exit_code == 1
    assert "→ 'ghost' (missing stage)" in result.stdout
    assert "error[unknown-stage]" in result.stderr
    assert "warning[" not in result.stderr  # only what makes the exit status 1


def test_syntax_error_draws_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bad.leviath"
    path.write_text("[agent\n", encoding="utf-8")
    result = invoke(str(path))
    assert result.exit_code == 1 and result.stdout == ""
    assert "error[toml-syntax]" in result.stderr


def test_usage_and_io_errors_exit_2(tmp_path: Path) -> None:
    assert invoke(str(tmp_path / "missing.leviath")).exit_code == 2
    assert invoke(str(REVIEW), "--format", "png").exit_code == 2
    assert invoke(str(REVIEW), "-o", str(tmp_path / "no" / "such" / "dir" / "x.mmd")).exit_code == 2


def test_listed_in_the_help_without_importing_it() -> None:
    result = invoke_cli("--help")
    assert "graph" in result.output and "docs" in result.output


def test_svg_is_the_docs_pages_diagram_byte_for_byte(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ElementTree

    from compiler.pipeline import validate_bytes
    from compiler.render.blueprint_docs import page_data, render_html

    out = tmp_path / "graph.svg"
    result = invoke(str(REVIEW), "--format", "svg", "--diagram", "builtin", "-o", str(out))
    assert result.exit_code == 0, result.output
    svg = out.read_text(encoding="utf-8")
    root = ElementTree.fromstring(svg)  # a well-formed document on its own
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    blueprint = validate_bytes(REVIEW.name, REVIEW.read_bytes()).blueprint
    page = page_data(blueprint, REVIEW.name, "builtin")
    assert svg == page.svg
    assert svg in render_html(page)
    assert invoke(str(REVIEW), "--format", "svg").stdout == page_data(blueprint, REVIEW.name).svg  # auto


def test_a_broken_blueprint_is_drawn_as_svg_too(tmp_path: Path) -> None:
    path = tmp_path / "broken.leviath"
    path.write_text('[agent]\nname = "broken"\n[stages.a.transitions.ghost]\n', encoding="utf-8")
    result = invoke(str(path), "--format", "svg", "--diagram", "builtin")
    assert result.exit_code == 1
    assert "error[unknown-stage]" in result.stderr
    assert result.stdout.startswith("<svg") and ">ghost</text>" in result.stdout
