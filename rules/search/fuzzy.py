"""Typo tolerance: the closest word the index knows, for a query word it does not.

Two vocabularies per language scope, built once per process and rebuilt when the index
changes (its row count, latest id or change time moves): the words of titles and
aliases (what players look up by name; 50,000 titles take a fraction of a second), and,
built only when a word is no title word, the words of bodies (stricter cut-off).
Matching is rapidfuzz's normalised Levenshtein ratio ("recations" → "reactions").
"""

import threading
import time
from dataclasses import dataclass

from django.db.models import Count, Max
from rapidfuzz import fuzz, process

from .models import SearchDocument
from .normalize import fold, words

CUTOFF = 75
BODY_CUTOFF = 85


@dataclass
class Vocabulary:
    version: tuple
    words: dict[str, str]  # folded → as written (case-folded, with diacritics)


_cache: dict[tuple[str, str | None], Vocabulary] = {}
_lock = threading.Lock()


VERSION_SECONDS = 5  # how long a process trusts its idea of the index's version
_versions: dict[str | None, tuple[float, tuple]] = {}


def forget() -> None:
    """The index changed in this process: re-read its version on the next correction."""
    _versions.clear()


def _version(language: str | None) -> tuple:
    """The index's version (row count, last id, last change), re-read every few seconds:
    a new title becomes a correction target within that time."""
    now = time.monotonic()
    known = _versions.get(language)
    if known is not None and now - known[0] < VERSION_SECONDS:
        return known[1]
    documents = SearchDocument.objects.all()
    if language:
        documents = documents.filter(language=language)
    stats = documents.aggregate(count=Count("id"), last=Max("id"), changed=Max("updated_at"))
    version = (stats["count"], stats["last"], stats["changed"])
    _versions[language] = (now, version)
    return version


def vocabulary(language: str | None, field: str = "names", version: tuple | None = None) -> Vocabulary:
    """The folded words of ``field`` ("names" or "body_text") in one language (or all)."""
    version = version or _version(language)
    cached = _cache.get((field, language))
    if cached is not None and cached.version == version:
        return cached
    documents = SearchDocument.objects.all()
    if language:
        documents = documents.filter(language=language)
    shortest = 3 if field == "names" else 4
    found: dict[str, str] = {}
    for (text,) in documents.values_list(field).iterator(chunk_size=5000):
        for word in words(text):
            if len(word) >= shortest:
                found.setdefault(fold(word), word)
    built = Vocabulary(version, found)
    with _lock:
        _cache[(field, language)] = built
    return built


def correct(word: str, language: str | None) -> str | None:
    """The known word closest to ``word`` (case-folded): title words first, then body
    words; None when nothing is close."""
    folded = fold(word)
    if len(folded) < 3:
        return None
    version = _version(language)
    for field, cutoff in (("names", CUTOFF), ("body_text", BODY_CUTOFF)):
        choices = vocabulary(language, field, version).words
        found = process.extractOne(folded, choices.keys(), scorer=fuzz.ratio, score_cutoff=cutoff)
        if found is not None and found[0] != folded:
            return choices[found[0]]
    return None
