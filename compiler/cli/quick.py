"""`blueprint validate …` without click, for the command lines editors, hooks and CI run.

Importing click is a sixth of a one-file `blueprint validate` process (17 ms of 90 ms,
docs/performance.md), paid on every save by a pre-commit hook or an editor's save action.
This module reads `validate` lines itself, from a table *derived from click's declarations*
of the command (`validate_line.py`, written by `python -m compiler.cli.quick`; the suite
fails when it is stale), so it cannot drift from them. Anything the table does not cover
(`--help`, an unknown or misspelt option, a value click would have to convert or reject,
`--`, shell completion, another command) is not read here: `options` returns None and click
parses the line, with its own messages. So a line is either read exactly as click reads it
or left to click (`tests/test_quick_cli.py` holds that as a property over lines drawn from
the table).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from .errors import EXIT_INTERRUPTED, CliError, echo, internal_error
from .validate_line import FLAGS, REPEATABLE, VALUED

COMMAND = "validate"
#: A valued option's kind: any text, a count (an integer ≥ 0, as `click.IntRange(min=0)`
#: reads it), or one of a tuple of choices.
TEXT, COUNT = "text", "count"


def options(args: list[str]) -> dict[str, Any] | None:
    """The parameters of `validate` that `args` (the words after `blueprint`) set, or None
    when click should read the line."""
    if not args or args[0] != COMMAND or "_BLUEPRINT_COMPLETE" in os.environ:
        return None
    found: dict[str, Any] = {}
    paths: list[str] = []
    words = iter(args[1:])
    for word in words:
        if word == "-" or not word.startswith("-"):
            if sys.platform == "win32" and any(c in word for c in "*?["):
                return None  # click expands wildcards on Windows
            paths.append(word)
        elif word in FLAGS:
            flag, setting = FLAGS[word]
            found[flag] = setting
        else:
            option, equals, value = word.partition("=")
            valued = VALUED.get(option)
            if valued is None:
                return None
            name, kind = valued
            if not equals:
                value = next(words, "-")
            if not _plain(kind, value):
                return None
            if name in REPEATABLE:
                found[name] = (*found.get(name, ()), value)
            else:
                found[name] = int(value) if kind == COUNT else value
    found["paths"] = tuple(paths)
    return found


def _plain(kind: str | tuple[str, ...], value: str) -> bool:
    """A value click takes as it is written. Others (a missing value, one that looks like an
    option, a choice or number click would reject or convert) are for click."""
    if value.startswith("-"):
        return False
    if kind == COUNT:
        return value.isascii() and value.isdigit()
    return kind == TEXT or value in kind


def run(parameters: dict[str, Any]) -> int:
    """`blueprint validate` with `parameters`; its exit status. Errors, an interruption and a
    crash are reported as the click command group reports them."""
    from .validate_run import run_validate

    try:
        return run_validate(**parameters)
    except CliError as exc:
        exc.show()
        return exc.exit_code
    except KeyboardInterrupt:
        echo("interrupted", err=True)
        return EXIT_INTERRUPTED
    except Exception as exc:
        error = internal_error(exc)
        error.show()
        return error.exit_code


# --- the table, derived from click's declarations ---------------------------------------------


def derive() -> tuple[dict[str, tuple[str, bool]], dict[str, tuple[str, Any]], frozenset[str]]:
    """FLAGS, VALUED and REPEATABLE as click declares the `validate` command: every flag (and
    its `--no-` form), and every valued option whose type is text, a choice or a count. An
    option of any other type is left out, so click reads the lines that use it."""
    import click

    from .validate_cmd import command

    flags: dict[str, tuple[str, bool]] = {}
    valued: dict[str, tuple[str, Any]] = {}
    repeatable = set()
    for param in command.params:
        if not isinstance(param, click.Option) or param.name is None:
            continue
        if param.is_flag:
            flags.update({opt: (param.name, True) for opt in param.opts})
            flags.update({opt: (param.name, False) for opt in param.secondary_opts})
            continue
        kind = _kind(param.type)
        if kind is None:
            continue
        valued.update({opt: (param.name, kind) for opt in param.opts})
        if param.multiple:
            repeatable.add(param.name)
    return flags, valued, frozenset(repeatable)


def _kind(kind: Any) -> str | tuple[str, ...] | None:
    import click

    if isinstance(kind, click.Choice):  # an exact choice reads as itself, whatever the case rule
        return tuple(str(choice) for choice in kind.choices)
    if isinstance(kind, click.IntRange) and kind.min == 0 and kind.max is None and not kind.min_open:
        return COUNT
    if type(kind) is click.types.StringParamType:
        return TEXT
    return None


def table_source() -> str:
    """The text of `validate_line.py` for the table `derive` gives (formatted as ruff would)."""
    flags, valued, repeatable = derive()
    return (
        '"""What `blueprint validate` accepts, for `quick.py`: generated from the click declarations of\n'
        "the command by `python -m compiler.cli.quick` (`tests/test_quick_cli.py` fails when it is stale).\n"
        'Do not edit: change the options in `validate_cmd.py` and `options.py`, then regenerate."""\n\n'
        "from __future__ import annotations\n\n"
        "#: A flag → (parameter, value it sets).\n"
        f"FLAGS: dict[str, tuple[str, bool]] = {_literal(flags)}\n"
        "#: An option with a value → (parameter, kind: 'text', 'count' or a tuple of choices).\n"
        f"VALUED: dict[str, tuple[str, str | tuple[str, ...]]] = {_literal(valued)}\n"
        "#: The parameters whose option may be repeated (a tuple of values).\n"
        f"REPEATABLE = frozenset({_literal(sorted(repeatable))})\n"
    )


def _literal(value: Any) -> str:
    """`value` as Python source in the project's format (double quotes, one entry a line)."""
    if isinstance(value, dict):
        return "{\n" + "".join(f"    {_literal(k)}: {_literal(v)},\n" for k, v in value.items()) + "}"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(_literal(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, str):
        import json

        return json.dumps(value, ensure_ascii=False)
    return repr(value)


TABLE_PATH = Path(__file__).with_name("validate_line.py")


if __name__ == "__main__":
    TABLE_PATH.write_text(table_source(), encoding="utf-8")
