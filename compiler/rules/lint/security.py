"""What a blueprint asks the user to grant: reads outside the working directory
(`[read_paths]`) and shell commands that need no approval (`[safe_commands]`).

Declaring is not granting. The runtime honours both blocks only where the user's own
configuration opts in, which we never read: these rules give the configuration-free answer,
the same on every machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...rulebook.registry import LINT
from ...rulebook.snippets import stage as stage_example
from ..common import quoted, string_entries
from ..context import RuleContext
from ..structure.read_paths import entry_problem
from .shell_keys import KEY_PREFIX, command_keys, is_valid_prefix

_STAGE = "\n\n" + stage_example("work", 'available_tools = ["read_file"]')
_PREFIX_FIX = "write a program, optionally with the subcommand that narrows it: 'rg', 'cargo test', 'git status'"

READ_PATHS_DECLARED = LINT.define(
    "read-paths-declared",
    severity="note",
    summary="The blueprint declares `[read_paths]`, which do nothing until the user grants them.",
    rationale=(
        "`[read_paths] allow` lists files outside the working directory the agent wants to read. "
        "A downloaded blueprint cannot grant itself that: each entry is refused until the user's "
        "own configuration grants it. Without this note an author finds out at the first refused "
        "read, mid-run."
    ),
    example='[read_paths]\nallow = ["~/notes/**"]' + _STAGE,
    example_fixed=_STAGE.strip("\n"),
    fix="these reads are refused unless the user's configuration grants them",
    leviath="read-paths-declared",
    differs=(
        "Leviath compares the entries with the user's configuration when it can read it; we "
        "never read it, so the answer does not depend on the machine (its read-paths-not-granted "
        "and read-paths-grant-invalid need that configuration and have no counterpart here)."
    ),
)

BROAD_READ_PATH = LINT.define(
    "broad-read-path",
    severity="warning",
    summary="A `[read_paths]` entry is so broad it grants the whole home directory or the whole machine.",
    rationale=(
        "An entry such as `~`, `/`, `glob:~/**` or `regex:/.*` asks to read every file the user "
        "can, keys and credentials included. An agent rarely needs more than one directory, and "
        "a user who grants the blueprint's request grants all of it."
    ),
    example='[read_paths]\nallow = ["glob:~/**"]' + _STAGE,
    example_fixed='[read_paths]\nallow = ["glob:~/notes/**"]' + _STAGE,
    fix="name the directory the agent actually needs",
    leviath="broad-read-path",
    differs="Leviath misses `glob:~/**`, `~/*`, `regex:~/.*` and drive roots such as `C:/`.",
)

UNPARSEABLE_SAFE_COMMAND = LINT.define(
    "unparseable-safe-command",
    severity="error",
    summary="A `[safe_commands] shell` entry is not a bare command prefix, so no call can ever match it.",
    rationale=(
        "Shell calls are approved per command: the program, plus a subcommand that narrows it "
        "(`git diff`, `cargo test`). An entry with flags, arguments, redirects, quotes, "
        "variables or several commands (`ls -la`, `git log --oneline`, `make && make test`) is "
        "read as something other than itself, so it never matches a call and the commands it "
        "was meant to let through keep asking."
    ),
    example='[safe_commands]\nshell = ["git log --oneline"]' + _STAGE,
    example_fixed='[safe_commands]\nshell = ["git log"]' + _STAGE,
    fix=_PREFIX_FIX,
    leviath="unparseable-safe-command",
)

SAFE_COMMANDS_DECLARED = LINT.define(
    "safe-commands-declared",
    severity="note",
    summary="The blueprint declares `[safe_commands]`, which apply only where the user opts in.",
    rationale=(
        "A blueprint may list commands and tools it would like to run without approval, but "
        "declaring is not granting: the runtime honours the block only for users who opted in "
        "for this agent or for every agent. Elsewhere each listed command still asks."
    ),
    example='[safe_commands]\nshell = ["cargo test"]' + _STAGE,
    example_fixed=_STAGE.strip("\n"),
    fix="the user sets [agent_safe_commands.<agent>] allow_blueprint = true, or [security] allow_blueprint_safe_commands",
    leviath="safe-commands-declared",
    differs="Leviath can also say whether the user's configuration honours the block; we never read it.",
)

_DRIVE = re.compile(r"[A-Za-z]:(?=/|$)")
_ANY_BELOW = ("", "*", "**", "**/*", "**/**")
_ANY_REGEX = ("", ".*", ".+", "(.*)", "(.+)")


def _split_root(text: str) -> tuple[str | None, str]:
    """(root, rest): root is `~`, `/`, a drive such as `C:`, or None for a relative pattern."""
    if text.startswith("~"):
        return "~", text[1:].lstrip("/")
    drive = _DRIVE.match(text)
    if drive:
        return drive.group(0), text[2:].lstrip("/")
    if text.startswith("/"):
        return "/", text.lstrip("/")
    return None, text


def broad_read_path(entry: str) -> str | None:
    """What an overly broad entry opens up ("your home directory", …), or None."""
    kind, _, body = entry.partition(":") if entry.startswith(("glob:", "regex:")) else ("path", "", entry)
    pattern = body.replace("\\", "/")
    trimmed = pattern.rstrip("/")
    # The reference's own test first, kept as it is (a relative `**` included) ...
    if pattern.startswith("**"):
        return "everything below the directory the run starts in (all of your home directory when it starts there)"
    if trimmed in ("~", "") or trimmed in ("/**", "/.+") or pattern.startswith("/.*"):
        return "your whole home directory" if trimmed.startswith("~") else "any path on this machine"
    # ... then what it misses: anything-at-all below the home directory or a root.
    if kind == "regex":
        pattern = pattern.removeprefix("^").removesuffix("$")
    root, rest = _split_root(pattern)
    if root is None:
        return None
    rest = rest.rstrip("/")
    if rest in (_ANY_REGEX if kind == "regex" else _ANY_BELOW):
        return "your whole home directory" if root == "~" else "any path on this machine"
    return None


@LINT.check(READ_PATHS_DECLARED, BROAD_READ_PATH)
def check_read_paths(ctx: RuleContext) -> Iterator[Diagnostic]:
    if not isinstance(ctx.raw(("read_paths",), None), dict):
        return
    entries = list(string_entries(ctx.raw(("read_paths", "allow"), None)))
    if not entries:
        return
    yield ctx.report(
        READ_PATHS_DECLARED,
        f"declares read_paths (reads outside the run's working directory): {quoted((e for _, e in entries), limit=8)}",
        ("read_paths", "allow"),
        fix=f"these reads are refused unless the user's configuration grants them "
        f"([agent_read_paths.{ctx.blueprint.name}] allow = [...])",
    )
    for index, entry in entries:
        if entry_problem(entry) is not None:
            continue  # an entry the reference refuses outright: invalid-read-path
        opens = broad_read_path(entry)
        if opens is not None:
            yield ctx.report(
                BROAD_READ_PATH,
                f"read_paths entry '{entry}' is very broad: it can match {opens}",
                ("read_paths", "allow", index),
                anchor="value",
            )


@LINT.check(UNPARSEABLE_SAFE_COMMAND)
def check_safe_command_entries(ctx: RuleContext) -> Iterator[Diagnostic]:
    if not isinstance(ctx.raw(("safe_commands",), None), dict):
        return
    for index, entry in string_entries(ctx.raw(("safe_commands", "shell"), None)):
        if is_valid_prefix(entry):
            continue
        keys = command_keys(entry)
        reads_as = keys[0][len(KEY_PREFIX) :] if len(keys) == 1 else None
        usable = reads_as is not None and is_valid_prefix(reads_as)
        yield ctx.report(
            UNPARSEABLE_SAFE_COMMAND,
            f"safe_commands shell entry '{entry}' is not a bare command prefix"
            + (f" (it reads as '{reads_as}')" if usable else "")
            + ", so no call can ever match it",
            ("safe_commands", "shell", index),
            anchor="value",
            fix=f"write '{reads_as}' (which allows it with any arguments)" if usable else _PREFIX_FIX,
        )


@LINT.check(SAFE_COMMANDS_DECLARED)
def check_safe_commands_block(ctx: RuleContext) -> Iterator[Diagnostic]:
    if not isinstance(ctx.raw(("safe_commands",), None), dict):
        return
    if any(next(string_entries(ctx.raw(("safe_commands", key), None)), None) for key in ("shell", "tools")):
        yield ctx.report(
            SAFE_COMMANDS_DECLARED,
            "declares safe_commands; declaring is not granting: the entries apply only where the user "
            "opts in, and every listed command still asks elsewhere",
            ("safe_commands",),
            fix=f"the user sets [agent_safe_commands.{ctx.blueprint.name}] allow_blueprint = true in their "
            "config.toml, or [security] allow_blueprint_safe_commands = true for every agent",
        )
