"""`blueprint run PATH --events FILE.ndjson`: drive the stage-runner over a recorded event stream.

The events are NDJSON: our native runner events, a Claude/Anthropic `stream-json` stream (or
its raw SSE), or both interleaved — an agent stream, replayed through the runner — or a log
of Leviath's own world events, checked against the blueprint (see docs/runner.md). Which one
a file is, is read from its first telling line, or given with `--events-format`. Prints the
timeline, or `--format json` for the same as data. Exit status, for an agent stream: 0 when
the run completed; 1 when it failed, was cancelled, or the events ran out before it ended
(the last line says which). For a Leviath log: 0 when the run stayed within the blueprint, 1
at the first departure. Either way 1 when the blueprint has errors (its diagnostics go to
stderr), and 2 on a usage or I/O error.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..config import Overrides
from .common import not_utf8, read_with_settings, stdin_buffer
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
@click.option(
    "--events-format",
    type=click.Choice(["auto", "agent", "leviath"]),
    default="auto",
    show_default=True,
    help="What the events are: an agent stream (native, stream-json, SSE) or a Leviath world-event log.",
)
@click.option("--run-id", help="The run of a Leviath log to check (default: its one root run of the blueprint).")
@format_option
@click.option("--unattended", is_flag=True, help="Approve auto_approve interaction points without asking.")
@click.option(
    "--save-scenario",
    "scenario_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the run as a scenario whose expectations are what happened (added to FILE if it exists).",
)
@default_max_iterations_option
@click.option(
    "--temporal",
    "temporal_address",
    metavar="HOST:PORT",
    help="Replay the run as a workflow on this Temporal server, with a worker in this process.",
)
@click.pass_context
def command(
    ctx: click.Context,
    path: Path,
    events_path: Path,
    events_format: str,
    run_id: str | None,
    output_format: str,
    unattended: bool,
    scenario_path: Path | None,
    default_max_iterations: int | None,
    temporal_address: str | None,
) -> None:
    """Drive the stage-runner over a recorded event stream and print the timeline, or check a
    Leviath run log (its world events) against the blueprint."""
    from ..pipeline import validate_bytes
    from ..render.text import render_report
    from ..runtime.leviath_log import RunLog
    from ..runtime.timeline import render_json, render_text
    from ..runtime.timeline import replay as replay_trace

    data, settings = read_with_settings(str(path), Overrides(default_max_iterations=default_max_iterations))
    result = validate_bytes(str(path), data, settings)
    if not result.ok or result.blueprint is None:
        echo(render_report([(result.diagnostics, result.source)]), err=True, nl=False)
        from ..parse.other_files import refusal

        echo_problem(f"refusing to run '{path}': it {refusal(result.diagnostics)}")
        ctx.exit(EXIT_FINDINGS)

    stdin = str(events_path) == "-"
    shown = "<stdin>" if stdin else str(events_path)
    ir = result.blueprint
    source = None if stdin else events_path
    if scenario_path is None and temporal_address is None:
        status = _stream(ctx, ir, source, shown, events_format, run_id, output_format, unattended, settings)
        ctx.exit(status)
    recorded = read_recording(source, shown, events_format)
    if isinstance(recorded, RunLog):
        _refuse_agent_options(
            shown, unattended=unattended, scenario=scenario_path is not None, temporal=temporal_address is not None
        )
        check_run_log(ctx, ir, recorded, run_id, output_format, settings.default_max_iterations)
        return
    if run_id is not None:
        raise CliError(f"--run-id chooses a run of a Leviath log, and '{shown}' is an agent stream")
    events, skipped, skipped_lines = recorded

    replay = replay_trace
    if temporal_address is not None:  # the same trace, made by a workflow on that server
        from .temporal_run import on_temporal

        replay = on_temporal(temporal_address)

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


#: Characters of the timeline written at a time.
_BLOCK = 1 << 16


def _stream(
    ctx: click.Context,
    ir,
    source: Path | None,
    shown: str,
    events_format: str,
    run_id: str | None,
    output_format: str,
    unattended: bool,
    settings,
) -> int:
    """The replay with nothing kept: each event is read, stepped and written out in turn, so a
    stream of any length runs in constant memory. (With --save-scenario or --temporal the
    events are kept, for the second use.) A Leviath log is checked as a whole."""
    from ..runtime.leviath_log import read_log
    from ..runtime.streamfile import LEVIATH_LOG, EventStream, decoded, open_lines, sniff_format
    from ..runtime.timeline import Ending, json_chunks, replay_entries, text_chunks

    try:
        with open_lines(stdin_buffer() if source is None else source) as lines:
            kind, lines = sniff_format(lines) if events_format == "auto" else (events_format, lines)
            if kind == LEVIATH_LOG:
                log = read_log(decoded(lines))
            else:
                if run_id is not None:
                    raise CliError(f"--run-id chooses a run of a Leviath log, and '{shown}' is an agent stream")
                events, ending = EventStream(lines), Ending()
                entries = replay_entries(
                    ir, events, ending, unattended=unattended, default_max_iterations=settings.default_max_iterations
                )

                def ended() -> Ending:
                    ending.skipped, ending.skipped_lines = events.skipped, events.skipped_lines
                    return ending

                render = json_chunks if output_format == "json" else text_chunks
                pending: list[str] = []
                size = 0
                for chunk in render(ir, entries, ended):  # written in blocks: a flush per step is slow
                    pending.append(chunk)
                    size += len(chunk)
                    if size >= _BLOCK:
                        emit("".join(pending))
                        pending, size = [], 0
                emit("".join(pending))
                assert ending.state is not None
                return EXIT_OK if ending.state.status == "complete" else EXIT_FINDINGS
    except OSError as exc:
        raise CliError(f"cannot read '{shown}': {exc.strerror or exc}") from exc
    _refuse_agent_options(shown, unattended=unattended, scenario=False, temporal=False)
    check_run_log(ctx, ir, log, run_id, output_format, settings.default_max_iterations)  # exits
    return EXIT_OK


def read_recording(path: Path | None, shown: str, events_format: str):
    """The recorded stream at `path` (None: standard input): a Leviath `RunLog`, or an agent
    stream's `(events, skipped, skipped line numbers)`. Bounded: a regular file or a pipe,
    long lines skipped and counted, a size limit."""
    from ..runtime.leviath_log import read_log
    from ..runtime.streamfile import LEVIATH_LOG, decoded, open_lines, read_event_lines, sniff_format

    try:
        with open_lines(stdin_buffer() if path is None else path) as lines:
            kind, lines = sniff_format(lines) if events_format == "auto" else (events_format, lines)
            if kind == LEVIATH_LOG:
                return read_log(decoded(lines))
            skipped_lines: list[int] = []
            events, skipped = read_event_lines(lines, skipped_lines=skipped_lines)
            return events, skipped, skipped_lines
    except OSError as exc:
        raise CliError(f"cannot read '{shown}': {exc.strerror or exc}") from exc


def _refuse_agent_options(shown: str, *, unattended: bool, scenario: bool, temporal: bool) -> None:
    """Options of a replay that a log check has no use for are an error, not ignored."""
    for given, option in ((unattended, "--unattended"), (scenario, "--save-scenario"), (temporal, "--temporal")):
        if given:
            raise CliError(f"{option} applies to an agent stream, and '{shown}' is a Leviath run log")


def check_run_log(
    ctx: click.Context, ir, log, run_id: str | None, output_format: str, default_max_iterations: int
) -> None:
    """Check a Leviath log's run against the blueprint: the timeline up to the first departure,
    the finding; exit 1 at a departure."""
    from ..runtime.leviath_log import LogError
    from ..runtime.log_check import check_log, render_json, render_text

    try:
        check = check_log(ir, log, run_id=run_id, default_max_iterations=default_max_iterations)
    except LogError as exc:
        hint = " (--run-id)" if "choose one" in str(exc) else ""
        raise CliError(f"{exc}{hint}") from exc
    emit(render_json(check) if output_format == "json" else render_text(check))
    ctx.exit(EXIT_OK if check.ok else EXIT_FINDINGS)


def save_scenario(
    target: Path, blueprint_path: str, ir, events, unattended: bool, source: str, default_max_iterations: int
) -> None:
    """Write the run as a `[[scenario]]` of `target` (a new file, or added to an existing one).
    A default iteration cap other than the usual one is written into the scenario, so that
    `blueprint test` plays it the same way."""
    import os

    from ..fix.writes import write_atomically
    from ..reading import read_capped
    from ..scenarios.loader import default_blueprint, load_scenarios
    from ..scenarios.record import observed, record, run_options, scenario_toml, toml_value

    recording = record(ir, events, unattended=unattended, default_max_iterations=default_max_iterations)
    existing: bytes | None = None
    if target.exists():
        try:
            existing = read_capped(target)
            existing.decode("utf-8")  # invalid bytes are refused, never rewritten
        except OSError as exc:
            raise CliError(f"cannot read '{target}': {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise CliError(f"cannot append to '{target}': {not_utf8(exc)}") from exc
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
        text = existing.decode("utf-8").rstrip("\n") + "\n\n" + block
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
