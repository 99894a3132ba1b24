"""Which stored rule a rule of a new version is (``rules.importing.identity``): the cases
the release sets of test_releases.py turned up, as small records."""

from rules.importing.identity import Rule, match

TIDE = "When the tide card shows a storm, every boat on an outer berth loses one crate at once."
TIDE_REWRITTEN = (
    "When a storm shows on the tide card, a boat on any outer berth at once loses one crate of its "
    "owner's choice; an empty boat pays a coin instead."
)
TABLE_TALK = "Table talk is allowed, but a promise between players never binds and may be broken."


def test_a_rule_rewritten_in_other_words_under_its_number_is_the_same_rule():
    pairs = match([Rule("old", "201.2", TIDE)], [Rule("new", "201.2", TIDE_REWRITTEN)])
    assert pairs == {"new": "old"}


def test_another_rule_put_in_a_rule_s_place_is_a_new_rule():
    assert match([Rule("old", "100.4", TIDE)], [Rule("new", "100.4", TABLE_TALK)]) == {}


def test_punctuation_and_capitals_change_no_word():
    stored = Rule("old", "7.1", "A boat, once loaded, sails; it may not return.")
    assert match([stored], [Rule("new", "7.1", "a boat once loaded sails - It may not return")]) == {"new": "old"}


def test_a_reworded_rule_that_moved_is_found_before_the_new_rule_under_its_old_number():
    stored = [Rule("tide", "201.2", TIDE)]
    new = [
        Rule("inserted", "201.2", "When the tide card shows a calm sea, every boat on an outer berth may move."),
        Rule("moved", "201.3", TIDE.replace("at once", "immediately")),
    ]
    assert match(stored, new) == {"moved": "tide"}


def test_a_section_renamed_under_its_number_is_the_same_section():
    pairs = match(
        [Rule("old", "301", "Flocks", heading=True)], [Rule("new", "301", "Flocks and Shepherds", heading=True)]
    )
    assert pairs == {"new": "old"}
