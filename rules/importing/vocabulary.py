"""What counts as a real word in a language: wordfreq's frequency lists, shipped offline.

Used to infer ligature damage, to rejoin hyphenated words and to tell the document's
language from a hosting website's text around it.
"""

import re
from functools import lru_cache

from wordfreq import zipf_frequency

KNOWN_LANGUAGES = ["en", "de", "pl", "nl", "fr", "es", "it"]
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


@lru_cache(maxsize=200_000)
def zipf(word: str, language: str) -> float:
    """Zipf frequency (0 = unknown, 3 = uncommon, 6+ = very common), from the large list."""
    if language not in KNOWN_LANGUAGES:
        language = "en"
    return zipf_frequency(word, language)


@lru_cache(maxsize=200_000)
def common_zipf(word: str, language: str) -> float:
    """The same from wordfreq's small lists: enough to tell languages apart, and seven of
    them load in a fifth of a second and a few MB, where the large ones take over a
    second and 250 MB."""
    return zipf_frequency(word, language, wordlist="small")


def is_word(word: str, language: str) -> bool:
    return zipf(word, language) > 0


def language_scores(text: str, languages: list[str] | None = None) -> dict[str, float]:
    """Mean Zipf frequency of the text's words in each language."""
    words = [w.lower() for w in WORD.findall(text)]
    if not words:
        return {}
    return {lang: sum(common_zipf(w, lang) for w in words) / len(words) for lang in languages or KNOWN_LANGUAGES}


def is_foreign(text: str, language: str, margin: float = 1.0) -> bool:
    """True when the line reads clearly as another language than the document's."""
    words = WORD.findall(text)
    if len(words) < 3:
        return False
    scores = language_scores(text)
    own = scores.get(language, 0.0)
    best_other = max((score for lang, score in scores.items() if lang != language), default=0.0)
    return best_other > own + margin


def is_own_language(text: str, language: str, margin: float = 0.5) -> bool:
    words = WORD.findall(text)
    if len(words) < 3:
        return False
    scores = language_scores(text)
    own = scores.get(language, 0.0)
    return own >= max(scores.values()) - margin
