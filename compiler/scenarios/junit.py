"""JUnit XML for `blueprint test --format junit`: what CI systems show in their test tabs.

One `<testsuite>` per scenario file, one `<testcase>` per scenario, a `<failure>` carrying the
same text the terminal shows. A problem that kept scenarios from running (a format error, a
blueprint with errors) is a test case with an `<error>`. The shape follows the JUnit XML that
Jenkins, GitLab and GitHub test reporters read (the Jenkins xUnit plugin's junit-10 schema).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from ..display import xml_visible
from ..render.text import render_diagnostic
from .report import failure_text
from .runner import FileOutcome

#: Characters XML 1.0 cannot carry at all, replaced by U+FFFD.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _seconds(value: float) -> str:
    return f"{max(value, 0.0):.3f}"


def render_junit(outcomes: Sequence[FileOutcome]) -> str:
    root = ET.Element("testsuites", name="blueprint test")
    total = {"tests": 0, "failures": 0, "errors": 0, "time": 0.0}
    for outcome in outcomes:
        path = outcome.file.path
        suite_time = sum(r.seconds for r in outcome.results)
        suite = ET.SubElement(root, "testsuite", name=_clean(path))
        classname = _clean(path)
        for result in outcome.results:
            case = ET.SubElement(
                suite, "testcase", name=_clean(result.scenario.name), classname=classname, time=_seconds(result.seconds)
            )
            if result.failures:
                first = result.failures[0]
                failure = ET.SubElement(
                    case,
                    "failure",
                    message=_clean(first.message),
                    type="script-mismatch" if first.key == "script" else "expectation-failed",
                )
                failure.text = _clean(failure_text(outcome, result))
        for problem in outcome.problems:
            case = ET.SubElement(
                suite, "testcase", name=_clean(f"{path} ({problem.code})"), classname=classname, time="0.000"
            )
            error = ET.SubElement(case, "error", message=_clean(problem.message), type=problem.code)
            error.text = _clean(render_diagnostic(problem, outcome.file.source))
        tests = len(outcome.results) + len(outcome.problems)
        failures = sum(1 for r in outcome.results if r.failures)
        errors = len(outcome.problems)
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", str(errors))
        suite.set("skipped", "0")
        suite.set("time", _seconds(suite_time))
        total["tests"] += tests
        total["failures"] += failures
        total["errors"] += errors
        total["time"] += suite_time
    for key in ("tests", "failures", "errors"):
        root.set(key, str(total[key]))
    root.set("time", _seconds(float(total["time"])))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + xml_visible(ET.tostring(root, encoding="unicode")) + "\n"
