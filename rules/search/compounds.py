"""Compound parts in German and Dutch: "Zone" finds "Spielzone", "stapel" finds
"Ablagestapel", "stapel" in Dutch finds "trekstapel".

The index matches a query term as a prefix, so a compound's first part was always
found ("Karte" → "Kartenspiel"), never its last: the head noun, the one a player asks
about ("wann ist meine Zone voll" for "Spielzone des Spielers"). A database cannot match
a suffix through its full-text index; the index's own vocabulary (``rules.search.fuzzy``,
every word of titles and bodies per language, already cached per process and kept
current by the content version) can: the words that end in the query word become
extra alternatives of that word's group.

Decisions:

- **Only the index's words**: no dictionary to ship, nothing a new document does not
  bring with it; a compound is split only when someone searches one of its parts.
- **A part is a tail of four letters or more** ("zone", "karte"; "rat" would find
  "Heirat"), after a head of at least three letters, followed by one of the language's
  inflection endings ("spielzonen" is "spiel" + "zone" + "n").
- **The lookup is a binary search** in the vocabulary reversed and sorted (words ending
  alike are neighbours), built once per process and content version: one bisect per
  part and ending, not a scan of every word. At most ``MAX_PER_WORD`` compounds per word.
"""

import threading
from bisect import bisect_left

from ..content import version as content_version
from . import fuzzy
from .normalize import fold, term

LANGUAGES = ("de", "nl")
SHORTEST_PART = 4
SHORTEST_HEAD = 3
# What may follow the part at the end of a compound (its inflection): "Spielzonen",
# "Kartenspielers", "trekstapels".
ENDINGS = {"de": ("", "e", "n", "en", "s", "es", "er", "ern", "ns"), "nl": ("", "e", "n", "en", "s", "es")}
MAX_PER_WORD = 40

_cache: dict[str, tuple[int, list[str], list[str]]] = {}  # language → (version, reversed, written)
_lock = threading.Lock()


def _reversed_vocabulary(language: str) -> tuple[list[str], list[str]]:
    """The language's vocabulary (titles' and bodies' words) as reversed folded words,
    sorted, with each one's written form: words ending alike are neighbours."""
    version = content_version.current().token
    cached = _cache.get(language)
    if cached is not None and cached[0] == version:
        return cached[1], cached[2]
    written = {}
    for field in ("names", "body"):
        for folded, word in fuzzy.vocabulary(language, field, version).words.items():
            written.setdefault(folded[::-1], word)
    keys = sorted(written)
    built = (version, keys, [written[key] for key in keys])
    with _lock:
        _cache[language] = built
    return built[1], built[2]


def compounds_ending_in(word: str, language: str) -> list[str]:
    """Index terms of the vocabulary's compounds whose last part is ``word`` (case-folded)."""
    if language not in LANGUAGES:
        return []
    parts = {part for part in (fold(word), term(word, language)) if len(part) >= SHORTEST_PART}
    if not parts:
        return []
    keys, written = _reversed_vocabulary(language)
    found: dict[str, None] = {}
    for part in parts:
        for ending in ENDINGS[language]:
            tail = (part + ending)[::-1]
            at = bisect_left(keys, tail)
            while at < len(keys) and keys[at].startswith(tail):
                if len(keys[at]) - len(tail) >= SHORTEST_HEAD:
                    found[term(written[at], language)] = None
                    if len(found) >= MAX_PER_WORD:
                        return list(found)
                at += 1
    return list(found)


def warm_up() -> None:
    """Read the German and Dutch vocabularies now (``rulesite.warmup``), not on a
    reader's first question: 20-40 ms each at 50,000 entries on PostgreSQL."""
    for language in LANGUAGES:
        _reversed_vocabulary(language)
