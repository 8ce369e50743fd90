"""`blueprint graph PATH [--format mermaid|dot|text|svg] [-o OUT]`: draw the stage graph.

`svg` is the diagram of the blueprint's `blueprint docs` page, byte for byte (the same
function draws both, from the same `check` of the runs), laid out as `--diagram` says.

A blueprint with errors is still drawn. The drawing is often exactly what shows the mistake
(an edge into a red `missing` node, a stage nothing reaches), and the model builder never
fails once the TOML parses. The errors go to stderr and the exit status is 1, so a script
still notices. Only a file that is not TOML at all gives no drawing.

Exit status: 0 drawn, 1 drawn but the blueprint has errors (or not drawn: a syntax error),
2 the file cannot be read, OUT cannot be written, or the configuration is invalid.
"""

from __future__ import annotations

import sys

import click

from ..render.blueprint_docs import ENGINES, Engine
from .common import check_file, report_errors
from .errors import EXIT_FINDINGS, EXIT_OK, CliError, emit
from .options import color_option

FORMATS = ("mermaid", "dot", "text", "svg")


def write_output(text: str, output: str | None) -> None:
    """`text` to stdout (None or '-') or to the file OUT, as UTF-8."""
    if output is None or output == "-":
        emit(text)
        return
    try:
        with open(output, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:
        raise CliError(f"cannot write '{output}': {exc.strerror or exc}") from exc


@click.command("graph")
@click.argument("path", type=click.Path(path_type=str))
@click.option(
    "--format",
    "--output-format",
    "output_format",
    type=click.Choice(FORMATS),
    default="mermaid",
    show_default=True,
    help="mermaid (a flowchart for Markdown), dot (Graphviz), text (an outline) or svg (the docs page's diagram).",
)
@click.option(
    "--diagram",
    "engine",
    type=click.Choice(ENGINES),
    default="builtin",
    show_default=True,
    help="How --format svg lays the diagram out, as for `blueprint docs --diagram`.",
)
@click.option(
    "-o",
    "--output",
    metavar="OUT",
    type=click.Path(path_type=str),
    help="Write the drawing to OUT instead of stdout ('-' is stdout).",
)
@color_option
def command(path: str, output_format: str, output: str | None, engine: Engine, color: str) -> None:
    """Draw a blueprint's stage graph: every stage and edge, conditions, gates, stuck
    thresholds, fall-through and fan-out hand-offs.

    A blueprint with errors is drawn anyway (its errors go to stderr, exit status 1).
    """
    from ..graph import StageGraph
    from ..render.drawings import render

    analysis = None
    if output_format == "svg":  # the page's diagram shows what check found about the runs
        from .docs_cmd import check_runs

        checked = check_runs(path)
        result, analysis = checked.result, checked.analysis
    else:
        result = check_file(path)
    failing = report_errors(result, color)
    if result.blueprint is None:
        sys.exit(EXIT_FINDINGS)
    blueprint = result.blueprint
    if output_format == "svg":
        from ..render.blueprint_docs import page_svg

        write_output(page_svg(blueprint, engine, analysis=analysis)[0], output)
    else:
        write_output(render(StageGraph.from_blueprint(blueprint), output_format, blueprint.name), output)
    sys.exit(EXIT_FINDINGS if failing else EXIT_OK)
