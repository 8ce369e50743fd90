"""Reading a routing answer exactly as Leviath does.

Every expected target below was worked out by hand from Leviath's rule
(`match_transition_choice`): lines end at `\\n` only and are trimmed of Unicode White_Space;
the candidates are the first non-blank line, then the last one if it has at most 3 words;
a word is a maximal run of characters that are `_` or Rust-alphanumeric (Unicode
`Alphabetic`, or a number category); words are scanned left to right, `done` (ASCII case
folded) completes when allowed, a word equal to an offered name (ASCII case folded) picks
it; no match: DONE when allowed, else the first offered edge.
"""

from __future__ import annotations

import unicodedata

import pytest

from compiler.runtime.routing import DONE, candidate_lines, match_reply
from compiler.runtime.words import WHITE_SPACE, is_word_char, lines, words

WORK = ["implement", "review"]
PLANNING = ["plan", "implement"]

CASES = [
    # (reply, offered, allow_done, expected, why)
    (
        "Let me think about the implementation work.\nreview \u2014 definitely now",
        WORK,
        False,
        "review",
        "the last line has 3 words (the dash is no word), so it is read",
    ),
    (
        "Thinking about the next step here.\nI-will-pick-review",
        WORK,
        False,
        "implement",
        "hyphens split words: the last line has 4, so only the first line is read; fallback",
    ),
    ("review.", WORK, False, "review", "punctuation ends a word"),
    ("**Review**", WORK, False, "review", "markdown around the name; ASCII case folded"),
    ("`implement`", WORK, False, "implement", "backticks are no part of a word"),
    ("re-view", WORK, False, "implement", "'re' and 'view' are two words; fallback"),
    ("implement-review", WORK, False, "implement", "the first word that names a stage wins"),
    ("review, or implement?", WORK, False, "review", "several names: the first in the line"),
    ("review\n\nimplement", WORK, False, "review", "the first line is read before the last"),
    (
        "I looked at everything carefully.\n\nimplement",
        ["review", "implement"],
        False,
        "implement",
        "nothing in the first line; the short last line decides",
    ),
    ("Long analysis here.\ngo to review", ["plan", "review"], False, "review", "a 3-word last line is read"),
    (
        "Long analysis here.\nnow we go to review",
        ["plan", "review"],
        False,
        "plan",
        "a 5-word last line is prose: fallback to the first offered",
    ),
    ("Reviewing is next", WORK, False, "implement", "'reviewing' is not the word 'review'"),
    ("review2", WORK, False, "implement", "digits belong to the word"),
    ("review\u00b2", WORK, False, "implement", "a superscript two is a number (No): part of the word"),
    (
        "review\u0345",
        WORK,
        False,
        "implement",
        "U+0345 is Alphabetic (Other_Alphabetic), so it glues to the word; Python's isalnum says no",
    ),
    ("review\u24b6", WORK, False, "implement", "a circled letter is Alphabetic: one word"),
    ("review\u093e", WORK, False, "implement", "a Devanagari vowel sign is Alphabetic: one word"),
    ("review\u0301", WORK, False, "review", "U+0301 (combining acute) is not Alphabetic: it ends the word"),
    ("review\u200dnow", WORK, False, "review", "a zero-width joiner is no letter: it splits"),
    (
        "\uff32\uff25\uff36\uff29\uff25\uff37",
        WORK,
        False,
        "implement",
        "fullwidth letters are letters, but only ASCII case is folded: no match",
    ),
    ("\u00c9TAPE", ["plan", "\u00e9tape"], False, "plan", "\u00c9 and \u00e9 differ beyond ASCII: no match"),
    ("\u00e9tape", ["plan", "\u00e9tape"], False, "\u00e9tape", "a non-ASCII name matches itself"),
    ("REVIEW", ["plan", "Review"], False, "Review", "a capitalised stage name, matched in any ASCII case"),
    ("error_recovery", ["implement", "error_recovery"], False, "error_recovery", "_ belongs to the word"),
    ("error recovery", ["implement", "error_recovery"], False, "implement", "two words; fallback"),
    ("deep-dive", ["plan", "deep-dive"], False, "plan", "a name with a hyphen never matches"),
    ("deep-dive", ["deep-dive", "plan"], False, "deep-dive", "... it is only ever taken as the fallback"),
    ("DONE", WORK, True, DONE, "DONE when allowed"),
    ("DONE", WORK, False, "implement", "DONE when not allowed is no word of interest"),
    ("done.", WORK, True, DONE, "any ASCII case, with punctuation"),
    ("Done\u2014review", WORK, True, DONE, "done comes first on the line"),
    ("review, then DONE", WORK, True, "review", "the stage name comes first on the line"),
    ("I'm done with the review", WORK, True, DONE, "done anywhere on the first line, before the name"),
    ("done\nreview", WORK, False, "review", "done not allowed; the short last line names review"),
    (
        "DONE\n\nThe approved plan is now fully implemented",
        ["review", "plan"],
        False,
        "review",
        "DONE ignored, and the 7-word last line is never read",
    ),
    (
        "The implementation follows the plan.\n\nAPPROVED.",
        ["implement", "error_recovery"],
        True,
        DONE,
        "nothing matches: DONE, since it is allowed",
    ),
    ("", WORK, False, "implement", "an empty answer: fallback"),
    (" \n\t\n\u3000\n", WORK, True, DONE, "only White_Space lines: nothing read; DONE allowed"),
    ("Nothing decided yet\r\nimplement\r\n", PLANNING, False, "implement", "CRLF line ends are trimmed"),
    (
        "Nothing decided yet\nmore prose that runs on for a while\u2028implement",
        PLANNING,
        False,
        "plan",
        "U+2028 does not end a line: the last line has 9 words and is not read",
    ),
    (
        "Nothing decided yet\n\x1cimplement\x1c",
        PLANNING,
        False,
        "implement",
        "\\x1c is not trimmed, but it is no word character either",
    ),
    ("plan\u00a0", PLANNING, False, "plan", "a no-break space is trimmed"),
]


