"""What a blueprint asks the user to grant, and what runs or waits without a person: shell
keys, safe commands, read paths, seeds, held checkpoints and required regions."""

from __future__ import annotations

import pytest

from compiler.config import Settings
from compiler.rules.lint.security import broad_read_path
from compiler.rules.lint.shell_keys import command_keys, default_safe_list_covers, is_valid_prefix
from tests.helpers import assert_codes, run

MODEL = 'model = { models = [{ provider = "anthropic", model = "claude-sonnet-4-6" }] }'
SEEDS = Settings(
    select=("region-seed-not-understood", "seed-key-ignored", "command-seed", "tool-seed", "seed-tool-refused")
)


def only(*codes: str) -> Settings:
    return Settings(select=codes)


def stage(name: str, body: str = "", mode: str = "autonomous") -> str:
    return f'[stages.{name}]\nmode = "{mode}"\n{MODEL}\nmax_iterations = 10\n{body}\n'


# --- shell keys ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command, keys",
    [
        ("ls", ["shell:ls"]),
        ("ls -la /tmp", ["shell:ls"]),
        ("cargo test --all", ["shell:cargo test"]),
        ("git diff HEAD~1", ["shell:git diff"]),
        ("grep 'x y' file", ["shell:grep"]),
        ("sleep 5", ["shell:sleep"]),
        ("echo hello", ["shell:echo"]),
        ("cd src && make", ["shell:cd", "shell:make"]),
        ("cat a 2>/dev/null", ["shell:cat a"]),
        ("echo x > out.txt", ["shell:>out.txt", "shell:echo"]),
        ("PATH=/tmp/evil ls", ["shell:env:PATH", "shell:ls"]),
        ("export A=1; ls", ["shell:env:A", "shell:ls"]),
        ("for f in $(ls); do wc -l $f; done", ["shell:ls", "shell:wc"]),
        ("echo $((1 + 2))", ["shell:echo"]),
        ("if true; then ls; fi", ["shell:ls", "shell:true"]),
        ("set -e", []),
        ("eval $CMD", []),
        ("$CMD", []),
        ("echo `id`", []),
        ("cat <<EOF", []),
        ("echo 'unclosed", []),
        ("trap 'curl x' EXIT; ls", []),
        ("git diff --output=/tmp/x", []),
        ("ls > $OUT", []),
        ("cat < /dev/tcp/host/80", ["shell:cat"]),
        ("echo x > /dev/tcp/host/80", []),
        ("", []),
    ],
)
def test_command_keys(command, keys):
    assert command_keys(command) == keys


def test_valid_prefixes_read_back_as_themselves():
    for entry in ("rg", "cargo test", "git status", "npm run", "make"):
        assert is_valid_prefix(entry), entry
    for entry in (
        "ls -la",
        "git log --oneline",
        "a b c",
        " rg",
        "rg ",
        ">out",
        "FOO=1 ls",
        "make && make test",
        "for",
        "'rg'",
    ):
        assert not is_valid_prefix(entry), entry


def test_the_default_safe_list_covers_read_only_commands_only():
    for command in ("git ls-files", "ls -la", "git status --short", "cat README.md | grep x", "wc -l *.py"):
        assert default_safe_list_covers(command), command
    for command in ("git push", "curl x | sh", "rg TODO", "echo x > f", "PATH=/x ls", "eval ls", ""):
        assert not default_safe_list_covers(command), command


# --- safe commands and read paths -----------------------------------------------------------


def test_safe_command_entries():
    source = '[safe_commands]\nshell = ["rg", "ls -la", "make && make test", 5]\n\n' + stage("a")
    found = run(source, settings=only("unparseable-safe-command", "safe-commands-declared")).diagnostics
    assert sorted((d.code, d.key_path, d.severity) for d in found) == [
        ("safe-commands-declared", "safe_commands", "note"),
        ("unparseable-safe-command", "safe_commands.shell[1]", "error"),
        ("unparseable-safe-command", "safe_commands.shell[2]", "error"),
    ]
    assert next(d for d in found if d.key_path == "safe_commands.shell[1]").fix.startswith("write 'ls'")


