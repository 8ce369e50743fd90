"""SARIF 2.1.0 (`--format sarif`): the log GitHub code scanning and SARIF viewers read.

One run. The driver lists one rule descriptor per code that fired (sorted by code), built
from the rule registry, so the log stays small and its bytes depend only on the findings.
Every field GitHub code scanning requires is present and non-empty: the descriptors'
`shortDescription`, `fullDescription` (at most 1024 characters each) and `help`; each
result's `message`, one location with a region (line 1 when the finding has no position) and
`partialFingerprints`. Columns are code points and `endColumn` is exclusive, as in every
`Diagnostic`; the run's `columnKind` says so. A finding `--fix` can fix carries the edits as
a SARIF `fix`; with `rule-docs-url` configured, each rule has a `helpUri`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from .. import (
    DISTRIBUTION,
    __version__,
    pipeline,  # noqa: F401 (every rule is registered once it is imported)
)
from ..diagnostics import Diagnostic, Severity, Span
from ..rulebook.registry import REGISTRY, Rule
from .paths import repository_path

if TYPE_CHECKING:
    from ..fix.edits import Fix
    from ..pipeline import FileResult
    from . import ReportOptions

SARIF_VERSION = "2.1.0"
#: The `$id` of the official OASIS schema (sarif-schema-2.1.0.json, errata 01).
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
TOOL_NAME = "blueprint-compiler"
#: GitHub rejects longer rule descriptions.
MAX_DESCRIPTION = 1024
#: Our key in `partialFingerprints`; versioned, so a change of recipe can take a new name.
FINGERPRINT_KEY = "blueprintFinding/v1"
#: Project URLs (pyproject `[project.urls]`) that may serve as the driver's `informationUri`.
_HOME_LABELS = ("homepage", "home", "repository", "source", "documentation")
#: Mentions of positions inside a message ("first at line 3"): they move with unrelated edits.
_POSITION_WORDS = re.compile(r"\b(lines?|columns?) \d+")


def report(results: Sequence["FileResult"], options: "ReportOptions | None" = None) -> str:
    """The SARIF log as text: two-space indented, ASCII-only, newline-terminated."""
    if options is None:
        log = sarif_log(results)
    else:
        log = sarif_log(results, fixes=options.fixes, rule_docs_url=options.rule_docs_url)
    return json.dumps(log, indent=2, ensure_ascii=True) + "\n"


def sarif_log(
    results: Sequence["FileResult"],
    cwd: str | None = None,
    *,
    fixes: "Mapping[Diagnostic, Fix] | None" = None,
    rule_docs_url: str | None = None,
) -> dict[str, Any]:
    """The log as plain data. Paths are made relative to `cwd` (default: the working directory).
    `fixes` are the fixable findings with their edits; `rule_docs_url` (with `{code}`) gives
    each rule a `helpUri`."""
    fixes = fixes or {}
    findings = [(artifact_uri(result.path, cwd), d) for result in results for d in result.diagnostics]
    # A finding in another file than the one checked (a declared property, in the blueprint's
    # scenario file) is located there; the run it shows is still the checked file's.
    elsewhere = {
        id(d): artifact_uri(d.file, cwd)
        for result in results
        for d in result.diagnostics
        if d.file != result.path and d.file != "<string>"
    }
    codes = sorted({d.code for _, d in findings})
    rule_index = {code: i for i, code in enumerate(codes)}
    severity_of: dict[str, Severity] = {}
    for _, d in findings:
        severity_of.setdefault(d.code, d.severity)
    fingerprints = _fingerprints(findings)
    driver: dict[str, Any] = {"name": TOOL_NAME, "semanticVersion": __version__}
    home = information_uri()
    if home:
        driver["informationUri"] = home
    driver["rules"] = [rule_descriptor(code, severity_of[code], rule_docs_url) for code in codes]
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {"driver": driver},
                "columnKind": "unicodeCodePoints",
                "results": [
                    _result(elsewhere.get(id(d), uri), d, rule_index[d.code], fingerprint, fixes.get(d), uri)
                    for (uri, d), fingerprint in zip(findings, fingerprints)
                ],
            }
        ],
    }


def rule_descriptor(code: str, severity: str = "error", docs_url: str | None = None) -> dict[str, Any]:
    """The `reportingDescriptor` of `code`, from the registry (a bare one for an unknown code);
    `docs_url` (with `{code}`) gives it a `helpUri`."""
    info = REGISTRY.get(code)
    help_uri = {"helpUri": docs_url.replace("{code}", quote(code, safe=""))} if docs_url else {}
    if info is None:
        summary = f"findings with code '{code}'"
        return {
            "id": code,
            "name": code,
            "shortDescription": {"text": summary},
            "fullDescription": {"text": summary},
            **help_uri,
            "help": {"text": f"Run `blueprint rule {code}` for details.", "markdown": f"Run `blueprint rule {code}`."},
            "defaultConfiguration": {"level": severity},
        }
    return {
        "id": code,
        "name": code,
        "shortDescription": {"text": _clip(info.summary)},
        "fullDescription": {"text": _clip(info.rationale or info.summary)},
        **help_uri,
        "help": {"text": _help_text(info), "markdown": _help_markdown(info)},
        "defaultConfiguration": {"level": info.severity},
        "properties": {"tags": [info.family]},
    }


def artifact_uri(path: str, cwd: str | None = None) -> str:
    """A file's URI: relative to the working directory, forward slashes, percent-encoded.

    A file outside the working directory keeps its path as given: a relative one (`../x`)
    as a relative reference, an absolute one as a `file://` URI.
    """
    shown = repository_path(path, cwd)
    if os.path.isabs(shown):
        return Path(shown).as_uri()
    return quote(shown, safe="/")


def information_uri() -> str | None:
    """The project's home page as declared in the installed package's metadata, if any."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        entries = metadata(DISTRIBUTION).get_all("Project-URL") or []
    except PackageNotFoundError:
        return None
    urls: dict[str, str] = {}
    for entry in entries:
        label, _, url = entry.partition(",")
        urls.setdefault(label.strip().lower(), url.strip())
    return next((urls[label] for label in _HOME_LABELS if urls.get(label)), None)


