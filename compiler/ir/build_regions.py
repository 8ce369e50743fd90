"""Context layouts: region definitions, percentage budgets, seeds (format.md §1.4).

Regions keep document order. A value that is not a table is a default region (temporary,
5000 tokens); keys a kind does not read are dropped (the `ignored-key` rule reports them).
"""

from __future__ import annotations

import re
from typing import Any

from .build_values import (
    Table,
    ascii_lower,
    get_bool,
    get_int,
    get_str,
    get_trimmed,
    is_table,
    table,
    to_json,
)
from .model import (
    DEFAULT_REGION_TOKENS,
    FALLBACK_LAYOUT,
    REGION_KINDS,
    Layout,
    Region,
    RegionSeed,
    SeedRefresh,
    SeedToolCall,
)

#: The reference accepts `hash_map` as a spelling of `hashmap` (not listed in its messages).
REGION_KIND_ALIASES = {"hash_map": "hashmap"}
_KNOWN_KINDS = frozenset(REGION_KINDS)
STRATEGIES = frozenset({"per_item", "bulk", "compact"})
#: The implicit compaction trigger of a percentage-budget compacting region.
DEFAULT_COMPACT_AT_PERCENT = 80.0

# A decimal number as Rust's `f64::from_str` reads it (no `_`, no inner spaces, no hex).
_RUST_FLOAT = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE)


def parse_percent(text: str) -> tuple[float | None, str | None]:
    """`"35%"` → (35.0, None); a malformed value → (None, problem).

    Problems: `"no-percent"` (does not end with `%` once trimmed), `"not-a-number"`,
    `"out-of-range"` (not 0 < N ≤ 100). Spaces around the number are allowed (`" 35 % "`).
    """
    trimmed = text.strip()
    if not trimmed.endswith("%"):
        return None, "no-percent"
    number = trimmed[:-1].strip()
    if not _RUST_FLOAT.fullmatch(number):
        return None, "not-a-number"
    value = float(number)
    if not 0.0 < value <= 100.0:  # also false for nan
        return None, "out-of-range"
    return value, None


def region_kind(raw: Any) -> str | None:
    """The kind a raw `kind` value names: `temporary` when absent or not a string, None for an
    unknown string (the schema layer reports it; the builder then uses `temporary`)."""
    if not isinstance(raw, str):
        return "temporary"
    kind = REGION_KIND_ALIASES.get(raw, raw)
    return kind if kind in _KNOWN_KINDS else None


def build_layout(raw: Any) -> Layout:
    """A layout from a regions table (empty when `raw` is empty or not a table)."""
    return Layout(regions=tuple(build_region(str(name), value) for name, value in table(raw).items()))


def build_global_layout(context: Any) -> Layout:
    """`[context.regions]`, or the fallback pair when it declares no region."""
    layout = build_layout(table(context).get("regions"))
    return layout if layout.regions else FALLBACK_LAYOUT


def build_region(name: str, raw: Any) -> Region:
    t = table(raw)
    kind = region_kind(t.get("kind")) or "temporary"

    percent = _percent(t, "budget")
    max_tokens = get_int(t, "max_tokens")
    if percent is None and max_tokens is None:
        max_tokens = DEFAULT_REGION_TOKENS
    fields: dict[str, Any] = {
        "kind": kind,
        "budget_percent": percent,
        "max_tokens": max_tokens,
        "min_tokens": get_int(t, "min_tokens") if percent is not None else None,
    }

    if kind == "sliding_window":
        fields["max_items"] = get_int(t, "max_items", 10)
        strategy = get_str(t, "strategy", "per_item")
        strategy = strategy if strategy in STRATEGIES else "per_item"
        fields["strategy"] = strategy
        if strategy == "bulk":
            fields["overflow"] = get_int(t, "overflow", 10)
        elif strategy == "compact":
            fields["compact_count"] = get_int(t, "compact_count", 10)
    elif kind == "compacting":
        fields["compact_at_percent"], fields["threshold_tokens"] = _compaction_trigger(t, percent, max_tokens)
    elif kind == "compact_history":
        fields["source_region"] = get_str(t, "source_region", "")
    elif kind == "hashmap":
        fields["max_entries"] = get_int(t, "max_entries")
    elif kind == "custom":
        script = get_trimmed(t, "script")
        fields["script"] = script or None
        fields["persistent"] = get_bool(t, "persistent", False)

    admission = get_str(t, "admission")
    volatility = get_str(t, "volatility")
    return Region(
        name=name,
        required=get_bool(t, "required", False),
        required_message=get_str(t, "required_message"),
        summarizable=get_bool(t, "summarizable", True),
        admission=admission if admission in ("evict", "reject") else "evict",
        volatility=volatility if volatility in ("stable", "grows", "rewritten") else "rewritten",
        description=get_trimmed(t, "description") or None,
        describe_in_prompt=get_bool(t, "describe_in_prompt", False),
        seed=build_seed(name, t.get("seed")) if "seed" in t else _implicit_seed(name),
        **fields,
    )


