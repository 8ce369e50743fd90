"""Deterministic blueprints for the benchmarks: same seed, same bytes, on any machine.

Two shapes:

- `realistic(rng, name)`: a blueprint like the real ones, with a shared layout (pinned inputs
  with seeds, a sliding conversation window, a checklist, report regions), global tool
  permissions, and a discover → plan → implement ⇄ review → report pipeline with an error
  handler, model fallback lists, multi-line prompts, gates, a stuck edge, dead-end escapes,
  routing overrides and an interaction point. `corpus(count, seed)` makes many of them.
- `scaled(stages, seed)`: one blueprint of any size, built from segments of ten stages that
  exercise what the graph checks walk: chains, back-edges with revisit budgets, gates, stuck
  edges, fall-through runs (stages without transitions) and stage-local regions.

Every blueprint generated here validates with no error (the `--quick` benchmark run reports
the count, and a test checks it), so the benchmarks time the path a clean file takes.
"""

from __future__ import annotations

import random

WORDS = (
    "read the relevant files first and write down what you learn before you change anything "
    "each step must be verified with the project's own test command keep the change small "
    "prefer the existing conventions of the codebase report what was done and what is left "
    "never invent a command that does not exist in the repository state the assumption then "
    "check it against the code record every finding with its file and line and a short reason"
).split()

MODELS = (
    '{ models = [{ provider = "anthropic", model = "claude-sonnet-5" }, '
    '{ provider = "openai", model = "gpt-5.4-mini" }, { provider = "ollama", model = "qwen3.5:9b" }] }'
)
READ_TOOLS = ("read_file", "list_dir", "context_read")
WRITE_TOOLS = ("write_file", "edit_file", "bash", "context_write", "context_append")


def _prose(rng: random.Random, lines: int) -> str:
    out = []
    for _ in range(lines):
        start = rng.randrange(len(WORDS) - 12)
        out.append(" ".join(WORDS[start : start + rng.randint(8, 12)]).capitalize() + ".")
    return "\n".join(out)


def _comment(rng: random.Random, lines: int) -> str:
    """Explanatory comment lines, as real blueprints carry (about a sixth of their lines)."""
    return "".join(f"# {line}\n" for line in _prose(rng, lines).split("\n"))


def _banner(title: str) -> str:
    return f"# ─── {title} " + "─" * max(3, 70 - len(title)) + "\n"


def _tools(rng: random.Random, write: bool) -> str:
    tools = list(READ_TOOLS) + (rng.sample(WRITE_TOOLS, 3) if write else ["context_write"])
    if write and "write_file" not in tools:
        tools.append("write_file")
    return "[" + ", ".join(f'"{t}"' for t in tools) + "]"


def _stage(name: str, mode: str, tools: str, iterations: int, prompt: str, extra: str = "") -> str:
    rng = random.Random(name + prompt[:20])
    return (
        _banner(name.replace("_", " ").capitalize()) + _comment(rng, rng.randint(3, 8)) + f"[stages.{name}]\n"
        f'mode = "{mode}"\n'
        f"model = {MODELS}\n"
        f'description = "The {name.replace("_", " ")} step"\n'
        f"available_tools = {tools}\n"
        f"max_iterations = {iterations}\n"
        f"{extra}"
        f'system_prompt = """\n{prompt}\n"""\n\n'
    )


def _edge(source: str, target: str, body: str = "", comments: bool = True) -> str:
    rng = random.Random(source + target)
    note = _comment(rng, rng.randint(1, 3)) if comments and rng.random() < 0.6 else ""
    return f"{note}[stages.{source}.transitions.{target}]\n{body}\n"


