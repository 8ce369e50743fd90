"""`[read_paths] allow` entries whose syntax the reference refuses (format.md §1.7, P42).

An entry is a plain path (`~` or `~/…` allowed), `glob:<pattern>` or `regex:<pattern>`.
The reference compiles each entry against a stand-in working directory nine levels deep,
so a relative glob may climb at most nine `../`. Glob syntax follows the Rust `glob`
crate; regular expressions follow the Rust `regex` crate, approximated here by Python's
`re` with the constructs Rust lacks (look-around, back-references) refused explicitly.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...rulebook.registry import STRUCTURE
from ..context import RuleContext
from .common import string_entries

INVALID_READ_PATH = STRUCTURE.define(
    "invalid-read-path",
    severity="error",
    summary="A `[read_paths] allow` entry is not a valid path, `glob:` or `regex:` pattern.",
    rationale=(
        "Each entry declares files outside the working directory the agent wants to read. A "
        "broken entry could never match, so the agent would be refused reads the author meant "
        "to allow; the reference runtime refuses the blueprint instead."
    ),
    example='[read_paths]\nallow = ["glob:~/notes/[", "regex:logs/.*"]',
    example_fixed='[read_paths]\nallow = ["glob:~/notes/**", "regex:/var/log/app/.*"]',
    fix="correct the pattern; 'glob:' patterns may be relative, 'regex:' patterns must be absolute",
    leviath="P42",
)

#: The reference validates relative globs against a working directory this deep.
_WORKDIR_DEPTH = 9
_WORKDIR = "/validate" + "/d" * (_WORKDIR_DEPTH - 1)
_HOME = "/validate-home"


def entry_problem(entry: str) -> str | None:
    """Why the reference would refuse `entry`, or None when it is accepted."""
    if not entry.strip():
        return "the entry is empty"
    if entry.startswith("regex:"):
        return _regex_problem(entry[len("regex:") :])
    if entry.startswith("glob:"):
        return _glob_entry_problem(entry[len("glob:") :])
    if entry.startswith("~") and entry[1:] and entry[1] not in "/\\":
        return "only '~/' home expansion is supported (not '~user')"
    return None


def _absolute_shaped(text: str) -> bool:
    return text.startswith("/") or (len(text) >= 2 and text[0].isascii() and text[0].isalpha() and text[1] == ":")


def _tilde_problem(text: str) -> str | None:
    if text.startswith("~") and text[1:] and not text.startswith("~/"):
        return "only '~/' home expansion is supported (not '~user')"
    return None


def _regex_problem(pattern: str) -> str | None:
    if not pattern:
        return "the regex pattern is empty"
    problem = _tilde_problem(pattern)
    if problem:
        return problem
    if pattern.startswith("~"):
        body = re.escape(_HOME) + pattern[1:]
    elif _absolute_shaped(pattern):
        body = pattern
    else:
        return (
            "a regex must start with '/', a drive letter or '~/'; "
            "use 'glob:' for paths relative to the working directory"
        )
    return _rust_regex_problem(f"^(?:{body})$")


def _glob_entry_problem(pattern: str) -> str | None:
    if not pattern:
        return "the glob pattern is empty"
    text = pattern.replace("\\", "/")
    problem = _tilde_problem(text)
    if problem:
        return problem
    if text.startswith("~"):
        text = _HOME + text[1:]
    elif not _absolute_shaped(text):
        climbs = 0
        while True:
            if text.startswith("./"):
                text = text[2:]
            elif text.startswith("../"):
                climbs += 1
                if climbs > _WORKDIR_DEPTH:
                    return "the relative pattern climbs above the filesystem root"
                text = text[3:]
            else:
                break
        text = _WORKDIR + ("/" + text if text else "")
    if any(part in (".", "..") for part in text.split("/")):
        return "a glob cannot contain '.' or '..' components (a relative glob may only start with './' or '../')"
    return _glob_syntax_problem(text)


def _glob_syntax_problem(text: str) -> str | None:
    """The Rust `glob` crate's pattern errors: `***`, a `**` that is not a whole path
    component, and an unclosed or empty `[...]` class."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "*":
            start = i
            while i < n and text[i] == "*":
                i += 1
            if i - start > 2:
                return "invalid glob: a wildcard is either '*' or '**'"
            own_component = (start == 0 or text[start - 1] == "/") and (i == n or text[i] == "/")
            if i - start == 2 and not own_component:
                return "invalid glob: '**' must be a whole path component"
            continue
        if c == "[":
            negated = i + 1 < n and text[i + 1] == "!"
            first = i + 3 if negated else i + 2  # the first character may itself be ']'
            close = text.find("]", first) if first <= n else -1
            if close == -1:
                return "invalid glob: a character class '[' is not closed"
            i = close + 1
            continue
        i += 1
    return None


