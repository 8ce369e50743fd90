"""Building blocks for rule examples, in every family: a stage that states its mode, model and
iteration cap, and a whole blueprint made of such blocks.

A rule's `example_fixed` must raise no error or warning of any rule (docs/architecture.md), and
the declaration lints ask each stage to say what it runs on; writing those three lines once
keeps the examples short.
"""

from __future__ import annotations

MODEL = 'model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }'


def stage(name: str, body: str = "", *, mode: str = "autonomous", max_iterations: int | None = 20) -> str:
    """`[stages.<name>]` with mode, model and max_iterations, then `body` (lines of keys)."""
    lines = [f"[stages.{name}]", f'mode = "{mode}"', MODEL]
    if max_iterations is not None:
        lines.append(f"max_iterations = {max_iterations}")
    if body:
        lines.append(body.strip("\n"))
    return "\n".join(lines)


def blueprint(*blocks: str) -> str:
    """A rule example: blocks of TOML separated by blank lines."""
    return "\n\n".join(blocks) + "\n"
