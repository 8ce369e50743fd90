"""Tools before they run: does the stage offer one, and what do the permissions say.

A host asks `judge_tool(ir, state, name)` before it executes a call the model made. A call to
a tool the stage does not offer is refused first. The runtime's own tools — the `context_*`
and `todo_*` tools, `submit_output`, `fan_out`, `runtime_info` — are answered by the runtime
itself, as Leviath answers them, without a permission check (`inline`). For every other tool
the answer follows Leviath's policy resolution (`resolve_policy` in its CLI):

1. the blueprint's layers, narrowest first: the stage's `tool_permissions`, then the agent's,
   each looked up under every spelling of the tool (`bash` is `shell`);
2. the user's own settings, when the host passes them (`user=`), are a ceiling: a blueprint
   may tighten what the user configured, never loosen it; a tool the user said nothing about
   is bounded by the built-in default instead, which a blueprint may loosen only for
   `web_search` and `web_fetch` (or when the user lets it: `blueprint_may_loosen=True`);
3. the person at the terminal (`launch=`, Leviath's `--allow`/`--ask`/`--deny`/`--yolo`, `*`
   for every tool) may relax what is left, but never a `deny`.

`read_path_declared` answers for a path a tool would read outside the run's working
directory: whether the blueprint's `[read_paths]` declare it. Declaring is not granting —
Leviath also needs the user's grant — and the host compares the symlink-resolved path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from compiler.records import record

from ..ir.model import ToolPermission
from .policy import TOOL_ALIASES, canonical_tool

if TYPE_CHECKING:
    from ..ir.model import Blueprint, Stage
    from .state import RunState

POLICIES: tuple[str, ...] = ("allow", "ask", "deny")
_STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}
#: Tools a blueprint may set more permissively than the built-in default on its own.
BLUEPRINT_LOOSENABLE = frozenset({"web_search", "web_fetch"})
#: Built-in tools allowed without asking: they read, or touch only the agent's own context, the
#: clock and the machine's description, or ask a person (asking first would be asking twice).
_ALLOWED_BY_DEFAULT = frozenset(
    "read_file read_files list_dir context_write context_append context_read context_delete context_list "
    "todo_add todo_done todo_note current_time system_info locale_info environment_info which_command "
    "runtime_info spawn_agent check_agent wait_for_agent send_to_agent kill_agent ask_user_text "
    "ask_user_choice ask_user_confirm edit_document".split()
)


def inline(tool: str) -> bool:
    """A tool the runtime answers itself, with no permission check (the context and checklist
    tools, `submit_output`, `fan_out`, `runtime_info`)."""
    name = canonical_tool(tool)
    return name.startswith(("context_", "todo_")) or name in _INLINE


_INLINE = frozenset({"submit_output", "fan_out", "runtime_info"})


def default_policy(tool: str) -> str:
    """The built-in policy of a tool nobody configured: `allow` or `ask` (every tool not
    known to be harmless asks, `write_file`, `edit_file` and `shell` included)."""
    return "allow" if canonical_tool(tool) in _ALLOWED_BY_DEFAULT else "ask"


def spellings(tool: str) -> Iterator[str]:
    """Every name that refers to `tool`: itself, its canonical form, the canonical form's aliases."""
    canonical = canonical_tool(tool)
    seen = [tool]
    yield tool
    for name in (canonical, *(alias for alias, target in TOOL_ALIASES.items() if target == canonical)):
        if name not in seen:
            seen.append(name)
            yield name


def _lookup(table: Mapping[str, str], tool: str) -> str | None:
    return next((table[name] for name in spellings(tool) if name in table), None)


def _stricter(a: str, b: str) -> str:
    return a if _STRICTNESS[a] >= _STRICTNESS[b] else b


def _layer(permissions: tuple[ToolPermission, ...]) -> dict[str, str]:
    """A blueprint layer as a map; the first entry for a name wins (the IR keeps file order)."""
    out: dict[str, str] = {}
    for entry in permissions:
        out.setdefault(entry.tool, entry.policy)
    return out


def resolve_permission(
    ir: "Blueprint",
    stage: "Stage",
    tool: str,
    *,
    user: Mapping[str, str] | None = None,
    launch: Mapping[str, str] | None = None,
    blueprint_may_loosen: bool = False,
) -> tuple[str, str]:
    """(policy, the layer that decided it: `stage`, `agent`, `user`, `default` or `launch`)."""
    ceiling = _lookup(user, tool) if user else None
    declared = _lookup(_layer(stage.tool_permissions), tool)
    source = "stage"
    if declared is None:
        declared, source = _lookup(_layer(ir.tool_permissions), tool), "agent"
    if declared is not None and ceiling is not None:
        policy = _stricter(declared, ceiling)
        source = source if policy == declared else "user"
    elif declared is not None:
        floor = default_policy(tool)
        loosenable = blueprint_may_loosen or any(name in BLUEPRINT_LOOSENABLE for name in spellings(tool))
        policy = declared if loosenable else _stricter(declared, floor)
        source = source if policy == declared else "default"
    elif ceiling is not None:
        policy, source = ceiling, "user"
    else:
        policy, source = default_policy(tool), "default"
    if policy == "deny" or not launch:
        return policy, source
    relaxed = _lookup(launch, tool) or launch.get("*")
    return (relaxed, "launch") if relaxed is not None else (policy, source)


