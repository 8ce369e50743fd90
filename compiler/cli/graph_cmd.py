"""`blueprint graph PATH [--format mermaid|dot|text] [-o OUT]`: draw the stage graph.

A blueprint with errors is still drawn. The drawing is often exactly what shows the mistake
(an edge into a red `missing` node, a stage nothing reaches), and the model builder never
fails once the TOML parses. The errors go to stderr and the exit status is 1, so a script
still notices. Only a file that is not TOML at all gives no drawing.

Exit status: 0 drawn, 1 drawn but the blueprint has errors (or not drawn: a syntax error),
2 the file cannot be read, OUT cannot be written, or the configuration is invalid.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from ..parse.source import read_blueprint
from ..config import ConfigError, ConfigFinder, settings_for
from .common import color_option, use_color
from .errors import EXIT_FINDINGS, EXIT_OK, CliError

if TYPE_CHECKING:
    from ..pipeline import FileResult

FORMATS = ("mermaid", "dot", "text")


def check_file(path: str) -> "FileResult":
    """Read and validate one blueprint with the settings of its `[tool.blueprint]`; I/O and
    configuration problems become a `CliError` (exit 2)."""
    from ..pipeline import validate_bytes

    try:
        data = read_blueprint(path)
    except OSError as exc:
        raise CliError(f"cannot read '{path}': {exc.strerror or exc}") from exc
    try:
        settings = settings_for(ConfigFinder().for_file(path))
    except ConfigError as exc:
        raise CliError(str(exc)) from exc
    return validate_bytes(path, data, settings)


def report_errors(result: "FileResult", color: str) -> bool:
    """Print the file's errors on stderr; True when it has any."""
    from ..render.text import render_report

    errors = [d for d in result.diagnostics if d.severity == "error"]
    if errors:
        paint = use_color(color, sys.stderr)
        click.echo(render_report([(errors, result.source)], color=paint), nl=False, err=True, color=paint)
    return bool(errors)


def write_output(text: str, output: str | None) -> None:
    """`text` to stdout (None or '-') or to the file OUT, as UTF-8."""
    if output is None or output == "-":
        click.echo(text, nl=False)
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
    "output_format",
    type=click.Choice(FORMATS),
    default="mermaid",
    show_default=True,
    help="mermaid (a flowchart for Markdown), dot (Graphviz) or text (an outline).",
)
@click.option(
    "-o",
    "--output",
    metavar="OUT",
    type=click.Path(path_type=str),
    help="Write the drawing to OUT instead of stdout ('-' is stdout).",
)
@color_option
def command(path: str, output_format: str, output: str | None, color: str) -> None:
    """Draw a blueprint's stage graph: every stage and edge, conditions, gates, stuck
    thresholds, fall-through and fan-out hand-offs.

    A blueprint with errors is drawn anyway (its errors go to stderr, exit status 1).
    """
    from ..graph import StageGraph
    from ..render.diagram import render

    result = check_file(path)
    failing = report_errors(result, color)
    if result.blueprint is None:
        sys.exit(EXIT_FINDINGS)
    blueprint = result.blueprint
    write_output(render(StageGraph.from_blueprint(blueprint), output_format, blueprint.name), output)
    sys.exit(EXIT_FINDINGS if failing else EXIT_OK)
