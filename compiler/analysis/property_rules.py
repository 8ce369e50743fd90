"""The codes of declared properties (`[[property]]` in a blueprint's `*.scenarios.toml`).

Declared here, beside the other `analysis` codes and as cheaply: the reading of the tables is
`property_spec.py`, their check over the explored runs `property_check.py`.
"""

from __future__ import annotations

from ..rulebook.registry import ANALYSIS
from ..rulebook.snippets import blueprint as _blueprint
from ..rulebook.snippets import stage as declared

_ILLUSTRATION = _blueprint(
    declared("draft"),
    "[stages.draft.transitions.review]",
    "[stages.draft.transitions.publish]",
    declared("review"),
    "[stages.review.transitions.publish]",
    declared("publish"),
    "[stages.publish.transitions]",
)
_WHY_ILLUSTRATIVE = (
    "a property is written in the blueprint's scenario file (agent.scenarios.toml), which a "
    "blueprint snippet cannot hold; the cases in tests/check_cases/{code}/ pair a blueprint with one"
)

PROPERTY_VIOLATED = ANALYSIS.define(
    "property-violated",
    severity="error",
    summary="A property declared in the blueprint's scenario file does not hold on some run.",
    rationale=(
        "A `[[property]]` table of `<blueprint>.scenarios.toml` says what must hold on every run "
        "(`precedes`, `never`, `reaches`, `at_most`; docs/check.md#declared-properties). "
        "`blueprint check` answers it over the same exploration as its other findings, so the "
        "answer is exact: when it says a run breaks the property, the trace under the finding is "
        "the shortest such run, replayed through the stage-runner. With the draft → publish "
        'edge of this example, `precedes = { first = "review", then = "publish" }` is broken '
        "by the run that goes straight from draft to publish."
    ),
    example=_ILLUSTRATION,
    illustrative_example=_WHY_ILLUSTRATIVE.format(code="property-violated"),
    fix="change the blueprint so that no run does what the trace shows, or correct the property",
)

PROPERTY_VACUOUS = ANALYSIS.define(
    "property-vacuous",
    severity="warning",
    summary="No run reaches what a declared property is about, so it holds only because nothing happens.",
    rationale=(
        "A property that no run can even put to the test says nothing: `precedes` whose `then` "
        "stage no run enters, `never` whose tool no stage a run enters offers, `reaches` in a "
        "blueprint where no run completes. Passing it silently would hide a property that has "
        "gone stale (a stage renamed, a tool removed from every stage), so it is reported."
    ),
    example=_ILLUSTRATION,
    illustrative_example=_WHY_ILLUSTRATIVE.format(code="property-vacuous"),
    fix="check that the property still names what the blueprint does, or remove it",
)

PROPERTY_UNPROVEN = ANALYSIS.define(
    "property-unproven",
    severity="warning",
    summary="A declared property can be neither proven nor refuted by the run analysis.",
    rationale=(
        "The analysis proves a property only over every run: when it stopped at its state limit "
        "(`analysis-incomplete`), what no run does is unknown, and a bound the analysis does not "
        "compute (a worst-case token count or cost without a ceiling) cannot be compared. Such a "
        "property is reported rather than passed: the finding says what is missing."
    ),
    example=_ILLUSTRATION,
    illustrative_example=_WHY_ILLUSTRATIVE.format(code="property-unproven"),
    fix="raise --max-states, or bound what the property limits",
)

PROPERTY_INVALID = ANALYSIS.define(
    "property-invalid",
    severity="error",
    summary="A `[[property]]` table cannot be read, or names a stage or tool the blueprint does not have.",
    rationale=(
        "A property must have a `name` and exactly one form, written as docs/check.md shows: "
        '`precedes = { first, then }`, `never = { tool, before }`, `reaches = "stage"`, '
        "`at_most = { inferences, visits, tokens, cost_usd }`. A stage or tool it names must be "
        "in the blueprint (a misspelt name would make the property hold vacuously); the finding "
        "suggests the closest name."
    ),
    example=_ILLUSTRATION,
    illustrative_example=_WHY_ILLUSTRATIVE.format(code="property-invalid"),
    fix="write the property as docs/check.md#declared-properties shows",
)

PROPERTY_RULES = (PROPERTY_VIOLATED, PROPERTY_VACUOUS, PROPERTY_UNPROVEN, PROPERTY_INVALID)
