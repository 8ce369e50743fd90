"""Leviath's lint checks that need the user's installation: its `config.toml` and the model
list its build carries. They run only when the user names those files (`--leviath-config`,
`--leviath-models`, or the same keys in `[tool.blueprint]`); otherwise they report nothing,
and `blueprint rule CODE` says how to turn them on. See `compiler.installation`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from ...diagnostics import Diagnostic
from ...installation import CLOSED_PROVIDERS, LeviathConfig, ModelCatalog, load_config, load_models
from ...rulebook.registry import LINT
from ...rulebook.snippets import blueprint as _blueprint
from ...rulebook.snippets import stage as declared
from ..common import layouts, quoted, stage_path, string_entries
from ..context import RuleContext
from ..structure.read_paths import entry_problem

_CONFIG = (
    "Runs only when you name your Leviath config.toml: `--leviath-config PATH`, or "
    '`leviath-config = "PATH"` in [tool.blueprint].'
)
_MODELS = (
    "Runs only when you name the model list your Leviath build carries (save what `lev models list` prints): "
    '`--leviath-models PATH`, or `leviath-models = "PATH"` in [tool.blueprint].'
)
#: Region kinds that evict what does not fit, so an uncapped percentage budget is what they hold.
_EVICTING = ("temporary", "clearable", "sliding_window", "compacting")

READ_PATHS_NOT_GRANTED = LINT.define(
    "read-paths-not-granted",
    severity="warning",
    summary="A declared `[read_paths]` entry is not granted by your Leviath configuration, so its reads are refused.",
    rationale=(
        "Declaring a read path grants nothing: Leviath lets a run read outside its working "
        "directory only where the user's config.toml grants it, in `[security] read_paths` or "
        "`[agent_read_paths.<agent>] allow` (or for every declaration, with `[security] "
        "allow_blueprint_read_paths = true`). An entry no grant covers is refused at the first "
        "read. Each entry is judged as Leviath judges it: one representative path of the entry, "
        "tested lexically against the grants; an entry whose sample cannot be told (a regular "
        "expression with wildcards) is left out. " + _CONFIG
    ),
    example='[read_paths]\nallow = ["~/notes"]\n\n' + declared("work"),
    fix="grant it in your config.toml: [agent_read_paths.<agent>] allow = [...]",
    leviath="read-paths-not-granted",
)

READ_PATHS_GRANT_INVALID = LINT.define(
    "read-paths-grant-invalid",
    severity="warning",
    summary="A read-path grant in your Leviath configuration does not compile, so it grants nothing.",
    rationale=(
        "Grants in `[security] read_paths` and `[agent_read_paths.<agent>] allow` use the "
        "forms of a blueprint's `[read_paths]`: a path, `glob:` or `regex:`. One that does not "
        "compile makes Leviath refuse the whole grant list, so none of this agent's declared "
        "reads is granted. " + _CONFIG
    ),
    example='[read_paths]\nallow = ["~/notes"]\n\n' + declared("work"),
    fix="fix or remove the entry in your config.toml",
    leviath="read-paths-grant-invalid",
)

NO_REACHABLE_PROVIDER = LINT.define(
    "no-reachable-provider",
    severity="warning",
    summary="None of a stage's model providers is configured in your Leviath installation.",
    rationale=(
        "A stage runs on the first of its models whose provider Leviath can reach, else on the "
        "user's default model when `allow_user_default` allows it. When the config.toml gives "
        "none of the stage's providers a key (`[providers] anthropic_api_key`, "
        "`openai_api_key`, `google_api_key`) or a script (`[model_providers.<name>]`), the "
        "stage cannot run as written. Keys that reach Leviath another way (the environment, "
        "a credential store) are not seen here; ignore the rule where you use them. " + _CONFIG
    ),
    example=declared("work")
    .replace('provider = "anthropic"', 'provider = "openai"')
    .replace("claude-sonnet-4-6", "gpt-5.4"),
    fix="add a key for one of its providers to your config.toml, or list a provider you have",
    leviath="no-reachable-provider",
)

UNKNOWN_MODEL = LINT.define(
    "unknown-model",
    severity="warning",
    summary="A model is not in the catalog of its provider, as your Leviath build lists it.",
    rationale=(
        "Anthropic, OpenAI and Google serve a closed list of models, and Leviath refuses a stage "
        "whose model its provider does not serve. A misspelt or retired id is found here instead "
        "of at spawn. Other providers (Ollama, OpenRouter, script providers) serve what they "
        "serve and are not checked. " + _MODELS
    ),
    example=declared("work").replace("claude-sonnet-4-6", "claude-sonet-4-6"),
    fix="check the id against `lev models list`",
    leviath="unknown-model",
)

UNBOUNDED_PERCENTAGE_BUDGET = LINT.define(
    "unbounded-percentage-budget",
    severity="warning",
    summary="A region's percentage `budget` has no `max_tokens` cap, so on a large model it holds a huge amount.",
    rationale=(
        '`budget = "N%"` is a share of the model\'s context window, and windows reach a million '
        "tokens: 30% of that is 300,000 tokens a temporary, clearable, sliding-window or "
        "compacting region may fill (and pay for) before it evicts anything. `max_tokens` "
        "beside the budget caps it. Like Leviath, the check takes the widest window among the "
        "models the blueprint names (defaults included) and reports each region name once. "
        + _MODELS
        + " Windows in `[model_capabilities]` of your config.toml count too (`--leviath-config`)."
    ),
    example=_blueprint('[context.regions.notes]\nkind = "temporary"\nbudget = "30%"', declared("work")),
    example_fixed=_blueprint(
        '[context.regions.notes]\nkind = "temporary"\nbudget = "30%"\nmax_tokens = 40000', declared("work")
    ),
    fix="add max_tokens beside the budget as a cap",
    leviath="unbounded-percentage-budget",
)


def _config(ctx: RuleContext) -> LeviathConfig | None:
    path = ctx.settings.leviath_config
    return load_config(path) if path else None


def _catalog(ctx: RuleContext) -> ModelCatalog | None:
    path = ctx.settings.leviath_models
    return load_models(path) if path else None


@LINT.check(READ_PATHS_NOT_GRANTED, READ_PATHS_GRANT_INVALID)
def check_read_path_grants(ctx: RuleContext) -> Iterator[Diagnostic]:
    config = _config(ctx)
    declared_entries = list(string_entries(ctx.raw(("read_paths", "allow"), None)))
    if config is None or not declared_entries or config.allow_blueprint_read_paths:
        return
    agent = ctx.blueprint.name
    grants = config.grants_for(agent)
    broken = [(grant, problem) for grant in grants if (problem := entry_problem(grant)) is not None]
    if broken:
        grant, problem = broken[0]
        yield ctx.report(
            READ_PATHS_GRANT_INVALID,
            f"the read-path grant '{grant}' in {config.path} does not compile ({problem}), so none of this "
            "agent's declared reads is granted",
            ("read_paths", "allow"),
        )
        return
    for index, entry in declared_entries:
        if entry_problem(entry) is not None:
            continue  # invalid-read-path
        if _granted(entry, grants) is False:
            yield ctx.report(
                READ_PATHS_NOT_GRANTED,
                f"read_paths entry '{entry}' is not granted by {config.path}, so reads there are refused",
                ("read_paths", "allow", index),
                anchor="value",
                fix=f'grant it in {config.path}: [agent_read_paths.{agent}] allow = ["{entry}"]',
            )


def _granted(entry: str, grants: tuple[str, ...]) -> bool | None:
    """Whether a grant covers a representative path of `entry`; None when it cannot be told."""
    sample = _sample(entry)
    if sample is None:
        return None
    for grant in grants:
        kind, text = _split(grant)
        if kind == "path":
            root = _absolute(text)
            if sample == root or sample.startswith(root.rstrip("/") + "/"):
                return True
        elif kind == "glob" and _glob_regex(_absolute(text)).fullmatch(sample):
            return True
        elif kind == "regex" and re.fullmatch(_absolute_regex(text), sample):
            return True
    return False


def _split(entry: str) -> tuple[str, str]:
    for kind in ("glob", "regex"):
        if entry.startswith(f"{kind}:"):
            return kind, entry[len(kind) + 1 :]
    return "path", entry


def _sample(entry: str) -> str | None:
    """One path the entry stands for: the path itself, or a glob's fixed part plus a file name."""
    kind, text = _split(entry)
    if kind == "path":
        return _absolute(text)
    if kind == "regex":
        literal = text.replace("\\.", ".")
        return None if re.search(r"[\\^$.|?*+()\[\]{}]", literal.replace(".", "")) else _absolute(literal)
    fixed = re.split(r"[*?\[{]", text, maxsplit=1)[0]
    return _absolute(fixed.rstrip("/") + "/sample") if fixed != text else _absolute(text)


