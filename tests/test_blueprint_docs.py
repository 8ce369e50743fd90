"""`blueprint docs`: page content, escaping, self-containment, file names, the CLI.

The Markdown pages of the examples are goldens in `tests/diagrams/<example>.md`
(`UPDATE_GOLDEN=1` rewrites them). The HTML pages are checked by structure here and in a
real browser in `test_blueprint_docs_browser.py`.
"""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from compiler.pipeline import validate_bytes
from compiler.render.blueprint_docs import (
    md,
    md_block,
    md_code,
    page_data,
    render_html,
    render_markdown,
)
from compiler.render.findings_page import findings_page
from compiler.render.page_names import file_stem, page_stems, path_stem
from tests.conftest import invoke_cli
from tests.helpers import ROOT, run

EXAMPLES = sorted((ROOT / "blueprints").glob("*.leviath"))
GOLDEN = Path(__file__).parent / "diagrams"

EVIL = """
[agent]
name = "evil <script>alert('name')</script>"
version = "1.0 <i>"
description = "<script>alert('description')</script> & | pipe **bold** [link](javascript:x)"

[context.regions]
"<script>r</script>" = { kind = "pinned", max_tokens = 100, description = "<img src=x onerror=alert(1)>" }
conversation = { kind = "sliding_window", max_tokens = 9000 }

[stages."<script>alert('stage')</script>"]
mode = "autonomous"
description = "<style>body{display:none}</style>"
available_tools = ["<b>tool</b>"]
nudge = { text = "<script>nudge()</script>" }

[stages."<script>alert('stage')</script>".transitions."end <script>"]
hint = "<script>alert('hint')</script> | `x`"
gate = { require_modifications = true, message = "<script>gate()</script>" }

[stages."end <script>"]
mode = "output"

[stages."end <script>".transitions]
"""


def page_for(path: Path, engine: str = "builtin"):
    result = validate_bytes(path.relative_to(ROOT).as_posix(), path.read_bytes())
    assert result.blueprint is not None
    return page_data(result.blueprint, path.relative_to(ROOT).as_posix(), engine)


def evil_page(engine: str = "builtin"):
    result = run(EVIL)
    assert result.blueprint is not None
    return page_data(result.blueprint, "evil.leviath", engine)


