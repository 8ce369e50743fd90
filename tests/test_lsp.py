"""`blueprint lsp` end to end over stdio, driven by a real LSP client (pytest-lsp).

One server process serves the module (each test opens its own documents), so the whole file
costs one start-up. Positions are checked in UTF-16 units, the protocol's default.
"""

from __future__ import annotations

import asyncio
import re
import textwrap
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types

from compiler.config import Settings
from compiler.pipeline import validate_bytes
from tests.lsp_client import CONFIG, Client, change, initialize, open_document, position, published

pytestmark = pytest.mark.asyncio(loop_scope="module")

BROKEN = textwrap.dedent(
    """\
    [agent]
    name = "fixer"

    [context.regions]
    notes = { kind = "pinned" }

    [stages.plan]
    mode = "autonomous"
    model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
    max_iterations = 10
    available_tools = ["read_file", "write_file"]

    [stages.plan.transitions.reveiw]
    gate = { require_region_updated = "notes" }

    [stages.review]
    mode = "output"
    model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
    max_iterations = 5

    [stages.review.transitions]
    """
)


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: Client):
    await initialize(lsp_client)
    yield
    await lsp_client.shutdown_session()


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def expected(path: Path, text: str, settings: Settings = Settings()) -> list[tuple]:
    """validate's findings for `text` as (code, severity, start, end) in LSP terms (ASCII text;
    a span that covers a line break ends at the end of its line)."""
    result = validate_bytes(str(path), text.encode("utf-8"), settings)
    severity = {"error": 1, "warning": 2, "note": 3}
    lines = text.split("\n")

    def at(line: int, column: int) -> tuple[int, int]:
        return line - 1, min(column - 1, len(lines[line - 1]))

    return [
        (d.code, severity[d.severity], at(d.span.line, d.span.column), at(d.span.end_line, d.span.end_column))
        for d in result.diagnostics
    ]


def got(params: types.PublishDiagnosticsParams) -> list[tuple]:
    return [
        (
            d.code,
            int(d.severity),
            (d.range.start.line, d.range.start.character),
            (d.range.end.line, d.range.end.character),
        )
        for d in params.diagnostics
    ]


def write(tmp_path: Path, text: str, name: str = "agent.leviath") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- diagnostics -------------------------------------------------------------------------------


async def test_open_publishes_exactly_validates_findings(client: Client, tmp_path: Path) -> None:
    path = write(tmp_path, BROKEN)
    uri = open_document(client, path, BROKEN)
    params = await published(client, uri, 1)
    assert got(params) == expected(path, BROKEN)
    unknown = next(d for d in params.diagnostics if d.code == "unknown-stage")
    assert unknown.range.start == position(BROKEN, "reveiw")
    assert unknown.source == "blueprint"
    assert unknown.code_description is not None and unknown.code_description.href.endswith("/unknown-stage.md")
    assert "did you mean 'review'?" in unknown.message


async def test_related_locations_and_tags(client: Client, tmp_path: Path) -> None:
    text = BROKEN.replace('mode = "output"', 'mode = "output"  # blueprint: ignore[unknown-tool]').replace(
        "[stages.review]\n", "[stages.review]\nallow_as_worker = false\n"
    )
    text = text.replace('mode = "autonomous"', 'mode = "fan_out"\nworker_stage = "review"\nmerge_stage = "review"')
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    params = await published(client, uri, 1)
    assert got(params) == expected(path, text)
    unused = next(d for d in params.diagnostics if d.code == "unused-suppression")
    assert list(unused.tags) == [types.DiagnosticTag.Unnecessary]
    worker = next(d for d in params.diagnostics if d.code == "worker-stage-not-allowed")
    assert worker.related_information
    related = worker.related_information[0]
    assert related.location.uri == uri
    assert related.location.range.start == position(text, "review", nth=2)  # [stages.review]
    assert "declared here" in related.message


