"""Repair ligatures that a PDF's text layer turned into Private Use Area characters.

Each font maps its ligature glyphs to code points of its own, so no fixed table works:
for every PUA character we try the ligatures typography uses and keep the one that turns
the most of the document's damaged words into real words of the document's language.
"""

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

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


# -- Ligatures the text layer dropped altogether ----------------------------------------
#
# Some PDFs lose ligature glyphs without a trace: "effect" comes out as "eect", "first"
# as "rst", "The" as "e". For each language we index the words (Zipf >= RARE) that
# contain a ligature by what they look like with it removed ("eect" → "effect"); a token
# of the document that is rare or unknown in that form and common in the repaired one
# is a candidate. Repairs are made only when the document shows the damage at least
# twice: tokens that are no word at all, or sentences that start in lower case with
# what is a common word once "Th" is put back ("e gold cost"). A clean document, or one
# with a single odd token, is never touched. Once the damage is shown:
#
# * a token that is no word at all becomes the dictionary word it stands for, however
#   rare ("classied" → "classified", "unfullled" → "unfulfilled", Zipf >= RARE);
# * where the document has lost every ligature (no word with "fi", "fl" or "ff" is left
#   in it), a short token that is a word fragment in its own right but rarer than the
#   repair ("ve" → "five", "o" → "off", "ip" → "flip") is repaired too, unless it
#   stands against an apostrophe or hyphen ("I've", "re-roll");
# * "Th" is put back at the start of a sentence, a heading and a list item ("- e first
#   player", "ose who …", "ere is …"), and, in English, where a lone "e" (never a word)
#   stands before a capitalised name in mid-sentence ("and e Red Tower").
#
# Every repair made is reported with the lines it was made on, and only those: the
# report is built from the replacements themselves.

DROPPED = ["ffi", "ffl", "ff", "fi", "fl", "ft"]
CAPITAL_DROPPED = ["Th"]
COMMON = 3.0  # Zipf: the repaired word must be at least this common …
RARE = 2.0  # … or, for a token that is no word at all in a damaged document, this common
GAIN = 2.0  # … and this much more common than the token as it stands.
# Once the document shows the damage, tokens that are words in their own right but
# much rarer than the repair ("nd" for "find") are repaired too.
DAMAGED_COMMON, DAMAGED_GAIN = 4.0, 1.5
PROOF = 2.0
INITIAL_THRESHOLD = 10 ** (4.5 - 9)  # Zipf 4.5: "Thus", "Therefore" open sentences too
FULL_GAIN = 0.0  # where every ligature is gone, a fragment rarer than its repair is repaired
INTACT = re.compile(r"[^\W\d_]*(?:fi|fl|ff)[^\W\d_]*")
ITEM_MARKER = re.compile(r"^\s*(?:[-–•*▪]|\d{1,3}[.)])\s+")  # a list item's bullet or number
ITEM_STARTS = "-–•*▪"
# A lone "e" is no English word: before a capitalised word it is "The" ("and e Red Tower").
# (The pattern starts with a literal, so the scan is a fast substring search.)
LONE_E = re.compile(r" e(?= +[A-ZÀ-Þ][^\W\d_])")
WORD = re.compile(r"[^\W\d_]+")
SENTENCE_END = ".!?:"


@dataclass
class DroppedRepair:
    original: str
    replacement: str
    lines: list[int]


