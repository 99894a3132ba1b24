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
3. the same number and a similar text (a small edit): the same rule, changed;
4. a similar text under another number: the same rule, changed and renumbered.

What is left is new (added) on the document's side and gone on the stored side. "Text"
is the body with white space collapsed, or the title for a heading with no body of its
own; "similar" is a word-level similarity (``SIMILAR_SAME_NUMBER``, ``SIMILAR_MOVED``):
an edit of a few words keeps the rule, a new text under an old number is a new rule.
Pure functions over small records: no database, no Django.
"""

import difflib
from collections import defaultdict
from dataclasses import dataclass

# Word-level similarity (difflib ratio) from which a text is an edit of another: under
# the same number a looser bar (its place already says it is that rule), under another
# number a stricter one. A few words changed in a 20-word rule is about 0.85; two
# unrelated rules of a game share their common words and score 0.1 to 0.4.
SIMILAR_SAME_NUMBER = 0.6
SIMILAR_MOVED = 0.75
# Pass 4 compares every left-over new rule with every left-over stored one; above this
# many pairs (a document rewritten throughout) only pairs that pass difflib's cheap upper
# bounds are scored.
FULL_COMPARISON_PAIRS = 20_000


@dataclass(frozen=True)
class Rule:
    """A numbered rule, stored or new: its key (a stored row's id, an item's index)."""

    key: object
    number: str
    text: str

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(self.text.split())


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
    # 3. same number, a similar text
    by_number = defaultdict(list)
    for rule in left(stored, taken):
        by_number[rule.number].append(rule)
    for rule in left(new, pairs):
        candidates = [c for c in by_number.get(rule.number, ()) if c.key not in taken]
        best = max(candidates, key=lambda c: similarity(rule, c), default=None)
        if best is not None and similarity(rule, best) >= SIMILAR_SAME_NUMBER:
            pairs[rule.key] = best.key
            taken.add(best.key)
    # 4. a similar text under another number: the most similar pairs first
    rest_new, rest_stored = left(new, pairs), left(stored, taken)
    scored = []
    cheap = len(rest_new) * len(rest_stored) > FULL_COMPARISON_PAIRS
    for a in rest_new:
        for b in rest_stored:
            matcher = difflib.SequenceMatcher(a=a.words, b=b.words, autojunk=False)
            if cheap and (matcher.real_quick_ratio() < SIMILAR_MOVED or matcher.quick_ratio() < SIMILAR_MOVED):
                continue
            score = matcher.ratio()
            if score >= SIMILAR_MOVED:
                scored.append((-score, a.key, b.key))
    for _score, a_key, b_key in sorted(scored, key=lambda s: s[0]):
        if a_key not in pairs and b_key not in taken:
            pairs[a_key] = b_key
            taken.add(b_key)
    return pairs
