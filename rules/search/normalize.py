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
  unless nothing else is left (``query_words``).

Terms are ``[a-z0-9]+`` only, which is what makes them safe to put into an FTS5 MATCH
expression or a tsquery: no user text ever reaches either syntax.
"""

import re
import unicodedata
from functools import lru_cache

import Stemmer

from ..shared.text import fold_diacritics

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
    language: frozenset(line.split())
    for language, line in {
    "en": "a an and are as at be by for from in into is it of on or that the this to with",
    "de": "am an auf aus bei das dem den der des die ein eine einer eines im in ist mit und von vom zu zum zur",
    "nl": "aan als bij de den der een en het in is met of op te van voor",
    "pl": "a do i na o od po przez w we z ze że",
    "fr": "au aux de des du en et la le les un une",
    "es": "a al de del el en la las los un una y",
    "it": "a al del della di e il in la le lo un una",
    }.items()
}
ANY_STOPWORD = frozenset().union(*STOPWORDS.values())


def words(text: str) -> list[str]:
    """The text's words, case-folded (NFKC, so ligatures and full-width forms count)."""
    return WORD.findall(unicodedata.normalize("NFKC", text).casefold())


@lru_cache(maxsize=8)
def _stemmer(language: str):
    return Stemmer.Stemmer(STEMMERS.get(language, "english"))


@lru_cache(maxsize=100_000)
def fold(word: str) -> str:
    """ASCII letters and digits only, through the project's transliteration (ł→l, ß→ss)."""
    return re.sub(r"[^a-z0-9]+", "", fold_diacritics(word))


# language → word → term. A plain dict rather than lru_cache: indexing thousands of
# bodies calls this once per word, and that loop is the cost of indexing.
_known_terms: dict[str, dict[str, str]] = {}
KNOWN_TERMS_LIMIT = 500_000  # per language: a process indexing forever stays small


def term(word: str, language: str) -> str:
    """One case-folded word → its index term (stemmed in its language, then ASCII)."""
    known = _known_terms.setdefault(language, {})
    found = known.get(word)
    if found is None:
        found = fold(_stemmer(language).stemWord(word))
        if len(known) < KNOWN_TERMS_LIMIT:
            known[word] = found
    return found


def terms(text: str, language: str) -> list[str]:
    """Every word of ``text`` as an index term, in order (repeats kept)."""
    known = _known_terms.setdefault(language, {})
    out = []
    for word in words(text):
        found = known.get(word)  # inline: the hot loop of indexing; term() on a miss
        if found is None:
            found = term(word, language)
        if found:
            out.append(found)
    return out


def query_words(query: str, language: str | None) -> list[str]:
    """A query's distinct words without function words (of its language, or of any when
    none is chosen) unless that leaves none; at most ten."""
    all_words = list(dict.fromkeys(words(query)))
    stop = STOPWORDS.get(language, frozenset()) if language else ANY_STOPWORD
    return ([word for word in all_words if word not in stop] or all_words)[:10]


def name_key(text: str) -> str:
    """An exact-match key for a title or alias: folded words joined by single spaces."""
    return " ".join(fold(word) for word in words(text))
