"""`blueprint merge-reports REPORT …`: the reports of `--shard K/N` runs as one.

Each REPORT is a `--format json` report (of `validate` or `check`) or a `--format sarif` log;
all must be of one format. The merged report is what one run over every file writes (see
`render/merge.py` for the order and what is refused). Exit 0 when merged, 1 when the merged
report holds an error (as `validate` would exit, so a matrix's last job can gate on it), 2 when
a report cannot be read or merged.
"""

from __future__ import annotations

import json

import click

from .errors import EXIT_FINDINGS, EXIT_OK, CliError, emit

#: A report larger than this is refused (a SARIF log of 10,000 files is ~100 MB).
MAX_REPORT_BYTES = 512 * 1024 * 1024


@click.command("merge-reports")
@click.argument("reports", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("-o", "--output", metavar="FILE", help="Write the merged report to FILE instead of standard output.")
@click.option(
    "--exit-zero", is_flag=True, help="Exit 0 even when the merged report holds errors (2 still means it failed)."
)
def command(reports: tuple[str, ...], output: str | None, exit_zero: bool) -> None:
    """Merge the JSON reports or SARIF logs of sharded runs (--shard K/N) into one."""
    from ..render.merge import MergeError, merge_reports

    try:
        merged = merge_reports([(path, _read_report(path)) for path in reports])
    except MergeError as exc:
        raise CliError(f"cannot merge: {exc}") from exc
    text = json.dumps(merged, indent=2, ensure_ascii=True) + "\n"
    if output is None or output == "-":
        emit(text)
    else:
        try:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise CliError(f"cannot write '{output}': {exc.strerror or exc}") from exc
    raise SystemExit(EXIT_OK if exit_zero or not _has_errors(merged) else EXIT_FINDINGS)


def _read_report(path: str) -> object:
    from ..reading import read_limited

    try:
        data = read_limited(path, MAX_REPORT_BYTES)
    except OSError as exc:
        raise CliError(f"cannot read '{path}': {exc.strerror or exc}") from exc
    if len(data) > MAX_REPORT_BYTES:
        raise CliError(f"'{path}' is larger than {MAX_REPORT_BYTES // (1024 * 1024)} MB; not a report")
    try:
        return json.loads(data)
    except UnicodeDecodeError as exc:
        raise CliError(f"{path}: not UTF-8 at byte {exc.start}") from exc
    except json.JSONDecodeError as exc:
        raise CliError(f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from exc
    except RecursionError:
        raise CliError(f"{path}: nested too deeply to be a report") from None


def _has_errors(merged: dict[str, object]) -> bool:
    summary = merged.get("summary")
    if isinstance(summary, dict):
        return bool(summary.get("errors"))
    runs = merged.get("runs")
    return isinstance(runs, list) and any(
        result.get("level") == "error" for run in runs for result in run.get("results", [])
    )
