"""`blueprint lsp`: the language server, over standard input and output.

It needs pygls and lsprotocol, which the install brings; in an environment that lost them the
command says how to put them back and exits with 2. Editors start it themselves (see docs/editors.md); it is not meant to be
typed at a terminal.
"""

from __future__ import annotations

import click

from .errors import CliError

INSTALL_HINT = "reinstall agent-blueprint-compiler (pip install --force-reinstall agent-blueprint-compiler)"


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Talk over standard input and output (the default; editors may pass it).")
def command(stdio: bool) -> None:
    """Run the language server: findings as you type, navigation, rename, completion, hover,
    quick fixes and an outline for every editor with an LSP client."""
    try:
        import lsprotocol  # noqa: F401 - imported to learn whether it is installed
        import pygls  # noqa: F401 - imported to learn whether it is installed
    except ImportError as exc:
        raise CliError(
            f"blueprint lsp needs the package '{exc.name}', which is not installed: {INSTALL_HINT}"
        ) from None
    from ..lsp.server import serve
    from ..lsp.transport import TransportError

    try:
        serve()
    except TransportError as exc:
        raise CliError(f"the language server stopped: the client sent {exc}") from None
