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
from .common import read_with_settings, stdin_buffer
from .errors import EXIT_FINDINGS, EXIT_OK, CliError, echo, echo_problem, emit
from .options import default_max_iterations_option, format_option


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
@click.option(
    "--save-scenario",
    "scenario_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the run as a scenario whose expectations are what happened (added to FILE if it exists).",
)
@default_max_iterations_option
@click.pass_context
def command(
    ctx: click.Context,
    path: Path,
    events_path: Path,
    output_format: str,
    unattended: bool,
    scenario_path: Path | None,
    default_max_iterations: int | None,
) -> None:
    """Drive the stage-runner over a recorded event stream and print the timeline."""
    from ..pipeline import validate_bytes
    from ..render.text import render_report
    from ..runtime.streamfile import read_event_file
    from ..runtime.timeline import render_json, render_text, replay

    data, settings = read_with_settings(str(path), Overrides(default_max_iterations=default_max_iterations))
    result = validate_bytes(str(path), data, settings)
    if not result.ok or result.blueprint is None:
        echo(render_report([(result.diagnostics, result.source)]), err=True, nl=False)
        from ..parse.other_files import refusal

        echo_problem(f"refusing to run '{path}': it {refusal(result.diagnostics)}")
        ctx.exit(EXIT_FINDINGS)

    stdin = str(events_path) == "-"
    try:
        # Bounded: a regular file or a pipe, long lines skipped and counted, a size limit.
        skipped_lines: list[int] = []
        events, skipped = read_event_file(stdin_buffer() if stdin else events_path, skipped_lines=skipped_lines)
    except OSError as exc:
        raise CliError(f"cannot read '{'<stdin>' if stdin else events_path}': {exc.strerror or exc}") from exc

    ir = result.blueprint
    trace = replay(
        ir,
        events,
        skipped=skipped,
        skipped_lines=skipped_lines,
        unattended=unattended,
        default_max_iterations=settings.default_max_iterations,
    )
    emit(render_json(ir, trace) if output_format == "json" else render_text(ir, trace))
    if scenario_path is not None:
        save_scenario(
            scenario_path,
            str(path),
            ir,
            events,
            unattended,
            "<stdin>" if stdin else events_path.name,
            settings.default_max_iterations,
        )
    ctx.exit(EXIT_OK if trace.state.status == "complete" else EXIT_FINDINGS)


def save_scenario(
    target: Path, blueprint_path: str, ir, events, unattended: bool, source: str, default_max_iterations: int
) -> None:
    """Write the run as a `[[scenario]]` of `target` (a new file, or added to an existing one).
    A default iteration cap other than the usual one is written into the scenario, so that
    `blueprint test` plays it the same way."""
    import os

    from ..fix.writes import write_atomically
    from ..scenarios.loader import default_blueprint, load_scenarios
    from ..scenarios.record import observed, record, run_options, scenario_toml, toml_value

    recording = record(ir, events, unattended=unattended, default_max_iterations=default_max_iterations)
    existing: bytes | None = None
    if target.exists():
        try:
            existing = target.read_bytes()
        except OSError as exc:
            raise CliError(f"cannot read '{target}': {exc.strerror or exc}") from exc
    names = {s.name for s in load_scenarios(str(target), existing).scenarios} if existing is not None else set()
    name, number = f"recorded from {source}", 1
    while name in names:
        number += 1
        name = f"recorded from {source} ({number})"
    comments = [f"Recorded by blueprint run --save-scenario: what happened in {source}."]
    if recording.dropped:
        comments.append(f"{recording.dropped} event(s) the runner ignored are left out.")
    block = scenario_toml(
        name,
        recording.visits,
        observed(recording.played),
        comments=comments,
        extra=run_options(unattended, default_max_iterations),
    )
    if existing is not None:
        text = existing.decode("utf-8", errors="replace").rstrip("\n") + "\n\n" + block
    else:
        head = ""
        if os.path.realpath(default_blueprint(str(target))) != os.path.realpath(blueprint_path):
            relative = os.path.relpath(blueprint_path, os.path.dirname(str(target)) or ".")
            head = f"blueprint = {toml_value(relative.replace(os.sep, '/'))}\n\n"
        text = head + block
    try:
        write_atomically(str(target), text.encode("utf-8"))
    except OSError as exc:
        raise CliError(f"cannot write '{target}': {exc.strerror or exc}") from exc
    echo_problem(f"saved scenario '{name}' to {target}")
