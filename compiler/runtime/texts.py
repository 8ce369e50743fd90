"""Every sentence the runner puts into a model's context, in one place.

The reference fixes the *markers* (the `[System] ` prefix, the `[Stuck detected in stage 's']`
and `[Inference error in stage 's']` tags, the `dead-ended` wording a dead end's status must
contain); the prose around them is ours. Keeping it here means a host or a test can rely
on the markers without the machine's modules spelling them out twice.
"""

from __future__ import annotations

from collections.abc import Iterable

SYSTEM_PREFIX = "[System] "
USER_PREFIX = "User"


def system(text: str) -> str:
    return SYSTEM_PREFIX + text


def interpolate(template: str, *, stage: str, regions: Iterable[str]) -> str:
    """Sequential substring replacement, `{stage}` first; other braces are left alone."""
    return template.replace("{stage}", stage).replace("{regions}", ", ".join(regions))


def quoted(names: Iterable[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


# --- nudges and holds (injected as [System] messages) ---------------------------------------


def required_region_default(region: str) -> str:
    return f"region '{region}' is required but still empty; fill it with context_write before you finish"


def required_region(region: str, custom: str | None) -> str:
    return custom.replace("{region}", region) if custom else required_region_default(region)


def required_output(stage: str) -> str:
    return f"stage '{stage}' owes a final output; submit it with submit_output before you finish"


def fan_out_missing(stage: str) -> str:
    return (
        f"stage '{stage}' must split its work with the fan_out tool before it can finish; if there is "
        "nothing to hand out, call fan_out with an empty items list, which moves the run on without workers"
    )


# --- gate messages ---------------------------------------------------------------------------


def gate_region_unchanged(region: str, stage: str) -> str:
    return f"region '{region}' is unchanged since stage '{stage}' began; revise it before moving on"


def gate_open_items(region: str, items: Iterable[tuple[str, str]]) -> str:
    items = list(items)
    listed = "; ".join(f"{item_id} {text}".strip() for item_id, text in items)
    return f"{len(items)} item(s) still open in '{region}': {listed}; finish them and mark each one with todo_done"


def gate_regions_empty(regions: Iterable[str]) -> str:
    regions = list(regions)
    if len(regions) == 1:
        return f"region '{regions[0]}' is still empty; write it with context_write before moving on"
    return f"regions {quoted(regions)} are still empty; write them with context_write before moving on"


def gate_no_modifications(stage: str) -> str:
    return (
        f"no file modifications recorded in stage '{stage}'; shell edits are not tracked, "
        "so make the change with edit_file or write_file"
    )


# --- reports written into report regions -----------------------------------------------------


def stuck_note(stage: str, reason: str) -> str:
    return (
        f"[Stuck detected in stage '{stage}'] {reason}. "
        "Re-read the task, question your current approach and try a different one."
    )


def error_note(stage: str, message: str) -> str:
    return f"[Inference error in stage '{stage}'] {message}"


def cap_note(stage: str, cap: int) -> str:
    return f"[Stage '{stage}' hit its iteration cap ({cap})] its output may be incomplete."


def split_note(stage: str) -> str:
    return f"[Fan-out in stage '{stage}' started no workers] the stage moved on without splitting its work."


# --- statuses ---------------------------------------------------------------------------------


def stuck_reason_churn(path: str, edits: int) -> str:
    return f"'{path}' edited {edits} times"


def stuck_reason_iterations(n: int) -> str:
    return f"{n} inference turns"


def stuck_reason_tool_calls(n: int) -> str:
    return f"{n} tool calls"


def stuck_reason_minutes(minutes: int) -> str:
    return f"{minutes} minutes in the stage"


def dead_end(stage: str) -> str:
    return f"stage '{stage}' dead-ended: every normal target has used up its max_revisits"


def missing_final_output(stages: Iterable[str]) -> str:
    return (
        f"the run ended without a final output, which {quoted(stages)} requires; "
        "no stage submitted one with submit_output"
    )


def unanswered(point: str) -> str:
    return f"checkpoint '{point}' went unanswered; the run stopped rather than approve it unread"


def workers_failed(failed: int) -> str:
    return f"fan_out: {failed} worker(s) failed (on_worker_failure = fail_all)"


def workspace_lost() -> str:
    return "the run's working directory vanished"


# --- interaction points -------------------------------------------------------------------


def user_line(point: str, text: str, prefix: str = "") -> str:
    return f"{USER_PREFIX} [{point}] {prefix}{text}"


def revised_before_approval() -> str:
    return (
        "The text above was revised before it was approved. Work from the approved text as "
        "written, and re-check any earlier conclusion against it."
    )


def adopt_edit(edited: str) -> str:
    return f"edited the output directly. Adopt this exact text as the authoritative version and present it again:\n{edited}"
