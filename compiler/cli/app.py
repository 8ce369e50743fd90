"""The `blueprint` command group (click), whose subcommands load on first use.

`blueprint --help` and `blueprint --version` import no subcommand module: each command is a
line in `COMMANDS` (where it lives, and its one-line help), and its module is imported only
when that command runs. To add a command, write `compiler/cli/<name>_cmd.py` with a click
command named `command` and add one line to `COMMANDS`.

Exit codes: 0 nothing failing, 1 failing findings, 2 usage, configuration or I/O error (and
any unexpected crash, reported in one line; set BLUEPRINT_DEBUG=1 for the traceback), 130
interrupted. The entry point is `compiler.cli.main`, which runs the commonest `validate`
command lines without click (`compiler.cli.quick`).
"""

from __future__ import annotations

import difflib
import importlib
from typing import Any

import click

from .. import __version__
from ..display import visible
from .errors import EXIT_INTERRUPTED, CliError, echo, internal_error

#: name → ("module:attribute", one-line help). The help is shown by `blueprint --help`
#: without importing the module.
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("compiler.cli.validate_cmd:command", "Check blueprints and report every finding."),
    "check": ("compiler.cli.check_cmd:command", "Validate, then explore every run: counterexamples and cost ceilings."),
    "rules": ("compiler.cli.rules_cmd:rules_command", "List every rule: code, severity, family, summary."),
    "rule": ("compiler.cli.rules_cmd:rule_command", "Explain one rule: why it exists, an example, the fix."),
    "schema": ("compiler.cli.schema_cmd:command", "Print a published JSON Schema, or a catalog of them for editors."),
    "run": ("compiler.cli.run_cmd:command", "Drive the stage-runner over a recorded event stream."),
    "test": (
        "compiler.cli.test_cmd:command",
        "Play scenario files on the stage-runner and check each run's expectations.",
    ),
    "compile": (
        "compiler.cli.compile_cmd:command",
        "Compile a blueprint to its IR (JSON); refuses when it has errors.",
    ),
    "graph": ("compiler.cli.graph_cmd:command", "Draw a blueprint's stage graph (mermaid, dot or a text outline)."),
    "docs": ("compiler.cli.docs_cmd:command", "Write a Markdown and HTML page per blueprint, diagram included."),
    "new": ("compiler.cli.new_cmd:command", "Start an agent from a template: a commented blueprint and its tools/."),
    "diff": ("compiler.cli.diff_cmd:command", "Compare two versions of a blueprint: changes by class, and run deltas."),
    "lsp": ("compiler.cli.lsp_cmd:command", "Run the language server (LSP over stdio) for editors."),
    "merge-reports": (
        "compiler.cli.merge_cmd:command",
        "Merge the JSON or SARIF reports of sharded runs (--shard K/N) into one.",
    ),
}


class LazyGroup(click.Group):
    """A group that imports a subcommand's module only when that subcommand is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, _, attribute = entry[0].partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{entry[0]} is not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in COMMANDS:
            close = difflib.get_close_matches(name, list(COMMANDS), n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise click.UsageError(f"no such command '{name}'.{hint}", ctx)
        return super().resolve_command(ctx, args)

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.ClickException as exc:
            raise _visible_message(exc) from None
        except CliError as exc:
            raise CliFailure(exc) from None

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:  # a usage error quotes arguments: show them safely
            raise _visible_message(exc)  # noqa: B904 - the same exception, its message made visible
        except CliError as exc:
            raise CliFailure(exc) from exc
        except (click.exceptions.Exit, click.Abort):
            raise
        except KeyboardInterrupt:
            # click would exit with 1, which reads as "findings"; 130 is the shell's convention.
            echo("interrupted", err=True)
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except Exception as exc:  # never a traceback for users (BLUEPRINT_DEBUG=1 lets it through)
            raise CliFailure(internal_error(exc)) from exc


class CliFailure(click.ClickException):
    """A `CliError` as click shows and exits with it: its own message, stream and status."""

    exit_code = CliError.exit_code

    def __init__(self, error: CliError) -> None:
        super().__init__(error.message)
        self.error = error

    def show(self, file: Any = None) -> None:
        self.error.show(file)


def _visible_message(exc: click.ClickException) -> click.ClickException:
    """`exc` with the arguments it quotes made visible (a file name holding a newline)."""
    # click types `message` as Final, but it is a plain attribute that `show` reads: rewriting it
    # keeps the exception's class and context, which a new exception would have to copy.
    exc.message = visible(exc.message)  # type: ignore[misc]
    return exc


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="blueprint", message="%(prog)s %(version)s")
def cli() -> None:
    """Validate, compile and run TOML agent blueprints (agent.leviath)."""
