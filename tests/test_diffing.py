"""Word diffs (rules/shared/diffing.py): what was removed and added, whatever the text's size.

A whole chapter stored as one entry (a document whose sections the importer does not
split) is compared word by word: its diff marks exactly the words that changed, and each
side reads back from it as it was (bench/plan_release.py measures its speed: a release
of such a document used to spend minutes on this one diff).
"""

import html
import random
import re

from rules.shared.diffing import LONG_TEXT_TOKENS, word_diff_html


def side(diff: str, keep: str, drop: str) -> str:
    """One side of a diff: the text with ``keep``'s marks unwrapped and ``drop``'s removed."""
    text = re.sub(rf"<{drop}>.*?</{drop}>", "", diff, flags=re.S)
    return html.unescape(re.sub(rf"</?{keep}>", "", text))


def chapter(words: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    vocabulary = "the a card player may play one each turn when attack defend draw discard cost".split()
    rules = []
    for number in range(words // 20):
        rules.append(f"{number}.1. " + " ".join(rng.choice(vocabulary) for _ in range(18)) + ".")
    return "\n\n".join(rules)


def test_a_long_text_is_diffed_word_by_word_and_both_sides_read_back():
    original = chapter(6000)
    assert len(re.findall(r"\s+|\S+", original)) > LONG_TEXT_TOKENS
    rules = original.split("\n\n")
    rules[10] = rules[10].replace("1.", "1. Reworded", 1)
    rules.insert(200, "200.0. An inserted rule & more.")
    del rules[250]
    corrected = "\n\n".join(rules)

    diff = str(word_diff_html(original, corrected))

    assert side(diff, "ins", "del") == corrected
    assert side(diff, "del", "ins") == original
    assert "<ins>Reworded </ins>" in diff
    assert "<ins>200.0. An inserted rule &amp; more.\n\n</ins>" in diff
    assert diff.count("<del>") == 1 and diff.count("<ins>") == 2  # nothing else marked
    shortened = str(word_diff_html(original, corrected, context=3))
    assert len(shortened) < len(diff) / 20 and "<ins>Reworded </ins>" in shortened


def test_a_short_text_still_shows_a_change_of_white_space():
    assert str(word_diff_html("Draw a card.", "Draw a\ncard.")) == "Draw a<del> </del><ins>\n</ins>card."