async def test_suppressions_and_project_settings_apply(client: Client, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.blueprint]\nignore = ["stage-missing-max-iterations"]\n')
    text = BROKEN.replace(
        "[stages.plan.transitions.reveiw]", "[stages.plan.transitions.reveiw]  # blueprint: ignore[unknown-stage]"
    )
    text = text.replace("max_iterations = 10\n", "")
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    codes = [d.code for d in (await published(client, uri, 1)).diagnostics]
    assert "unknown-stage" not in codes
    assert "stage-missing-max-iterations" not in codes
    settings = Settings(ignore=("stage-missing-max-iterations",))
    assert got(await published(client, uri, 1)) == expected(path, text, settings)
    assert "stage-missing-max-iterations" in [c for c, *_ in expected(path, text)]  # the setting did something


async def test_positions_are_utf16_after_astral_characters(client: Client, tmp_path: Path) -> None:
    text = BROKEN.replace(
        'gate = { require_region_updated = "notes" }',
        'gate = { message = "🦀🦀 wait", require_region_updated = "nots" }',
    )
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    params = await published(client, uri, 1)
    region = next(d for d in params.diagnostics if d.code == "unknown-region")
    start = position(text, '"nots"')
    assert region.range.start == start
    assert region.range.end == types.Position(line=start.line, character=start.character + 6)
    # Four code points before it on the line are astral: each is two UTF-16 units.
    line = text.splitlines()[start.line]
    assert start.character == line.index('"nots"') + 2


async def test_edits_republish_for_the_newest_version_only(client: Client, tmp_path: Path) -> None:
    path = write(tmp_path, BROKEN)
    uri = open_document(client, path, BROKEN)
    await published(client, uri, 1)
    start = position(BROKEN, "reveiw")
    # A burst of keystrokes: delete the typo, then type "review" one character at a time.
    change(client, uri, 2, "", (start.line, start.character), (start.line, start.character + 6))
    for i, ch in enumerate("review"):
        change(client, uri, 3 + i, ch, (start.line, start.character + i))
    final = await published(client, uri, 8)
    assert "unknown-stage" not in [d.code for d in final.diagnostics]
    versions = [p.version for p in client.published if p.uri == uri]
    assert versions == sorted(versions), f"an older version was published after a newer one: {versions}"
    assert len(versions) < 8, f"the burst was not debounced: {versions}"
    fixed = BROKEN.replace("reveiw", "review")
    assert got(final) == expected(path, fixed)


# --- navigation ----------------------------------------------------------------------------------


async def test_definition_references_and_highlights(client: Client, tmp_path: Path) -> None:
    text = BROKEN.replace("reveiw", "review")
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    at_target = position(text, "review", shift=2)  # transitions.review
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(uri), position=at_target)
    )
    assert [loc.range.start for loc in found] == [position(text, "[stages.review]", shift=8)]

    at_region = position(text, '"notes"', shift=3)
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(uri), position=at_region)
    )
    assert [loc.range.start for loc in found] == [position(text, "notes =")]

    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=doc(uri), position=at_target, context=types.ReferenceContext(include_declaration=True)
        )
    )
    starts = sorted((r.range.start.line, r.range.start.character) for r in refs)
    want = sorted((p.line, p.character) for p in (position(text, "review", n) for n in range(3)))
    assert starts == want

    lights = await client.text_document_document_highlight_async(
        types.DocumentHighlightParams(text_document=doc(uri), position=at_region)
    )
    kinds = sorted((h.range.start.line, int(h.kind)) for h in lights)
    assert kinds == [(position(text, "notes =").line, 3), (position(text, '"notes"').line, 2)]

    nothing = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(uri), position=position(text, "max_iterations"))
    )
    assert nothing is None


async def test_tool_name_jumps_to_its_script(client: Client, tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "deploy.rhai").write_text("// deploy\n")
    text = BROKEN.replace('["read_file", "write_file"]', '["read_file", "deploy"]')
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    params = await published(client, uri, 1)
    assert "unknown-tool" not in [d.code for d in params.diagnostics]  # the script makes it known
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc(uri), position=position(text, "deploy", shift=1))
    )
    assert found.uri == (tmp_path / "tools" / "deploy.rhai").as_uri()


