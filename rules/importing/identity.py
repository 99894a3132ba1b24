"""Which stored rule a numbered rule of a new version is: identity by text, not by number.

A publisher's new version inserts a rule in the middle of a list and its siblings
shift (x.3a becomes x.4a with the same text), rewords a rule here and there and drops
another. Matched by number (or by a title made from the number), every shifted rule
would look rewritten and the site would forget which rule was which. So the numbered
entries of a document are matched to the source's stored numbered entries, in passes,
each taking only what the passes before left:

1. the same number and the same text: the same rule, unchanged;
2. the same text under another number: the same rule, renumbered (texts that occur more
   than once are paired in document order);
3. a heading (a section's title, no text of its own) under its number: the same
   heading, however it is renamed;
4. a similar text: the same rule, changed, and renumbered if its number is another. A
   small edit in place is taken at once; then the most similar pairs first, whatever
   their numbers, so a reworded rule that moved finds its old self before a new rule
   that took its old number can.

What is left is new (added) on the document's side and gone on the stored side. "Text"
is the body with white space collapsed, or the title for a heading with no body of its
own; "similar" is a word-level similarity (``SIMILAR_SAME_NUMBER``, ``SIMILAR_MOVED``) over
the words case-folded and without punctuation (a comma made a semicolon changes no
word): an edit keeps the rule, a new text under an old number is a new rule.
Pure functions over small records: no database, no Django.
"""

import difflib
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property

# Word-level similarity (difflib ratio) from which a text is an edit of another: under
# the same number a looser bar (its place already says it is that rule), under another
# number a stricter one. A few words changed in a 20-word rule is about 0.85; a rule
# rewritten in other words with the same meaning keeps about half of them in order
# (0.48 to 0.62 in the release sets of tests/importing, four languages); a rule put
# outright in another's place shared 0.08 to 0.13 with it there, and two unrelated rules
# of a game share their common words, 0.05 to 0.42. Under its own number the bar leans
# to "the same rule": a rule wrongly kept is a reworded line whose diff shows the whole
# new text, but a rule wrongly taken for new loses its history, its address and its
# links. The most-similar-first order keeps a shifted rule from that looser bar.
SIMILAR_SAME_NUMBER = 0.4
SIMILAR_MOVED = 0.75
# Pass 4 compares every left-over new rule with every left-over stored one; above this
# many pairs (a document rewritten throughout) only pairs that pass difflib's cheap upper
# bounds are scored.
FULL_COMPARISON_PAIRS = 20_000
WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Rule:
    """A numbered rule, stored or new: its key (a stored row's id, an item's index)."""

    key: object
    number: str
    text: str
    heading: bool = False

    @cached_property  # compared with many rules in pass 4
    def words(self) -> tuple[str, ...]:
        return words_of(self.text)


def words_of(text: str) -> tuple[str, ...]:
    """The words similarity compares: case-folded, without punctuation."""
    return tuple(WORD.findall(text.casefold()))


def text_of(body: str, title: str) -> str:
    """What a rule's identity is compared on: its body, else its title (a heading)."""
    return " ".join((body or title).split())


def similarity(a: Rule, b: Rule) -> float:
    return difflib.SequenceMatcher(a=a.words, b=b.words, autojunk=False).ratio()


def match(stored: list[Rule], new: list[Rule]) -> dict[object, object]:
    """New rule key → stored rule key, for the new rules that are a stored one (the
    passes of the module docstring). Each stored rule is taken at most once."""
    pairs: dict[object, object] = {}
    taken: set[object] = set()

    def left(rules, used):
        return [rule for rule in rules if rule.key not in used]

    def pair_exactly(new_rules, stored_rules, key) -> None:
        """Pair each new rule with the first stored one of the same ``key`` left."""
        by_key = defaultdict(list)
        for rule in stored_rules:
            by_key[key(rule)].append(rule)
        for rule in new_rules:
            candidates = [c for c in by_key.get(key(rule), ()) if c.key not in taken]
            if candidates:
                pairs[rule.key] = candidates[0].key
                taken.add(candidates[0].key)

    # 1. same number, same text
    pair_exactly(new, stored, lambda rule: (rule.number, rule.text))
    # 2. same text, another number: paired in document order
    pair_exactly(left(new, pairs), left(stored, taken), lambda rule: rule.text)
    # 3. a heading under its number, however renamed
    headings = {rule.number: rule for rule in left(stored, taken) if rule.heading}
    for rule in left(new, pairs):
        heading = headings.get(rule.number) if rule.heading else None
        if heading is not None and heading.key not in taken:
            pairs[rule.key] = heading.key
            taken.add(heading.key)
    # 4. a similar text. An edit of a few words in its place is taken at once (the common
    # case, and it keeps the comparisons below few); then the most similar pairs first,
    # the same number first among equals.
    by_number = {rule.number: rule for rule in left(stored, taken) if not rule.heading}
    for rule in left(new, pairs):
        in_place = None if rule.heading else by_number.get(rule.number)
        if in_place is not None and in_place.key not in taken and similarity(rule, in_place) >= SIMILAR_MOVED:
            pairs[rule.key] = in_place.key
            taken.add(in_place.key)
    rest_new = [rule for rule in left(new, pairs) if not rule.heading]
    rest_stored = [rule for rule in left(stored, taken) if not rule.heading]
    scored = []
    cheap = len(rest_new) * len(rest_stored) > FULL_COMPARISON_PAIRS
    matcher = difflib.SequenceMatcher(autojunk=False)
    for b in rest_stored:
        matcher.set_seq2(b.words)  # difflib indexes the second sequence once
        for a in rest_new:
            bar = SIMILAR_SAME_NUMBER if a.number == b.number else SIMILAR_MOVED
            matcher.set_seq1(a.words)
            if cheap and (matcher.real_quick_ratio() < bar or matcher.quick_ratio() < bar):
                continue
            score = matcher.ratio()
            if score >= bar:
                scored.append((-score, a.number != b.number, a.key, b.key))
    for *_rank, a_key, b_key in sorted(scored, key=lambda s: s[:2]):
        if a_key not in pairs and b_key not in taken:
            pairs[a_key] = b_key
            taken.add(b_key)
    return pairs