@pytest.mark.parametrize(("reply", "offered", "allow_done", "expected", "why"), CASES, ids=range(len(CASES)))
def test_a_routing_answer_is_read_as_leviath_reads_it(reply, offered, allow_done, expected, why):
    assert match_reply(reply, offered, allow_done) == expected, why


def test_the_table_covers_the_tricky_kinds():
    assert len(CASES) >= 20
    replies = [case[0] for case in CASES]
    assert any("-" in r for r in replies) and any("DONE" in r or "done" in r.lower() for r in replies)
    assert any(not r.isascii() for r in replies) and any("\n\n" in r for r in replies)
    assert any(
        len(words(r)) >= 2 and sum(w.lower() in case[1] for w in words(r)) >= 2 for r, case in zip(replies, CASES)
    )


def test_no_answer_can_choose_among_no_edges():
    assert match_reply("review", [], False) is DONE


def test_words_are_runs_of_alphabetic_numeric_and_underscore():
    assert words("go-to plan_b, now!") == ["go", "to", "plan_b", "now"]
    assert words("\u00c9TAPE na\u00efve") == ["\u00c9TAPE", "na\u00efve"]
    assert words("x\u0345y \u24b6\u24b7 a\u0301b") == ["x\u0345y", "\u24b6\u24b7", "a", "b"]
    assert words("I-will-pick-review") == ["I", "will", "pick", "review"]


def test_word_characters_are_letters_numbers_alphabetic_marks_and_underscore():
    for char in "aZ9_\u00e9\u4e2d\u0661\u2167\u00bd\u0345\u093e\u24b6":
        assert is_word_char(char), hex(ord(char))
    for char in " -.\u0301\u200d\u2014\u00b7\x00\U0001f600":
        assert not is_word_char(char), hex(ord(char))
    # Every letter and number is one; only the Alphabetic marks are added beyond them.
    sample = [chr(c) for c in range(0x20, 0x3000)]
    for char in sample:
        if unicodedata.category(char)[0] in "LN":
            assert is_word_char(char)
        elif char != "_" and is_word_char(char):
            assert unicodedata.category(char) in ("Mn", "Mc", "So"), hex(ord(char))


def test_lines_end_at_newline_only_and_are_trimmed_of_white_space():
    assert lines("a\r\n\n  b \u2028c\x1c") == ["a", "b \u2028c\x1c"]
    assert lines("\u0085x\u00a0\n\u3000") == ["x"]
    assert set(WHITE_SPACE) >= {"\t", "\r", " ", "\u2028", "\u3000"} and "\x1c" not in WHITE_SPACE


def test_candidate_lines():
    assert candidate_lines("a\n\n  b c d  ") == ["a", "b c d"]
    assert candidate_lines("a\nb c d e") == ["a"]
    assert candidate_lines("a\nb-c-d-e") == ["a"]
    assert candidate_lines("only") == ["only"]
    assert candidate_lines(" \n ") == []
