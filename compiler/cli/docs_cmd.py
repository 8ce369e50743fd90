"""`blueprint docs PATH … [-o DIR]`: a documentation page per blueprint.

Without `-o` the Markdown pages go to stdout. With `-o DIR` each blueprint gets
`DIR/<name>.md` and `DIR/<name>.html` (a self-contained page: inline SVG diagram, inline
style, nothing fetched). The file name is made from the blueprint's `[agent] name`, reduced
to letters, digits, `.`, `_` and `-`, numbered where two blueprints would share it; nothing
is written outside DIR, and never through a symbolic or hard link (`_OutputDirectory`).

Unlike `blueprint graph`, a blueprint with errors gets no page: a page is something people
publish and trust. Its errors go to stderr, the other blueprints still get their pages, and
the exit status is 1.

Exit status: 0 every page written, 1 some blueprint has errors, 2 a path is missing, a file
cannot be read, DIR cannot be written, or the configuration is invalid.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import sys

import click

from ..discover import discover
from ..render.blueprint_docs import ENGINES
from .common import blueprint_files, check_file, color_option, report_errors
from .errors import EXIT_FINDINGS, EXIT_OK, CliError, echo_problem, emit


@click.command("docs")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option(
    "-o",
    "--output",
    "directory",
    metavar="DIR",
    type=click.Path(path_type=str, file_okay=False),
    help="Write <name>.md and <name>.html for each blueprint into DIR (created if needed).",
)
@click.option(
    "--diagram",
    "engine",
    type=click.Choice(ENGINES),
    default="auto",
    show_default=True,
    help="How the HTML page lays out its diagram: Graphviz when installed ('auto'), or the built-in layout.",
)
@color_option
def command(paths: tuple[str, ...], directory: str | None, engine: str, color: str) -> None:
    """Write a documentation page for each blueprint: summary, stages, edges, gates, stuck
    thresholds, nudges, budgets, regions and the diagram.

    PATH may be a file or a directory (searched like `blueprint validate` does).
    """
    from ..render.blueprint_docs import page_data, render_html, render_markdown, unique_stems

    files = blueprint_files(discover(paths), paths, warn_skipped=False)

    pages = []
    failing = False
    for path in files:
        result = check_file(path)
        if report_errors(result, color) or result.blueprint is None:
            failing = True
            continue
        pages.append(page_data(result.blueprint, path, engine))  # type: ignore[arg-type]

    if directory is None:
        emit("\n---\n\n".join(render_markdown(page) for page in pages))
    elif pages:
        with _OutputDirectory(directory) as out:
            for page, stem in zip(pages, unique_stems([page.name for page in pages]), strict=True):
                for suffix, text in ((".md", render_markdown(page)), (".html", render_html(page))):
                    out.write(stem + suffix, text)
                    echo_problem(f"wrote {os.path.join(directory, stem + suffix)}")
    sys.exit(EXIT_FINDINGS if failing else EXIT_OK)


class _OutputDirectory:
    """DIR, resolved once and opened: every page is created in that directory and nowhere
    else, whatever links appear in its path or at a page's name while pages are written.

    A page is written to a new temporary file in DIR, then renamed over its name, so nothing
    is ever written *through* an existing entry: a planted hard link keeps the other file's
    content (the name now holds the page), and a symbolic link at the name is refused. When
    DIR itself is reached through a symbolic link, stderr says where the pages go.
    """

    def __init__(self, directory: str) -> None:
        self.shown = directory
        try:
            os.makedirs(directory, exist_ok=True)
            self.real = os.path.realpath(directory)
            self.fd = os.open(self.real, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)) if _AT else None
        except OSError as exc:
            raise CliError(f"cannot create '{directory}': {exc.strerror or exc}") from exc
        if self.real != os.path.abspath(directory):
            echo_problem(f"note: '{directory}' leads through a symbolic link; the pages go to '{self.real}'")

    def __enter__(self) -> "_OutputDirectory":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)

    def _at(self, name: str) -> str:
        """How to name `name` to the `*at` calls: itself (with `dir_fd`), or its full path."""
        return name if self.fd is not None else os.path.join(self.real, name)

    def write(self, name: str, text: str) -> None:
        temporary = self._at(f".{name}.{secrets.token_hex(6)}.tmp")
        target = self._at(name)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        try:
            if stat.S_ISLNK(_lstat(target, self.fd)):
                raise OSError(errno.ELOOP, "it is a symbolic link; refusing to write through it")
            descriptor = os.open(temporary, flags, 0o644, dir_fd=self.fd)
            try:
                with os.fdopen(descriptor, "wb") as handle:
                    handle.write(text.encode("utf-8"))
                os.replace(temporary, target, src_dir_fd=self.fd, dst_dir_fd=self.fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary, dir_fd=self.fd)
                raise
        except OSError as exc:
            raise CliError(f"cannot write '{os.path.join(self.shown, name)}': {exc.strerror or exc}") from exc


#: Whether names can be opened relative to a directory descriptor here (not on Windows).
_AT = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd


def _lstat(name: str, directory: int | None) -> int:
    """The mode of `name` in `directory` without following a link (0 when there is none)."""
    try:
        return os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return 0
