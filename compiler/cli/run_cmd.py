"""`blueprint run PATH --events FILE.ndjson`: drive the stage-runner over a recorded event stream.

The events are NDJSON: our native runner events, a Claude/Anthropic `stream-json` stream, or
both interleaved (see docs/runner.md). Prints the timeline, or `--format json` for the same
as data. Exit status: 0 when the run completed; 1 when it failed, was cancelled, or the
events ran out before it ended (the last line says which), and when the blueprint has errors
(its diagnostics go to stderr); 2 on a usage or I/O error.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..config import Overrides
from .common import default_max_iterations_option, format_option, read_stdin, read_with_settings, terminal_text
from .errors import EXIT_FINDINGS, EXIT_OK, CliError


@click.command("run")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--events",
    "events_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The recorded event stream (NDJSON; '-' reads stdin).",
)
@format_option
@click.option("--unattended", is_flag=True, help="Approve auto_approve interaction points without asking.")
@default_max_iterations_option
@click.pass_context
def command(
    ctx: click.Context,
    path: Path,
    events_path: Path,
    output_format: str,
    unattended: bool,
    default_max_iterations: int | None,
) -> None:
    """Drive the stage-runner over a recorded event stream and print the timeline."""
    from ..pipeline import validate_bytes
    from ..render.text import render_report
    from ..runtime.ndjson import read_events
    from ..runtime.timeline import render_json, render_text, replay

    data, settings = read_with_settings(str(path), Overrides(default_max_iterations=default_max_iterations))
    result = validate_bytes(str(path), data, settings)
    if not result.ok or result.blueprint is None:
        click.echo(render_report([(result.diagnostics, result.source)]), err=True, nl=False)
        click.echo(f"refusing to run '{path}': it has errors", err=True)
        ctx.exit(EXIT_FINDINGS)

    stdin = str(events_path) == "-"
    try:
        data = read_stdin() if stdin else events_path.read_bytes()
    except OSError as exc:
        raise CliError(f"cannot read '{'<stdin>' if stdin else events_path}': {exc.strerror or exc}") from exc
    # Undecodable bytes make unreadable lines (counted in the timeline), from a file or a pipe.
    text = data.decode("utf-8", errors="replace")

    ir = result.blueprint
    events, skipped = read_events(text.splitlines())
    trace = replay(
        ir, events, skipped=skipped, unattended=unattended, default_max_iterations=settings.default_max_iterations
    )
    click.echo(render_json(ir, trace) if output_format == "json" else terminal_text(render_text(ir, trace)), nl=False)
    ctx.exit(EXIT_OK if trace.state.status == "complete" else EXIT_FINDINGS)

