"""A tree's files checked in several processes, reported in the order one process reports them.

Each file is read and checked in a worker (`fork` where the platform has it, so a worker
starts with the modules already loaded); the results come back in the order of the files,
and the command reports them exactly as it does the results of its own loop, so the output
is the same byte for byte. A single file, fewer than the command's minimum, or one job, is
checked in the command's own process: no pool is started.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TypeVar

from ..config import ConfigError, ConfigFinder
from .errors import CliError

T = TypeVar("T")

ENVIRONMENT = "BLUEPRINT_JOBS"
#: Below this many files the pool's start (some 20–60 ms) costs more than it saves: a
#: `validate` of a file takes a few milliseconds, a `check` tens of them.
VALIDATE_POOL_MIN = 24
CHECK_POOL_MIN = 8

_task: Callable[[str], object] | None = None


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on every platform
        return os.cpu_count() or 1


def resolve_jobs(flag: int | None, finder: ConfigFinder) -> int:
    """How many processes check the files: `--jobs`, else `BLUEPRINT_JOBS`, else `jobs` in
    the configuration of the working directory; 0 or none of them: one per core."""
    value = flag
    if value is None:
        written = os.environ.get(ENVIRONMENT, "").strip()
        if written:
            if not written.isdigit():
                raise CliError(f"{ENVIRONMENT}={written}: must be a whole number of 0 or more")
            value = int(written)
    if value is None:
        try:
            config = finder.for_directory(os.getcwd())
        except (ConfigError, OSError):  # reported where the files' own settings are read
            config = None
        value = config.jobs if config is not None else None
    return value or cores()


def in_order(task: Callable[[str], T], files: tuple[str, ...], jobs: int, minimum: int = 2) -> Iterator[T]:
    """`task(path)` for each file, in the order of `files`: in `jobs` worker processes when
    there are at least `minimum` files, else here."""
    workers = min(jobs, len(files))
    if workers < 2 or len(files) < max(2, minimum):
        yield from map(task, files)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    chunk = max(1, min(16, len(files) // (workers * 4)))
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_install, initargs=(task,)) as pool:
        yield from pool.map(_run, files, chunksize=chunk)  # type: ignore[misc]


def _install(task: Callable[[str], object]) -> None:
    global _task
    _task = task


def _run(path: str) -> object:
    assert _task is not None
    return _task(path)