@record
class ToolVerdict:
    """What the blueprint says of a tool call in the run's current stage, before it runs.

    `offered`: the stage offers the tool (a call to a tool it does not offer is
    `unavailable`, whatever the host reports). `inline`: the runtime answers it itself, with no
    permission check (`permission` is then `allow`, `source` `inline`). `permission` and
    `source` otherwise: see `resolve_permission`. `required`: one of the stage's `required_tools` (a person must answer
    it even in an unattended run). `read_path`: for a call given a path, whether the
    blueprint's `[read_paths]` declare it (None when no path was given or the blueprint
    declares none).
    """

    tool: str
    canonical: str
    stage: str
    offered: bool
    permission: str
    source: str
    required: bool = False
    read_path: bool | None = None
    inline: bool = False

    @property
    def runs(self) -> bool:
        """The call may run without asking anyone: offered and allowed (or inline)."""
        return self.offered and self.permission == "allow"


def judge_tool(
    ir: "Blueprint",
    state: "RunState",
    tool: str,
    path: str | None = None,
    *,
    user: Mapping[str, str] | None = None,
    launch: Mapping[str, str] | None = None,
    blueprint_may_loosen: bool = False,
    workdir: str | None = None,
    home: str | None = None,
) -> ToolVerdict:
    """The verdict on calling `tool` (on `path`) now, in the stage `state` is in. Pure: reads
    nothing from disk (`workdir`, `home` resolve relative and `~/` read-path entries)."""
    from .machine import check_run  # the machine imports this module's callers: import late

    check_run(ir, state)
    if not isinstance(tool, str) or (path is not None and not isinstance(path, str)):
        raise TypeError("judge_tool takes a tool name and an optional path, as strings")
    stage = ir.stage(state.stage)
    assert stage is not None  # `check_run` refused a state whose stage is not in the blueprint
    canonical = canonical_tool(tool)
    offered = canonical in {canonical_tool(name) for name in stage.available_tools}
    answered_inline = inline(tool)
    if answered_inline:
        policy, source = "allow", "inline"
    else:
        policy, source = resolve_permission(
            ir, stage, tool, user=user, launch=launch, blueprint_may_loosen=blueprint_may_loosen
        )
    required = canonical in {canonical_tool(name) for name in stage.required_tools}
    declared = None
    if path is not None and ir.read_paths is not None and ir.read_paths.allow:
        declared = read_path_declared(ir.read_paths.allow, path, workdir=workdir, home=home)
    return ToolVerdict(tool, canonical, stage.name, offered, policy, source, required, declared, answered_inline)


# --- [read_paths] ---------------------------------------------------------------------------------


def read_path_declared(entries: tuple[str, ...], path: str, *, workdir: str | None, home: str | None) -> bool:
    """Whether one of the `[read_paths] allow` entries covers `path` (compared as text, `/`
    separated): a plain entry covers its whole subtree, `glob:` matches with `*` inside one
    path component and `**` across them, `regex:` matches the whole path. An entry that needs
    a `workdir` or `home` it was not given, or does not compile, covers nothing."""
    target = path.replace("\\", "/")
    return any(_covers(entry, target, workdir, home) for entry in entries)


def _covers(entry: str, path: str, workdir: str | None, home: str | None) -> bool:
    if entry.startswith("regex:"):
        body = entry[len("regex:") :]
        if body.startswith("~"):
            if home is None or not (body == "~" or body.startswith("~/")):
                return False
            body = re.escape(home.rstrip("/")) + body[1:]
        elif not body.startswith("/"):
            return False
        try:
            return re.fullmatch(f"(?:{body})", path) is not None
        except re.error:
            return False
    if entry.startswith("glob:"):
        pattern = _anchored(entry[len("glob:") :].replace("\\", "/"), workdir, home, glob=True)
        return pattern is not None and _glob(pattern).fullmatch(path) is not None
    root = _anchored(entry, workdir, home, glob=False)
    if root is None:
        return False
    root = root.rstrip("/")
    if not root:  # the entry is `/` itself
        return path.startswith("/")
    return path == root or path.startswith(root + "/")


def _anchored(text: str, workdir: str | None, home: str | None, *, glob: bool) -> str | None:
    """The entry made absolute: `~/` under `home`, a relative one under `workdir`."""
    escape = _glob_escape if glob else (lambda s: s)
    if text.startswith("~"):
        if home is None or not (text == "~" or text.startswith("~/")):
            return None
        return escape(home.rstrip("/")) + text[1:]
    if text.startswith("/"):
        return text
    if workdir is None:
        return None
    base = workdir.rstrip("/").split("/")
    rest = text
    while rest.startswith(("./", "../")):
        if rest.startswith("../"):
            if len(base) <= 1:
                return None
            base.pop()
        rest = rest.split("/", 1)[1]
    prefix = escape("/".join(base))
    return prefix if not rest else f"{prefix}/{rest}"


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[\]])", r"[\1]", text)


def _glob(pattern: str) -> re.Pattern[str]:
    """A glob as a regular expression: `**/` is any number of folders (none included), `**`
    crosses `/`, `*` and `?` do not, `[…]` is a class (`[!…]` negated)."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            negated = body.startswith("!")
            body = body[1:] if negated else body
            out.append(f"[{'^' if negated else ''}{re.escape(body).replace(chr(92) + '-', '-')}]")
            i = end + 1
        else:
            out.append(re.escape(char))
            i += 1
    return re.compile("".join(out))


__all__ = [
    "BLUEPRINT_LOOSENABLE",
    "POLICIES",
    "ToolVerdict",
    "default_policy",
    "inline",
    "judge_tool",
    "read_path_declared",
    "resolve_permission",
]