async def test_document_symbols(client: Client, tmp_path: Path) -> None:
    text = BROKEN.replace("reveiw", "review")
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(uri)))
    names = [(s.name, s.detail) for s in symbols]
    assert names == [("agent", "fixer"), ("regions", None), ("plan", "autonomous (entry)"), ("review", "output")]
    plan = symbols[2]
    assert [c.name for c in plan.children] == ["→ review"]
    assert plan.selection_range.start == position(text, "plan")
    for symbol in symbols:
        inner = symbol.selection_range
        assert (symbol.range.start.line, symbol.range.start.character) <= (inner.start.line, inner.start.character)
        assert (inner.end.line, inner.end.character) <= (symbol.range.end.line, symbol.range.end.character)
        for child in symbol.children or ():
            assert symbol.range.start.line <= child.range.start.line <= child.range.end.line <= symbol.range.end.line


# --- rename --------------------------------------------------------------------------------------


def apply(text: str, edits) -> str:
    """Apply LSP text edits (ASCII text, so characters are code points) from the end backwards."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(p: types.Position) -> int:
        return starts[p.line] + p.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


def findings_without_names(path: Path, text: str, old: str, new: str) -> list[tuple]:
    result = validate_bytes(str(path), text.encode("utf-8"))
    rename = lambda value: new if value == old else value  # noqa: E731
    return sorted(
        (
            d.code,
            d.severity,
            tuple(rename(p) for p in d.path),
            d.message.replace(f"'{old}'", "'X'").replace(f"'{new}'", "'X'"),
        )
        for d in result.diagnostics
    )


@pytest.mark.parametrize(
    ("needle", "shift", "old", "new"), [("plan", 0, "plan", "planning"), ('"notes"', 1, "notes", "scratch")]
)
async def test_rename_changes_every_occurrence_and_nothing_else(
    client: Client, tmp_path: Path, needle: str, shift: int, old: str, new: str
) -> None:
    text = BROKEN + '\n[stages.plan.context.regions]\nnotes = { kind = "pinned" }\n'
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    at = position(text, needle, shift=shift)
    prepared = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc(uri), position=at)
    )
    assert prepared.placeholder == old
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc(uri), position=at, new_name=new)
    )
    renamed = apply(text, edit.changes[uri])
    assert not re.search(rf"\b{old}\b", renamed)  # every occurrence changed …
    assert renamed.replace(new, old) == text  # … and nothing else
    assert findings_without_names(path, renamed, old, new) == findings_without_names(path, text, old, new)


@pytest.mark.parametrize(
    ("needle", "new", "reason"),
    [
        ("plan", "review", "a stage named 'review' already exists"),
        ("plan", "two words", "not a valid stage name"),
        ("plan", "", "not a valid stage name"),
        ('"notes"', "conversation", "every stage sees already"),
        ("max_iterations", "x", "only a stage or a region name can be renamed"),
    ],
)
async def test_rename_is_refused_with_a_reason(
    client: Client, tmp_path: Path, needle: str, new: str, reason: str
) -> None:
    path = write(tmp_path, BROKEN)
    uri = open_document(client, path, BROKEN)
    at = position(BROKEN, needle, shift=1 if needle.startswith('"') else 0)
    with pytest.raises(Exception, match=reason) as refused:
        await client.text_document_rename_async(types.RenameParams(text_document=doc(uri), position=at, new_name=new))
    assert getattr(refused.value, "code", None) == -32803  # RequestFailed: well formed, refused


# --- completion and hover ---------------------------------------------------------------------------


async def complete(client: Client, tmp_path: Path, text: str, name: str = "agent.leviath") -> list[str]:
    """Completion labels at the end of `text` (the cursor after its last character)."""
    path = write(tmp_path, text, name)
    uri = open_document(client, path, text)
    lines = text.split("\n")
    at = types.Position(line=len(lines) - 1, character=len(lines[-1].encode("utf-16-le")) // 2)
    result = await client.text_document_completion_async(types.CompletionParams(text_document=doc(uri), position=at))
    return [item.label for item in result.items]


async def test_completion_offers_keys_values_and_names(client: Client, tmp_path: Path) -> None:
    base = BROKEN.replace("reveiw", "review")
    keys = await complete(client, tmp_path, base + "\n[stages.extra]\nmax_")
    assert {"max_iterations", "max_revisits", "max_workers"} <= set(keys)
    assert "name" not in keys  # an [agent] key, not a stage key
    present = await complete(client, tmp_path, base[: base.index("[stages.review.transitions]")], "b.leviath")
    assert "mode" not in present and "max_iterations" not in present  # [stages.review] already has them
    assert "allow_complete" in present
    assert await complete(client, tmp_path, base + '\n[stages.extra]\nmode = "') == [
        "autonomous",
        "interactive",
        "interactive_points",
        "fan_out",
        "output",
    ]
    assert await complete(client, tmp_path, base + "\n[stages.extra]\nallow_complete = ") == ["true", "false"]
    assert await complete(client, tmp_path, base + '\n[stages.x]\nworker_stage = "') == ["plan", "review", "x"]
    assert await complete(client, tmp_path, base + "\n[stages.review.transitions.") == ["plan", "review"]
    regions = await complete(client, tmp_path, base + '\n[stages.plan.transitions.plan]\ngate = { require_regions = ["')
    assert {"notes", "conversation", "tool_results"} <= set(regions)
    tools = await complete(client, tmp_path, base + '\n[stages.x]\navailable_tools = [\n  "read_file",\n  "')
    assert {"read_file", "edit_file", "bash", "todo_add"} <= set(tools)
    codes = await complete(client, tmp_path, base + "\nx = 1  # blueprint: ignore[unknown-key, ")
    assert {"unknown-stage", "unknown-region", "all"} <= set(codes)


async def test_hover_and_completion_say_what_the_special_values_mean(client: Client, tmp_path: Path) -> None:
    """What the editor shows of a key whose 0 means something else agrees with docs/format.md."""
    from tests.test_special_values import SPECIAL_VALUES, STAGES, plain

    for path, meaning in SPECIAL_VALUES:
        key = path[-1]
        if "gate" in path:
            edge = "[stages.a.transitions.b]\n"
            text = STAGES.replace("{key}", "").replace(edge, f"{edge}gate = {{ {key} = 0 }}\n")
        else:
            text = STAGES.replace("{key}", f"{key} = 0")
        shown = await hover_at(client, tmp_path, text, position(text, f"{key} = 0", shift=1))
        assert shown is not None and meaning in plain(shown), (path, shown)
        if "gate" in path:
            continue
        prefix = text[: text.index(f"{key} = 0")] + key[:5]
        path_ = write(tmp_path, prefix, "completing.leviath")
        uri = open_document(client, path_, prefix)
        lines = prefix.split("\n")
        at = types.Position(line=len(lines) - 1, character=len(lines[-1]))
        result = await client.text_document_completion_async(
            types.CompletionParams(text_document=doc(uri), position=at)
        )
        (offered,) = [item for item in result.items if item.label == key]
        assert meaning in plain(offered.documentation.value), (path, offered.documentation)


async def test_completion_works_while_the_line_does_not_parse(client: Client, tmp_path: Path) -> None:
    text = BROKEN.replace("reveiw", "review") + '\n[stages.review.transitions.plan]\ncondition = "st'
    labels = await complete(client, tmp_path, text)
    assert "stuck" in labels and "always" in labels


async def hover_at(client: Client, tmp_path: Path, text: str, at: types.Position) -> str | None:
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    result = await client.text_document_hover_async(types.HoverParams(text_document=doc(uri), position=at))
    return result.contents.value if result is not None else None


async def test_hover_explains_keys_names_and_rule_codes(client: Client, tmp_path: Path) -> None:
    from compiler.resources import load_schema

    text = BROKEN.replace("reveiw", "review").replace(
        "[stages.review]\n", "[stages.review]  # blueprint: ignore[unknown-key]\n"
    )
    mode = load_schema("blueprint")["definitions"]["stage"]["properties"]["mode"]
    shown = await hover_at(client, tmp_path, text, position(text, "mode", shift=1))
    assert mode["description"] in shown and '`"fan_out"`' in shown and 'Default: `"autonomous"`' in shown
    value = await hover_at(client, tmp_path, text, position(text, '"output"', shift=2))
    assert mode["description"] in value
    stage = await hover_at(client, tmp_path, text, position(text, "plan"))
    assert "mode `autonomous`" in stage and "→ `review`" in stage and "max_iterations 10" in stage
    region = await hover_at(client, tmp_path, text, position(text, '"notes"', shift=2))
    assert "global layout: `pinned`" in region
    code = await hover_at(client, tmp_path, text, position(text, "unknown-key", shift=3))
    assert code.startswith("**`unknown-key`** (warning, schema)")
    assert await hover_at(client, tmp_path, text, types.Position(line=2, character=0)) is None


# --- code actions -----------------------------------------------------------------------------------


async def actions_at(client: Client, uri: str, at: types.Position) -> list[types.CodeAction]:
    where = types.Range(start=at, end=at)
    return await client.text_document_code_action_async(
        types.CodeActionParams(text_document=doc(uri), range=where, context=types.CodeActionContext(diagnostics=[]))
    )


async def test_quick_fixes_replace_a_misspelt_name_and_ignore_a_rule(client: Client, tmp_path: Path) -> None:
    path = write(tmp_path, BROKEN)
    uri = open_document(client, path, BROKEN)
    actions = await actions_at(client, uri, position(BROKEN, "reveiw", shift=2))
    titles = [a.title for a in actions]
    assert titles == ["Replace 'reveiw' with 'review'", "Ignore unknown-stage on this line"]
    assert all(a.kind == types.CodeActionKind.QuickFix and a.diagnostics[0].code == "unknown-stage" for a in actions)
    replaced = apply(BROKEN, actions[0].edit.changes[uri])
    assert replaced == BROKEN.replace("reveiw", "review")
    ignored = apply(BROKEN, actions[1].edit.changes[uri])
    assert "[stages.plan.transitions.reveiw]  # blueprint: ignore[unknown-stage]\n" in ignored
    before = [c for c, *_ in expected(path, BROKEN)]
    assert [c for c, *_ in expected(path, ignored)] == [c for c in before if c != "unknown-stage"]


async def test_ignore_joins_a_directive_or_goes_above_a_comment_or_a_string(client: Client, tmp_path: Path) -> None:
    text = BROKEN.replace(
        'gate = { require_region_updated = "notes" }',
        'gate = { require_region_updated = "nots" }  # blueprint: ignore[unknown-key]',
    ).replace('name = "fixer"', 'name = "fixer"  # the agent\nshell_hint = """\ntrue"""')
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    ignore = [
        a for a in await actions_at(client, uri, position(text, '"nots"', shift=1)) if a.title.startswith("Ignore")
    ]
    joined = apply(text, ignore[0].edit.changes[uri])
    assert "# blueprint: ignore[unknown-key, unknown-region]" in joined
    assert [c for c, *_ in expected(path, joined)] == [c for c, *_ in expected(path, text) if c != "unknown-region"]
    ignore = [
        a for a in await actions_at(client, uri, position(text, '"""')) if a.title.startswith("Ignore invalid-type")
    ]
    above = apply(text, ignore[0].edit.changes[uri])
    assert '# blueprint: ignore[invalid-type]\nshell_hint = """' in above
    assert "invalid-type" not in [c for c, *_ in expected(path, above)]