def _absolute(path: str) -> str:
    """`~` expanded from the environment (no directory is read), relative paths against the
    working directory, as Leviath resolves them for `lev validate`."""
    return os.path.normpath(os.path.join(os.getcwd(), os.path.expanduser(path)))


def _absolute_regex(pattern: str) -> str:
    return re.escape(os.path.expanduser("~")) + pattern[1:] if pattern.startswith("~/") else pattern


def _glob_regex(pattern: str) -> "re.Pattern[str]":
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


@LINT.check(NO_REACHABLE_PROVIDER)
def check_reachable_providers(ctx: RuleContext) -> Iterator[Diagnostic]:
    config = _config(ctx)
    if config is None:
        return
    for stage in ctx.blueprint.stages:
        providers = list(dict.fromkeys(entry.provider for entry in stage.model.entries))
        if not providers or any(p in config.providers for p in providers):
            continue
        yield ctx.report(
            NO_REACHABLE_PROVIDER,
            f"stage '{stage.name}' runs on {quoted(providers)}, and {config.path} gives none of them a key or a "
            "script, so the stage cannot run as written",
            stage_path(stage.name) + ("model",),
        )


@LINT.check(UNKNOWN_MODEL)
def check_unknown_models(ctx: RuleContext) -> Iterator[Diagnostic]:
    catalog = _catalog(ctx)
    if catalog is None:
        return
    for stage in ctx.blueprint.stages:
        for index, entry in enumerate(stage.model.entries):
            listed = catalog.listed(entry.provider)
            if entry.provider not in CLOSED_PROVIDERS or not listed or entry.model in listed:
                continue
            yield ctx.report(
                UNKNOWN_MODEL,
                f"stage '{stage.name}': {entry.provider} does not serve '{entry.model}' according to {catalog.path}",
                _model_path(ctx, stage.name, index),
                anchor="value",
            )