def realistic(rng: random.Random, name: str) -> str:
    """One blueprint shaped like the real ones (about 250–300 lines)."""
    parts = [
        f'[agent]\nname = "{name}"\nversion = "1.{rng.randint(0, 9)}.0"\n'
        f'description = "Generated agent {name}: discover, plan, implement, review and report"\n'
        'entry_stage = "discover"\n\n',
        "# Tool permissions for the whole agent.\n[tool_permissions]\n"
        'read_file = "allow"\nlist_dir = "allow"\nwrite_file = "ask"\nedit_file = "ask"\nbash = "ask"\n\n',
        "[context.regions]\n"
        'task = { kind = "pinned", budget = "2%", required = true, volatility = "stable" }\n'
        'conventions = { kind = "pinned", budget = "2%", seed = { files = ["CONTRIBUTING.md", "STYLE.md", '
        '"pyproject.toml"] }, volatility = "stable" }\n'
        'discovery = { kind = "pinned", budget = "4%", volatility = "grows" }\n'
        'plan = { kind = "pinned", budget = "5%" }\n'
        'todo = { kind = "checklist", max_tokens = 3000, description = "Steps of the change" }\n'
        'findings = { kind = "pinned", budget = "4%", volatility = "grows" }\n'
        'stuck_report = { kind = "pinned", budget = "1%" }\n'
        'error_report = { kind = "pinned", budget = "1%" }\n'
        'conversation = { kind = "sliding_window", max_tokens = 12000, max_items = 20 }\n'
        'scratch = { kind = "temporary", max_tokens = 4000 }\n'
        'repo_files = { kind = "pinned", budget = "3%", seed = { command = "git ls-files" }, '
        'volatility = "stable" }\n\n',
    ]
    rounds = rng.randint(2, 4)
    parts.append(
        _stage("discover", "autonomous", _tools(rng, False), rng.randint(6, 10), _prose(rng, 24), "max_revisits = 2\n")
    )
    parts.append(
        '[stages.discover.tool_routing]\ndefault_region = "conversation"\n'
        '[stages.discover.tool_routing.overrides]\nread_file = "scratch"\nlist_dir = "scratch"\n\n'
    )
    parts.append(_edge("discover", "plan", 'hint = "The codebase is mapped"\ntransform = "direct"\n'))
    parts.append(_edge("discover", "error_handler", 'condition = "error"\n'))
    parts.append(_edge("discover", "report", 'condition = "dead_end"\n'))

    parts.append(
        _stage(
            "plan",
            "interactive_points",
            '["read_file", "list_dir", "context_read"]',
            20,
            _prose(rng, 30),
            f"max_revisits = {rounds + 2}\n",
        )
    )
    parts.append(_edge("plan", "implement", 'condition = "llm_choice"\nhint = "The user approved the plan"\n'))
    parts.append(_edge("plan", "plan", 'condition = "llm_choice"\nhint = "The user asked for changes"\n'))
    parts.append(_edge("plan", "error_handler", 'condition = "error"\n'))
    parts.append(_edge("plan", "report", 'condition = "dead_end"\n'))
    parts.append(
        '[[stages.plan.interaction_points]]\nname = "plan_approval"\n'
        'prompt = "Here is the plan. Approve it, ask for changes, or abort."\n'
        'style = "multiple_choice"\noptions = ["Approve", "Revise", "Abort"]\nabort_options = ["Abort"]\n'
        'document_region = "plan"\n\n[stages.plan.interaction_points.directives]\n'
        'Revise = "Ask what to change, then revise only that part of the plan."\n\n'
    )

    parts.append(
        _stage(
            "implement",
            "autonomous",
            _tools(rng, True),
            rng.randint(30, 60),
            _prose(rng, 36),
            f"max_revisits = {rounds}\n",
        )
    )
    parts.append(
        _edge(
            "implement",
            "review",
            'hint = "Every step of the plan is implemented"\n'
            "gate = { require_modifications = true, max_attempts = 3, "
            'message = "No file has been changed yet." }\n',
        )
    )
    parts.append(
        _edge(
            "implement",
            "reassess",
            f'condition = "stuck"\nstuck_after_iterations = {rng.randint(20, 30)}\n'
            f"stuck_after_same_file_edits = {rng.randint(5, 9)}\nstuck_after_minutes = 30\n",
        )
    )
    parts.append(_edge("implement", "error_handler", 'condition = "error"\n'))
    parts.append(_edge("implement", "report", 'condition = "dead_end"\ntransform = "compact"\n'))

    parts.append(
        _stage(
            "reassess",
            "autonomous",
            '["read_file", "list_dir", "context_write", "context_read"]',
            10,
            _prose(rng, 14),
            f"max_revisits = {rounds}\n",
        )
    )
    parts.append(_edge("reassess", "implement", 'hint = "The cause is understood; try again"\n'))
    parts.append(_edge("reassess", "report", 'condition = "dead_end"\n'))

    parts.append(
        _stage(
            "review",
            "autonomous",
            '["read_file", "list_dir", "bash", "context_write", "context_read"]',
            rng.randint(10, 20),
            _prose(rng, 28),
            f"max_revisits = {rounds}\n",
        )
    )
    parts.append(_edge("review", "implement", 'condition = "llm_choice"\nhint = "Some step is not done"\n'))
    parts.append(
        _edge(
            "review",
            "report",
            'condition = "llm_choice"\nhint = "Every step is done"\ngate = { require_no_open_items = "todo" }\n',
        )
    )
    parts.append(_edge("review", "error_handler", 'condition = "error"\n'))

    parts.append(
        _stage(
            "error_handler",
            "autonomous",
            '["read_file", "context_write", "context_read"]',
            5,
            _prose(rng, 10),
            "max_revisits = 3\n",
        )
    )
    parts.append(_edge("error_handler", "implement", 'hint = "The error is understood; resume the work"\n'))
    parts.append(_edge("error_handler", "report", 'condition = "dead_end"\n'))

    parts.append(_stage("report", "output", '["read_file", "context_read"]', 5, _prose(rng, 16)))
    parts.append(
        '[stages.report.output]\nformat = "markdown"\n'
        'instructions = "A summary of what changed, then what is left."\n\n[stages.report.transitions]\n'
    )
    return "".join(parts)