# --- check on save, client settings ------------------------------------------------------------------


async def test_run_analysis_on_save_and_optionally_on_change(client: Client, tmp_path: Path) -> None:
    from tests.helpers import ROOT

    text = (ROOT / "tests" / "check_cases" / "run-can-strand" / "error-escape-spent.leviath").read_text()
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    assert "run-can-strand" not in [d.code for d in (await published(client, uri, 1)).diagnostics]
    client.published.clear()
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=doc(uri), text=text))
    saved = await published(client, uri, 1)
    strand = next(d for d in saved.diagnostics if d.code == "run-can-strand")
    assert len(strand.related_information) == 6  # the run that strands, step by step
    change(client, uri, 2, text + "\n")
    assert "run-can-strand" not in [d.code for d in (await published(client, uri, 2)).diagnostics]
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"blueprint": {"checkOnChange": True, "debounceMs": 0}})
    )
    change(client, uri, 3, text)
    assert "run-can-strand" in [d.code for d in (await published(client, uri, 3)).diagnostics]
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"blueprint": {"checkOnChange": False, "debounceMs": "soon"}})
    )
    change(client, uri, 4, text)
    assert "run-can-strand" not in [d.code for d in (await published(client, uri, 4)).diagnostics]
    assert any("debounceMs" in m.message for m in client.messages)  # a bad value is reported, not obeyed