def test_an_empty_safe_commands_block_declares_nothing():
    assert_codes("[safe_commands]\nshell = []\ntools = [3]\n", settings=only("safe-commands-declared"))
    assert_codes(
        '[safe_commands]\ntools = ["read_file"]\n', "safe-commands-declared", settings=only("safe-commands-declared")
    )


@pytest.mark.parametrize(
    "entry, broad",
    [
        ("~", True), ("~/", True), ("/", True), ("glob:~/**", True), ("glob:~/*", True), ("~/**", True),
        ("glob:/**", True), ("glob:/*/**", False), ("regex:/.*", True), ("regex:^/.+$", True), ("regex:~/.*", True),
        ("C:\\", True), ("glob:C:/**", True), ("glob:**/*.md", True),
        ("~/notes", False), ("glob:~/notes/**", False), ("regex:/var/log/.*", False), ("glob:../docs/**", False),
        ("/etc/hosts", False), ("glob:./specs/*", False),
    ],
)  # fmt: skip
def test_broad_read_paths(entry, broad):
    assert (broad_read_path(entry) is not None) is broad


def test_read_paths_are_declared_once_and_invalid_entries_are_not_called_broad():
    source = '[read_paths]\nallow = ["~/notes", "glob:~/**", "", "regex:logs/.*"]\n\n' + stage("a")
    found = run(source, settings=only("read-paths-declared", "broad-read-path")).diagnostics
    assert [(d.code, d.key_path) for d in found] == [
        ("read-paths-declared", "read_paths.allow"),
        ("broad-read-path", "read_paths.allow[1]"),
    ]
    assert_codes("[read_paths]\nallow = []\n", settings=only("read-paths-declared"))


# --- seeds --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "seed, expected",
    [
        ('{ caller_input = "task" }', ["region-seed-not-understood"]),
        ("{ tools = [] }", ["region-seed-not-understood"]),
        ("{ refresh = 'each_stage' }", ["region-seed-not-understood"]),
        ("{}", ["region-seed-not-understood"]),
        ('"task"', []),
        ('{ caller = "scope" }', []),
        ("{ files = [] }", []),
        ('{ glob = "*.md", literal = "x" }', ["seed-key-ignored"]),
        ('{ literal = "x", refresh = "each_stage" }', ["seed-key-ignored"]),
        ('{ tools = [], caller = "task" }', ["region-seed-not-understood"]),  # tools wins, and holds no call
        ('{ tool = "current_time", tools = ["locale_info"] }', ["seed-key-ignored", "tool-seed"]),
        ('{ command = "git ls-files" }', ["command-seed"]),
    ],
)
def test_seed_forms(seed, expected):
    for where in ("[context.regions.r]", "[stages.a.context.regions.r]"):
        assert_codes(f"{where}\nseed = {seed}\n", *expected, settings=SEEDS)


def test_an_unreadable_seed_on_the_task_region_loses_the_task_input():
    (d,) = run('[context.regions.task]\nseed = { input = "task" }\n', settings=SEEDS).diagnostics
    assert "losing the --task input" in d.message and d.key_path == "context.regions.task.seed"


def test_command_seed_verdicts():
    source = (
        '[context.regions]\na = { seed = { command = "git ls-files" } }\nb = { seed = { command = "curl x | sh" } }\n'
    )
    found = {d.message.split("'")[1]: d for d in run(source, settings=SEEDS).diagnostics}
    assert "pre-approves it" in found["a"].message and "refuses it" in found["b"].message
    assert all(d.severity == "note" for d in found.values())


def test_a_seed_declared_again_in_a_stage_layout_is_reported_once():
    seed = 'env = { seed = { tools = ["current_time"] } }\n'
    assert_codes(f"[context.regions]\n{seed}\n[stages.a.context.regions]\n{seed}", "tool-seed", settings=SEEDS)


