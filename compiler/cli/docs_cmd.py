"""`blueprint docs PATH … [-o DIR]`: a documentation page per blueprint.

Without `-o` the Markdown pages go to stdout. With `-o DIR` each blueprint gets
`DIR/<name>.md` and `DIR/<name>.html` (a self-contained page: inline SVG diagram, inline
style, nothing fetched). The file name is made from the blueprint's `[agent] name`, reduced
to letters, digits, `.`, `_` and `-`, numbered where two blueprints would share it; nothing
is written outside DIR, and never through a symbolic or hard link (`outdir.OutputDirectory`).

Unlike `blueprint graph`, a blueprint with errors gets no page: a page is something people
publish and trust. Its errors go to stderr, the other blueprints still get their pages, and
the exit status is 1.

Exit status: 0 every page written, 1 some blueprint has errors, 2 a path is missing, a file
cannot be read, DIR cannot be written, or the configuration is invalid.
"""

from __future__ import annotations

import os
import sys

import click

from ..discover import discover
from ..render.blueprint_docs import ENGINES
from .common import blueprint_files, check_file, color_option, report_errors
from .errors import EXIT_FINDINGS, EXIT_OK, echo_problem, emit
from .outdir import OutputDirectory


@click.command("docs")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option(
    "-o",
    "--output",
    "directory",
    metavar="DIR",
    type=click.Path(path_type=str, file_okay=False),
    help="Write <name>.md and <name>.html for each blueprint into DIR (created if needed).",
)
@click.option(
    "--diagram",
    "engine",
    type=click.Choice(ENGINES),
    default="auto",
    show_default=True,
    help="How the HTML page lays out its diagram: Graphviz when installed ('auto'), or the built-in layout.",
)
@color_option
def command(paths: tuple[str, ...], directory: str | None, engine: str, color: str) -> None:
    """Write a documentation page for each blueprint: summary, stages, edges, gates, stuck
    thresholds, nudges, budgets, regions and the diagram.

    PATH may be a file or a directory (searched like `blueprint validate` does).
    """
    from ..render.blueprint_docs import page_data, render_html, render_markdown, unique_stems

    files = blueprint_files(discover(paths), paths, warn_skipped=False)

    pages = []
    failing = False
    for path in files:
        result = check_file(path)
        if report_errors(result, color) or result.blueprint is None:
            failing = True
            continue
        pages.append(page_data(result.blueprint, path, engine))  # type: ignore[arg-type]

    if directory is None:
        emit("\n---\n\n".join(render_markdown(page) for page in pages))
    elif pages:
        with OutputDirectory(directory) as out:
            for page, stem in zip(pages, unique_stems([page.name for page in pages]), strict=True):
                for suffix, text in ((".md", render_markdown(page)), (".html", render_html(page))):
                    out.write(stem + suffix, text)
                    echo_problem(f"wrote {out.path(stem + suffix)}")
    sys.exit(EXIT_FINDINGS if failing else EXIT_OK)