# --- bad input ---------------------------------------------------------------------------------------


async def test_a_document_that_is_not_toml(client: Client, tmp_path: Path) -> None:
    text = "[agent\nname = = 'x'\n\x00\n"
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    params = await published(client, uri, 1)
    assert got(params) == expected(path, text) and params.diagnostics[0].code == "toml-syntax"
    for request in (
        client.text_document_definition_async(
            types.DefinitionParams(text_document=doc(uri), position=types.Position(line=0, character=2))
        ),
        client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc(uri))),
        client.text_document_hover_async(
            types.HoverParams(text_document=doc(uri), position=types.Position(line=1, character=1))
        ),
    ):
        assert await request is None
    with pytest.raises(Exception, match="does not parse"):
        await client.text_document_rename_async(
            types.RenameParams(text_document=doc(uri), position=types.Position(line=0, character=2), new_name="x")
        )


async def test_requests_for_closed_or_unknown_documents(client: Client, tmp_path: Path) -> None:
    path = write(tmp_path, BROKEN)
    uri = open_document(client, path, BROKEN)
    await published(client, uri, 1)
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=doc(uri)))
    await published(client, uri, where=lambda p: not p.diagnostics)  # closing clears its findings
    change(client, uri, 5, "garbage")  # a change to a closed document is ignored
    at = position(BROKEN, "reveiw")
    assert (
        await client.text_document_definition_async(types.DefinitionParams(text_document=doc(uri), position=at)) is None
    )
    assert (
        await client.text_document_completion_async(types.CompletionParams(text_document=doc(uri), position=at)) is None
    )
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=doc(uri), range=types.Range(start=at, end=at), context=types.CodeActionContext(diagnostics=[])
        )
    )
    assert actions is None
    assert not [p for p in client.published if p.uri == uri and p.version == 5]


