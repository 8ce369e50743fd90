"""The HTML pages of `blueprint docs`, opened in a real headless Chromium.

Skipped where Chromium is not installed (Debian: `apt-get install chromium`; `.ci/run`
installs it when it can). The browser helpers live in `scripts/docs_screenshots.py`, which
also writes screenshots for a person to look at.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest

from compiler.pipeline import validate_bytes
from compiler.render.blueprint_docs import page_data, render_html
from tests.conftest import invoke_cli
from tests.helpers import CORPUS, ROOT, requires_shared

_spec = importlib.util.spec_from_file_location("docs_screenshots", ROOT / "scripts" / "docs_screenshots.py")
browser = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("docs_screenshots", browser)
_spec.loader.exec_module(browser)  # type: ignore[union-attr]

needs_chromium = pytest.mark.skipif(browser.find_chromium() is None, reason="Chromium is not installed")

EXAMPLES = sorted((ROOT / "blueprints").glob("*.leviath"))


def write_page(path: Path, out: Path, engine: str = "builtin") -> tuple[Path, object]:
    result = validate_bytes(path.name, path.read_bytes())
    assert result.blueprint is not None
    page = page_data(result.blueprint, path.name, engine)
    html = out / f"{path.stem}.html"
    html.write_text(render_html(page), encoding="utf-8")
    return html, page


@needs_chromium
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_page_parses_with_its_stage_table_and_diagram(path: Path, tmp_path: Path) -> None:
    html, page = write_page(path, tmp_path)
    dom = browser.dump_dom(html)
    table = dom[dom.index('<table class="stages">') : dom.index("</table>", dom.index('<table class="stages">'))]
    assert table.count("<tr>") == len(page.stages) + 1
    for stage in page.stages:
        assert f">{stage.name}</a>" in table
    assert "<svg" in dom and 'class="stage-graph"' in dom
    assert "<script" not in dom


@needs_chromium
@pytest.mark.parametrize("engine", ["builtin", "graphviz"])
def test_screenshot_is_not_blank(engine: str, tmp_path: Path) -> None:
    if engine == "graphviz" and shutil.which("dot") is None:
        pytest.skip("Graphviz (dot) is not installed")
    html, _ = write_page(ROOT / "blueprints" / "review-loop.leviath", tmp_path, engine)
    png = tmp_path / "page.png"
    browser.screenshot(html, png, width=900, height=1100)
    picture = browser.read_png(png.read_bytes())
    assert (picture.width, picture.height) == (900, 1100)
    assert picture.ink > 0.03, picture  # text, tables and the diagram cover part of the page
    assert picture.colours > 20, picture  # anti-aliased text and coloured arrows


@needs_chromium
def test_user_markup_stays_text_in_the_browser(tmp_path: Path) -> None:
    source = tmp_path / "evil.leviath"
    source.write_text(
        '[agent]\nname = "<script>document.title=1</script><img src=x>"\n'
        'description = "<b>not bold</b>"\n'
        '[stages."<i>stage</i>"]\nmode = "output"\n[stages."<i>stage</i>".transitions]\n',
        encoding="utf-8",
    )
    html, _ = write_page(source, tmp_path)
    dom = browser.dump_dom(html)
    assert "<script" not in dom and "<img" not in dom and "<b>" not in dom and "<i>" not in dom
    assert "&lt;script&gt;document.title=1&lt;/script&gt;&lt;img src=x&gt;" in dom
    assert "&lt;i&gt;stage&lt;/i&gt;" in dom


def test_png_reader_measures_a_blank_image() -> None:
    import struct
    import zlib

    width, height = 8, 4
    rows = b"".join(b"\x00" + b"\xff\xff\xff" * width for _ in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    picture = browser.read_png(png)
    assert (picture.width, picture.height, picture.ink, picture.colours) == (8, 4, 0.0, 1)


# --- a large graph fits the page ------------------------------------------------------------


def with_corner_marks(svg: str) -> str:
    """The SVG with a magenta square in each corner of its viewBox: if all four show in a
    screenshot, no part of the drawing is cut off."""
    import re

    x, y, width, height = (float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split())
    size = max(width, height) * 0.02
    marks = "".join(
        f'<rect x="{mx:.2f}" y="{my:.2f}" width="{size:.2f}" height="{size:.2f}" fill="#ff00ff"/>'
        for mx in (x, x + width - size)
        for my in (y, y + height - size)
    )
    end = svg.rindex("</svg>")
    return svg[:end] + marks + svg[end:]


def magenta_pixels(png: bytes) -> list[tuple[int, int]]:
    """Where the screenshot is pure magenta (the marks' insides; their edges are blended)."""
    _, _, bpp, rows = browser.decode_png(png)
    found = []
    for y, row in enumerate(rows):
        at = row.find(b"\xff\x00\xff")
        while at >= 0:
            if at % bpp == 0:
                found.append((at // bpp, y))
            at = row.find(b"\xff\x00\xff", at + 1)
    return found


@needs_chromium
@requires_shared
@pytest.mark.parametrize("engine", ["builtin", "graphviz"])
def test_the_largest_corpus_graph_fits_a_1280_pixel_page(engine: str, tmp_path: Path) -> None:
    """The corpus's coder (8 stages, every kind of edge): nothing of its diagram is cut off."""
    from dataclasses import replace

    if engine == "graphviz" and shutil.which("dot") is None:
        pytest.skip("Graphviz (dot) is not installed")
    source = CORPUS / "coder" / "agent.leviath"
    result = validate_bytes("coder/agent.leviath", source.read_bytes())
    page = page_data(result.blueprint, "coder/agent.leviath", engine)
    assert page.svg_engine == engine and len(page.stages) == 8 and page.edge_count >= 25
    html = tmp_path / "coder.html"
    html.write_text(render_html(replace(page, svg=with_corner_marks(page.svg)), index=True), encoding="utf-8")
    png = tmp_path / "coder.png"
    browser.screenshot(html, png, width=1280, height=1600)
    marks = magenta_pixels(png.read_bytes())
    assert marks, "no corner of the diagram is visible"
    xs, ys = [x for x, _ in marks], [y for _, y in marks]
    left, right, top, bottom = min(xs), max(xs), min(ys), max(ys)
    assert right < 1280 and bottom < 1600
    middle_x, middle_y = (left + right) / 2, (top + bottom) / 2
    corners = {(x < middle_x, y < middle_y) for x, y in marks}
    assert corners == {(True, True), (True, False), (False, True), (False, False)}, "a corner is cut off"
    assert right - left > 600, "the diagram is drawn far smaller than the page allows"
    natural = re.search(r'<svg[^>]*\swidth="([\d.]+)(pt|px)?"', page.svg)
    if engine == "graphviz":  # Graphviz draws it wider than the page: fitting is what keeps it whole
        assert float(natural.group(1)) * (4 / 3 if natural.group(2) == "pt" else 1) > 1280


@needs_chromium
def test_the_diagram_has_zoom_levels_and_the_index_links_every_page(tmp_path: Path) -> None:

    out = tmp_path / "site"
    result = invoke_cli("docs", ROOT / "blueprints", "-o", out, "--diagram", "builtin")
    assert result.exit_code == 0, result.output
    index = browser.dump_dom(out / "index.html")
    links = sorted(set(re.findall(r'href="([^"]+\.html)"', index)))
    assert links == sorted(p.name for p in out.glob("*.html") if p.name != "index.html")
    page = browser.dump_dom(out / links[0])
    for level in ("fit", "100", "150", "200"):
        assert f'id="zoom-{level}" class="zoom"' in page and f'for="zoom-{level}"' in page
    assert '<a href="index.html">All blueprints</a>' in page


@needs_chromium
def test_a_blueprint_with_errors_has_a_page_of_findings_in_the_browser(tmp_path: Path) -> None:

    source = tmp_path / "in" / "bad.leviath"
    source.parent.mkdir()
    source.write_text('[agent]\nname = "bad"\n[stages.a.transitions.ghost]\n', encoding="utf-8")
    out = tmp_path / "site"
    assert invoke_cli("docs", str(source.parent), "-o", str(out)).exit_code == 1
    page = browser.dump_dom(out / "bad.html")
    rows = re.findall(r'<tr class="finding (\w+)">(.*?)</tr>', page)
    assert [severity for severity, _ in rows] == ["error", "error", "warning", "warning", "warning"]
    assert '<code>unknown-stage</code></td><td class="at">3:23</td>' in rows[1][1]
    assert "<script" not in page
    index = browser.dump_dom(out / "index.html")
    assert '<a href="bad.html">bad</a><span class="tag errors">has errors</span>' in index


# --- measured in the browser --------------------------------------------------------------------

#: Runs in a test copy of a page (the published page runs no script): picks a traced run when
#: asked, then records the geometry and the computed styles the checks below read.
MEASURE = """<script>
const pick = document.getElementById(%(pick)s);
if (pick) pick.checked = true;
const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
const out = {width: document.documentElement.clientWidth, texts: [], nodes: [], highlighted: [], steps: {}};
for (const t of document.querySelectorAll("svg.stage-graph text")) {
  const r = box(t); if (r[2] > r[0]) out.texts.push([t.textContent].concat(r));
}
for (const g of document.querySelectorAll("svg.stage-graph g.node > rect:first-child")) {
  out.nodes.push(box(g).concat([getComputedStyle(g).stroke]));
}
for (const p of document.querySelectorAll("svg.stage-graph path.edge")) {
  if (getComputedStyle(p).stroke === "rgb(230, 126, 34)") out.highlighted.push(p.getAttribute("class"));
}
for (const ol of document.querySelectorAll(".traces .steps")) {
  out.steps[ol.className] = getComputedStyle(ol).display;
}
out.diagram = box(document.querySelector("svg.stage-graph"));
out.chart = document.querySelector("svg.ceilings-chart") ? box(document.querySelector("svg.ceilings-chart")) : null;
const pre = document.createElement("pre"); pre.id = "measured"; pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>"""


def measure(html: str, tmp_path: Path, width: int = 1280, pick: str | None = None) -> dict:
    """Open `html` at `width` pixels in Chromium and measure it (MEASURE)."""
    import html as html_module
    import json

    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
    page = page.replace("</body>", MEASURE % {"pick": json.dumps(pick)} + "</body>")
    path = tmp_path / "measured.html"
    path.write_text(page, encoding="utf-8")
    done = browser._run(path, "--dump-dom", f"--window-size={width},1600")
    found = re.search(r'<pre id="measured">(.*?)</pre>', done.stdout.decode("utf-8", errors="replace"), re.S)
    assert found, done.stderr.decode(errors="replace")[-500:]
    return json.loads(html_module.unescape(found.group(1)))


def checked_page(path: Path, label: str):
    from compiler.check import check_file

    result = check_file(path)
    return page_data(result.result.blueprint, label, "builtin", result.analysis)


@needs_chromium
def test_picking_a_traced_run_highlights_its_path_and_shows_its_steps(tmp_path: Path) -> None:
    page = checked_page(ROOT / "tests" / "check_cases" / "run-can-strand" / "review-loop.leviath", "strand")
    (trace,) = page.runs.traces
    html = render_html(page)
    before = measure(html, tmp_path)
    assert before["highlighted"] == [] and set(before["steps"].values()) == {"none"}
    after = measure(html, tmp_path, pick="trace-1")
    assert sorted(after["highlighted"]) == sorted(f"edge a{a}" for a in trace.arrows)
    assert after["steps"] == {"steps steps-1": "block"}
    highlighted_nodes = [n for n in after["nodes"] if n[4] == "rgb(230, 126, 34)"]
    assert len(highlighted_nodes) == len(trace.nodes) == 2
    legend = [t[0] for t in after["texts"]]
    assert "worst-case inferences per stage (one run)" in legend and "16–18" in legend
    assert after["chart"] is not None and after["chart"][2] <= after["width"]


def largest_corpus_blueprint() -> Path:
    """The real blueprint with the most stages (then the most edges)."""
    from compiler.graph import StageGraph

    def size(path: Path) -> tuple[int, int]:
        blueprint = validate_bytes(path.name, path.read_bytes()).blueprint
        graph = StageGraph.from_blueprint(blueprint)
        return len(blueprint.stages), len(list(graph.edges))

    return max(sorted(CORPUS.glob("*/agent.leviath")), key=size)


def overlapping(boxes: list[list]) -> list[tuple[str, str]]:
    """Pairs of text boxes ([text, left, top, right, bottom]) that overlap by more than a pixel."""
    found = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if min(a[3], b[3]) - max(a[1], b[1]) > 1 and min(a[4], b[4]) - max(a[2], b[2]) > 1:
                found.append((a[0], b[0]))
    return found


@needs_chromium
@requires_shared
def test_the_largest_real_blueprint_reads_at_page_width(tmp_path: Path) -> None:
    """At 1280 pixels its diagram is drawn at its natural size (not shrunk), inside the
    viewport, with no label over another, nothing rotated, every way out named in full and
    its gates written; the zoom levels make it larger, to scroll around in."""
    from compiler.check import check_file

    source = largest_corpus_blueprint()
    result = check_file(source)
    page = page_data(result.result.blueprint, source.parent.name, "builtin", result.analysis)
    html = render_html(page, index=True)
    measured = measure(html, tmp_path)
    left, _, right, _ = measured["diagram"]
    assert right <= measured["width"] and left >= 0
    assert right - left == pytest.approx(page.svg_width, abs=1)  # drawn at its natural size
    texts = measured["texts"]
    assert len(texts) > 60
    assert overlapping(texts) == []
    assert all(left - 1 <= t[1] and t[3] <= right + 1 for t in texts), "a label sticks out of the diagram"
    assert "transform=" not in page.svg and "rotate(" not in page.svg
    labels = [t[0] for t in texts]
    for stage in page.stages:
        for edge in stage.edges:
            head = f"{edge.target}"
            assert any(label.lstrip("↓→ ").startswith(head) for label in labels), head
            if edge.gate:
                assert any(f"gate: {edge.gate}" in label for label in labels), edge.gate
    assert 'class="gate"' in page.svg
    zoomed = measure(html, tmp_path, pick="zoom-150")
    assert zoomed["diagram"][2] - zoomed["diagram"][0] == pytest.approx(page.svg_width * 1.5, abs=1)
    assert overlapping(zoomed["texts"]) == []
    shot = tmp_path / "largest.png"
    browser.screenshot(tmp_path / "measured.html", shot, width=1280, height=2200)
    assert browser.read_png(shot.read_bytes()).ink > 0.05


REAL = sorted(CORPUS.glob("*/agent.leviath")) if CORPUS.exists() else []


@needs_chromium
@pytest.mark.parametrize("path", EXAMPLES + REAL, ids=lambda p: p.stem if p.stem != "agent" else p.parent.name)
def test_no_label_of_a_diagram_covers_another_at_page_width(path: Path, tmp_path: Path) -> None:
    from compiler.check import check_file

    result = check_file(path)
    page = page_data(result.result.blueprint, path.name, "builtin", result.analysis)
    measured = measure(render_html(page), tmp_path, width=1024)
    left, _, right, _ = measured["diagram"]
    assert left >= 0 and right <= measured["width"]
    assert overlapping(measured["texts"]) == []
    assert all(left - 1 <= t[1] and t[3] <= right + 1 for t in measured["texts"])
