"""The blueprints a worker process serves, by task queue and digest.

A workflow carries the digest of its blueprint, not the blueprint: the worker looks it up
here. A worker registers its blueprints for its task queue when it is made (replacing what
that queue had in this process), so a worker started with an edited blueprint does not find
the digest a run was started with, and refuses the run (`BlueprintMismatch`) instead of
driving it under other rules. Workflow code reads this module through the sandbox's
pass-through, so every workflow of the process sees the same table.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from ...ir.digest import digest
from ...ir.model import Blueprint
from ...runtime import BlueprintMismatch

_LOCK = threading.Lock()
_SERVED: dict[str, dict[str, Blueprint]] = {}


def register(task_queue: str, blueprints: Iterable[Blueprint], *, add: bool = False) -> dict[str, Blueprint]:
    """Serve `blueprints` on `task_queue` in this process, instead of what it served (or, with
    `add`, as well); digest → blueprint."""
    table: dict[str, Blueprint] = {}
    for ir in blueprints:
        if not isinstance(ir, Blueprint):
            raise TypeError(f"a worker serves compiler.ir.model.Blueprint values, not {type(ir).__name__}")
        table[digest(ir)] = ir
    with _LOCK:
        _SERVED[task_queue] = {**_SERVED.get(task_queue, {}), **table} if add else table
    return table


def unregister(task_queue: str) -> None:
    """Serve nothing on `task_queue` any more."""
    with _LOCK:
        _SERVED.pop(task_queue, None)


def blueprint_for(task_queue: str, wanted: str, name: str = "") -> Blueprint:
    """The blueprint of digest `wanted` served on `task_queue`; `BlueprintMismatch` when there
    is none (the worker was started with another version of it)."""
    with _LOCK:
        table = dict(_SERVED.get(task_queue, {}))
    ir = table.get(wanted)
    if ir is not None:
        return ir
    served = ", ".join(f"'{ir.name}' {key[:12]}" for key, ir in table.items()) or "none"
    raise BlueprintMismatch(
        f"the run{f' {name!r}' if name else ''} belongs to the blueprint of digest {wanted[:12]}, and this worker "
        f"(task queue '{task_queue}') serves {served}: start a worker with that blueprint, or move the run "
        "with rebind (docs/hosts.md)"
    )