class _Collector(HTMLParser):
    """Tags, attributes and text of a page, for structural assertions."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parse_html(text: str) -> _Collector:
    parser = _Collector()
    parser.feed(text)
    parser.close()
    return parser


# --- content ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_markdown_golden(path: Path) -> None:
    text = render_markdown(page_for(path))
    expected = GOLDEN / f"{path.stem}.md"
    if os.environ.get("UPDATE_GOLDEN"):
        expected.write_text(text, encoding="utf-8")
    assert expected.exists(), f"missing {expected.name}; run with UPDATE_GOLDEN=1 and review it"
    assert text == expected.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_html_has_every_section(path: Path) -> None:
    page = page_for(path)
    html = render_html(page)
    parsed = parse_html(html)
    ids = {attrs.get("id") for _, attrs in parsed.tags}
    assert {"top", "diagram", "stages"} <= ids
    # one row per stage in the stage table, one heading per stage
    assert html.count('<h3 id="stage-') == len(page.stages)
    table = html[html.index('<table class="stages">') : html.index("</table>", html.index('<table class="stages">'))]
    assert table.count("<tr>") == len(page.stages) + 1
    graphs = [attrs.get("class") for tag, attrs in parsed.tags if tag == "svg"]
    assert graphs == ["stage-graph", "ceilings-chart"]  # the diagram, and the chart of what check found
    assert '<pre class="mermaid">' in html
    assert render_html(page) == html  # deterministic


def test_page_data_resolves_what_the_runtime_uses() -> None:
    page = page_for(ROOT / "blueprints" / "gates.leviath")
    assert (page.name, page.entry, page.mode) == ("gated-implementer", "plan", "graph")
    implement = next(s for s in page.stages if s.name == "implement")
    assert implement.max_revisits == "2" and implement.max_iterations == "40"
    gate = next(e for e in implement.edges if e.target == "review")
    assert gate.gate == "require_modifications" and gate.gate_message.startswith("No file has been changed")
    assert [e.condition for e in implement.edges] == ["llm_choice", "dead_end"]
    assert implement.nudge == "on, at most 3 (the built-in text)" and implement.nudge_text is None
    assert [r.name for r in page.regions] == ["conversation", "todo", "notes"]
    assert page.regions[0].budget == "12000 tokens"
    stuck = page_for(ROOT / "blueprints" / "stuck-detection.leviath")
    edge = next(e for s in stuck.stages for e in s.edges if e.condition == "stuck")
    assert edge.stuck == "30 iterations / 20 min / 8 same-file edits / 120 tool calls"
    linear = page_for(ROOT / "blueprints" / "linear-pipeline.leviath")
    assert linear.mode == "linear"
    assert [e.kind for e in linear.stages[0].edges] == ["fall_through"]


def test_custom_nudges_transforms_and_percentage_budgets_are_shown() -> None:
    result = run(
        """
        [context.regions]
        notes = { kind = "compacting", budget = "25%", max_tokens = 4000 }
        [stages.a]
        nudge = { max = 5, text = "keep going, {stage}" }
        [stages.a.transitions.b]
        transform = "custom"
        transform_config = { carry = ["notes"], clear = ["conversation"] }
        [stages.b]
        nudge = { enabled = false }
        [stages.b.transitions]
        """
    )
    page = page_data(result.blueprint, None, "builtin")
    a, b = page.stages
    assert a.nudge == "on, at most 5" and a.nudge_text == "keep going, {stage}"
    assert b.nudge == "off"
    assert a.edges[0].transform == "custom (carry notes; clear conversation)"
    assert page.regions[0].budget == "25% of the model window, at most 4000 tokens"
    text = render_markdown(page)
    assert "keep going, \\{stage\\}" in text and "custom (carry notes; clear conversation)" in text


# --- escaping -----------------------------------------------------------------------------


def test_html_escapes_every_user_string() -> None:
    for engine in ("builtin", "graphviz"):
        html = render_html(evil_page(engine))
        parsed = parse_html(html)
        tags = [tag for tag, _ in parsed.tags]
        assert "script" not in tags and "img" not in tags and "style" in tags
        assert tags.count("style") == 1 and "i" not in tags and "b" not in tags
        assert "<script" not in html and "<img" not in html
        text = "".join(parsed.text)
        for shown in (
            "<script>alert('name')</script>",
            "<script>alert('stage')</script>",
            "<b>tool</b>",
            "<img src=x onerror=alert(1)>",
            "<script>gate()</script>",
        ):
            assert shown in text, shown
        # every attribute value is ours: no event handler, no link out of the page
        for _, attrs in parsed.tags:
            assert not any(name.startswith("on") for name in attrs), attrs
            for name in ("href", "src", "xlink:href"):
                value = attrs.get(name)
                assert value is None or value.startswith("#"), attrs


def test_markdown_escapes_every_user_string() -> None:
    text = render_markdown(evil_page())
    mermaid = text[text.index("```mermaid") : text.index("```", text.index("```mermaid") + 3)]
    prose = text.replace(mermaid, "")
    assert re.findall(r"(?<!\\)[<>]", prose) == []  # every angle bracket escaped
    assert "<script" not in mermaid and "<br/>" in mermaid
    assert "\\<script\\>alert('stage')\\</script\\>" in text
    # table rows keep their column count: a user's `|` never splits a cell
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            cells = re.split(r"(?<!\\)\|", line)
            assert len(cells) in (4, 6, 8, 9), line
    assert "[link](javascript" not in text


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("a|b", "a\\|b"),
        ("<b>", "\\<b\\>"),
        ("# title", "\\# title"),
        ("1.0.0", "1.0.0"),
        ("line\nnext", "line next"),
        ("x_y*z", "x\\_y\\*z"),
        ("rtl\u202e", "rtl\\\\u202e"),
    ],
)
def test_md_filter(value: str, expected: str) -> None:
    assert md(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1. item", "1\\. item"),
        ("- item", "\\- item"),
        ("+ x", "\\+ x"),
        ("> q", "\\> q"),
        ("# h", "\\# h"),
        ("a - b", "a - b"),
    ],
)
def test_md_block_filter_escapes_block_starts(value: str, expected: str) -> None:
    assert md_block(value) == expected


def test_md_code_uses_a_longer_fence() -> None:
    assert md_code("a`b") == "``a`b``"
    assert md_code("`x`") == "`` `x` ``"


# --- self-contained -----------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["builtin", "graphviz"])
def test_html_fetches_nothing(engine: str) -> None:
    html = render_html(page_for(ROOT / "blueprints" / "fan-out.leviath", engine))
    parsed = parse_html(html)
    for tag, attrs in parsed.tags:
        assert tag not in ("script", "link", "iframe", "img", "object", "embed"), tag
        for name in ("href", "src"):
            assert attrs.get(name) is None or attrs[name].startswith("#"), (tag, attrs)
    assert "http://" not in html.replace("http://www.w3.org/", "")
    assert "https://" not in html and "@import" not in html and "url(http" not in html
    assert "Content-Security-Policy" in html


# --- file names ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("reviewed-writer", "reviewed-writer"),
        ("../../etc/passwd", "etc-passwd"),
        ("a/b\\c", "a-b-c"),
        (".hidden", "hidden"),
        ("", "blueprint"),
        ("<script>", "script"),
        ("CON", "blueprint-CON"),
        ("ünï cödé", "uni-code"),
        ("日本", "blueprint"),
    ],
)
def test_file_stem_is_a_plain_file_name(name: str, stem: str) -> None:
    assert file_stem(name) == stem


@pytest.mark.parametrize(
    ("source", "stem"),
    [
        ("agents/coder/agent.leviath", "agents.coder"),
        ("coder/agent.leviath", "coder"),
        ("agent.leviath", "agent"),
        ("review-loop.leviath", "review-loop"),
        ("team/review loop.leviath", "team.review-loop"),
        ("../../up/x.leviath", "up.x"),
        ("CON.leviath", "blueprint-CON"),
        ("blueprint.toml", "blueprint.toml"),
        ("日本/agent.leviath", "blueprint"),
    ],
)
def test_a_page_is_named_by_its_path(source: str, stem: str) -> None:
    assert path_stem(source) == stem


def test_page_names_that_would_meet_get_a_stable_hash_suffix() -> None:
    sources = ["a.b/agent.leviath", "a/b/agent.leviath", "A/B.leviath", "c/agent.leviath", "index.leviath"]
    stems = page_stems(sources)
    assert stems[3] == "c"
    assert [re.fullmatch(r"(.+)-[0-9a-f]{8}", stem)[1] for stem in stems[:3] + stems[4:]] == [
        "a.b",
        "a.b",
        "A.B",
        "index",
    ]
    assert len({stem.lower() for stem in stems}) == len(stems)
    # The same path keeps its page name whatever else is in the site, and in any order.
    assert page_stems(list(reversed(sources))) == list(reversed(stems))
    assert page_stems(sources[:1] + sources[3:]) == ["a.b", "c", stems[4]]
    assert page_stems(["x.leviath", "x.leviath"])[0] != page_stems(["x.leviath", "x.leviath"])[1]


# --- the command --------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


OK = '[agent]\nname = "{name}"\n[stages.only]\nmode = "output"\n[stages.only.transitions]\n'


def test_docs_prints_markdown_without_output_dir(tmp_path: Path) -> None:
    result = invoke_cli("docs", ROOT / "blueprints" / "gates.leviath")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("# gated-implementer\n")
    assert "```mermaid\nflowchart TD" in result.stdout
    assert list(tmp_path.iterdir()) == []


def test_docs_writes_only_into_the_directory_with_pages_named_by_path(tmp_path: Path) -> None:
    write(tmp_path / "in" / "one" / "agent.leviath", OK.format(name="same"))
    write(tmp_path / "in" / "two" / "agent.leviath", OK.format(name="same"))
    write(tmp_path / "in" / "three.leviath", OK.format(name="../../escape"))
    out = tmp_path / "out" / "docs"
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = invoke_cli("docs", tmp_path / "in", "-o", out, "--diagram", "builtin")
    assert result.exit_code == 0, result.output
    after = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    created = sorted(set(after) - set(before))
    assert created == sorted(
        [Path("out"), Path("out/docs")]
        + [
            Path("out/docs") / f"{stem}{suffix}"
            for stem in ("one", "two", "three", "index")
            for suffix in (".md", ".html")
        ]
    )
    assert (out / "one.md").read_text(encoding="utf-8").startswith("[All blueprints](index.md)\n\n# same\n")
    assert (out / "three.md").read_text(encoding="utf-8").startswith("[All blueprints](index.md)\n\n# ../../escape\n")
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "| [same](one.md) |" in index and "| [same](two.md) |" in index


def test_docs_refuses_to_write_through_a_symlink(tmp_path: Path) -> None:
    source = write(tmp_path / "a.leviath", OK.format(name="victim"))
    out = tmp_path / "out"
    out.mkdir()
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me", encoding="utf-8")
    (out / "a.md").symlink_to(target)
    result = invoke_cli("docs", source, "-o", out)
    assert result.exit_code == 2
    assert "symbolic link" in result.output
    assert target.read_text(encoding="utf-8") == "keep me"


def test_a_blueprint_with_errors_gets_a_page_of_its_findings_and_exits_1(tmp_path: Path) -> None:
    good = write(tmp_path / "good.leviath", OK.format(name="good"))
    bad = write(tmp_path / "bad.leviath", '[agent]\nname = "bad"\n[stages.a.transitions.ghost]\n')
    out = tmp_path / "out"
    result = invoke_cli("docs", good, bad, "-o", out)
    assert result.exit_code == 1
    assert "error[unknown-stage]" in result.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "bad.html",
        "bad.md",
        "good.html",
        "good.md",
        "index.html",
        "index.md",
    ]
    page = (out / "bad.md").read_text(encoding="utf-8")
    assert page.startswith("[All blueprints](index.md)\n\n# bad (has errors)\n")
    assert "`bad.leviath` does not validate: 2 errors" in page
    rows = [line for line in page.splitlines() if line.startswith("| error |")]
    assert rows[0].startswith("| error | `no-terminal-path` | 3:9 | stages.a |")
    assert rows[1].startswith("| error | `unknown-stage` | 3:23 | stages.a.transitions.ghost | transition from 'a' to")
    assert "## Stages" not in page
    html = parse_html((out / "bad.html").read_text(encoding="utf-8"))
    assert [tag for tag, _ in html.tags].count("tr") == 1 + 5  # the heading row and every finding, warnings too
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "| [bad](bad.md) (has errors) |  | — | — | `bad.leviath` |" in index
    assert "2 blueprints, 1 with errors" in index
    assert '<a href="bad.html">bad</a><span class="tag errors">has errors</span>' in (out / "index.html").read_text(
        encoding="utf-8"
    )


def test_a_file_that_does_not_parse_gets_a_page_named_after_its_source(tmp_path: Path) -> None:
    write(tmp_path / "in" / "broken" / "agent.leviath", "[agent\nname = 1\n")
    result = invoke_cli("docs", str(tmp_path / "in"))
    assert result.exit_code == 1
    assert result.stdout.startswith("# broken/agent.leviath (has errors)\n")
    assert "| error | `toml-syntax` | 1:1 |" in result.stdout


def test_the_findings_page_escapes_what_the_file_says(tmp_path: Path) -> None:
    source = '[agent]\nname = "<b>x</b> | y"\n[stages."<i>s</i>".transitions."<script>"]\n'
    result = validate_bytes("evil.leviath", source.encode())
    page = findings_page(result, "evil.leviath")
    html = render_html(page, index=True)
    assert "<b>" not in html and "<i>" not in html and "<script>" not in html
    assert "&lt;script&gt;" in html
    markdown = render_markdown(page)
    assert markdown.startswith("# \\<b\\>x\\</b\\> \\| y (has errors)\n")
    assert all(line.count(" | ") - line.count("\\|") <= 6 for line in markdown.splitlines() if line.startswith("| "))


def test_docs_usage_errors_exit_2(tmp_path: Path) -> None:
    assert invoke_cli("docs", tmp_path / "missing.leviath").exit_code == 2
    assert invoke_cli("docs", tmp_path).exit_code == 2  # no blueprint found
    assert invoke_cli("docs").exit_code == 2
    blocker = write(tmp_path / "file", "x")
    good = write(tmp_path / "good.leviath", OK.format(name="good"))
    assert invoke_cli("docs", good, "-o", blocker / "sub").exit_code == 2


def test_the_index_lists_every_page_with_its_description_and_counts(tmp_path: Path) -> None:
    write(
        tmp_path / "in" / "alpha" / "agent.leviath",
        OK.format(name="alpha").replace('name = "alpha"', 'name = "alpha"\ndescription = "First | agent"'),
    )
    write(tmp_path / "in" / "index.leviath", OK.format(name="index"))
    out = tmp_path / "site"
    result = invoke_cli("docs", tmp_path / "in", "-o", out, "--diagram", "builtin")
    assert result.exit_code == 0, result.output
    index = (out / "index.md").read_text(encoding="utf-8").splitlines()
    assert "| [alpha](alpha.md) | First \\| agent | 1 | 0 | `alpha/agent.leviath` |" in index
    assert "| [index](index-a08ac816.md) |  | 1 | 0 | `index.leviath` |" in index  # never over the index itself
    html = (out / "index.html").read_text(encoding="utf-8")
    assert '<a href="alpha.html">alpha</a></td><td>First | agent</td><td class="count">1</td>' in html
    assert "<script" not in html and "Content-Security-Policy" in html


def test_a_page_shows_its_source_relative_to_the_folder_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.cli.docs_cmd import source_label

    source = write(tmp_path / "repo" / "agents" / "coder" / "agent.leviath", OK.format(name="coder"))
    out = tmp_path / "site"
    assert invoke_cli("docs", tmp_path / "repo" / "agents", "-o", out).exit_code == 0
    page = (out / "coder.md").read_text(encoding="utf-8")
    assert "| source | `coder/agent.leviath` |" in page and str(tmp_path) not in page
    assert str(tmp_path) not in (out / "coder.html").read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path / "repo")
    assert source_label(str(source), (str(source),)) == "agents/coder/agent.leviath"
    monkeypatch.chdir(tmp_path / "repo" / "agents" / "coder")
    assert (
        source_label(str(tmp_path / "repo" / "agents" / "coder" / "agent.leviath"), ("../../x.leviath",))
        == "agent.leviath"
    )
    assert source_label(str(source), ()) == "agent.leviath"


def test_agents_that_share_a_name_get_pages_named_by_their_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for folder in ("agents/coder", "agents/coder-old", "tools/coder"):
        write(tmp_path / "repo" / folder / "agent.leviath", OK.format(name="coder"))
    monkeypatch.chdir(tmp_path / "repo")
    result = invoke_cli("docs", ".", "-o", "site", "--diagram", "builtin")
    assert result.exit_code == 0, result.output
    pages = sorted(p.name for p in (tmp_path / "repo" / "site").glob("*.html"))
    assert pages == ["agents.coder-old.html", "agents.coder.html", "index.html", "tools.coder.html"]
    index = (tmp_path / "repo" / "site" / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'<a href="([^"]+)">coder</a>', index) == [
        "agents.coder.html",
        "agents.coder-old.html",
        "tools.coder.html",
    ]
