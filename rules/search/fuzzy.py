"""Typo tolerance: the closest word the index knows, for a query word it does not.

The vocabulary (the folded words of titles and aliases, and of bodies) is built once per
process and language scope and rebuilt when the index changes (its row count or latest
id or change time moves). Matching is rapidfuzz's normalised Levenshtein ratio: title
words first ("recations" → "reactions"), then body words with a stricter cut-off.
"""

import threading
from dataclasses import dataclass

from django.db.models import Count, Max
from rapidfuzz import fuzz, process

from .models import SearchDocument
from .normalize import fold, words

TITLE_CUTOFF = 75
BODY_CUTOFF = 85


@dataclass
class Vocabulary:
    version: tuple
    title_words: dict[str, str]  # folded → as written (case-folded, with diacritics)
    body_words: dict[str, str]


_cache: dict[str | None, Vocabulary] = {}
_lock = threading.Lock()


def _version(language: str | None) -> tuple:
    documents = SearchDocument.objects.all()
    if language:
        documents = documents.filter(language=language)
    stats = documents.aggregate(count=Count("id"), last=Max("id"), changed=Max("updated_at"))
    return (stats["count"], stats["last"], stats["changed"])


def vocabulary(language: str | None) -> Vocabulary:
    version = _version(language)
    cached = _cache.get(language)
    if cached is not None and cached.version == version:
        return cached
    documents = SearchDocument.objects.all()
    if language:
        documents = documents.filter(language=language)
    title_words: dict[str, str] = {}
    body_words: dict[str, str] = {}
    for title, keys, body in documents.values_list("title", "name_keys", "body_text").iterator(chunk_size=2000):
        for word in words(title) + keys.split():
            if len(word) > 2:
                title_words.setdefault(fold(word), word)
        for word in words(body):
            if len(word) > 3:
                body_words.setdefault(fold(word), word)
    built = Vocabulary(version, title_words, body_words)
    with _lock:
        _cache[language] = built
    return built


def correct(word: str, language: str | None) -> str | None:
    """The known word closest to ``word`` (case-folded), or None."""
    folded = fold(word)
    if len(folded) < 3:
        return None
    vocab = vocabulary(language)
    for choices, cutoff in ((vocab.title_words, TITLE_CUTOFF), (vocab.body_words, BODY_CUTOFF)):
        found = process.extractOne(folded, choices.keys(), scorer=fuzz.ratio, score_cutoff=cutoff)
        if found is not None and found[0] != folded:
            return choices[found[0]]
    return None