def _model_path(ctx: RuleContext, stage: str, index: int) -> tuple:
    """Where a stage's index-th model is written (the model table when it is not a list entry)."""
    base = stage_path(stage) + ("model",)
    listed = base + ("models", index, "model")
    return listed if isinstance(ctx.raw(base + ("models",), None), list) else base


@LINT.check(UNBOUNDED_PERCENTAGE_BUDGET)
def check_unbounded_percentages(ctx: RuleContext) -> Iterator[Diagnostic]:
    catalog, config = _catalog(ctx), _config(ctx)
    if catalog is None and config is None:
        return
    windows = [w for entry in _models(ctx) if (w := _window(entry, catalog, config)) is not None]
    if not windows:
        return
    widest = max(windows)
    seen: set[str] = set()
    for path, layout, _ in layouts(ctx):
        for region in layout.regions:
            if region.name in seen or region.budget_percent is None or region.kind not in _EVICTING:
                continue
            raw = ctx.raw(path + (region.name,), None)
            if isinstance(raw, dict) and "max_tokens" in raw:
                continue
            seen.add(region.name)
            tokens = int(widest * region.budget_percent / 100)
            yield ctx.report(
                UNBOUNDED_PERCENTAGE_BUDGET,
                f"region '{region.name}': budget {region.budget_percent:g}% has no max_tokens cap, so on the "
                f"widest model the blueprint names ({widest:,} tokens) it holds up to {tokens:,} tokens",
                path + (region.name, "budget"),
                anchor="value",
            )


def _models(ctx: RuleContext):
    for stage in ctx.blueprint.stages:
        yield from stage.model.entries


def _window(entry, catalog: ModelCatalog | None, config: LeviathConfig | None) -> int | None:
    if config is not None and entry.model in config.windows:
        return config.windows[entry.model]  # the user's own capability row wins, as in Leviath
    if catalog is not None:
        for row in catalog.rows:
            if row.provider == entry.provider and row.model == entry.model:
                return row.window
    return None