def corpus(count: int, seed: int = 20240611) -> list[tuple[str, bytes]]:
    """`count` realistic blueprints as (name, bytes), the same for the same seed."""
    rng = random.Random(seed)
    return [(f"generated-{i:03d}.leviath", realistic(rng, f"agent-{i:03d}").encode()) for i in range(count)]


# --- one large blueprint ------------------------------------------------------------------


def scaled(stages: int, seed: int = 7) -> str:
    """A valid blueprint with `stages` stages (a multiple of ten, at least ten)."""
    if stages < 10 or stages % 10:
        raise ValueError("stages must be a positive multiple of ten")
    rng = random.Random(seed)
    parts = [
        f'[agent]\nname = "scaled-{stages}"\nversion = "1.0.0"\ndescription = "Generated: {stages} stages"\n\n'
        '[tool_permissions]\nread_file = "allow"\nwrite_file = "ask"\nedit_file = "ask"\n\n'
        "[context.regions]\n"
        'conversation = { kind = "sliding_window", max_tokens = 12000, max_items = 20 }\n'
        'notes = { kind = "pinned", budget = "3%", volatility = "grows" }\n'
        'todo = { kind = "checklist", max_tokens = 3000 }\n'
        'stuck_report = { kind = "pinned", budget = "1%" }\n\n'
    ]
    segments = stages // 10
    for k in range(segments):
        parts.append(_segment(rng, k, last=k == segments - 1))
    return "".join(parts)


