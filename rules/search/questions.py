"""Reading a query: is it a term or a question, in which language, and which of its
words say what it is about.

Players type terms ("Reaktion", "hiden cost") and questions ("darf ich eine Reaktion im
Zug meines Gegners spielen?"). Terms keep the term path (every word must match, typos
corrected, titles first: ``rules.search.service``); questions go the question path
(any word may match, BM25 over title and body, fused with the semantic ranking). This
module only reads the query; it asks the database nothing.

Decisions:

- **Word lists per language, in a data file** (``data/stopwords.toml``): function words
  (articles, pronouns in every case, prepositions, auxiliaries and modals), question
  words ("what", "wann", "kiedy", "cuándo" …) and ``keep``, words that look like
  function words but name rules ("first", "each", "before", "jede", "każdy" …), which
  are never dropped. Curated for rules questions rather than taken from a general stop
  list: those drop "first", "end" or "turn", which are glossary terms here.
- **The query's language** is the one whose lists hold most of its words, with its
  letters as a hint (ß, ł, ñ …) and the reader's language winning ties; a language
  filter, when chosen, is the language. Only that language's lists are applied: "die"
  is a German article and an English verb.
- **A question** has a question mark, starts with a question word or an auxiliary
  ("can", "darf", "czy", "puedo" …), or has at least four words of which at least one
  is a function or question word, or three of which two are ("como se gana"), or at
  least five words. "Besitz und Kontrolle" and "put into play" are terms.
- The words kept are at most ``MAX_WORDS``; when every word is a function word, they
  are all kept (a search for "du" finds the entry "Du, Dein").
"""

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .normalize import STOPWORDS, words

DATA = Path(__file__).resolve().parent / "data" / "stopwords.toml"
MAX_WORDS = 10
# Letters that only some of the content languages write: a hint to the query's language.
LETTERS = {
    "de": "äöüß",
    "pl": "ąćęłńśźż",
    "fr": "àâçèêëîïôœùûÿ",
    "es": "ñ¿¡áíóú",
    "it": "àèéìòù",
    "nl": "ĳ",
}
# Words that open a yes/no question in each language (besides the question words).
OPENERS = {
    "en": {"can", "could", "do", "does", "did", "is", "are", "may", "must", "should", "will", "would", "if"},
    "de": {
        "darf",
        "dürfen",
        "kann",
        "können",
        "muss",
        "müssen",
        "ist",
        "sind",
        "gilt",
        "zählt",
        "wird",
        "werden",
        "wenn",
    },
    "fr": {"est", "peut", "peux", "puis", "dois", "doit", "faut", "si", "quand", "combien"},
    "es": {"puedo", "puede", "pueden", "debo", "debe", "es", "se", "si", "cuenta", "hay"},
    "pl": {"czy", "mogę", "może", "można", "muszę", "musi", "trzeba", "jeśli", "jeżeli", "gdy"},
    "nl": {"mag", "mogen", "kan", "kun", "kunnen", "moet", "moeten", "is", "zijn", "telt", "als", "wordt"},
    "it": {"posso", "può", "possono", "devo", "deve", "è", "si", "se", "conta", "quando"},
}


@dataclass(frozen=True)
class Lists:
    function: frozenset[str]
    question: frozenset[str]
    keep: frozenset[str]

    def drops(self, word: str) -> bool:
        return word not in self.keep and (word in self.function or word in self.question)


@dataclass(frozen=True)
class Reading:
    kind: str  # "term" | "question"
    language: str | None  # the language the query reads as (None: no hint at all)
    words: list[str]  # the words it is about, in order, distinct, at most MAX_WORDS

    @property
    def is_question(self) -> bool:
        return self.kind == "question"


@cache
def lists() -> dict[str, Lists]:
    """Each language's word lists; the function words of ``normalize.STOPWORDS`` always
    belong to them (the term path drops those already)."""
    data = tomllib.loads(DATA.read_text(encoding="utf-8"))
    out = {}
    for language, stop in STOPWORDS.items():
        found = data.get(language, {})
        keep = frozenset(word.casefold() for word in found.get("keep", []))
        out[language] = Lists(
            function=frozenset(w.casefold() for w in found.get("function", [])) | stop,
            question=frozenset(w.casefold() for w in found.get("question", [])),
            keep=keep,
        )
    return out


def language_of(typed: list[str], query: str, reader: str | None) -> str | None:
    """The language whose word lists and letters the query's words fit best."""
    scores: dict[str, float] = {}
    lowered = query.casefold()
    for language, found in lists().items():
        score = sum(1.0 for word in typed if word in found.function or word in found.question)
        score += sum(0.5 for letter in LETTERS.get(language, "") if letter in lowered)
        if language == reader:
            score += 0.25  # ties go to the reader's language
        scores[language] = score
    best = max(scores, key=scores.get, default=None)
    if best is None or scores[best] < 0.5:
        return reader if reader in scores else None
    return best


def read(query: str, language: str | None = None, reader: str | None = None) -> Reading:
    """What the query is (term or question), its language and the words it is about.

    ``language`` is the language filter (None: all languages); ``reader`` the reader's
    (the UI's) language, which wins ties."""
    typed = list(dict.fromkeys(words(query)))
    detected = language or language_of(typed, query, reader)
    found = lists().get(detected or "")
    about = [word for word in typed if not (found and found.drops(word))] or typed
    dropped = len(typed) - len(about)
    opener = (
        bool(typed)
        and found is not None
        and (typed[0] in found.question or typed[0] in OPENERS.get(detected or "", ()))
    )
    question = (
        "?" in query
        or "¿" in query
        or (opener and len(typed) >= 3)
        or (len(typed) >= 4 and dropped >= 1)
        or (len(typed) >= 3 and dropped >= 2)
        or len(typed) >= 5
    )
    return Reading("question" if question else "term", detected, about[:MAX_WORDS])
