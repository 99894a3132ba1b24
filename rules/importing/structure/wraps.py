"""Hard line wraps and hyphenation: how two lines of one block are joined.

Whether a document is hard-wrapped (PDF text) or has one line per paragraph (web text)
is measured, not assumed (``measure``): in a wrapped text many lines end mid-sentence
and the next one starts in lower case.

Hyphenation (``join_point``): a word broken at a line-end hyphen is rejoined or keeps its
hyphen by the document's own spelling of it elsewhere (``Evidence``), then the word list,
then a language rule (``hyphen_decision``). Only the end of the previous line is read,
so joining is linear however long a block grows.
"""

import re

from ..cleaning import Line
from ..vocabulary import zipf
from .markers import HYPHEN_CONJUNCTIONS, ends_sentence

_WORD_END = re.compile(r"([^\W\d_]+)$")
_WORD_START = re.compile(r"[^\W\d_]+(-[^\W\d_]+)?")
_WORDS = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


# -- Joining wrapped lines and hyphenation ---------------------------------------------


class Evidence:
    """The document's own words: which spelling of a word broken at a hyphen it uses."""

    def __init__(self, lines: list[Line]):
        # a line's final "-" goes: the broken word's head is no evidence of a compound
        text = "\n".join(line.text.rstrip().removesuffix("-") for line in lines).lower()
        words = set(_WORDS.findall(text))
        compounds = {word for word in words if "-" in word}
        for compound in compounds:
            words.update(compound.split("-"))
        self.words = words
        self.compounds = compounds

    def has_word(self, word: str) -> bool:
        if word in self.words:
            return True
        # Inflection: "Begegnungskarte" is evidenced by "Begegnungskarten".
        return any(word + ending in self.words for ending in ("s", "n", "en", "e", "es", "er")) or (
            len(word) > 5
            and any(
                word.endswith(e) and word[: -len(e)] in self.words for e in ("s", "n", "en", "e")
            )
        )

    def has_compound(self, compound: str) -> bool:
        return compound in self.compounds or any(
            compound + e in self.compounds for e in ("s", "n", "en", "e")
        )


def join_wrapped(left: str, right: str, language: str, evidence: Evidence | None = None) -> str:
    """Join a hard-wrapped line; rejoin a word hyphenated across the break.

    Only the end of ``left`` is looked at, so joining stays linear on long blocks.
    """
    right = right.strip()
    cut, glue = join_point(left[-80:], right, language, evidence)
    return (left[:-cut] if cut else left) + glue + right


def join_point(
    left: str, right: str, language: str, evidence: Evidence | None = None
) -> tuple[int, str]:
    """How to join ``right`` after ``left``: (characters to drop from left's end, glue).

    A word broken at a hyphen ("Begegnungs-" + "karte", "con-" + "trol") is rejoined; a
    real hyphenated word keeps its hyphen and gets no space ("well-" + "known",
    "Marvel-" + "Helden"); "Spieler-" + "und …" keeps hyphen and space.
    """
    left = left.rstrip()
    if not left.endswith("-") or left.endswith((" -", "--")):
        return 0, " "
    right_word = _WORD_START.match(right)
    head_match = _WORD_END.search(left[-60:-1])
    if left[-2:-1].isdigit() and right[:1].isdigit():
        return 0, ""  # "2-" + "3 players"
    if not head_match or not right_word:
        return 0, ""
    head = head_match.group(1)
    tail = right_word.group(0)
    if tail.lower() in HYPHEN_CONJUNCTIONS:
        return 0, " "  # "Spieler- und Begegnungskarten", "vuur- en waterwaarden"
    if right_word.group(1):
        return 0, ""  # "Nicht-" + "im-Spiel-Zone": the continuation is itself a compound
    return (1, "") if hyphen_decision(head, tail, language, evidence) else (0, "")


def hyphen_decision(head: str, tail: str, language: str, evidence: Evidence | None = None) -> bool:
    """True: the hyphen is a line-end hyphenation (drop it); False: a real hyphen.

    Evidence from the document first (the joined word, or the hyphenated form, used
    elsewhere in it), then the word list, then a language rule: in German, Dutch and
    Polish a lower-case continuation is a hyphenation, an upper-case one a compound.
    """
    if tail[:1].isupper() and not (head.isupper() and tail.isupper()):
        return False  # "Marvel-Helden", "Nicht-Identitätskarte", "X-Men"
    if len(head) == 1:
        return False  # "E-", "x-" + …: a letter, not a syllable
    joined = (head + tail).lower()
    hyphenated = f"{head}-{tail}".lower()
    if evidence is not None:
        joined_seen, hyphenated_seen = evidence.has_word(joined), evidence.has_compound(hyphenated)
        if joined_seen != hyphenated_seen:
            return joined_seen
    lang = language if language in ("en", "de", "pl", "nl", "fr", "es", "it") else "en"
    z_joined = zipf(joined, lang)
    if lang in ("de", "nl", "pl"):
        if z_joined > 0:
            return True
        if (
            lang == "nl"
            and head[-1:].lower() in "aeiou"
            and (head[-1] + tail[:1]).lower() in _DUTCH_VOWEL_CLASH
        ):
            return False  # "zee-egel", "auto-ongeluk": the hyphen keeps the vowels apart
        return True
    z_head, z_tail = zipf(head.lower(), lang), zipf(tail.lower(), lang)
    if z_joined > 0 and (z_joined >= 1 and z_joined >= min(z_head, z_tail) - 2):
        return True  # "con-trol", "any-one", "there-fore"
    if z_head >= 2.5 and z_tail >= 2.5 and len(head) > 1 and len(tail) > 1:
        return False  # "well-known", "two-player", "face-down"
    return True  # a fragment of a word the list does not know: "mar-shaling"


# fmt: off
_DUTCH_VOWEL_CLASH = {
    "aa", "ae", "ai", "au", "ee", "ei", "eu", "ie", "oo", "oe", "oi", "ou", "ui", "uu", "ea",
    "eo", "ia", "io", "oa",
}
# fmt: on


def measure(lines: list[Line]) -> tuple[int, bool]:
    """The wrap width and whether the text is wrapped.

    The width is the 90th percentile of the lengths of lines that certainly wrapped (they
    stop mid-sentence and the next line goes on in lower case), or of all lines when
    there are too few of those: long list items that were never wrapped do not count.
    """
    texts = [line.text.strip() for line in lines if line.text.strip()]
    if not texts:
        return 0, False
    wrapped_lengths = sorted(
        len(a)
        for a, b in zip(texts, texts[1:], strict=False)
        if not ends_sentence(a) and b[:1].islower()
    )
    wrapped = len(wrapped_lengths) >= max(2, 0.15 * len(texts))
    lengths = wrapped_lengths if len(wrapped_lengths) >= 5 else sorted(len(text) for text in texts)
    return lengths[int(0.9 * (len(lengths) - 1))], wrapped

