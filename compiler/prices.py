"""The `prices` table of a configuration: what a model costs, and how much one inference can carry.

```toml
[prices]
"anthropic/claude-sonnet-4-6" = { input = 3.0, output = 15.0, window = 200000, max_output = 64000 }
```

`input` and `output` are dollars per million tokens; `window` is the model's context window
and `max_output` the most tokens one reply can hold. Every field is optional: a window alone
gives token ceilings, prices add dollars. Leviath's own configuration has windows and output
caps (`[model_capabilities]`) but no prices, so prices are only ever read from here. A
mistake is an error that names the file, the line and the column of the value.
"""

from __future__ import annotations

import math
from typing import Any

from compiler.records import record

from .diagnostics import KeyPath
from .parse.positions import PositionIndex

#: The fields of one entry and whether each is a price (a number ≥ 0) or a count (a whole number > 0).
FIELDS = {"input": "price", "output": "price", "window": "count", "max_output": "count"}


@record
class ModelPrice:
    """One model's entry; None where the entry does not say."""

    #: Dollars per million input tokens.
    input: float | None = None
    #: Dollars per million output tokens.
    output: float | None = None
    #: The context window, in tokens.
    window: int | None = None
    #: The most tokens one reply can hold.
    max_output: int | None = None


#: `provider/model` → its entry, in the order written.
Prices = tuple[tuple[str, ModelPrice], ...]


class PriceError(ValueError):
    """A `prices` table that cannot be used; the message names the file, line and column."""


def read_prices(value: Any, where: str, text: str, path: KeyPath) -> Prices:
    """The entries of the `prices` table `value`, found at key `path` of `text` (the file
    `where` names); `PriceError` at the first mistake."""
    positions: list[PositionIndex] = []

    def fail(at: KeyPath, message: str, prefer: str = "value") -> PriceError:
        if not positions:
            positions.append(PositionIndex(text))
        span, _ = positions[0].locate(at, prefer)
        place = f"{where}:{span.line}:{span.column}" if span is not None else where
        return PriceError(f"{place}: {message}")

    if not isinstance(value, dict):
        raise fail(path, 'prices must be a table of "provider/model" = { input, output, window, max_output }')
    out: list[tuple[str, ModelPrice]] = []
    for name, entry in value.items():
        label = f'prices."{name}"'
        provider, _, model = name.partition("/")
        if not provider or not model:
            raise fail(
                path + (name,),
                f'{label}: name a model as "provider/model", such as "anthropic/claude-sonnet-4-6"',
                "key",
            )
        if not isinstance(entry, dict):
            raise fail(path + (name,), f"{label} must be a table such as {{ input = 3.0, output = 15.0 }}")
        fields: dict[str, Any] = {}
        for key, number in entry.items():
            kind = FIELDS.get(key)
            if kind is None:
                known = ", ".join(FIELDS)
                raise fail(path + (name, key), f"{label}: unknown key '{key}' (the keys are {known})", "key")
            if kind == "price":
                ok = isinstance(number, (int, float)) and not isinstance(number, bool)
                if not ok or not math.isfinite(number) or number < 0:
                    raise fail(
                        path + (name, key), f"{label}.{key} must be dollars per million tokens, a number of 0 or more"
                    )
                fields[key] = float(number)
            else:
                if isinstance(number, bool) or not isinstance(number, int) or number <= 0:
                    raise fail(path + (name, key), f"{label}.{key} must be a count of tokens, a whole number above 0")
                fields[key] = number
        out.append((name, ModelPrice(**fields)))
    return tuple(out)


def prices_toml(prices: Prices) -> str:
    """The table as one line of TOML (for `--show-settings`)."""
    entries = []
    for name, price in prices:
        values = ", ".join(f"{key} = {getattr(price, key)!r}" for key in FIELDS if getattr(price, key) is not None)
        entries.append(f'"{name}" = {{ {values} }}' if values else f'"{name}" = {{}}')
    return "{ " + ", ".join(entries) + " }" if entries else "{}"
