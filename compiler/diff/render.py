"""A diff for people and machines: text for a terminal, Markdown for a pull request, JSON.

Each renderer takes the outcomes of one `blueprint diff` (a `Diff` per pair of versions, or a
`Refused` pair with the errors that stopped it) and returns the whole report as text; the
caller prints it. Changes are listed as `Diff.changes` orders them: what the blueprint
declares, then what its runs can do, each most serious first.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence

from ..display import plural, visible
from ..parse.other_files import blocking, refusal
from .model import CLASSES, Change, Diff, Refused, RunDelta
from .rules import RULES

Outcome = Diff | Refused
#: Version of the JSON report's shape (docs/diff.md).
REPORT_VERSION = 1
_STYLES = {"breaking": "\x1b[1;31m", "risky": "\x1b[1;33m", "info": "\x1b[1;36m", "bold": "\x1b[1m", "dim": "\x1b[2m"}
_RESET = "\x1b[0m"


def totals(outcomes: Sequence[Outcome]) -> dict[str, int]:
    """Changes per class over every pair, and how many pairs were compared, changed or refused."""
    out: dict[str, int] = {name: 0 for name in CLASSES}
    out.update(compared=0, changed=0, refused=0)
    for outcome in outcomes:
        if isinstance(outcome, Refused):
            out["refused"] += 1
            continue
        out["compared"] += 1
        out["changed"] += outcome.status != "unchanged"
        for name in CLASSES:
            out[name] += outcome.counts[name]
    return out


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{counts[name]} {name}" for name in CLASSES)


def _where(change: Change) -> str:
    old = f"{change.old_at.line}:{change.old_at.column}" if change.old_at else None
    new = f"{change.new_at.line}:{change.new_at.column}" if change.new_at else None
    if old and new:
        return f"{old} → {new}"
    return f"old {old}" if old else f"new {new}" if new else ""


def _is_run(change: Change) -> bool:
    return RULES[change.kind].group == "runs"


def _number(value: int | None) -> str:
    return "unbounded" if value is None else f"{value:,}"


def _pair(old: int | None, new: int | None, old_present: bool = True, new_present: bool = True) -> str:
    before = _number(old) if old_present else "—"
    after = _number(new) if new_present else "—"
    return before if before == after else f"{before} → {after}"


def _ceiling_rows(runs: RunDelta) -> list[tuple[str, str, str]]:
    """The stages whose ceilings moved, then the total (nothing when no ceiling moved)."""
    rows = [
        (
            s.stage,
            _pair(s.old_visits, s.new_visits, s.old_present, s.new_present),
            _pair(s.old_inferences, s.new_inferences, s.old_present, s.new_present),
        )
        for s in runs.stages
    ]
    moved = (runs.old.visits, runs.old.inferences) != (runs.new.visits, runs.new.inferences)
    if rows or (moved and runs.old.complete and runs.new.complete):
        rows.append(("total", _pair(runs.old.visits, runs.new.visits), _pair(runs.old.inferences, runs.new.inferences)))
    return rows


def _unchanged_ceilings(runs: RunDelta) -> str | None:
    """ "ceilings unchanged: …" when both sides were explored and no ceiling moved."""
    if _ceiling_rows(runs) or not (runs.old.complete and runs.new.complete):
        return None
    old, new = runs.old, runs.new
    if new.tokens is not None and old.tokens == new.tokens:  # known on both sides, and the same
        return (
            f"ceilings unchanged: at most {_number(new.visits)} stage visits, {_number(new.inferences)} "
            f"inferences and {new.tokens:,} tokens per run"
        )
    return f"ceilings unchanged: at most {_number(new.visits)} stage visits and {_number(new.inferences)} inferences per run"


# --- text ------------------------------------------------------------------------------------------------


def render_text(outcomes: Sequence[Outcome], *, color: bool = False) -> str:
    """One block per pair of versions, then a summary line."""

    def paint(style: str, text: str) -> str:  # made visible before it is coloured
        text = visible(text)
        return f"{_STYLES[style]}{text}{_RESET}" if color and text else text

    blocks = [_text_block(outcome, paint, color) for outcome in _listed(outcomes)]
    total = totals(outcomes)
    summary = f"Compared {plural(total['compared'], 'blueprint')}: {total['changed']} changed"
    summary += f", {_unchanged(total)} unchanged" if _unchanged(total) else ""
    summary += f" ({_counts(total)})"
    if total["refused"]:
        summary += f"; {total['refused']} not compared (errors)"
    return "\n\n".join([*blocks, paint("bold", summary)]) + "\n"


def _listed(outcomes: Sequence[Outcome]) -> list[Outcome]:
    """The pairs a report shows: an unchanged blueprint is only counted in the summary."""
    return [o for o in outcomes if isinstance(o, Refused) or o.status != "unchanged"]


def _unchanged(total: dict[str, int]) -> int:
    return total["compared"] - total["changed"]


def _title(outcome: Outcome) -> str:
    """`old → new`; a blueprint only one side has is named once."""
    if isinstance(outcome, Diff) and outcome.status == "added":
        return f"{outcome.new.label} (added)"
    if isinstance(outcome, Diff) and outcome.status == "removed":
        return f"{outcome.old.label} (removed)"
    return f"{outcome.old.label} → {outcome.new.label}"


def _text_block(outcome: Outcome, paint, color: bool) -> str:
    title = _title(outcome)
    if isinstance(outcome, Refused):
        from ..render.text import render_diagnostic

        errors = blocking(outcome.diagnostics)
        has = refusal(errors) if refusal(errors) != "has errors" else "has " + plural(len(errors), "error")
        lines = [f"{paint('bold', title)}: not compared: the {outcome.side} version {has}"]
        return "\n\n".join([*lines, *(render_diagnostic(d, outcome.source, color=color) for d in errors)])
    if outcome.status == "unchanged":
        return f"{paint('bold', title)}: no change (digest {outcome.new.digest[:12] if outcome.new.digest else '?'})"
    lines = [f"{paint('bold', title)}: {plural(len(outcome.changes), 'change')} ({_counts(outcome.counts)})"]
    if outcome.status == "changed":
        lines.append(paint("dim", f"  digest {str(outcome.old.digest)[:12]} → {str(outcome.new.digest)[:12]}"))
    width = max(len(name) for name in CLASSES)
    listed = [c for c in outcome.changes if not _is_run(c)]
    ran = [c for c in outcome.changes if _is_run(c)]
    for group, heading in ((listed, None), (ran, "runs")):
        if heading and (group or outcome.runs):
            lines.append("")
            lines.append(f"  {heading}:")
        elif group:
            lines.append("")
        for change in group:
            lines.append(
                f"  {paint(change.change_class, change.change_class.ljust(width))}  {visible(change.message)}  "
                f"{paint('dim', '[' + change.kind + ']')}"
            )
            pad = " " * (width + 4)
            if change.detail:
                lines.append(pad + visible(change.detail))
            where = _where(change)
            if where:
                lines.append(pad + paint("dim", where))
    if outcome.runs is not None:
        lines.extend(_text_runs(outcome.runs))
    return "\n".join(lines)


def _text_runs(runs: RunDelta) -> list[str]:
    lines = [f"  note: {visible(note)}" for note in runs.notes]
    rows = [(visible(stage), visits, inferences) for stage, visits, inferences in _ceiling_rows(runs)]
    if rows:
        header = ("stage", "visits", "inferences")
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
        lines.append("")
        for row in [header, *rows]:
            lines.append("  " + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    elif _unchanged_ceilings(runs):
        lines.append(f"  {_unchanged_ceilings(runs)}")
    return lines


# --- Markdown ---------------------------------------------------------------------------------------------

#: Marks the comment a CI job posts, so it can find and update its own comment.
MARKDOWN_MARKER = "<!-- blueprint-diff -->"


def _md(text: str) -> str:
    """Plain text safe in a Markdown table cell: punctuation escaped, one line, controls shown."""
    return re.sub(r"([\\`*_\[\]<>|#~!&])", r"\\\1", visible(" ".join(text.split())))


def _code(text: str) -> str:
    return "<code>" + html.escape(visible(" ".join(text.split()))).replace("|", "&#124;") + "</code>"


def render_markdown(outcomes: Sequence[Outcome]) -> str:
    """A pull-request comment: a summary, then per blueprint a table of changes and the ceilings."""
    total = totals(outcomes)
    lines = [MARKDOWN_MARKER, "### Blueprint diff", ""]
    summary = f"{plural(total['compared'], 'blueprint')} compared, {total['changed']} changed"
    summary += f", {_unchanged(total)} unchanged: " if _unchanged(total) else ": "
    summary += ", ".join(
        f"**{total[name]} {name}**" if name == "breaking" and total[name] else f"{total[name]} {name}"
        for name in CLASSES
    )
    if total["refused"]:
        summary += f"; **{total['refused']} not compared** (errors)"
    lines.append(summary)
    for outcome in _listed(outcomes):
        lines.append("")
        lines.extend(_md_block(outcome))
    return "\n".join(lines) + "\n"


def _md_title(outcome: Outcome) -> str:
    old, new = outcome.old, outcome.new
    if isinstance(outcome, Diff) and outcome.status in ("added", "removed"):
        return f"#### {_md(new.path)} ({outcome.status})"
    if old.path == new.path:
        return f"#### {_md(new.path)} ({_md(old.revision or 'old')} → {_md(new.revision or 'working tree')})"
    return f"#### {_md(old.label)} → {_md(new.label)}"


def _md_block(outcome: Outcome) -> list[str]:
    lines = [_md_title(outcome), ""]
    if isinstance(outcome, Refused):
        lines.append(f"Not compared: the {outcome.side} version {refusal(outcome.diagnostics)}.")
        lines.append("")
        lines.extend(
            f"- `{d.line}:{d.column}` {_md(d.code)}: {_md(d.message)}"
            if d.span
            else f"- {_md(d.code)}: {_md(d.message)}"
            for d in outcome.diagnostics
            if d.severity == "error"
        )
        return lines
    if outcome.status == "unchanged":
        return [*lines, "No change: both versions compile to the same IR."]
    lines.append(f"{_counts(outcome.counts)}")
    listed = [c for c in outcome.changes if not _is_run(c)]
    ran = [c for c in outcome.changes if _is_run(c)]
    if listed:
        lines.extend(["", *_md_table(listed)])
    if outcome.runs is not None:
        lines.extend(["", "**What the runs can do**", ""])
        lines.extend(f"- {_md(note)}" for note in outcome.runs.notes)
        if ran:
            lines.extend([*_md_table(ran), ""])
        rows = _ceiling_rows(outcome.runs)
        if rows:
            lines.extend(["| stage | most visits | most inferences |", "|---|---|---|"])
            lines.extend(f"| {_md(a)} | {b} | {c} |" for a, b, c in rows)
        elif _unchanged_ceilings(outcome.runs):
            text = _unchanged_ceilings(outcome.runs) or ""
            lines.append(text[:1].upper() + text[1:] + ".")
    return lines


def _md_table(changes: list[Change]) -> list[str]:
    lines = ["| class | change | kind | where (old → new) |", "|---|---|---|---|"]
    for change in changes:
        name = f"**{change.change_class}**" if change.change_class == "breaking" else change.change_class
        text = _md(change.message) + (f"<br>{_code(change.detail)}" if change.detail else "")
        lines.append(f"| {name} | {text} | `{change.kind}` | {_where(change)} |")
    return lines


# --- JSON -------------------------------------------------------------------------------------------------


def render_json(outcomes: Sequence[Outcome]) -> str:
    """One JSON document: every pair's changes and run delta, and the totals (docs/diff.md)."""
    document = {
        "version": REPORT_VERSION,
        "files": [outcome.to_dict() for outcome in outcomes],
        "summary": totals(outcomes),
    }
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"