def _segment(rng: random.Random, k: int, last: bool) -> str:
    """Ten stages: s0 ⇄ s1 (a gated back-edge loop), s2 (stuck edge), s3–s5 a fall-through run,
    s6 with its own regions, s7 ⇄ s8 (llm_choice loop), s9 the hand-over to the next segment."""
    s = [f"g{k}_s{i}" for i in range(10)]

    def edge(source: str, target: str, body: str = "") -> str:  # structure only: no comments
        return _edge(source, target, body, comments=False)

    nxt = f"g{k + 1}_s0"
    write = '["read_file", "list_dir", "write_file", "edit_file", "context_write", "context_read"]'
    read = '["read_file", "list_dir", "context_read"]'
    out = []
    out.append(_small(s[0], write, "max_revisits = 3\n"))
    out.append(edge(s[0], s[1], 'hint = "Drafted"\ngate = { require_modifications = true, max_attempts = 2 }\n'))
    out.append(edge(s[0], s[9], 'condition = "dead_end"\n'))
    out.append(_small(s[1], read, "max_revisits = 3\n"))
    out.append(edge(s[1], s[0], 'condition = "llm_choice"\nhint = "Needs another draft"\n'))
    out.append(edge(s[1], s[2], 'condition = "llm_choice"\nhint = "Draft accepted"\n'))
    out.append(edge(s[1], s[9], 'condition = "error"\n'))
    out.append(_small(s[2], write))
    out.append(edge(s[2], s[3], 'hint = "Built"\n'))
    out.append(
        edge(
            s[2],
            s[9],
            f'condition = "stuck"\nstuck_after_iterations = {rng.randint(5, 10)}\n'
            f"stuck_after_same_file_edits = {rng.randint(4, 9)}\n",
        )
    )
    # s3, s4, s5: no transitions table, so each falls through to the next stage in the file.
    for i in (3, 4, 5):
        out.append(_small(s[i], read))
    out.append(_small(s[6], '["read_file", "context_write", "context_read"]'))
    out.append(
        f"[stages.{s[6]}.context.regions]\n"
        'conversation = { kind = "sliding_window", max_tokens = 8000, max_items = 10 }\n'
        f'local_{k} = {{ kind = "pinned", max_tokens = 2000 }}\n\n'
    )
    out.append(edge(s[6], s[7], 'hint = "Recorded"\n'))
    out.append(_small(s[7], read, "max_revisits = 2\n"))
    out.append(edge(s[7], s[8], 'condition = "llm_choice"\nhint = "Check it"\n'))
    out.append(
        edge(s[7], s[9], 'condition = "llm_choice"\nhint = "Done here"\ngate = { require_no_open_items = "todo" }\n')
    )
    out.append(_small(s[8], read, "max_revisits = 2\n"))
    out.append(edge(s[8], s[7], 'condition = "llm_choice"\nhint = "Back to it"\n'))
    out.append(edge(s[8], s[9], 'condition = "dead_end"\n'))
    if last:
        out.append(_small(s[9], '["read_file", "context_read"]', mode="output"))
        out.append(f"[stages.{s[9]}.transitions]\n\n")
    else:
        out.append(_small(s[9], read))
        out.append(edge(s[9], nxt, 'hint = "Next part"\ntransform = "compact"\n'))
    return "".join(out)


def _small(name: str, tools: str, extra: str = "", mode: str = "autonomous") -> str:
    return (
        f'[stages.{name}]\nmode = "{mode}"\n'
        'model = { models = [{ provider = "anthropic", model = "claude-sonnet-5" }] }\n'
        f'description = "Step {name}"\navailable_tools = {tools}\nmax_iterations = 12\n{extra}\n'
    )


# --- one large blueprint in a chosen shape ------------------------------------------------

SHAPES = ("chain", "fan-out", "loops", "nested", "generated")
#: The stage count each shape is built from (`shaped` needs a positive multiple of it).
SHAPE_UNIT = {"chain": 1, "fan-out": 1, "loops": 2, "nested": 4, "generated": 10}


def shaped(shape: str, stages: int) -> str:
    """A valid blueprint of `stages` stages whose stage graph has the given shape:

    - `chain`: each stage hands over to the next, the last ends the run;
    - `fan-out`: one hub routing (by the model's choice) to every other stage, each a leaf;
    - `loops`: `stages / 2` two-stage loops in a row (a ⇄ b, then b on to the next a; the last b ends the run);
    - `nested`: four-stage segments a → b → c → d with c → b and d → a (a loop in a loop),
      dead-end escapes a → d and b → d, and d on to the next segment (the last d ends the run);
    - `generated`: `scaled` (ten-stage segments of every kind of edge).

    Each one validates with no error, so `check` times the path a clean file takes."""
    unit = SHAPE_UNIT.get(shape)
    if unit is None:
        raise ValueError(f"unknown shape {shape!r}; one of {', '.join(SHAPES)}")
    if stages < max(unit, 2) or stages % unit:
        raise ValueError(f"the {shape} shape needs a multiple of {unit} stages, at least {max(unit, 2)}")
    if shape == "generated":
        return scaled(stages)
    header = f'[agent]\nname = "{shape}-{stages}"\nversion = "1.0.0"\ndescription = "Generated: {shape}, {stages} stages"\n\n'
    build = {"chain": _chain, "fan-out": _fan_out, "loops": _loops, "nested": _nested}[shape]
    return header + "".join(build(stages))


