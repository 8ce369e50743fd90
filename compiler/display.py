"""How text that came from input is shown: every character that could act is made visible.

A blueprint, an event stream or a file name can hold characters a terminal or a CI service
obeys instead of showing: a newline that starts a line GitHub Actions reads as a workflow
command (`::error …`), ESC sequences that colour, hide, retitle or write the clipboard, C1
controls such as U+0085, the line and paragraph separators U+2028 and U+2029, and the
bidirectional controls that reorder what is displayed. Every reporter passes input text
through `visible` *before* adding its own structure (newlines, colours, escapes), so the
output's structure is the tool's alone. Standard library only: the runner's timeline uses it.

- C0 controls (tab and newline included) and DEL become their Unicode control pictures, one
  column each: ESC → `␛`, newline → `␊`, DEL → `␡`;
- every other such character becomes `\\uXXXX` (`\\u0085`, `\\u2028`, `\\u202e`).
"""

from __future__ import annotations

import re

#: Characters never written as they are in human output: C0, DEL and C1 controls, the line
#: and paragraph separators, and the bidirectional formatting characters (U+061C, LRM/RLM,
#: the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069).
_BEYOND_C0 = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
UNSAFE = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")
#: What JSON written with `ensure_ascii=False` must still escape: the encoder escapes C0 itself.
_JSON_UNSAFE = re.compile(f"[{_BEYOND_C0}]")


def visible(text: str) -> str:
    """`text` with every unsafe character shown, not obeyed (see the module docstring)."""
    return UNSAFE.sub(_shown, text) if UNSAFE.search(text) else text


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)
    return "\u2421" if code == 0x7F else f"\\u{code:04x}"


def visible_lines(lines: "list[str] | tuple[str, ...]") -> str:
    """Lines the tool composed (input text inside them) joined by newlines, each made visible:
    the only line breaks in the result are the ones between the lines."""
    return "\n".join(map(visible, lines))


def plural(count: int, word: str, *, grouped: bool = False) -> str:
    """`1 finding`, `2 findings` (`12,000 stage visits` with `grouped`)."""
    shown = f"{count:,}" if grouped else str(count)
    return f"{shown} {word}{'' if count == 1 else 's'}"


def json_visible(text: str) -> str:
    """JSON text written with `ensure_ascii=False`, with DEL, C1, separator and bidi characters
    escaped as `\\uXXXX` too (they occur only inside strings, so the JSON is unchanged)."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _JSON_UNSAFE.search(text) else text


def xml_visible(text: str) -> str:
    """XML text from a serializer (which escapes markup and, in attributes, line breaks), with
    DEL, C1, separator and bidi characters written as character references (`&#x2028;`): a
    reader gets the same text back."""
    return _JSON_UNSAFE.sub(lambda m: f"&#x{ord(m.group()):x};", text) if _JSON_UNSAFE.search(text) else text


__all__ = ["UNSAFE", "json_visible", "plural", "visible", "visible_lines", "xml_visible"]