async def test_a_change_in_the_middle_of_requests_is_seen_by_the_next_one(client: Client, tmp_path: Path) -> None:
    path = write(tmp_path, BROKEN)
    uri = open_document(client, path, BROKEN)
    at = position(BROKEN, "reveiw", shift=1)
    # Sent at once, in this order, without waiting for the answers.
    first = client.text_document_hover(types.HoverParams(text_document=doc(uri), position=at))
    change(client, uri, 2, BROKEN.replace("reveiw", "review"))
    second = client.text_document_definition(types.DefinitionParams(text_document=doc(uri), position=at))
    assert "not declared" in (await asyncio.wrap_future(first)).contents.value  # the text it was asked about
    found = await asyncio.wrap_future(second)
    assert [loc.range.start for loc in found] == [position(BROKEN, "[stages.review]", shift=8)]


async def test_a_ten_thousand_stage_document(client: Client, tmp_path: Path) -> None:
    stages = "".join(
        f'[stages.s{i}]\nmode = "autonomous"\nmax_iterations = 5\n\n[stages.s{i}.transitions.s{i + 1}]\n\n'
        for i in range(9999)
    )
    text = (
        '[agent]\nname = "big"\n\n'
        + stages
        + '[stages.s9999]\nmode = "output"\nmax_iterations = 5\n\n[stages.s9999.transitions]\n'
    )
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    params = await published(client, uri, 1, timeout=60)
    # Each stage names no model, and nothing else is wrong with it.
    assert [d.code for d in params.diagnostics] == ["stage-missing-model"] * 10_000
    assert params.diagnostics[-1].range.start == position(text, "s9999]", nth=1)
    at = position(text, "s5000", nth=1, shift=1)  # the edge s4999 → s5000
    found = await client.text_document_definition_async(types.DefinitionParams(text_document=doc(uri), position=at))
    assert [loc.range.start for loc in found] == [position(text, "[stages.s5000]", shift=8)]


