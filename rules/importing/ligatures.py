"""Repair ligatures that a PDF's text layer turned into Private Use Area characters.

Each font maps its ligature glyphs to code points of its own, so no fixed table works:
for every PUA character we try the ligatures typography uses and keep the one that turns
the most of the document's damaged words into real words of the document's language.
"""

import re
from dataclasses import dataclass

from .vocabulary import zipf

CANDIDATES = ["ff", "fi", "fl", "ffi", "ffl", "ft", "fj", "fb", "fh", "fk", "st", "ct", "th", "tt", "sp", "ck"]
PUA = re.compile(r"[\ue000-\uf8ff]")
TOKEN = re.compile(r"[\w\ue000-\uf8ff'’]+")
# The word before a mid-sentence position: two or more lower-case letters, or a comma.
MID_SENTENCE = re.compile(r"(?:\b[^\W\d_]*[a-zà-ÿ]{2}|,)\s*$")
# Unicode's own presentation forms (ﬁ, ﬂ, …) have a canonical spelling already.
PRESENTATION_FORMS = {chr(c): None for c in range(0xFB00, 0xFB07)}


@dataclass
class LigatureRepair:
    character: str
    replacement: str
    count: int
    examples: list[str]

    @property
    def original(self) -> str:
        return f"U+{ord(self.character):04X}"


def repair_ligatures(text: str, language: str) -> tuple[str, list[LigatureRepair]]:
    import unicodedata

    for form in PRESENTATION_FORMS:
        if form in text:
            text = text.replace(form, unicodedata.normalize("NFKC", form))
    characters = sorted(set(PUA.findall(text)))
    repairs = []
    for char in characters:
        replacement, examples = _infer(text, char, language)
        if replacement is None:
            continue
        count = text.count(char)
        text = text.replace(char, replacement)
        repairs.append(LigatureRepair(char, replacement, count, examples))
    return text, repairs


def _infer(text: str, char: str, language: str) -> tuple[str | None, list[str]]:
    occurrences = [m for m in TOKEN.finditer(text) if char in m.group(0)]
    words = [m.group(0) for m in occurrences]
    # Capitalised when the character only ever starts a word at the start of a sentence
    # ("\ue01fe" → "The"), lower case otherwise ("e\ue01dect" → "effect").
    capital = all(m.group(0).startswith(char) and _starts_sentence(text, m.start()) for m in occurrences)
    best, best_score = None, (0, 0.0)
    for candidate in CANDIDATES:
        if capital:
            candidate = candidate.capitalize()
        known, weight = 0, 0.0
        for word in words:
            repaired = PUA.sub("", word.replace(char, candidate))
            frequency = zipf(repaired.lower(), language)
            if frequency > 0:
                known += 1
                weight += frequency
        if (known, weight) > best_score:
            best, best_score = candidate, (known, weight)
    if best is None or best_score[0] * 2 < len(words):  # must explain most of its words
        return None, []
    examples = sorted({w.replace(char, best) for w in words})[:5]
    return best, examples


def _starts_sentence(text: str, position: int) -> bool:
    """Not preceded by a lower-case word or a comma (a lone bullet letter does not count)."""
    return not MID_SENTENCE.search(text[max(0, position - 40) : position])
