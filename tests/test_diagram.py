"""Drawings of the stage graph: goldens for the examples, structure, escaping, Graphviz.

Goldens live in `tests/diagrams/<example>.{mmd,dot,txt}`; rewrite them with
`UPDATE_GOLDEN=1 pytest tests/test_diagram.py` and read the diff.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from compiler.graph import StageGraph
from compiler.render.diagram import (
    drawing,
    mermaid_text,
    to_dot,
    to_mermaid,
    visible,
)
from compiler.render.diagram_outline import outline
from compiler.render.drawings import render
from tests.helpers import CORPUS, ROOT, requires_shared, run

EXAMPLES = sorted((ROOT / "blueprints").glob("*.leviath"))
GOLDEN = Path(__file__).parent / "diagrams"
SUFFIX = {"mermaid": ".mmd", "dot": ".dot", "text": ".txt"}

#: Names that break naive drawings: quotes, arrows, HTML, braces, Mermaid directives,
#: backslash escapes DOT would interpret, a newline, a bidi override, unicode.
NASTY = [
    'say "hi" --> there',
    "<b>ünï cödé</b> {x}",
    "line\nbreak\\N\\",
    '%%{init: {"theme":"dark"}}%%',
    "a|b #35; `tick` [x](y) <script>alert(1)</script>",
    "rtl\u202eevil",
    "plain",
]


def graph_of(source: str) -> tuple[StageGraph, str]:
    result = run(source)
    assert result.blueprint is not None
    return StageGraph.from_blueprint(result.blueprint), result.blueprint.name


def example_graph(path: Path) -> tuple[StageGraph, str]:
    from compiler.pipeline import validate_bytes

    result = validate_bytes(path.name, path.read_bytes())
    assert result.blueprint is not None
    return StageGraph.from_blueprint(result.blueprint), result.blueprint.name


def named_graph(source: str) -> tuple[StageGraph, str]:
    """`nasty` (see `nasty_blueprint`) or the stem of one of the example blueprints."""
    if source == "nasty":
        return graph_of(nasty_blueprint())
    return example_graph(ROOT / "blueprints" / f"{source}.leviath")


def toml_key(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def nasty_blueprint() -> str:
    """A chain through every nasty name, each stage with an edge to the next (an error edge
    and a gate on the first), a stuck edge, a hint full of markup, a dangling edge."""
    parts = ['[agent]\nname = "nasty <script>"\n']
    for i, name in enumerate(NASTY):
        key = toml_key(name)
        parts.append(f'[stages.{key}]\nmode = "autonomous"\nmax_revisits = {i}\n')
        if i + 1 < len(NASTY):
            target = toml_key(NASTY[i + 1])
            parts.append(
                f"[stages.{key}.transitions.{target}]\n"
                f'hint = "go \\"{name[:3]}\\" --> <b>|x|</b> #35; %%"\n'
                'gate = { require_modifications = true, tools = ["shell"] }\n'
            )
            if i + 2 < len(NASTY):
                parts.append(f'[stages.{key}.transitions.{toml_key(NASTY[-1])}]\ncondition = "error"\n')
        else:
            parts.append(f"[stages.{key}.transitions]\n")
    parts.append(f'[stages.{toml_key(NASTY[0])}.transitions."nowhere <b>"]\ncondition = "dead_end"\n')
    return "\n".join(parts)


# --- goldens ------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", sorted(SUFFIX))
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_golden(path: Path, fmt: str) -> None:
    graph, name = example_graph(path)
    text = render(graph, fmt, name)
    expected = GOLDEN / (path.stem + SUFFIX[fmt])
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        expected.write_text(text, encoding="utf-8")
    assert expected.exists(), f"missing {expected.name}; run with UPDATE_GOLDEN=1 and review it"
    assert text == expected.read_text(encoding="utf-8")
    assert render(graph, fmt, name) == text  # deterministic


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_stage_and_edge_is_drawn(path: Path) -> None:
    graph, name = example_graph(path)
    d = drawing(graph, name)
    assert [n.name for n in d.nodes if n.kind == "stage"] == list(graph.names)
    stage_edges = [(a.source, a.target, a.kind) for a in d.arrows if not a.target.startswith(("x", "m"))]
    ids = {n.name: n.id for n in d.nodes if n.kind == "stage"}
    assert sorted(stage_edges) == sorted((ids[e.source], ids[e.target], e.kind) for e in graph.edges)
    mermaid = to_mermaid(d)
    dot = to_dot(d)
    arrows = len(d.arrows) + 1  # the start marker's arrow
    assert len(re.findall(r"^  \w+ (?:-->|-\.->|==>)", mermaid, re.M)) == arrows
    assert len(re.findall(r"^  \w+ -> \w+", dot, re.M)) == arrows


# --- what the drawings say ----------------------------------------------------------------

REVIEW = """
[stages.work]
mode = "autonomous"
max_revisits = 2
available_tools = ["write_file"]