@lru_cache(maxsize=8)
def _dropped_index(language: str) -> tuple[dict[str, str], dict[str, str]]:
    """(damaged → word for lower-case ligatures, damaged → word for a lost initial "Th")."""
    from wordfreq import get_frequency_dict

    from .vocabulary import KNOWN_LANGUAGES

    if language not in KNOWN_LANGUAGES:
        return {}, {}
    threshold = 10 ** (RARE - 9)
    inner: dict[str, tuple[float, str]] = {}
    initial: dict[str, tuple[float, str]] = {}
    for word, frequency in get_frequency_dict(language, wordlist="best").items():
        if frequency < threshold or not word.isalpha():
            continue
        for ligature in DROPPED:
            start = word.find(ligature)
            while start != -1:
                damaged = word[:start] + word[start + len(ligature) :]
                if damaged and frequency > inner.get(damaged, (0.0, ""))[0]:
                    inner[damaged] = (frequency, word)
                start = word.find(ligature, start + 1)
        for ligature in CAPITAL_DROPPED:
            # Only words common enough to open sentences (The, This, There, They …).
            if frequency >= INITIAL_THRESHOLD and word.startswith(ligature.lower()) and len(word) > len(ligature):
                damaged = word[len(ligature) :]
                if frequency > initial.get(damaged, (0.0, ""))[0]:
                    initial[damaged] = (frequency, ligature + word[len(ligature) :])
    return {k: w for k, (_, w) in inner.items()}, {k: w for k, (_, w) in initial.items()}


def repair_dropped_ligatures(lines: list[str], language: str) -> tuple[list[str], list[DroppedRepair]]:
    """Repair words whose ligatures vanished; ``lines`` in, repaired lines and repairs out."""
    inner, initial = _dropped_index(language)
    if not inner:
        return lines, []
    # Inside words: decided per distinct token, so a 6 MB document costs one findall.
    # A word hyphenated across lines ("natio-" / "nalist") is not ligature damage: its
    # halves are left to the hyphenation step.
    text = "\n".join(lines)
    whole = "\n".join(_without_hyphen_breaks(lines))
    tokens = set(WORD.findall(whole))
    candidates: dict[str, tuple[str, float, float]] = {}
    for token in tokens:
        word = inner.get(token.lower())
        if word is not None:
            candidates[token] = (word, zipf(token.lower(), language), zipf(word, language))
    # Evidence: damaged tokens that are hardly words at all ("eect" 0, "Angri" 1.5).
    proof = sum(1 for _, own, repaired in candidates.values() if own < PROOF and repaired >= COMMON + 1)
    # Every ligature lost: no word of the document has "fi", "fl" or "ff" left in it.
    lost_all = proof >= 3 and sum(1 for token in tokens if INTACT.fullmatch(token)) * 10 <= proof
    fixes: dict[str, str] = {}
    fragile: set[str] = set()  # fixed only because every ligature is lost: not next to ' or -
    for token, (word, own, repaired) in candidates.items():
        clear = own < COMMON and repaired >= COMMON and repaired >= own + GAIN
        damaged = proof >= 2 and (
            (own < DAMAGED_COMMON and repaired >= COMMON and repaired >= own + DAMAGED_GAIN)
            or (own == 0 and repaired >= RARE)
        )
        fragment = lost_all and repaired >= RARE and repaired > own + FULL_GAIN
        if clear or damaged or fragment:
            fixes[token] = word.capitalize() if token[0].isupper() else word
            if not (clear or damaged):
                fragile.add(token)
    # A lost initial "Th": a sentence, heading or list item that starts in lower case
    # ("e gold cost …", "- ose who …"). One scan of the whole text; line numbers only for
    # the (few) hits.
    lone_e = language == "en" and "e" in initial
    openers: dict[tuple[int, int], tuple[str, str]] = {}  # (line index, position) → token, fix
    for number, line in enumerate(lines):
        head = line[:24].lstrip()
        marker = ITEM_MARKER.match(line) if head[:1] in ITEM_STARTS or head[:1].isdigit() else None
        offset = marker.end() if marker else len(line[:24]) - len(head)
        first = line[offset : offset + 12].split(" ", 1)
        if len(first) != 2 or first[0] not in initial:
            continue
        token, follows = first[0], first[1][:1]
        # the line before, with its own lost "Th" put back ("e Campaign" is a heading)
        before = openers.get((number - 1, 0))
        previous = before[1] + lines[number - 1][len(before[0]) :] if before else None
        if (follows.islower() or (lone_e and token == "e" and follows.isupper())) and (
            marker or _after_sentence_end(lines, number, previous)
        ):
            openers[(number, offset)] = (token, initial[token])
    if openers or proof:  # mid-line openers only where the document shows damage already
        starts = list(accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
        for match in _opener_pattern(language).finditer(text):
            if not text[max(0, match.start() - 2) : match.start()].isalpha():
                continue  # "e.g. is …": an abbreviation, not a sentence's end
            number = bisect_right(starts, match.start("token")) - 1
            token = match.group("token")
            openers.setdefault((number, match.start("token") - starts[number]), (token, initial[token]))
        if lone_e:
            for match in LONE_E.finditer(text):
                position = match.start() + 1
                number = bisect_right(starts, position) - 1
                openers.setdefault((number, position - starts[number]), ("e", initial["e"]))
    if proof + len(openers) < 2:
        return lines, []  # one odd token proves nothing; a clean document stays as it is
    by_line: dict[int, list[tuple[int, str, str]]] = {}
    for (number, position), (token, fix) in openers.items():
        by_line.setdefault(number, []).append((position, token, fix))
    pattern = (
        re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(fixes, key=len, reverse=True))) + r")\b")
        if fixes
        else None
    )
    seen: dict[tuple[str, str], list[int]] = {}
    out = []
    for number, line in enumerate(lines):
        for position, token, fix in sorted(by_line.get(number, []), reverse=True):
            line = line[:position] + fix + line[position + len(token) :]
            seen.setdefault((token, fix), []).append(number + 1)
        if pattern is not None:
            continues = number > 0 and lines[number - 1].rstrip().endswith("-")

            def replace(match, number=number, line=line, continues=continues):
                token = match.group(0)
                if (continues and not line[: match.start()].strip()) or line[match.end() :].rstrip() == "-":
                    return token  # half of a word hyphenated across lines
                if token in fragile and (
                    line[match.start() - 1 : match.start()] in ("'", "’", "-")
                    or line[match.end() : match.end() + 1] in ("'", "’", "-")
                ):
                    return token  # "I've", "re-roll": a word of its own here
                seen.setdefault((token, fixes[token]), []).append(number + 1)
                return fixes[token]

            line = pattern.sub(replace, line)
        out.append(line)
    repairs = [DroppedRepair(token, fix, numbers) for (token, fix), numbers in seen.items()]
    return out, repairs


