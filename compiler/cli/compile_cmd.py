"""`blueprint compile PATH [-o OUT]`: the blueprint's IR as JSON, on stdout or in OUT.

`--digest` writes the IR's canonical digest instead: one line, the same for every file that
compiles to the same IR whatever its formatting, comments or key order (docs/ir.md).

Exit status: 0 when the IR was written (warnings are shown on stderr but never block it),
1 when the blueprint has errors (the report goes to stderr and nothing is written), 2 when
the file cannot be read, OUT cannot be written, or the configuration is invalid. Only OUT
is ever written, and only after a successful compilation, so a failed run leaves an
existing OUT as it was.
"""

from __future__ import annotations

import sys

import click

from .common import read_with_settings, use_color
from .errors import EXIT_FINDINGS, EXIT_OK, CliError, OutputError, echo
from .options import color_option


@click.command("compile")
@click.argument("path", type=click.Path(path_type=str))
@click.option(
    "-o",
    "--output",
    metavar="OUT",
    type=click.Path(path_type=str),
    help="Write the IR to OUT instead of stdout ('-' is stdout).",
)
@click.option("-q", "--quiet", is_flag=True, help="Do not show warnings and notes on stderr.")
@click.option(
    "--digest",
    is_flag=True,
    help="Write the canonical digest of the IR (one SHA-256 per meaning, docs/ir.md) instead of the IR.",
)
@color_option
def command(path: str, output: str | None, quiet: bool, digest: bool, color: str) -> None:
    """Compile a blueprint to its IR (JSON), refusing when it has errors.

    Rule settings come from the nearest blueprint.toml, .blueprint.toml or pyproject.toml
    [tool.blueprint] above the file, as for `blueprint validate`.
    """
    from ..api import compile_with_findings, ir_source_path
    from ..ir.serialize import dumps
    from ..render.text import render_report

    data, settings = read_with_settings(path)
    ir, result = compile_with_findings(data, ir_source_path(path), settings)
    if ir is None or (result.diagnostics and not quiet):
        paint = use_color(color, sys.stderr)
        report = render_report([(result.diagnostics, result.source)], color=paint)
        echo(report, nl=False, err=True, color=paint)
    if ir is None:
        sys.exit(EXIT_FINDINGS)

    if digest:
        from ..ir.digest import digest as digest_of

        text = (digest_of(ir) + "\n").encode("ascii")
    else:
        text = dumps(ir).encode("utf-8")
    if output is None or output == "-":
        _write_stdout(text)
    else:
        try:
            with open(output, "wb") as handle:
                handle.write(text)
        except OSError as exc:
            raise CliError(f"cannot write '{output}': {exc.strerror or exc}") from exc
    sys.exit(EXIT_OK)


def _write_stdout(data: bytes) -> None:
    """The exact bytes, whatever the terminal's encoding or newline convention."""
    try:
        sys.stdout.flush()
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None:  # a text-only stream (an embedding application's)
            sys.stdout.write(data.decode("utf-8"))
        else:
            buffer.write(data)
            buffer.flush()
    except OSError as exc:
        raise OutputError(exc) from exc