@pytest.mark.parametrize(
    "policy, expected",
    [('"ask"', 1), ('"DENY"', 1), ('"allow"', 0), ("", 0)],
)
def test_seeded_tools_the_blueprint_refuses(policy, expected):
    permissions = f"[tool_permissions]\ncurrent_time = {policy}\n" if policy else ""
    source = permissions + '[context.regions.r]\nseed = { tools = ["current_time"] }\n'
    assert_codes(source, *["seed-tool-refused"] * expected, settings=only("seed-tool-refused"))


def test_a_shell_seed_is_refused_under_either_spelling():
    source = '[tool_permissions]\nbash = "ask"\n[context.regions.r]\nseed = { tool = "shell" }\n'
    assert_codes(source, "seed-tool-refused", settings=only("seed-tool-refused"))


# --- held checkpoints ---------------------------------------------------------------------


def test_checkpoints_that_hold_an_unattended_run():
    points = (
        '[[stages.a.interaction_points]]\nname = "ok"\nunattended = "ask"\n'
        '[[stages.a.interaction_points]]\nname = "fine"\nunattended = "auto_approve"\n'
    )
    body = 'available_tools = ["ask_user_text", "read_file"]\nrequired_tools = ["ask_user_text", "read_file", "edit_document"]\n'
    found = run(stage("a", body + points, mode="interactive_points"), settings=only("holds-under-yolo")).diagnostics
    assert [d.key_path for d in found] == ["stages.a.required_tools[0]", "stages.a.interaction_points[0].unattended"]
    # interaction points of another mode are ignored by the runtime (ignored-key), so they hold nothing
    assert_codes(stage("a", points), settings=only("holds-under-yolo"))


# --- required regions ---------------------------------------------------------------------


def deliverable(region: str, gather_tools: str, transform: str = 'transform = "compact"') -> str:
    return (
        f"[context.regions.findings]\n{region}\n\n"
        + stage("gather", f"available_tools = [{gather_tools}]\n[stages.gather.transitions.report]\n{transform}")
        + stage("report", "[stages.report.transitions]")
    )


@pytest.mark.parametrize(
    "region, transform, expected",
    [
        ('kind = "temporary"\nrequired = true', 'transform = "compact"', 1),
        ('kind = "temporary"\nrequired = true', 'transform = "summarize"', 1),
        ('kind = "temporary"\nrequired = true\nsummarizable = false', 'transform = "compact"', 0),
        ('kind = "pinned"\nrequired = true', 'transform = "compact"', 0),
        ('kind = "temporary"', 'transform = "compact"', 0),
        ('kind = "temporary"\nrequired = true', 'transform = "clear"', 0),
        ('kind = "pinned"\nrequired = true', 'transform = "custom"\ntransform_config = { compact = ["findings"] }', 1),
        (
            'kind = "pinned"\nrequired = true',
            'transform = "custom"\ntransform_config = { compact = ["findings"], carry = ["findings"] }',
            0,
        ),
    ],
)
def test_compaction_of_required_regions(region, transform, expected):
    source = deliverable(region, '"context_write"', transform)
    assert_codes(
        source, *["compact-summarizes-deliverable"] * expected, settings=only("compact-summarizes-deliverable")
    )


@pytest.mark.parametrize(
    "region, tools, expected",
    [
        ("required = true", '"read_file"', 1),
        ("required = true", '"context_write"', 0),
        ("required = true", '"context_append"', 0),
        ('required = true\nseed = { literal = "x" }', '"read_file"', 0),
        ('required = true\nseed = "task"', '"read_file"', 0),
        ("required = false", '"read_file"', 0),
    ],
)
def test_required_regions_need_a_writer_or_a_seed(region, tools, expected):
    source = deliverable(region, tools, "")
    assert_codes(source, *["required-region-unenforceable"] * expected, settings=only("required-region-unenforceable"))


def test_a_writer_only_counts_for_the_regions_it_sees():
    source = (
        "[context.regions.findings]\nrequired = true\n\n"
        + stage("own", 'available_tools = ["context_write"]\n[stages.own.context.regions.notes]\nkind = "temporary"')
        + stage("reads", 'available_tools = ["read_file"]')
    )
    (d,) = run(source, settings=only("required-region-unenforceable")).diagnostics
    assert d.key_path == "context.regions.findings.required" and "'findings'" in d.message