_LOOKAROUND = re.compile(r"\(\?(?:=|!|<=|<!|>)")
_STANDALONE_FLAGS = re.compile(r"\(\?[imsxRU-]+\)")
_SCOPED_FLAGS = re.compile(r"\(\?[imsxRU-]+:")


def _rust_regex_problem(pattern: str) -> str | None:
    """Python's `re` stands in for the reference's Rust engine: constructs Rust lacks are
    refused first, Rust-only spellings are rewritten so `re` does not refuse them."""
    python, escaped = _translate_escapes(pattern)
    if python is None:
        return "invalid regex: an escape is not closed"
    plain = _blank_escapes(pattern)
    if _LOOKAROUND.search(plain):
        return "invalid regex: look-around is not supported"
    if "(?P=" in plain or any(e in "123456789" for e in escaped):
        return "invalid regex: back-references are not supported"
    python = _SCOPED_FLAGS.sub("(?:", _STANDALONE_FLAGS.sub("", python))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set" for POSIX classes like [[:alpha:]]
            re.compile(python)
    except re.error as exc:
        return f"invalid regex: {exc.msg}"
    except (RecursionError, OverflowError, ValueError) as exc:
        return f"invalid regex: {exc}"
    return None


def _translate_escapes(pattern: str) -> tuple[str | None, list[str]]:
    """`pattern` with Rust-only escapes (`\\pL`, `\\p{Greek}`, `\\x{263A}`, `\\z`) rewritten for
    Python, and the characters that followed each backslash; None when an escape is unclosed."""
    out: list[str] = []
    escaped: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        letter = pattern[i + 1]
        escaped.append(letter)
        if letter in "pPx" and i + 2 < n and pattern[i + 2] == "{":
            close = pattern.find("}", i + 3)
            if close == -1:
                return None, escaped
            out.append("x")
            i = close + 1
        elif letter in "pP":
            if i + 2 >= n:
                return None, escaped
            out.append("x")
            i += 3
        else:
            out.append("\\Z" if letter == "z" else pattern[i : i + 2])
            i += 2
    return "".join(out), escaped


def _blank_escapes(pattern: str) -> str:
    """`pattern` with every escaped character blanked, so `\\(?=` is not taken for look-ahead."""
    return re.sub(r"\\.", "__", pattern, flags=re.DOTALL)


@STRUCTURE.check(INVALID_READ_PATH)
def check_read_paths(ctx: RuleContext) -> Iterator[Diagnostic]:
    entries = ctx.raw(("read_paths", "allow"), None)
    if not isinstance(ctx.raw(("read_paths",), None), dict) or not isinstance(entries, list):
        return
    for index, entry in string_entries(entries):  # the schema layer reports a non-string entry
        problem = entry_problem(entry)
        if problem is not None:
            yield ctx.report(
                INVALID_READ_PATH,
                f"read_paths entry '{entry}': {problem}",
                ("read_paths", "allow", index),
                anchor="value",
            )
