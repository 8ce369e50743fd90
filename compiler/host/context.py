"""The context window a host keeps for one run: each region's entries, shaped by the runner's actions.

The runner never sees contents, only what the host reports of them (`RegionChanged`: a hash,
a number of entries, the open checklist items). `Context` holds the contents and does what the
actions say to them: append injections and notes, empty the regions an edge clears, replace
the document a person reviews, route tool results to their region, and carry out the context
tools a model calls (`context_write`, `context_append`, `context_read`, `todo_add`,
`todo_done`). It is plain data (`to_dict`/`from_dict`), so it travels in the run state's host
data and a resumed run finds it as it was.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..runtime.actions import OfferedTool
from ..runtime.events import RegionChanged
from ..runtime.state import Injection

#: Characters per token, the rough measure results are cut to when a stage caps them.
CHARS_PER_TOKEN = 4
#: How a reviewed document a person changed is marked in its region, so the model keeps it.
REVISED_MARK = "[The reviewer edited this text: keep their changes.]"


@dataclass
class Context:
    """Region name → entries (strings), checklist items, and the accepted output."""

    regions: dict[str, list[str]] = field(default_factory=dict)
    #: Checklist regions: region → [{"id": n, "text": …, "done": bool}, …].
    items: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: The text of the last accepted `submit_output`.
    output: str | None = None
    #: Regions changed since the runner was last told (`changes`).
    changed: set[str] = field(default_factory=set)

    # --- plain data --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "regions": {k: list(v) for k, v in self.regions.items()},
            "items": {k: [dict(i) for i in v] for k, v in self.items.items()},
            "output": self.output,
            "changed": sorted(self.changed),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "Context":
        if not data:
            return cls()
        return cls(
            regions={k: list(v) for k, v in data.get("regions", {}).items()},
            items={k: [dict(i) for i in v] for k, v in data.get("items", {}).items()},
            output=data.get("output"),
            changed=set(data.get("changed", ())),
        )

    @classmethod
    def seeded(cls, regions: Mapping[str, Iterable[str]]) -> "Context":
        """A context holding the given entries (the run's seeded regions)."""
        context = cls(regions={name: list(entries) for name, entries in regions.items()})
        context.changed.update(context.regions)
        return context

    # --- what actions do to it ---------------------------------------------------------------

    def append(self, region: str, text: str) -> None:
        self.regions.setdefault(region, []).append(text)
        self.changed.add(region)

    def inject(self, injections: Iterable[Injection]) -> None:
        for item in injections:
            self.append(item.region, item.text)

    def clear(self, names: Iterable[str]) -> None:
        for name in names:
            if self.regions.get(name) or self.items.get(name):
                self.regions[name] = []
                self.items.pop(name, None)
                self.changed.add(name)

    def replace(self, region: str, entries: list[str]) -> None:
        self.regions[region] = entries
        self.changed.add(region)

    def document(self, region: str | None, body: str | None, revised: bool) -> None:
        """An interaction point's document written into its region (nothing when it is blank)."""
        if region is None or body is None or not body.strip():
            return
        self.replace(region, [f"{REVISED_MARK}\n{body}" if revised else body])

    def result(self, tool: OfferedTool | None, name: str, text: str) -> None:
        """A tool's result routed where the stage sends it, cut to its cap."""
        region = tool.results_region if tool is not None else "conversation"
        cap = tool.max_result_tokens if tool is not None else None
        if cap is not None and len(text) > cap * CHARS_PER_TOKEN:
            text = text[: cap * CHARS_PER_TOKEN] + " [cut]"
        self.append(region, f"[{name}] {text}")

    def view(self) -> dict[str, list[str]]:
        """A copy of every region's entries, checklists written out, for a model call."""
        out = {name: list(entries) for name, entries in self.regions.items()}
        for name, items in self.items.items():
            out[name] = [f"[{'x' if i['done'] else ' '}] {i['id']}. {i['text']}" for i in items]
        return out

    # --- the context tools ---------------------------------------------------------------------

    def context_tool(self, name: str, args: Mapping[str, Any]) -> tuple[str, str] | None:
        """(outcome, result text) of a context tool call, or None when `name` is not one."""
        if name not in ("context_write", "context_append", "context_read", "todo_add", "todo_done"):
            return None
        region = args.get("region")
        if not isinstance(region, str) or not region:
            return "error", "[error] a region name is required"
        if name == "context_write" or name == "context_append":
            content = args.get("content")
            if not isinstance(content, str):
                return "error", "[error] content is required"
            if name == "context_write":
                self.replace(region, [content])
            else:
                self.append(region, content)
            return "ok", f"stored in '{region}'"
        if name == "context_read":
            return "ok", "\n".join(self.view().get(region, []))
        if name == "todo_add":
            text = args.get("item")
            if not isinstance(text, str) or not text:
                return "error", "[error] an item is required"
            items = self.items.setdefault(region, [])
            number = max((i["id"] for i in items), default=0) + 1
            items.append({"id": number, "text": text, "done": False})
            self.changed.add(region)
            return "ok", str(number)
        for item in self.items.get(region, []):  # todo_done
            if item["id"] == args.get("id"):
                item["done"] = True
                self.changed.add(region)
                return "ok", f"item {item['id']} done"
        return "error", f"[error] '{region}' has no item {args.get('id')!r}"

    # --- what the runner is told --------------------------------------------------------------

    def changes(self, now: float | None = None) -> list[RegionChanged]:
        """`RegionChanged` for every region changed since the last call (in name order)."""
        events = []
        for name in sorted(self.changed):
            entries = self.regions.get(name, [])
            items = self.items.get(name, [])
            open_items = tuple((str(i["id"]), i["text"]) for i in items if not i["done"])
            content = json.dumps([entries, items], ensure_ascii=False, sort_keys=True)
            digest = hashlib.sha256(content.encode("utf-8")).hexdigest()
            count = len(entries) + len(items)
            events.append(RegionChanged(name, hash=digest, entries=count, open_items=open_items, now=now))
        self.changed.clear()
        return events