READ = '["read_file", "list_dir", "context_read"]'


def _chain(stages: int) -> list[str]:
    out = []
    for i in range(stages - 1):
        out.append(_small(f"c{i}", READ))
        out.append(_edge(f"c{i}", f"c{i + 1}", 'hint = "Done here"\n', comments=False))
    out.append(_small(f"c{stages - 1}", READ, mode="output"))
    return out


def _fan_out(stages: int) -> list[str]:
    out = [_small("hub", READ)]
    leaves = [f"leaf{i}" for i in range(1, stages)]
    out.extend(
        _edge("hub", leaf, f'condition = "llm_choice"\nhint = "The task is of kind {leaf}"\n', False) for leaf in leaves
    )
    out.extend(_small(leaf, READ, mode="output") + f"[stages.{leaf}.transitions]\n\n" for leaf in leaves)
    return out


def _loops(stages: int) -> list[str]:
    """Each a has a revisit budget, which bounds its loop; b has none, so a never dead-ends."""
    out = []
    pairs = stages // 2
    for k in range(pairs):
        a, b, following = f"l{k}_a", f"l{k}_b", f"l{k + 1}_a"
        last = k == pairs - 1
        out.append(_small(a, READ, "max_revisits = 2\n"))
        out.append(_edge(a, b, 'hint = "Drafted"\n', comments=False))
        if last:  # the last b ends the run, so the last pair is a hand-over, not a loop
            out.append(_small(b, READ, mode="output") + f"[stages.{b}.transitions]\n\n")
            break
        out.append(_small(b, READ))
        out.append(_edge(b, a, 'condition = "llm_choice"\nhint = "Needs another draft"\n', comments=False))
        out.append(_edge(b, following, 'condition = "llm_choice"\nhint = "Accepted"\n', comments=False))
    return out


def _nested(stages: int) -> list[str]:
    """a, b and c have revisit budgets (bounding both loops), d has none: the dead-end escapes
    go to d, so a run that spends a budget still ends, and the analysis finds no strand."""
    out = []
    segments = stages // 4
    for k in range(segments):
        a, b, c, d = (f"n{k}_{letter}" for letter in "abcd")
        last = k == segments - 1
        out.append(_small(a, READ, "max_revisits = 2\n"))
        out.append(_edge(a, b, 'hint = "Planned"\n', comments=False))
        out.append(_edge(a, d, 'condition = "dead_end"\n', comments=False))
        out.append(_small(b, READ, "max_revisits = 3\n"))
        out.append(_edge(b, c, 'hint = "Built"\n', comments=False))
        out.append(_edge(b, d, 'condition = "dead_end"\n', comments=False))
        out.append(_small(c, READ, "max_revisits = 3\n"))
        out.append(_edge(c, b, 'condition = "llm_choice"\nhint = "Build it again"\n', comments=False))
        out.append(_edge(c, d, 'condition = "llm_choice"\nhint = "It works"\n', comments=False))
        if last:  # the last d ends the run
            out.append(_small(d, READ, mode="output") + f"[stages.{d}.transitions]\n\n")
            break
        out.append(_small(d, READ))
        out.append(_edge(d, a, 'condition = "llm_choice"\nhint = "Start the part over"\n', comments=False))
        out.append(_edge(d, f"n{k + 1}_a", 'condition = "llm_choice"\nhint = "Next part"\n', comments=False))
    return out
