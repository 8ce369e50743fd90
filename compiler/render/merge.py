"""Merging the reports of shards (`--shard K/N`) into one, as one run over every file would
have written it.

Both report formats merge: our JSON report (`--format json`, of `validate` or `check`) and
SARIF logs (`--format sarif`). Files are put back in the order one search over a directory
finds them (sorted by path components, each file's findings in their own order), the summary is
summed, and a SARIF log's rule descriptors are joined (sorted by code, as one run lists them)
with every result's `ruleIndex` pointing into the joined list. What cannot be merged without
losing something is refused with a `MergeError` naming the report and the reason: two formats,
two versions, a file present in two reports (shards that overlap), or a SARIF run setting that
differs between reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .sarif import SARIF_VERSION

#: The keys of our JSON report's summary, summed over the reports.
_SUMMARY_KEYS = ("files", "errors", "warnings", "notes")


class MergeError(ValueError):
    """Reports that cannot be merged; the message names the report and says why."""


def merge_reports(reports: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """One report from `(name, document)` pairs, each document a parsed JSON report or SARIF log."""
    if not reports:
        raise MergeError("no reports to merge")
    kinds = {name: _kind(name, document) for name, document in reports}
    first_name = reports[0][0]
    for name, kind in kinds.items():
        if kind != kinds[first_name]:
            raise MergeError(
                f"{name} is a {kind}, but {first_name} is a {kinds[first_name]}: merge one format at a time"
            )
    if kinds[first_name] == "SARIF log":
        return _merge_sarif(reports)
    return _merge_json(reports)


def _kind(name: str, document: Any) -> str:
    if isinstance(document, dict) and isinstance(document.get("runs"), list):
        if document.get("version") != SARIF_VERSION:
            raise MergeError(f"{name}: SARIF version {document.get('version')!r}; only {SARIF_VERSION} merges")
        return "SARIF log"
    if isinstance(document, dict) and isinstance(document.get("files"), list):
        return "JSON report"
    raise MergeError(f"{name}: neither a report of --format json nor a SARIF log")


def _path_order(path: Any) -> tuple[str, ...]:
    """The search's order: by path components (`a/b` before `a.b`), as `discover` sorts."""
    return tuple(str(path).replace("\\", "/").split("/"))


def _merge_json(reports: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    first_name, first = reports[0]
    extra = sorted(set(first) - {"version", "files", "summary"})
    if extra:
        raise MergeError(f"{first_name}: unknown top-level key {extra[0]!r}; this version cannot merge it")
    files: list[dict[str, Any]] = []
    owner: dict[str, str] = {}
    summary = dict.fromkeys(_SUMMARY_KEYS, 0)
    for name, document in reports:
        if document.get("version") != first.get("version"):
            raise MergeError(
                f"{name} is report version {document.get('version')!r}, {first_name} {first.get('version')!r}"
            )
        for entry in document["files"]:
            path = entry.get("path") if isinstance(entry, dict) else None
            if not isinstance(path, str):
                raise MergeError(f"{name}: a file entry without a path")
            if path in owner:
                raise MergeError(f"'{path}' is in both {owner[path]} and {name}: the shards overlap")
            owner[path] = name
            files.append(entry)
        given = document.get("summary")
        for key in _SUMMARY_KEYS:
            value = given.get(key) if isinstance(given, dict) else None
            if not isinstance(value, int):
                raise MergeError(f"{name}: its summary has no count of {key!r}")
            summary[key] += value
    files.sort(key=lambda entry: _path_order(entry["path"]))
    return {"version": first.get("version"), "files": files, "summary": summary}


def _merge_sarif(reports: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """Runs of the same tool (driver name and version) become one run; other tools' runs are kept."""
    merged: list[dict[str, Any]] = []
    by_tool: dict[tuple[Any, Any], tuple[str, dict[str, Any], list[tuple[str, dict[str, Any]]]]] = {}
    for name, document in reports:
        for run in document["runs"]:
            driver = run.get("tool", {}).get("driver", {}) if isinstance(run, dict) else {}
            if not isinstance(driver, dict) or not isinstance(run.get("results", []), list):
                raise MergeError(f"{name}: a run without a tool driver or results")
            tool = (driver.get("name"), driver.get("semanticVersion"))
            if tool not in by_tool:
                by_tool[tool] = (name, run, [])
                merged.append(run)
            by_tool[tool][2].append((name, run))
    runs = []
    for run in merged:
        tool = (run["tool"]["driver"].get("name"), run["tool"]["driver"].get("semanticVersion"))
        first_name, first, members = by_tool[tool]
        runs.append(_merge_runs(first_name, first, members))
    head = reports[0][1]
    return {key: head[key] for key in head if key != "runs"} | {"runs": runs}


def _merge_runs(first_name: str, first: dict[str, Any], members: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    for name, run in members:
        for key in set(first) | set(run):
            if key not in ("tool", "results") and first.get(key) != run.get(key):
                raise MergeError(f"{name} and {first_name} differ in the run's {key!r}; they cannot be one run")
    rules: dict[str, dict[str, Any]] = {}
    located: list[tuple[tuple[str, ...], dict[str, Any]]] = []
    for name, run in members:
        driver = run["tool"]["driver"]
        own_rules = driver.get("rules", [])
        for rule in own_rules:
            rules.setdefault(rule["id"], rule)
        for result in run.get("results", []):
            if "ruleIndex" in result and not 0 <= result["ruleIndex"] < len(own_rules):
                raise MergeError(f"{name}: a result's ruleIndex points past the run's rules")
            located.append((_path_order(_result_uri(result)), result))
    located.sort(key=lambda pair: pair[0])
    codes = sorted(rules)
    index = {code: i for i, code in enumerate(codes)}
    results = []
    for _, result in located:
        if "ruleIndex" in result and result.get("ruleId") in index:
            result = result | {"ruleIndex": index[result["ruleId"]]}
        results.append(result)
    driver = first["tool"]["driver"] | {"rules": [rules[code] for code in codes]}
    tool = first["tool"] | {"driver": driver}
    return {key: (tool if key == "tool" else results if key == "results" else first[key]) for key in first} | (
        {"results": results} if "results" not in first else {}
    )


def _result_uri(result: dict[str, Any]) -> str:
    try:
        return str(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
    except (KeyError, IndexError, TypeError):
        return ""
