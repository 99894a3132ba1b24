"""Words → index terms, the same way for documents and queries, in Python.

Stemming and folding happen here rather than in the database, so SQLite (FTS5) and
PostgreSQL (tsvector) index exactly the same terms and behave alike:

* words are Unicode letters and digits, case-folded;
* each word is stemmed with the Snowball stemmer of its language (PyStemmer, Snowball's
  own C code: English, German, Dutch, Polish, French, Spanish, Italian: "Karten" →
  "kart", "strefie" → "stref"),
  *then* folded to ASCII ("zdolności" → "zdolnośc" → "zdolnosc"), so a query typed
  without diacritics ("zdolnosci") meets the same term;
* a query also drops its language's most common function words ("the", "der", "w"),
  unless nothing else is left.

Terms are ``[a-z0-9]+`` only, which is what makes them safe to put into an FTS5 MATCH
expression or a tsquery: no user text ever reaches either syntax.
"""

import re
import unicodedata
from functools import lru_cache

import Stemmer
from anyascii import anyascii

WORD = re.compile(r"[^\W_]+")
STEMMERS = {
    "en": "english",
    "de": "german",
    "nl": "dutch",
    "pl": "polish",
    "fr": "french",
    "es": "spanish",
    "it": "italian",
}
STOPWORDS = {
    "en": "a an and are as at be by for from in into is it of on or that the this to with",
    "de": "am an auf aus bei das dem den der des die ein eine einer eines im in ist mit und von vom zu zum zur",
    "nl": "aan als bij de den der een en het in is met of op te van voor",
    "pl": "a do i na o od po przez w we z ze że",
    "fr": "au aux de des du en et la le les un une",
    "es": "a al de del el en la las los un una y",
    "it": "a al del della di e il in la le lo un una",
}
_STOPWORDS = {language: frozenset(words.split()) for language, words in STOPWORDS.items()}


def words(text: str) -> list[str]:
    """The text's words, case-folded (NFKC, so ligatures and full-width forms count)."""
    return WORD.findall(unicodedata.normalize("NFKC", text).casefold())


@lru_cache(maxsize=8)
def _stemmer(language: str):
    return Stemmer.Stemmer(STEMMERS.get(language, "english"))


@lru_cache(maxsize=300_000)
def term(word: str, language: str) -> str:
    """One case-folded word → its index term (stemmed in its language, then ASCII)."""
    return fold(_stemmer(language).stemWord(word))


@lru_cache(maxsize=100_000)
def fold(word: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", anyascii(word).lower())


# language → word → term: a plain dict is twice as fast as lru_cache when indexing
# thousands of bodies, where this loop is the cost.
_known_terms: dict[str, dict[str, str]] = {}


def terms(text: str, language: str) -> list[str]:
    """Every word of ``text`` as an index term, in order (repeats kept)."""
    known = _known_terms.setdefault(language, {})
    out = []
    for word in words(text):
        found = known.get(word)
        if found is None:
            found = term(word, language)
            if len(known) < 500_000:  # bounded: a process indexing forever stays small
                known[word] = found
        if found:
            out.append(found)
    return out


def query_terms(query: str, language: str) -> list[str]:
    """A query's distinct terms, without function words unless they are all it has."""
    all_words = words(query)
    stop = _STOPWORDS.get(language, frozenset())
    kept = [word for word in all_words if word not in stop] or all_words
    return list(dict.fromkeys(t for t in (term(word, language) for word in kept) if t))


def name_key(text: str) -> str:
    """An exact-match key for a title or alias: folded words joined by single spaces."""
    return " ".join(fold(word) for word in words(text))