[stages.work.transitions.check]
hint = "done"
transform = "summarize"
gate = { require_modifications = true }

[stages.work.transitions.rescue]
condition = "stuck"
stuck_after_same_file_edits = 3
stuck_after_iterations = 20

[stages.work.transitions.check2]
condition = "max_iterations"

[stages.check]
mode = "autonomous"
max_revisits = 2

[stages.check.transitions.work]
condition = "llm_choice"
hint = "again"

[stages.check.transitions.done]
condition = "llm_choice"
hint = "good"

[stages.rescue]
mode = "autonomous"

[stages.check2]
mode = "autonomous"

[stages.done]
mode = "output"

[stages.done.transitions]
"""


def test_labels_conditions_gates_stuck_and_styles() -> None:
    graph, _ = graph_of(REVIEW)
    d = drawing(graph)
    by_target = {(a.source, a.target): a for a in d.arrows}
    work_check = by_target[("s0", "s1")]
    assert work_check.style == "solid"
    assert work_check.label == ("llm_choice", '"done"', "transform: compact", "gate: require_modifications")
    stuck = by_target[("s0", "s2")]
    assert stuck.style == "dashed" and stuck.label == ("[stuck]", "stuck: 20 iterations / 3 same-file edits")
    assert by_target[("s0", "s3")].label == ("[max_iterations]",)
    fall = by_target[("s2", "s3")]
    assert (fall.kind, fall.style, fall.label) == ("fall_through", "dotted", ("next",))
    nodes = {n.name: n for n in d.nodes}
    assert nodes["work"].entry and not nodes["work"].terminal
    assert nodes["done"].terminal and nodes["work"].details == ("autonomous · max_revisits 2",)
    mermaid = to_mermaid(d)
    assert '  s0 -.->|"[stuck]<br/>stuck: 20 iterations / 3 same-file edits"| s2' in mermaid
    assert '  s2 -.->|"next"| s3' in mermaid
    assert "  class s4 terminal" in mermaid and "  class s0 entry" in mermaid
    assert "  start --> s0" in mermaid
    dot = to_dot(d)
    assert 's0 -> s2 [label="[stuck]\\nstuck: 20 iterations / 3 same-file edits", style=dashed' in dot
    assert 's2 -> s3 [label="next", style=dotted]' in dot
    assert re.search(r"^  s4 \[.*peripheries=2", dot, re.M)


def test_fan_out_workers_merge_and_external_workers() -> None:
    graph, _ = graph_of(
        """
        [stages.split]
        mode = "fan_out"
        worker_stage = "item"
        merge_stage = "merge"
        [stages.split.transitions.merge]
        condition = "error"
        [stages.item]
        allow_as_worker = true
        [stages.item.transitions]
        [stages.merge]
        mode = "fan_out"
        worker_agent = "reviewer <bot>"
        [stages.merge.transitions]
        """
    )
    d = drawing(graph)
    kinds = [(a.source, a.target, a.kind, a.label) for a in d.arrows]
    assert ("s0", "s2", "merge", ("merge",)) in kinds
    assert ("s0", "s1", "worker", ("workers",)) in kinds
    assert ("s2", "x0", "worker", ("workers",)) in kinds
    external = [n for n in d.nodes if n.kind == "external"]
    assert [n.name for n in external] == ["reviewer <bot>"]
    mermaid = to_mermaid(d)
    assert '  x0{{"ext:reviewer #60;bot#62;"}}' in mermaid
    assert '  s0 ==>|"merge"| s2' in mermaid
    assert "ext:'reviewer <bot>'" in outline(graph)


def test_dangling_edges_go_to_missing_nodes_and_unreached_stages_are_marked() -> None:
    graph, _ = graph_of(
        """
        [stages.a]
        [stages.a.transitions.ghost]
        [stages.b]
        [stages.b.transitions]
        """
    )
    d = drawing(graph)
    missing = [n for n in d.nodes if n.kind == "missing"]
    assert [(n.id, n.name) for n in missing] == [("m0", "ghost")]
    assert any(a.target == "m0" for a in d.arrows)
    assert [n.name for n in d.nodes if n.unreachable] == ["b"]
    text = outline(graph)
    assert "→ 'ghost' (missing stage)" in text
    assert "stage 'b' [terminal, unreachable]" in text


def test_outline_keeps_whole_hints_drawings_shorten_them() -> None:
    hint = "word " * 30
    graph, _ = graph_of(
        f"""
        [stages.a.transitions.b]
        hint = "{hint}"
        [stages.b.transitions]
        """
    )
    assert hint.strip() in outline(graph)
    label = drawing(graph).arrows[0].label[1]
    assert len(label) <= 50 and label.endswith('…"')


def test_linear_blueprint_falls_through_and_the_last_stage_ends_the_run() -> None:
    graph, _ = graph_of(
        """
        [stages.one]
        [stages.two]
        [stages.three]
        """
    )
    d = drawing(graph)
    assert [(a.source, a.target, a.style) for a in d.arrows] == [("s0", "s1", "dotted"), ("s1", "s2", "dotted")]
    assert [n.terminal for n in d.nodes] == [False, False, True]


# --- escaping -----------------------------------------------------------------------------

_MERMAID_NODE = re.compile(r'^  (?:s|x|m)\d+(?:\[|\[\[|\{\{|\[/)"[^"\n]*"(?:\]|\]\]|\}\}|/\])$')
_MERMAID_EDGE = re.compile(r'^  \w+ (?:-->|-\.->|==>)(?:\|"[^"\n]*"\|)? \w+$')


def test_mermaid_escapes_every_user_string() -> None:
    graph, _ = graph_of(nasty_blueprint())
    text = to_mermaid(drawing(graph))
    for line in text.splitlines()[1:]:
        if line.startswith(("  class", "  linkStyle", '  start(("start"))', "  start -->")):
            continue
        assert _MERMAID_NODE.match(line) or _MERMAID_EDGE.match(line), line
        label = line[line.find('"') + 1 : line.rfind('"')].replace("<br/>", "")  # our line breaks
        assert not set(label) & set('"<>`|{}\\\n\u202e'), line
    assert "#60;script#62;" in text and "<script" not in text
    assert mermaid_text('a"b') == "a#34;b" and mermaid_text("#") == "#35;"


def test_dot_escapes_every_user_string() -> None:
    graph, _ = graph_of(nasty_blueprint())
    text = to_dot(drawing(graph))
    for line in text.splitlines():
        # Outside quoted strings only ids, punctuation and attribute names remain.
        outside = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', line)
        assert '"' not in outside.replace('""', ""), line
        assert re.fullmatch(r'[\w\s\[\]=,;{}>\-#.""]*', outside), line
    assert "\\\\N" in text  # the user's backslash-N is a literal backslash, not a node-name escape
    assert "\n" not in text.replace("\n  ", "").replace("{\n", "").rstrip("}\n")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) is not installed")
@pytest.mark.parametrize("source", ["nasty", *[p.stem for p in EXAMPLES]])
def test_dot_renders_with_graphviz_and_keeps_every_label(source: str) -> None:
    graph, name = named_graph(source)
    d = drawing(graph, name)
    done = subprocess.run(["dot", "-Tsvg"], input=to_dot(d).encode(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert not done.stderr.strip(), done.stderr.decode()  # no syntax warning either
    svg = ET.fromstring(done.stdout)
    ns = {"svg": "http://www.w3.org/2000/svg"}
    drawn: dict[str, list[str]] = {}
    edges = 0
    for group in svg.iter("{http://www.w3.org/2000/svg}g"):
        cls = group.get("class")
        if cls == "node":
            title = group.find("svg:title", ns).text
            drawn[title] = [t.text or "" for t in group.findall("svg:text", ns)]
        elif cls == "edge":
            edges += 1
    assert edges == len(d.arrows) + 1
    for node in d.nodes:
        lines = drawn[node.id]
        expected = visible(node.name) if node.kind != "external" else f"ext:{node.name}"
        # Graphviz renders runs of spaces as non-breaking spaces.
        assert lines[0].replace("\xa0", " ") == expected


# --- optional: the real Mermaid parser ------------------------------------------------------


@pytest.mark.skipif(shutil.which("mmdc") is None, reason="mermaid-cli (mmdc) is not installed")
def test_mermaid_cli_accepts_the_nasty_drawing(tmp_path: Path) -> None:
    graph, _ = graph_of(nasty_blueprint())
    source = tmp_path / "graph.mmd"
    source.write_text(to_mermaid(drawing(graph)), encoding="utf-8")
    config = tmp_path / "puppeteer.json"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    config.write_text(
        '{"args": ["--no-sandbox", "--disable-gpu"]' + (f', "executablePath": "{chromium}"' if chromium else "") + "}"
    )
    out = tmp_path / "graph.svg"
    done = subprocess.run(
        ["mmdc", "-p", str(config), "-i", str(source), "-o", str(out)], capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()
    svg = out.read_text(encoding="utf-8")
    assert "Syntax error" not in svg and "<script" not in svg
    assert "say" in svg and "ünï cödé" in svg


# --- any blueprint, however odd -------------------------------------------------------------

ALL_CASES = sorted((ROOT / "tests" / "cases").glob("*/*.leviath"))


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_golden_case_draws_and_documents(case: Path) -> None:
    """Broken blueprints included: every drawing and the docs page render without a crash."""
    from compiler.pipeline import validate_bytes
    from compiler.render.blueprint_docs import page_data, render_html, render_markdown
    from compiler.render.diagram_svg import to_svg

    result = validate_bytes(case.name, case.read_bytes())
    if result.blueprint is None:
        return
    graph = StageGraph.from_blueprint(result.blueprint)
    for fmt in SUFFIX:
        assert render(graph, fmt, result.blueprint.name)
    assert to_svg(drawing(graph, result.blueprint.name)).startswith("<svg")
    page = page_data(result.blueprint, case.name, "builtin")
    assert render_markdown(page).startswith("# ")
    ET.fromstring(page.svg)  # well-formed XML
    assert "<script" not in render_html(page)


@requires_shared
@pytest.mark.parametrize("name", sorted(p.parent.name for p in CORPUS.glob("*/agent.leviath")) or ["none"])
def test_real_blueprints_draw(name: str) -> None:
    path = CORPUS / name / "agent.leviath"
    if not path.exists():
        pytest.skip("no corpus")
    graph, title = example_graph(path)
    d = drawing(graph, title)
    assert [n.name for n in d.nodes if n.kind == "stage"] == list(graph.names)
    assert not [n for n in d.nodes if n.kind == "missing"]  # valid blueprints reference real stages
    if shutil.which("dot"):
        done = subprocess.run(["dot", "-Tsvg"], input=to_dot(d).encode(), capture_output=True, timeout=60)
        assert done.returncode == 0 and not done.stderr.strip(), done.stderr.decode()


# --- the built-in SVG layout ----------------------------------------------------------------

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("source", ["nasty", *[p.stem for p in EXAMPLES]])
def test_builtin_svg_draws_every_node_and_arrow_inside_its_canvas(source: str) -> None:
    from compiler.render.diagram_svg import to_svg

    graph, name = named_graph(source)
    d = drawing(graph, name)
    text = to_svg(d)
    assert to_svg(d) == text  # deterministic
    svg = ET.fromstring(text)
    width, height = float(svg.get("width")), float(svg.get("height"))
    nodes = [g for g in svg.iter(f"{SVG}g") if (g.get("class") or "").startswith("node")]
    assert [g.find(f"{SVG}text").text for g in nodes] == [
        visible(n.name) if n.kind != "external" else f"ext:{n.name}" for n in d.nodes
    ]
    arrows = [p for p in svg.iter(f"{SVG}path") if p.get("marker-end")]
    assert len(arrows) == len(d.arrows) + 1  # and the start marker's
    for element in svg.iter():
        for attribute in ("x", "cx"):
            if element.get(attribute) is not None and element.get("transform") is None:
                assert 0 <= float(element.get(attribute)) <= width, ET.tostring(element)
        if element.get("y") is not None:
            assert 0 <= float(element.get("y")) <= height, ET.tostring(element)
    assert "<script" not in text


@requires_shared
def test_builtin_svg_stays_compact_for_a_large_real_blueprint() -> None:
    from compiler.render.diagram_svg import to_svg

    path = CORPUS / "coder" / "agent.leviath"
    if not path.exists():
        pytest.skip("no coder blueprint in the corpus")
    graph, name = example_graph(path)
    svg = ET.fromstring(to_svg(drawing(graph, name)))
    assert float(svg.get("width")) < 1200, svg.get("width")  # lanes, not a label column per edge