def _percent(t: Table, key: str) -> float | None:
    value = t.get(key)
    return parse_percent(value)[0] if isinstance(value, str) else None


def _compaction_trigger(t: Table, percent: float | None, max_tokens: int | None) -> tuple[float | None, int | None]:
    """Reconcile `compact_at` and `threshold_tokens` as the reference does (§1.4.3).

    Returned as (compact_at_percent, threshold_tokens); `Region.compaction_trigger` turns
    them into a token count once the budget is resolved against a model window.
    """
    compact_at = _percent(t, "compact_at")
    threshold = get_int(t, "threshold_tokens")
    if compact_at is not None or threshold is not None:
        return compact_at, threshold
    if percent is not None:
        return DEFAULT_COMPACT_AT_PERCENT, None
    return None, (max_tokens if max_tokens is not None else DEFAULT_REGION_TOKENS) * 8 // 10


# --- seeds --------------------------------------------------------------------------------


def _implicit_seed(name: str) -> RegionSeed | None:
    """A region named `task` without any `seed` key takes the caller's task input."""
    return RegionSeed(kind="caller", caller_key="task", implicit=True) if name == "task" else None


def build_seed(region: str, raw: Any) -> RegionSeed | None:
    """A written `seed`. Anything unreadable is no seed at all (and no implicit one)."""
    if isinstance(raw, str):
        key = {"task_input": "task", "input": region}.get(raw, raw)
        return RegionSeed(kind="caller", caller_key=key)
    if not is_table(raw):
        return None
    # First key present with the right type wins, in the reference's order.
    if isinstance(raw.get("glob"), str):
        return RegionSeed(kind="glob", glob=raw["glob"])
    if isinstance(raw.get("files"), list):
        return RegionSeed(kind="files", files=tuple(f for f in raw["files"] if isinstance(f, str)))
    for kind in ("literal", "rhai", "command"):
        if isinstance(raw.get(kind), str):
            return RegionSeed(kind=kind, **{kind: raw[kind]})
    if isinstance(raw.get("tool"), str):
        return RegionSeed(kind="tools", tools=(SeedToolCall(raw["tool"]),), refresh=_refresh(raw))
    if isinstance(raw.get("tools"), list):
        calls = tuple(c for c in (_tool_call(entry) for entry in raw["tools"]) if c is not None)
        return RegionSeed(kind="tools", tools=calls, refresh=_refresh(raw)) if calls else None
    if isinstance(raw.get("caller"), str):
        return RegionSeed(kind="caller", caller_key=raw["caller"])
    return None


def _tool_call(entry: Any) -> SeedToolCall | None:
    if isinstance(entry, str):
        return SeedToolCall(entry)
    if is_table(entry) and isinstance(entry.get("name"), str):
        args = entry.get("args")
        # Tool arguments are a JSON object; another shape could never be a valid call.
        return SeedToolCall(entry["name"], to_json(args) if is_table(args) else {})
    return None


def _refresh(raw: Table) -> SeedRefresh:
    value = raw.get("refresh")
    if isinstance(value, str) and ascii_lower(value.strip()) in ("each_stage", "stage"):
        return "each_stage"
    return "once"
