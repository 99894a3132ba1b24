"""Word diffs (rules.shared.diffing): always a correct diff, minimal when affordable,
and bounded in cost whatever a stranger sends."""

import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.shared.diffing import TooCostly, bounded_opcodes, word_diff_html, word_segments

DEMO = Path(__file__).resolve().parent.parent / "rules" / "demo"


def longest_common_subsequence(a, b) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def applied(codes, a, b):
    """Both texts read back from the opcodes: (a's side, b's side)."""
    old, new = [], []
    for op, i1, i2, j1, j2 in codes:
        old += a[i1:i2]
        new += b[j1:j2]
        if op == "equal":
            assert a[i1:i2] == b[j1:j2]
    return old, new


tokens = st.lists(st.sampled_from("abcd"), max_size=18)


@settings(max_examples=400, deadline=None)
@given(tokens, tokens)
def test_opcodes_are_a_shortest_edit_script(a, b):
    codes = bounded_opcodes(a, b)
    assert applied(codes, a, b) == (a, b)
    kept = sum(i2 - i1 for op, i1, i2, _j1, _j2 in codes if op == "equal")
    assert kept == longest_common_subsequence(a, b)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab \n.", max_size=60), st.text(alphabet="abc \n.", max_size=60))
def test_every_fallback_still_gives_the_new_text(original, corrected):
    """Minimal or coarse, removing <del> and unwrapping <ins> gives the new text back,
    and unwrapping <del> and removing <ins> the old one."""
    for segments in (word_segments(original, corrected),):
        assert "".join("".join(new) for _op, _old, new in segments) == corrected
        assert "".join("".join(old) for _op, old, _new in segments) == original
    html = str(word_diff_html("<" + original, "<" + corrected))
    unescape = lambda text: text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")  # noqa: E731
    assert unescape(re.sub(r"<del>.*?</del>|</?ins>", "", html, flags=re.S)) == "<" + corrected
    assert unescape(re.sub(r"<ins>.*?</ins>|</?del>", "", html, flags=re.S)) == "<" + original


def test_a_one_word_edit_reads_as_one_word():
    html = word_diff_html("Play a reaction after the trigger.", "Play a reaction before the trigger.")
    assert html == "Play a reaction <del>after</del><ins>before</ins> the trigger."


def test_the_work_limit_holds():
    repeated = ["a", " "] * 5000
    text = re.findall(r"\s+|\S+", (DEMO / "marvel-champions-de-du-dein.txt").read_text())
    with pytest.raises(TooCostly):
        bounded_opcodes(text, repeated, limit=50_000)
    edited = text[:50] + ["neu", " "] + text[50:]  # an ordinary edit stays far under it
    assert applied(bounded_opcodes(text, edited, limit=50_000), text, edited) == (text, edited)


@pytest.mark.parametrize(
    "proposal",
    [
        "a " * 25_000,  # the attack: one short word repeated
        "a b " * 12_500,
        "a\n" * 25_000,  # the same by lines
        "Karte " * 8_333,  # a word the text has, repeated
        "x" * 50_000,  # one long token
    ],
    ids=["word", "two-words", "lines", "known-word", "one-token"],
)
def test_a_50000_character_proposal_is_diffed_in_linear_time(proposal):
    """The suggestion form's worst case: its largest proposal against a real entry
    (difflib took over 300 s for the first). A guard against a super-linear diff coming
    back, with a wide margin (CPU time, 3 s: this machine needs 0.1-0.2 s alone, up to a
    second with every core busy); bench/worst_case.py measures the real figure."""
    body = (DEMO / "marvel-champions-de-du-dein.txt").read_text()
    for original, corrected in ((body, proposal), (proposal, body), (proposal, proposal[::-1] + "z")):
        started = time.process_time()
        html = word_diff_html(original, corrected, context=12)
        assert time.process_time() - started < 3.0
        assert "<del>" in html or "<ins>" in html


def test_past_the_budget_the_diff_goes_by_lines():
    """A long text whose word diff is over budget still shows which lines changed."""
    lines = [f"Rule {n}: " + "a b " * 40 for n in range(400)]
    changed = [line if n % 50 else line.replace("Rule", "Regel") for n, line in enumerate(lines)]
    segments = word_segments("\n".join(lines), "\n".join(changed))
    edits = [(old, new) for op, old, new in segments if op != "equal"]
    assert all("".join(old).strip() == "Rule" and "".join(new).strip() == "Regel" for old, new in edits)
    assert len(edits) == 8


def test_diffs_of_one_page_share_a_budget_and_stay_correct_past_it():
    """A history page of many versions of a long text: each diff bounded is not enough."""
    from rules.shared.diffing import WORK_LIMIT, PageBudget

    body = (DEMO / "marvel-champions-de-du-dein.txt").read_text()
    page = PageBudget(2 * WORK_LIMIT)
    started = time.process_time()
    diffs = [word_segments(body, ("a " if n % 2 else "b ") * 25_000, page) for n in range(30)]
    assert time.process_time() - started < 2.0  # thirty at their worst would be several seconds
    assert page.left <= 0
    for segments in diffs:  # each still a correct diff
        assert "".join("".join(old) for _op, old, _new in segments) == body
    # an ordinary edit on the same page, past the budget: coarse, still correct
    edited = body.replace("Kartenfähigkeit", "Kartenfaehigkeit", 1).replace("Vorteil", "Vorteile")
    late = word_segments(body, edited, page)
    assert "".join("".join(new) for _op, _old, new in late) == edited
    changes = lambda segments: sum(op != "equal" for op, _old, _new in segments)  # noqa: E731
    assert changes(late) == 1 and changes(word_segments(body, edited)) > 1  # alone: one-word changes
