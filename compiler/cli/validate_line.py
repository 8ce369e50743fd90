"""What `blueprint validate` accepts, for `quick.py`: generated from the click declarations of
the command by `python -m compiler.cli.quick` (`tests/test_quick_cli.py` fails when it is stale).
Do not edit: change the options in `validate_cmd.py` and `options.py`, then regenerate."""

from __future__ import annotations

#: A flag → (parameter, value it sets).
FLAGS: dict[str, tuple[str, bool]] = {
    "--deny-warnings": ("deny_warnings", True),
    "--no-deny-warnings": ("deny_warnings", False),
    "--respect-gitignore": ("respect_gitignore", True),
    "--no-respect-gitignore": ("respect_gitignore", False),
    "--statistics": ("statistics", True),
    "-q": ("quiet", True),
    "--quiet": ("quiet", True),
    "--fix": ("fix", True),
    "--unsafe-fixes": ("unsafe_fixes", True),
    "--no-unsafe-fixes": ("unsafe_fixes", False),
    "--show-fixes": ("show_fixes", True),
    "--diff": ("diff", True),
    "--show-settings": ("show_settings", True),
    "--watch": ("watch", True),
    "--exit-zero": ("exit_zero", True),
}
#: An option with a value → (parameter, kind: 'text', 'count' or a tuple of choices).
VALUED: dict[str, tuple[str, str | tuple[str, ...]]] = {
    "--format": ("output_format", ("concise", "github", "json", "sarif", "text")),
    "--output-format": ("output_format", ("concise", "github", "json", "sarif", "text")),
    "--config": ("config_file", "text"),
    "--select": ("select", "text"),
    "--extend-select": ("extend_select", "text"),
    "--ignore": ("ignore", "text"),
    "--exclude": ("exclude", "text"),
    "--shard": ("shard", "text"),
    "--leviath-models": ("leviath_models", "text"),
    "--leviath-config": ("leviath_config", "text"),
    "--stdin-filename": ("stdin_filename", "text"),
    "--default-max-iterations": ("default_max_iterations", "count"),
    "--color": ("color", ("auto", "always", "never")),
}
#: The parameters whose option may be repeated (a tuple of values).
REPEATABLE = frozenset(["exclude", "extend_select", "ignore", "select"])