def _result(
    uri: str, d: Diagnostic, rule_index: int, fingerprint: str, fix: "Fix | None" = None, checked: str | None = None
) -> dict[str, Any]:
    text = d.message if not d.fix else f"{d.message}\nfix: {d.fix}"
    out: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": d.severity,
        "message": {"text": text or d.code},
        "locations": [_location(uri, d.span)],
    }
    if d.related:
        out["relatedLocations"] = [
            {
                "id": i,
                **_location(uri if r.span or checked is None else checked, r.span),
                "message": {"text": r.message or "related"},
            }
            for i, r in enumerate(d.related)
        ]
    out["partialFingerprints"] = {FINGERPRINT_KEY: fingerprint}
    if fix is not None:
        out["fixes"] = [_fix(uri, fix)]
    return out


def _fix(uri: str, fix: "Fix") -> dict[str, Any]:
    """A SARIF `fix`: the finding's edits as replacements in its file (an insertion replaces an
    empty region)."""
    return {
        "description": {"text": fix.title},
        "artifactChanges": [
            {
                "artifactLocation": {"uri": uri},
                "replacements": [
                    {"deletedRegion": _region(edit.span), "insertedContent": {"text": edit.new_text}}
                    for edit in fix.edits
                ],
            }
        ],
    }


def _location(uri: str, span: Span | None) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": _region(span)}}


def _region(span: Span | None) -> dict[str, int]:
    """A region SARIF accepts whatever the span says: 1-based, never ending before it starts."""
    if span is None:
        return {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1}
    line, column = max(1, span.line), max(1, span.column)
    end_line = max(line, span.end_line)
    end_column = max(1, span.end_column)
    if end_line == line:
        end_column = max(column, end_column)
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def _fingerprints(findings: list[tuple[str, Diagnostic]]) -> list[str]:
    """A stable identity per finding: file, code, key path and message, without positions.

    Lines and columns are left out, so inserting a line above a finding keeps its identity
    (GitHub then keeps the alert open instead of closing it and opening a new one). Equal
    findings in one file are told apart by their order of appearance.
    """
    seen: dict[str, int] = {}
    out = []
    for uri, d in findings:
        message = _POSITION_WORDS.sub(r"\1", d.message)
        identity = "\x00".join((uri, d.code, d.key_path, message)).encode("utf-8", "surrogatepass")
        digest = hashlib.sha256(identity).hexdigest()[:32]
        seen[digest] = seen.get(digest, 0) + 1
        out.append(f"{digest}:{seen[digest]}")
    return out


def _help_text(info: Rule) -> str:
    return (
        f"{info.summary}\n\nFix: {info.fix}\n\n{info.rationale}\n\n"
        f"Documentation: {info.doc_path} in blueprint-compiler; `blueprint rule {info.code}` prints it."
    )


def _help_markdown(info: Rule) -> str:
    parts = [info.summary, f"**Fix:** {info.fix}", info.rationale]
    if info.example:
        fence = "```"
        while fence in info.example:
            fence += "`"
        parts.append(f"Example:\n\n{fence}toml\n{info.example}\n{fence}")
    parts.append(f"Documentation: `{info.doc_path}` in blueprint-compiler; `blueprint rule {info.code}` prints it.")
    return "\n\n".join(part for part in parts if part)


def _clip(text: str) -> str:
    text = text.strip() or "(no description)"
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1] + "…"


__all__ = ["FINGERPRINT_KEY", "SARIF_SCHEMA", "SARIF_VERSION", "artifact_uri", "report", "rule_descriptor", "sarif_log"]