@lru_cache(maxsize=8)
def _opener_pattern(language: str) -> re.Pattern:
    """A damaged opener ("e", "is", "ere" …) after a sentence's end inside a line,
    followed by a lower-case word ("e gold cost"; "x The …" is a bullet). Only the
    index's words are tried, and the scan starts at punctuation, so it stays fast."""
    _, initial = _dropped_index(language)
    words = "|".join(sorted(map(re.escape, initial), key=len, reverse=True)) or "(?!)"
    return re.compile(rf"[.!?][ \t]+(?P<token>{words})(?=[ \t]+[a-zà-ÿ])")


def _without_hyphen_breaks(lines: list[str]) -> list[str]:
    """The lines without the halves of words hyphenated across them ("natio-" / "nalist"),
    which are no ligature damage: the hyphenation step joins them."""
    out = list(lines)
    for number, line in enumerate(lines[:-1]):
        if line.endswith("-") and out[number + 1][:1].isalpha():
            out[number] = line.rstrip("-").rsplit(" ", 1)[0] if " " in line else ""
            following = out[number + 1]
            out[number + 1] = following.split(" ", 1)[1] if " " in following else ""
    return out


HEADING_LENGTH = 50


def _after_sentence_end(lines: list[str], number: int, previous: str | None = None) -> bool:
    """Does the line at ``number`` start a sentence (its previous line ends one, or is blank)?
    ``previous``: the previous line as repaired, if it was."""
    if number == 0:
        return True
    previous = (lines[number - 1] if previous is None else previous).strip()
    if not previous or previous[-1] in SENTENCE_END or previous == "\f":
        return True
    # A heading ("Put into Play") ends no sentence but the next line starts one.
    return len(previous) <= HEADING_LENGTH and previous[0].isupper()
