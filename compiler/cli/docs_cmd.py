"""`blueprint docs PATH … [-o DIR]`: a documentation page per blueprint.

Without `-o` the Markdown pages go to stdout. With `-o DIR` each blueprint gets
`DIR/<page>.md` and `DIR/<page>.html` (a self-contained page: inline SVG diagram, inline
style, nothing fetched), and `DIR/index.md` and `DIR/index.html` list them all with their
description and counts: a site to publish as it is. A page is named after the blueprint's
path as the page shows it (`agents/coder/agent.leviath` → `agents.coder`, see
`render.page_names`), so agents that share a name do not collide and a page keeps its name.
Nothing is written outside DIR, and never through a symbolic or hard link
(`outdir.OutputDirectory`). A page names its source relative
to the directory given on the command line (a file given by name: relative to the working
directory, or its bare name).

A blueprint with errors gets a page of its findings instead of its stages (a page is
something people publish and trust, so it shows no description it cannot vouch for, but the
blueprint does not vanish from the site either); the index marks it. Its errors also go to
stderr and the exit status is 1. A file that is not a blueprint gets no page.

Exit status: 0 every page written, 1 some blueprint has errors, 2 a path is missing, a file
cannot be read, DIR cannot be written, or the configuration is invalid.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from ..config import ConfigFinder
from ..render.blueprint_docs import ENGINES, Engine
from .common import find_blueprints, read_with_settings, report_errors, rule_overrides
from .errors import EXIT_FINDINGS, EXIT_OK, echo_problem, emit
from .options import color_option, discovery_options
from .outdir import OutputDirectory

if TYPE_CHECKING:
    from ..check import CheckResult
    from ..pipeline import FileResult
    from ..render.blueprint_docs import Page
    from ..render.findings_page import FindingsPage


@click.command("docs")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option(
    "-o",
    "--output",
    "directory",
    metavar="DIR",
    type=click.Path(path_type=str, file_okay=False),
    help="Write <page>.md and <page>.html for each blueprint (named by its path), and an index, into DIR (created if needed).",
)
@click.option(
    "--diagram",
    "engine",
    type=click.Choice(ENGINES),
    default="builtin",
    show_default=True,
    help="How the HTML page lays out its diagram: the built-in layout (with what check found drawn on it), Graphviz, or Graphviz when installed ('auto').",
)
@discovery_options
@color_option
def command(
    paths: tuple[str, ...],
    directory: str | None,
    engine: Engine,  # click.Choice(ENGINES) lets only these through
    color: str,
    exclude: tuple[str, ...] = (),
    respect_gitignore: bool | None = None,
) -> None:
    """Write a documentation page for each blueprint: summary, stages, edges, gates, stuck
    thresholds, nudges, budgets, regions and the diagram.

    PATH may be a file or a directory (searched like `blueprint validate` does).
    """
    from ..parse.other_files import NOT_A_BLUEPRINT
    from ..render.blueprint_docs import (
        IndexEntry,
        page_data,
        render_html,
        render_index_html,
        render_index_markdown,
        render_markdown,
    )
    from ..render.findings_page import findings_page
    from ..render.page_names import INDEX_STEM, page_stems

    overrides = rule_overrides((), (), None, exclude=exclude, respect_gitignore=respect_gitignore)
    files = find_blueprints(paths, overrides, ConfigFinder(), warn_skipped=False)

    pages: "list[Page | FindingsPage]" = []
    failing = False
    for path in files:
        checked = check_runs(path)
        result = checked.result
        label = source_label(path, paths)
        report_errors(result, color)
        if result.blueprint is None or _blocks_the_page(result):
            failing = True
            if all(d.code != NOT_A_BLUEPRINT.code for d in result.diagnostics):
                pages.append(findings_page(result, label))
            continue
        pages.append(page_data(result.blueprint, label, engine, checked.analysis, explore=False))

    if directory is None:
        emit("\n---\n\n".join(render_markdown(page) for page in pages))
    elif pages:
        stems = page_stems([page.source or page.name for page in pages])
        entries = [IndexEntry(page, stem) for page, stem in zip(pages, stems, strict=True)]
        with OutputDirectory(directory) as out:
            for page, stem in zip(pages, stems, strict=True):
                for suffix, text in (
                    (".md", render_markdown(page, index=True)),
                    (".html", render_html(page, index=True)),
                ):
                    out.write(stem + suffix, text)
                    echo_problem(f"wrote {out.path(stem + suffix)}")
            for suffix, text in ((".md", render_index_markdown(entries)), (".html", render_index_html(entries))):
                out.write(INDEX_STEM + suffix, text)
                echo_problem(f"wrote {out.path(INDEX_STEM + suffix)}")
    sys.exit(EXIT_FINDINGS if failing else EXIT_OK)


def _blocks_the_page(result: "FileResult") -> bool:
    """An error of the file itself: it then gets a page of its findings, and `docs` exits 1. A
    run the analysis proves fails (an error of `check`) does neither: the full page draws that
    run on the diagram."""
    from ..rulebook.registry import REGISTRY

    for d in result.diagnostics:
        if d.severity == "error":
            rule = REGISTRY.get(d.code)
            if rule is None or rule.family != "analysis":
                return True
    return False


def check_runs(path: str) -> "CheckResult":
    """One blueprint checked as `blueprint check` does (with its own settings): its findings
    and, when it has no error, its runs explored, which the page draws."""
    from ..check import check_bytes

    data, settings = read_with_settings(path)
    return check_bytes(path, data, settings)


def source_label(path: str, given: tuple[str, ...]) -> str:
    """How a page names its source: relative to the first directory given that holds it; a
    file given by name, relative to the working directory when it lies below it, else by its
    bare name. Never an absolute path (a published page should not show anyone's home)."""
    absolute = os.path.abspath(path)
    for folder in given:
        if os.path.isdir(folder):
            root = os.path.abspath(folder)
            if os.path.commonpath([absolute, root]) == root:
                return os.path.relpath(absolute, root).replace(os.sep, "/")
    relative = os.path.relpath(absolute)
    if relative.startswith(os.pardir) or os.path.isabs(relative):
        return os.path.basename(absolute)
    return relative.replace(os.sep, "/")
