"""`blueprint validate …` without click, for the command lines editors, hooks and CI run.

Importing click is a fifth of a one-file `blueprint validate` process, paid on every save by
a pre-commit hook or an editor's save action. This module reads the commonest `validate`
command lines itself: paths and the options below, each written as click reads it. Anything
else (`--help`, `--watch`, an unknown or misspelt option, a value click would have to
convert or reject, `--`, shell completion) is not read here: `options` returns None and
click parses the line, with its own messages. So a line is either read exactly as click
reads it or left to click; `tests/test_quick_cli.py` holds the two readings together and
makes every option of the click command either listed here or declared click-only.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from .errors import EXIT_INTERRUPTED, CliError, echo, internal_error

COMMAND = "validate"

#: Flags: the option → (parameter, value it sets).
FLAGS: dict[str, tuple[str, bool]] = {
    "-q": ("quiet", True),
    "--quiet": ("quiet", True),
    "--statistics": ("statistics", True),
    "--deny-warnings": ("deny_warnings", True),
    "--no-deny-warnings": ("deny_warnings", False),
    "--respect-gitignore": ("respect_gitignore", True),
    "--no-respect-gitignore": ("respect_gitignore", False),
    "--fix": ("fix", True),
    "--diff": ("diff", True),
}
#: Options with a value: the option → its parameter. A repeatable one collects a tuple.
VALUED: dict[str, str] = {
    "--format": "output_format",
    "--color": "color",
    "--stdin-filename": "stdin_filename",
    "--leviath-config": "leviath_config",
    "--leviath-models": "leviath_models",
    "--default-max-iterations": "default_max_iterations",
    "--select": "select",
    "--ignore": "ignore",
    "--exclude": "exclude",
}
REPEATABLE = frozenset({"select", "ignore", "exclude"})
#: Options of `validate` only click reads (the test checks the two lists cover them all).
CLICK_ONLY = frozenset({"--help", "-h", "--watch", "--show-settings"})

_COLORS = frozenset({"auto", "always", "never"})


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
            if not equals:
                value = next(words, "-")
            if not _plain(valued, value):
                return None
            if valued in REPEATABLE:
                found[valued] = (*found.get(valued, ()), value)
            else:
                found[valued] = int(value) if valued == "default_max_iterations" else value
    found["paths"] = tuple(paths)
    return found


def _plain(name: str, value: str) -> bool:
    """A value click takes as it is written. Others (a missing value, one that looks like an
    option, a choice or number click would reject or convert) are for click."""
    if value.startswith("-"):
        return False
    if name == "output_format":
        from ..render import REPORTERS

        return value in REPORTERS
    if name == "color":
        return value in _COLORS
    if name == "default_max_iterations":
        return value.isascii() and value.isdigit()
    return True


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