async def test_every_validate_fix_is_a_quick_fix_from_the_same_code(client: Client, tmp_path: Path) -> None:
    from compiler.fix.edits import apply_edits, fixes_for

    text = textwrap.dedent(
        """\
        [agent]
        name = "t"

        [stages.plan]
        model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
        max_iterations = 3  # blueprint: ignore[unknown-key]

        [stages.plan.transitions.done]
        transform = "summarize"

        [stages.done]
        mode = "output"
        model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }
        max_iterations = 3

        [stages.done.transitions]
        """
    )
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    result = validate_bytes(str(path), text.encode())
    fixes = fixes_for(result)
    assert sorted(d.code for d in fixes) == ["non-canonical-value", "stage-missing-mode", "unused-suppression"]
    whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=99, character=0))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(text_document=doc(uri), range=whole, context=types.CodeActionContext(diagnostics=[]))
    )
    for finding, fix in fixes.items():
        action = next(a for a in actions if a.title == fix.title)
        assert action.is_preferred and action.diagnostics[0].code == finding.code
        assert apply(text, action.edit.changes[uri]) == apply_edits(text, fix.edits)
    assert not any(a.title == "Ignore unused-suppression on this line" for a in actions)


@pytest.mark.parametrize(
    ("wrong", "right", "code"),
    [
        ('require_region_updated = "notes"', 'require_region_updated = "ntoes"', "unknown-region"),
        ('mode = "output"', 'mode = "outptu"', "invalid-value"),
        ('"read_file", "write_file"', '"read_file", "wirte_file"', "unknown-tool"),
        ("max_iterations = 5", "max_iteration = 5", "rejected-key"),
        ('name = "fixer"', "name = \"fixer\"\nentry_stage = 'plna'", "unknown-entry-stage"),
    ],
)
async def test_did_you_mean_replaces_exactly_the_misspelt_token(
    client: Client, tmp_path: Path, wrong: str, right: str, code: str
) -> None:
    good = BROKEN.replace("reveiw", "review")
    text = good.replace(wrong, right)
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    finding = next(d for d in (await published(client, uri, 1)).diagnostics if d.code == code)
    actions = await actions_at(client, uri, finding.range.start)
    replace = next(a for a in actions if a.title.startswith("Replace") and a.diagnostics[0].code == code)
    fixed = apply(text, replace.edit.changes[uri])
    assert code not in [c for c, *_ in expected(path, fixed)]
    if code != "unknown-entry-stage":
        assert fixed == good
    else:
        assert "entry_stage = 'plan'" in fixed  # the quotes it was written with


async def test_a_suggestion_is_not_offered_over_more_than_the_misspelt_name(client: Client, tmp_path: Path) -> None:
    """A placeholder finding covers the whole string; writing '{stage}' over it would drop the
    rest of the text, so only the directive is offered."""
    text = BROKEN.replace("reveiw", "review").replace(
        'name = "fixer"', 'name = "fixer"\n[agent.nudge]\ntext = "In {Stage} now"'
    )
    path = write(tmp_path, text)
    uri = open_document(client, path, text)
    finding = next(d for d in (await published(client, uri, 1)).diagnostics if d.code == "unknown-placeholder")
    actions = await actions_at(client, uri, finding.range.start)
    assert [a.title for a in actions if a.diagnostics[0].code == "unknown-placeholder"] == [
        "Ignore unknown-placeholder on this line"
    ]
