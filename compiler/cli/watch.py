"""`--watch` for `validate` and `check`: run, then run again whenever something they read changes.

What is read: the blueprints, the `tools/*.rhai` scripts beside them (they make tool names
known), the configuration files that apply and `.gitignore` files (they decide what is
searched). The watch covers exactly the folders a run reads from, each on its own (not
recursively), so an excluded `node_modules` or `.venv` costs nothing; a folder created or
removed re-computes the set. The watching is watchfiles' (inotify, FSEvents, …), an optional
dependency, which the install brings (imported only here).

Every run is a complete run of the command, configuration and all; an error that stops one
(a broken configuration, no blueprint left) is reported and the watch goes on. Ctrl-C ends it
(exit status 130, as for any interrupted command).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NoReturn

from ..config import CONFIG_FILES, ConfigError, ConfigFinder
from .errors import CliError, echo, echo_problem, is_terminal

if TYPE_CHECKING:
    from ..config import Overrides

#: How long a burst of changes (an editor's save, a checkout) may last before the run starts.
DEBOUNCE_MS = 300
#: The install hint of the missing extra.
INSTALL_HINT = "reinstall agent-blueprint-compiler (pip install --force-reinstall agent-blueprint-compiler)"
_CLEAR_SCREEN = "\x1b[2J\x1b[H"
_WATCHED_NAMES = frozenset({*CONFIG_FILES, ".gitignore"})


def require_watchfiles() -> Any:
    """The watchfiles module, or a `CliError` (exit 2) that says how to install it."""
    try:
        import watchfiles
    except ImportError:
        raise CliError(f"--watch needs the watchfiles package, which is not installed: {INSTALL_HINT}") from None
    return watchfiles


def relevant(path: str) -> bool:
    """A change to this path can change a run's result."""
    name = os.path.basename(path)
    if name in _WATCHED_NAMES:
        return True
    if name.endswith(".leviath"):
        return not name.startswith(".")
    return name.endswith(".rhai") and os.path.basename(os.path.dirname(path)) == "tools"


def watched_folders(paths: tuple[str, ...], overrides: "Overrides") -> frozenset[str]:
    """The folders a run of `paths` reads from: those searched, those of named files, the
    `tools/` folder beside each blueprint, and the folders of the configurations that apply."""
    from ..discover import discover
    from ..ignore import PathFilter

    finder = ConfigFinder(explicit=overrides.config_file)
    found = discover(paths, PathFilter(finder, overrides))
    folders = {os.path.abspath(folder) for folder in found.folders}
    for file in found.files:
        folder = os.path.dirname(os.path.abspath(file))
        folders.add(folder)
        tools = os.path.join(folder, "tools")
        if os.path.isdir(tools):
            folders.add(tools)
    for folder in list(folders):
        config = finder.for_directory(folder)
        if config is not None:
            folders.add(str(config.directory))
    return frozenset(folder for folder in folders if os.path.isdir(folder))


def watch(paths: tuple[str, ...], overrides: "Overrides", run_once: Callable[[], Any]) -> NoReturn:
    """Run `run_once`, then again after every relevant change, until interrupted."""
    watchfiles = require_watchfiles()
    interrupted = _interrupt_flag()
    folders = _folders(paths, overrides)
    while True:
        changes = watchfiles.watch(
            *sorted(folders),
            # `folders` is bound now: the loop makes a new watch when the folders change.
            watch_filter=lambda change, path, folders=folders: (
                relevant(path) or (change != watchfiles.Change.modified and (os.path.isdir(path) or path in folders))
            ),
            recursive=False,
            debounce=DEBOUNCE_MS,
            rust_timeout=DEBOUNCE_MS,
            yield_on_timeout=True,
            ignore_permission_denied=True,
            stop_event=interrupted,
        )
        next(changes, None)  # the watch is in place before the run: nothing saved during it is missed
        _stop_if(interrupted)
        _run(run_once)
        _stop_if(interrupted)
        _waiting(folders)
        for batch in changes:
            if not batch:
                continue
            _announce(sorted({path for _, path in batch}))
            _run(run_once)
            _stop_if(interrupted)
            now = _folders(paths, overrides)
            if now != folders:
                folders = now
                changes.close()
                break
            _waiting(folders)
        else:  # the watcher ended by itself (Ctrl-C, or its folders vanished): look again
            _stop_if(interrupted)
            time.sleep(DEBOUNCE_MS / 1000)


def _interrupt_flag() -> threading.Event:
    """An event set by Ctrl-C, besides the usual KeyboardInterrupt. The watcher stops when it
    is set, so Ctrl-C ends the watch even if the KeyboardInterrupt is raised where it cannot
    propagate (a finaliser, the watcher's own machinery)."""
    interrupted = threading.Event()

    def on_interrupt(signum: int, frame: Any) -> None:
        interrupted.set()
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, on_interrupt)
    return interrupted


def _stop_if(interrupted: threading.Event) -> None:
    if interrupted.is_set():
        raise KeyboardInterrupt


def _folders(paths: tuple[str, ...], overrides: "Overrides") -> frozenset[str]:
    try:
        return watched_folders(paths, overrides)
    except ConfigError:  # reported by the run itself; watch what can still be found
        return frozenset(os.path.abspath(p if os.path.isdir(p) else os.path.dirname(p) or ".") for p in paths)


def _run(run_once: Callable[[], Any]) -> None:
    if is_terminal(sys.stdout):
        echo(_CLEAR_SCREEN, nl=False)
    try:
        run_once()
    except CliError as exc:  # this run stopped; the next change may mend it
        echo_problem(f"Error: {exc.message}")


def _waiting(folders: Iterable[str]) -> None:
    count = len(list(folders))
    stamp = time.strftime("%H:%M:%S")
    echo(f"[{stamp}] watching {count} folder{'s' if count != 1 else ''} for changes; Ctrl-C to stop", err=True)


def _announce(changed: list[str]) -> None:
    shown = ", ".join(os.path.relpath(path) if _below_cwd(path) else path for path in changed[:3])
    more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
    echo_problem(f"changed: {shown}{more}; checking again")


def _below_cwd(path: str) -> bool:
    try:
        return not os.path.relpath(path).startswith(os.pardir)
    except ValueError:
        return False


__all__ = ["INSTALL_HINT", "relevant", "require_watchfiles", "watch", "watched_folders"]
