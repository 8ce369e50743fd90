"""`blueprint run --temporal HOST:PORT`: the replay made a Temporal workflow on that server.

The timeline comes from the same `Trace` the in-process replay makes, rebuilt from the steps
the workflow wrote back (`compiler.host.temporal.replay`), so the output and the exit status
are the in-process command's. What can go wrong here is the server or the SDK: a bad
address, no answer, `temporalio` not installed, each one line and exit 2.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import CliError

if TYPE_CHECKING:
    from ..ir.model import Blueprint
    from ..runtime.events import Event
    from ..runtime.timeline import Trace


def on_temporal(address: str) -> Callable[..., "Trace"]:
    """`runtime.timeline.replay`, made to run as a workflow on the server at `address`."""
    return lambda ir, events, **options: replay_on_temporal(address, ir, events, **options)


def replay_on_temporal(address: str, ir: "Blueprint", events: "list[Event]", **options: Any) -> "Trace":
    """`runtime.timeline.replay(ir, events, **options)`, run as a workflow at `address`."""
    try:
        from ..host.temporal.replay import replay_on_server
        from ..host.temporal.worker import TemporalError
    except ImportError:
        raise CliError(
            "--temporal needs the temporalio package: pip install 'agent-blueprint-compiler[temporal]'"
        ) from None
    try:
        return replay_on_server(address, ir, events, **options)
    except TemporalError as problem:
        raise CliError(f"--temporal: {problem}") from None
