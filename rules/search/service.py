"""The search service: query → ranked, highlighted hits (see the package docstring).

A query is a rule number ("rule 10", "601.2a": ``numbers``, those rules first, then as a
term), a question (``questions``: ``_answer``, BM25 fused with the meaning, then the
likely answers only, ``_likely``) or a term. How a term runs (a term whose words match
nothing at all is then answered as a question, by meaning):

1. Its words become groups of index terms (``normalize``): each word stemmed in the
   language searched (or in every content language, when none is chosen), then folded.
2. The database matches every group (``backends``: FTS5 or tsvector).
3. Nothing matched? Long words are also tried shortened by two letters (a word typed
   without its diacritics may stem differently). Then words the index does not know are
   corrected to the closest title or body word (``fuzzy``), and the corrected query
   runs; its words are the "did you mean" suggestion. Still nothing? Any group may match.
4. The candidates are ranked here, the same on both databases: an exact title or alias
   match first, then how many query words the title holds, then the database's
   relevance, with a small boost for items changed in the last months (a fresh erratum
   is not buried under old entries).
5. Paging reaches every result counted: the database gives the best ``MAX_RESULTS``
   candidates by its relevance (and one more, to know whether more matched; ties by
   id, so every page sees the same rows), they are ranked, and they are all a reader or
   a client can page through. ``total`` counts them and ``truncated`` says that more
   matched (the page: "More than 300 results; showing the best 300. Narrow your search
   …"; the API: ``truncated``); matches past them are not counted. A page's hits are
   built when a paginator slices ``pageable()``, so the last page costs what the first
   does.

   Decided against ranking every match so that paging would reach them all: every page
   would have to rank every match for the order to hold from page to page, and
   ``bench/search_latency.py`` (50,000 entries; broad queries matching 3,300 to 17,400
   items) measured that at 110 to 1,500 ms a page on SQLite (median 350) and 130 to
   1,600 ms on PostgreSQL (median 425), against a 50 ms target; capped, the same
   queries take 23 to 130 ms. Ordering the rest by the database's relevance alone would
   be cheap, but another ranking, and a different one on each database; and nobody
   reads result 9,000 of a broad query. Not counting also dropped a ``COUNT(*)`` that
   SQLite, given a language filter, answered by probing the full-text index once per
   row of that language (0.5 to 2 s for those queries).
"""

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import timedelta

from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from ..shared.anchors import rule_at
from ..shared.capacity import Lane, SharedWork
from ..shared.languages import CONTENT_LANGUAGE_CODES
from . import backends, bm25, compounds, fuzzy, numbers, questions, semantic
from .fusion import fuse, translations_first
from .models import SearchDocument, SearchName
from .normalize import WORD, fold, name_key, query_words, term
from .passages import windows as passage_windows

MAX_QUERY_LENGTH = 200
TYPES = ("entry", "erratum", "question")
SNIPPET_WIDTH = 240  # characters
# The most results one search ranks, and so the most a reader or a client can page
# through (see 5. above).
MAX_RESULTS = 300
# The term path's lead for the reader's language when no language is chosen: less than
# a title match (40 for every word), more than freshness (3).
READER_BONUS = 5


class QueryTooLong(ValueError):
    """The query is longer than MAX_QUERY_LENGTH characters."""


@dataclass
class Hit:
    type: str  # entry | erratum | question
    id: int
    title: str
    game_slug: str
    game_name: str
    language: str
    snippet: SafeString  # escaped text with the matched words in <mark>
    url: str  # the item's page, in the active UI language
    score: float
    number: str = ""
    was: numbers.Former | None = None  # it had the number asked for until a release: "was 10 until v2"


@dataclass
class SearchResults:
    query: str
    hits: list[Hit] = field(default_factory=list)  # the best ``limit`` of them, best first
    total: int = 0  # how many results there are to page through: at most MAX_RESULTS
    suggestion: str | None = None  # "did you mean"
    corrected: bool = False  # the hits are the suggestion's: "Showing results for …"
    kind: str = "term"  # how the query was read: "term" | "question" (rules.search.questions)
    truncated: bool = False  # more matched than MAX_RESULTS: these are the best of them
    # A question's: whether its answers passed the calibrated cut-off (False: "no confident
    # answer", the closest shown), and the cut-off its hits' scores were held to. None for a term.
    confident: bool | None = None
    cutoff: float | None = None
    ranked: list = field(default_factory=list, repr=False)  # every result's document, best first
    groups: list[list[str]] = field(default_factory=list, repr=False)  # what to highlight
    formers: dict = field(default_factory=dict, repr=False)  # document id → numbers.Former
    passages: dict = field(default_factory=dict, repr=False)  # document id → its passage nearest the question

    def pageable(self) -> "Pageable":
        """The results for Django's and DRF's paginators: ``total`` long; the hits of the
        page they slice are built then, so any page costs what the first does."""
        return Pageable(self)


class Pageable:
    def __init__(self, results: SearchResults):
        self.results = results

    def __len__(self) -> int:
        return self.results.total

    def __getitem__(self, index):
        results = self.results
        if isinstance(index, slice):
            return _hits(results.ranked[index], results.groups, results.formers, results.passages)
        return _hits([results.ranked[index]], results.groups, results.formers, results.passages)[0]


@dataclass
class Suggestion:
    type: str
    id: int
    title: str  # the item's title
    alias: str  # the alias the typed text matched, when it matched an alias, else ""
    game_slug: str
    language: str
    url: str


def search(
    query: str,
    *,
    game: str | None = None,
    language: str | None = None,
    type: str | None = None,  # the API's parameter name
    limit: int = 100,
    reader_language: str | None = None,
    correct: bool = True,
) -> SearchResults:
    """The results of ``query``; ``hits`` (snippets, URLs) holds the best ``limit``.
    A caller that pages asks for none and slices ``pageable()``.

    ``reader_language`` (default: the active UI language) comes first when no language
    is chosen: the same answer in the reader's language before other languages'.
    ``correct=False`` searches the words as typed ("Search instead for …"): no word is
    replaced by the closest one the index knows."""
    query = _checked(query)
    results = SearchResults(query)
    scope = _scope(game, language, type)
    reader = reader_language or _reader()
    reading = questions.read(query, language, reader)
    if scope is None:
        return results
    number = numbers.asked(query)
    if reading.is_question and number is None:
        results.kind = "question"
        # The same question asked meanwhile (with the same filters, in the same UI
        # language: hits carry its URLs) waits for this one's answer and shares it.
        key = (query, game, language, type, reader, limit, correct, translation.get_language())
        return _asked.run(key, lambda: _answer_in_lane(results, reading, scope, language, reader, limit, correct))
    if number is None:
        _term(results, query, scope, language, reader, reading, limit, correct)
        if results.total or not semantic.enabled() or not reading.words:
            return results
        # Words that match nothing, even corrected ("two player rules" in a game whose
        # rules are German): what they mean may still be there, answered as a question.
        results = SearchResults(query, kind="question")
        key = (query, game, language, type, reader, limit, correct, translation.get_language())
        return _asked.run(key, lambda: _answer_in_lane(results, reading, scope, language, reader, limit, correct))
    # "rule 10": the rules numbered 10, and those that had 10 until a release renumbered
    # them, lead the words' results; "rule" is no misspelling ("Did you mean rules 10?").
    leading, formers = numbers.documents(number, scope)
    _term(results, query, scope, language, reader, reading, limit, correct=False)
    if leading or formers:
        _numbers_first(results, leading, formers, reader if not language else None, limit)
    return results


def _term(
    results: SearchResults,
    query: str,
    scope: backends.Scope,
    language: str | None,
    reader: str | None,
    reading: questions.Reading,
    limit: int,
    correct: bool,
) -> SearchResults:
    """The term path: every word must match; titles first (see the module's docs)."""
    # Only words that make a term (one of symbols alone makes none), so each word has
    # its group, position for position.
    typed = [word for word in query_words(query, language) if _group(word, language)]
    if not typed:
        return results
    groups = _groups(typed, language)
    found = _match(groups, scope, mode="all")
    if not found:
        # A word typed without its diacritics may stem differently ("stanowic" vs
        # "stanowić" → "stanow"): its shortened form, as a prefix, meets the stem.
        loose = [
            list(dict.fromkeys([*group, *_shortened(word, language)]))
            for word, group in zip(typed, groups, strict=True)
        ]
        if loose != groups:
            found = _match(loose, scope, mode="all")
            if found:
                # What matched is what the snippets highlight; a word the index does not
                # know was read as its closest known word: "Showing results for …".
                fixes = [
                    fuzzy.correct(word, language, reading.language) if correct and not _known(group, scope) else None
                    for word, group in zip(typed, groups, strict=True)
                ]
                if any(fixes):
                    results.suggestion = _with_fixes(query, zip(typed, fixes, strict=True))
                    results.corrected = True
                groups = loose
    if not found and correct:
        corrected = [
            fuzzy.correct(word, language, reading.language) if not _known(group, scope) else None
            for word, group in zip(typed, groups, strict=True)
        ]
        if any(corrected):
            fixed_words = [
                word
                for word in (fix or word for word, fix in zip(typed, corrected, strict=True))
                if _group(word, language)
            ]
            results.suggestion = _with_fixes(query, zip(typed, corrected, strict=True))
            typed, groups = fixed_words, _groups(fixed_words, language)
            found = _match(groups, scope, mode="all")
            results.corrected = bool(found)
    if not found and len(groups) > 1:
        found = _match(groups, scope, mode="any")
    if not found:
        return results
    results.truncated = len(found) > MAX_RESULTS
    ranked = _rank(found[:MAX_RESULTS], groups, typed, query, reader if not language else None)
    if not language:
        ranked = translations_first(ranked, reader)
    results.ranked, results.groups = ranked, groups
    results.total = len(results.ranked)
    results.hits = _hits(results.ranked[:limit], groups)
    return results


def _numbers_first(
    results: SearchResults,
    leading: list[int],
    formers: dict[int, numbers.Former],
    reader: str | None,
    limit: int,
) -> None:
    """The rules with the number asked for (the reader's language first), then those
    that had it (``formers``, shown "was 10 until v2"), then the words' results."""
    documents = SearchDocument.objects.in_bulk([*leading, *formers])
    first = sorted(
        (documents[doc_id] for doc_id in leading if doc_id in documents),
        key=lambda document: document.language != reader,
    )
    placed = [(1000.0, document, 0) for document in first]
    placed += [(900.0, documents[doc_id], 0) for doc_id in formers if doc_id in documents]
    ids = {document.pk for _score, document, _in_title in placed}
    results.ranked = [*placed, *(item for item in results.ranked if item[1].pk not in ids)][:MAX_RESULTS]
    results.formers = formers
    results.suggestion, results.corrected = None, False
    results.total = len(results.ranked)
    results.hits = _hits(results.ranked[:limit], results.groups, formers)


# A question costs tens of milliseconds of Python (BM25, fusion, snippets) and its
# vector: two at once per process and six waiting their turn (up to QUESTION_WAIT
# seconds), so that readers keep half of the threads and most of the GIL
# (rules.shared.capacity); past that, ``Busy`` (the page and the API say busy, ask
# again in a second or two).
QUESTIONS_AT_ONCE, QUESTIONS_WAITING = 2, 6
QUESTION_WAIT = 10.0
_questions = Lane("questions", QUESTIONS_AT_ONCE, QUESTIONS_WAITING, QUESTION_WAIT, retry_after=2)
_asked = SharedWork()


def _answer_in_lane(*args) -> SearchResults:
    with _questions.held():
        return _answer(*args)


# A question's terms match as prefixes from this many characters (a term's 3 is for
# terms typed alone: "kart" finds "kartenspiel"; in a question, where any word may match,
# "lev:*" cost PostgreSQL 12-18 ms for matches BM25 weighs at almost nothing).
QUESTION_PREFIX_FROM = 4
# How many candidates each ranking of the question path gives to the fusion.
LEXICAL_CANDIDATES = 200
SEMANTIC_CANDIDATES = 100


def _answer(
    results: SearchResults,
    reading: questions.Reading,
    scope: backends.Scope,
    language: str | None,
    reader: str | None,
    limit: int,
    correct: bool,
) -> SearchResults:
    """The question path: BM25 over any of the question's words (``bm25``), fused with
    the semantic ranking when it is on (``semantic``, ``fusion``)."""
    embedding = semantic.embed_query_soon(results.query)  # beside the database work below
    stem_in = language or reading.language
    made = [(word, _term_group(word, stem_in, as_typed=True)) for word in reading.words]
    typed, groups = [word for word, group in made if group], [group for _word, group in made if group]
    *frequencies, total = backends.frequencies(groups, prefix_from=QUESTION_PREFIX_FROM)
    # A word no document holds is corrected to the closest one the index knows.
    fixes = {}
    for index, (word, count) in enumerate(zip(typed, frequencies, strict=True)):
        fix = fuzzy.correct(word, language, stem_in) if correct and count == 0 else None
        fixed = _term_group(fix, stem_in, as_typed=True) if fix else []
        if fixed:
            fixes[index] = (word, fix)
            typed[index], groups[index] = fix, fixed
    if fixes:
        *frequencies, total = backends.frequencies(groups, prefix_from=QUESTION_PREFIX_FROM)
        results.suggestion = _with_fixes(results.query, fixes.values())
    lexical = (
        backends.match(groups, scope, mode="any", limit=LEXICAL_CANDIDATES, prefix_from=QUESTION_PREFIX_FROM)
        if groups
        else []
    )
    documents = SearchDocument.objects.in_bulk([doc_id for doc_id, _ in lexical])  # while the query embeds
    nearest = (
        semantic.nearest(
            embedding.result(),
            game_id=scope.game_id,
            language=scope.language,
            item_type=scope.item_type,
            k=SEMANTIC_CANDIDATES,
            with_passage=True,
        )
        if embedding is not None
        else []
    )
    results.passages = {doc_id: passage for doc_id, _cosine, passage in nearest}
    ids = list(dict.fromkeys([doc_id for doc_id, _ in lexical] + [doc_id for doc_id, *_ in nearest]))
    if not ids:
        results.confident = False  # nothing close at all
        return results
    documents.update(SearchDocument.objects.in_bulk([doc_id for doc_id in ids if doc_id not in documents]))
    nearest = _through_faq(nearest, documents, scope)
    ids = list(dict.fromkeys([*ids, *(doc_id for doc_id, *_ in nearest)]))
    scored = bm25.scores(list(documents.values()), groups, frequencies, total, QUESTION_PREFIX_FROM)
    # A title or FAQ question typed as written comes first, as on the term path.
    keys = {name_key(results.query), name_key(" ".join(typed))}
    named = {doc_id for doc_id, doc in documents.items() if keys & set(doc.name_keys.split("\n"))}
    by_words = sorted(
        (doc_id for doc_id, (score, _) in scored.items() if score > 0),
        key=lambda doc_id: (doc_id not in named, -scored[doc_id][0], doc_id),
    )
    by_meaning = [doc_id for doc_id, *_ in nearest if doc_id in documents]
    languages = {doc_id: documents[doc_id].language for doc_id in ids if doc_id in documents}
    fused = fuse(by_words, by_meaning, languages, reader if not language else None, stem_in)
    results.corrected = bool(fixes) and bool(fused)
    likely, results.confident, results.cutoff = _likely(
        [doc_id for doc_id, _score in fused],
        {doc_id: cosine for doc_id, cosine, _ in nearest},
        scored,
        named,
        languages,
        stem_in,
    )
    matcher = _Matcher(groups)
    ranked = [(score, documents[doc_id], _title_holds(documents[doc_id], matcher)) for doc_id, score in likely]
    if not language:
        ranked = translations_first(ranked, reader)[:MAX_ANSWERS]
    results.ranked, results.groups = ranked, groups
    results.total = len(ranked)
    results.hits = _hits(ranked[:limit], groups, None, results.passages)
    return results


# A question shows the answers that are likely, at most MAX_ANSWERS; calibrated on the
# players' questions of bench/questions (hard-dev, dev, eval-a, eval-b: 531 questions)
# with bench/question_search.py (docs/search.md, "Few, confident answers"):
MAX_ANSWERS = 10
# With the semantic part: the cosine of a document's passage nearest the question.
# When no document reaches CONFIDENT (CONFIDENT_ACROSS for a document in another
# language than the question's: the model's cosines across languages run lower, median
# 0.81-0.82 against 0.86-0.89), "no confident answer": the closest CLOSEST are shown as
# such. The 531 questions' best passages: in the question's language 0.780 at the
# lowest, across languages 0.761. Asked in another game of their set, where their
# answer is not, 4% of them fell under 0.77 and 12% under 0.78: the model tells a rule
# that answers from one of another game on the same subject poorly, so this says "no
# confident answer" mostly for questions about nothing in the game.
CONFIDENT = 0.77
CONFIDENT_ACROSS = 0.75
CLOSEST = 3
# Above it, the fused ranking's first ten within BAND of the best cosine are shown: the
# answer found in the first ten was within 0.032 of the best (0.02 for 95 in 100);
# 0.03 kept every hit@3 of the four sets and showed 4.1 to 7.5 answers a question
# (0.025: 3.5 to 6.5, one hard-dev question lost; 0.02: 2.9 to 5.2, five lost).
BAND = 0.03
# Without it (words alone): BM25 scores from LEXICAL_SHARE of the best (0.4 kept every
# hit@3 and showed 4.7 to 6.6; 0.5 lost two hard-dev questions).
LEXICAL_SHARE = 0.4


def _likely(
    fused: list[int],
    cosines: dict[int, float],
    scored: dict[int, tuple[float, int]],
    named: set[int],
    languages: dict[int, str],
    asked_in: str | None,
) -> tuple[list[tuple[int, float]], bool, float | None]:
    """The answers to show, best first, each with its score (the cosine of its passage
    nearest the question; BM25 without the semantic part), whether they are confident
    answers, and the cut-off used. A FAQ question typed as written is always shown."""
    if cosines:
        best = max(cosines.values())

        def floor(doc_id: int) -> float:
            return CONFIDENT if asked_in is None or languages.get(doc_id) == asked_in else CONFIDENT_ACROSS

        if not any(cosine >= floor(doc_id) for doc_id, cosine in cosines.items()):
            closest = [(doc_id, round(cosines.get(doc_id, 0.0), 4)) for doc_id in fused[:CLOSEST]]
            return closest, False, min(floor(doc_id) for doc_id in cosines)
        cutoff = round(best - BAND, 4)
        shown = [doc_id for doc_id in fused[:MAX_ANSWERS] if cosines.get(doc_id, 0.0) >= cutoff or doc_id in named]
        return [(doc_id, round(cosines.get(doc_id, 0.0), 4)) for doc_id in shown], True, cutoff
    words = {doc_id: scored[doc_id][0] for doc_id in fused if doc_id in scored}
    if not words:
        return [], True, None
    cutoff = round(LEXICAL_SHARE * max(words.values()), 4)
    shown = [doc_id for doc_id in fused[:MAX_ANSWERS] if words.get(doc_id, 0.0) >= cutoff or doc_id in named]
    return [(doc_id, round(words.get(doc_id, 0.0), 4)) for doc_id in shown], True, cutoff


def _through_faq(nearest: list[tuple], documents: dict, scope: backends.Scope) -> list[tuple]:
    """``nearest`` with the entries that FAQ questions among it are linked to (their
    "related entries") as near as those questions: a FAQ question is one more way a
    player's words lead into the rule it is about. An entry already nearer keeps its
    own place. ``documents`` gains the entries added."""
    if scope.item_type not in (None, "entry"):
        return nearest
    asked = {
        documents[doc_id].item_id: cosine
        for doc_id, cosine, _ in nearest
        if doc_id in documents and documents[doc_id].item_type == "question"
    }
    if not asked:
        return nearest
    from .index import related_entries

    links = related_entries(list(asked))
    if not links:
        return nearest
    entries = SearchDocument.objects.filter(item_type="entry", item_id__in={e for es in links.values() for e in es})
    if scope.language is not None:
        entries = entries.filter(language=scope.language)
    by_item = {document.item_id: document for document in entries}
    best = {doc_id: (cosine, passage) for doc_id, cosine, passage in nearest}
    for question, linked in links.items():
        for item_id in linked:
            document = by_item.get(item_id)
            if document is not None and best.get(document.pk, (-1.0, None))[0] < asked[question]:
                documents.setdefault(document.pk, document)
                best[document.pk] = (asked[question], best.get(document.pk, (0.0, None))[1])
    return sorted(
        ((doc_id, cosine, passage) for doc_id, (cosine, passage) in best.items()), key=lambda item: (-item[1], item[0])
    )


def _with_fixes(query: str, fixes) -> str:
    """The query as typed, with only its misspelt words replaced (``fixes``: (word as
    read, its correction or None) pairs): "Showing results for …" says what was
    corrected, never which words a search leaves out ("who controls a card I gave to my
    oponent?" → "… my opponent?", not "controls card gave opponent")."""
    replace = {word: fix for word, fix in fixes if fix and fix != word}

    def swap(match) -> str:
        return replace.get(unicodedata.normalize("NFKC", match.group(0)).casefold(), match.group(0))

    return WORD.sub(swap, query)


def _title_holds(document: SearchDocument, matcher: "_Matcher") -> int:
    return matcher.held(document.title_terms.split())


def _reader() -> str | None:
    """The reader's language: the active UI language, when it is a content language."""
    active = (translation.get_language() or "").split("-")[0]
    return active if active in CONTENT_LANGUAGE_CODES else None


def suggest(query: str, *, game: str | None = None, language: str | None = None, limit: int = 8) -> list[Suggestion]:
    """Titles and aliases that start like the query (or a later word of a title does),
    for suggestions as you type: a range scan on ``SearchName.key``."""
    query = _checked(query)
    scope = _scope(game, language, None)
    key = name_key(query)
    if scope is None or not key:
        return []
    # Every key starting with ``key`` sorts between it and key + "zzzz…" (keys are
    # [a-z0-9 ]); a collation that ignores spaces may let in a few more, dropped below.
    rows = SearchName.objects.filter(key__gte=key, key__lte=key + "z" * 8)
    if scope.language:
        rows = rows.filter(language=scope.language)
    if scope.game_id:
        rows = rows.filter(game_id=scope.game_id)
    rows = (
        rows.select_related("document")
        .defer("document__body_text", "document__body_terms", "document__title_terms")  # not shown
        .order_by("position", "key")[: limit * 6]
    )
    picked: dict[int, tuple] = {}
    for row in rows:
        if not row.key.startswith(key) or row.document_id in picked:
            continue
        picked[row.document_id] = (row.position, bool(row.alias), len(row.document.title), row.document, row.alias)
    best = sorted(picked.values(), key=lambda item: item[:3])[:limit]
    games = _games({item[3].game_id for item in best})
    return [
        Suggestion(
            doc.item_type,
            doc.item_id,
            doc.title,
            alias,
            games[doc.game_id].slug,
            doc.language,
            _url(doc, games[doc.game_id].slug),
        )
        for *_, doc, alias in best
    ]


# -- the steps ---------------------------------------------------------------------


def _checked(query: str) -> str:
    query = (query or "").replace("\x00", " ")
    if len(query) > MAX_QUERY_LENGTH:
        raise QueryTooLong(f"the query is longer than {MAX_QUERY_LENGTH} characters")
    return query


def _scope(game: str | None, language: str | None, item_type: str | None) -> backends.Scope | None:
    """The filters as ids; None when they can match nothing (an unknown game)."""
    from ..content.models import Game

    game_id = None
    if game:
        game_id = Game.objects.filter(slug=game).values_list("pk", flat=True).first()
        if game_id is None:
            return None
    return backends.Scope(language or None, game_id, item_type or None)


def _group(word: str, language: str | None) -> list[str]:
    """A query word's terms in the language searched, or in every content language."""
    languages = [language] if language else CONTENT_LANGUAGE_CODES
    return list(dict.fromkeys(t for t in (term(word, lang) for lang in languages) if t))


def _term_group(word: str, language: str | None, as_typed: bool = False) -> list[str]:
    """``_group``, its folded form as typed too when ``as_typed`` (a question's words),
    and in German and Dutch the compounds ending in the word."""
    group = _group(word, language)
    if not group:
        return []
    if as_typed and len(fold(word)) >= 3:
        group.append(fold(word))
    for compound_language in [language] if language else compounds.LANGUAGES:
        group += compounds.compounds_ending_in(word, compound_language)
    return list(dict.fromkeys(group))


def _groups(typed: list[str], language: str | None) -> list[list[str]]:
    return [group for group in (_term_group(word, language) for word in typed) if group]


def _shortened(word: str, language: str | None) -> list[str]:
    """The word's loose forms: it and its stems, two letters shorter. A stemmer reads a
    word typed without its accents as another word: French "fatalité" stems to "fatal"
    but "fatalite" to "fatalit", which "fatal" does not start with."""
    forms = [fold(word), *_group(word, language)]
    return list(dict.fromkeys(form[: max(4, len(form) - 2)] for form in forms if len(form) >= 6))


def _match(groups: list[list[str]], scope: backends.Scope, mode: str) -> list[tuple[int, float]]:
    """The best MAX_RESULTS matches, and one more when there are more."""
    return backends.match(groups, scope, mode=mode, limit=MAX_RESULTS + 1)


def _known(group: list[str], scope: backends.Scope) -> bool:
    return bool(backends.match([group], scope, mode="all", limit=1))


def _rank(
    found: list[tuple[int, float]],
    groups: list[list[str]],
    query_words: list[str],
    original: str,
    reader: str | None = None,
) -> list[tuple[float, SearchDocument, int]]:
    """(score, document, how many query words its title holds), best first; with no
    language chosen, the reader's language (``reader``) a little ahead."""
    documents = SearchDocument.objects.in_bulk([doc_id for doc_id, _ in found])
    best = max((rank for _, rank in found), default=1.0) or 1.0
    keys = {name_key(" ".join(query_words)), name_key(original)}
    recent, fresh = timezone.now() - timedelta(days=180), timezone.now() - timedelta(days=30)
    scored = []
    matcher = _Matcher(groups)
    for doc_id, rank in found:
        document = documents[doc_id]
        in_title = matcher.held(document.title_terms.split())
        score = 10 * rank / best
        if keys & set(document.name_keys.split("\n")):
            score += 100
        score += 40 * in_title / len(groups) + (10 if in_title == len(groups) else 0)
        if reader and document.language == reader:
            score += READER_BONUS
        if document.updated_at >= fresh:
            score += 3
        elif document.updated_at >= recent:
            score += 1
        scored.append((round(score, 3), document, in_title))
    scored.sort(key=lambda item: (-item[0], len(item[1].title), fold(item[1].title)))
    return scored


def _hits(
    ranked: list[tuple[float, SearchDocument, int]],
    groups: list[list[str]],
    formers: dict | None = None,
    passages: dict | None = None,
) -> list[Hit]:
    """Hits, snippets and URLs made, for ranked documents (one query: their games);
    ``formers``: document id → the number it had (``numbers.Former``); ``passages``:
    document id → its passage nearest a question, which the snippet shows."""
    games = _games({document.game_id for _, document, _in_title in ranked})
    matcher = _Matcher(groups)
    hits = []
    for score, document, in_title in ranked:
        spans = _spans(document.body_text, matcher, document.language)  # once for the anchor and the snippet
        anchor, at = _passage_hit(document, (passages or {}).get(document.pk), spans)
        if at is None:
            anchor, at = _rule_hit(document, spans, len(groups), in_title)
        hits.append(
            Hit(
                document.item_type,
                document.item_id,
                document.title,
                games[document.game_id].slug,
                games[document.game_id].name,
                document.language,
                highlight(document.body_text, groups, document.language, at=at, spans=spans),
                _url(document, games[document.game_id].slug) + anchor,
                score,
                document.number,
                (formers or {}).get(document.pk),
            )
        )
    return hits


class _Matcher:
    """Which of the query's words (``groups``: each word's forms) a word of a text is: a
    form of three characters or more matches as a prefix, a shorter one exactly. Each
    group's prefixes are one tuple for ``str.startswith``, so a word is looked up in C,
    not by a generator per form (a question's snippets spent 60 ms there)."""

    def __init__(self, groups: list[list[str]]):
        self.groups = [
            (frozenset(form for form in group if len(form) < 3), tuple(form for form in group if len(form) >= 3))
            for group in groups
        ]

    def which(self, forms: list[str]) -> int | None:
        """The first group one of ``forms`` matches, or None."""
        for index, (exact, prefixes) in enumerate(self.groups):
            for form in forms:
                if form in exact or form.startswith(prefixes):
                    return index
        return None

    def held(self, terms: list[str]) -> int:
        """How many groups one of ``terms`` matches (a title's terms: how many query words it holds)."""
        return sum(
            1 for exact, prefixes in self.groups if any(term in exact or term.startswith(prefixes) for term in terms)
        )



def _games(ids: set[int]) -> dict:
    from ..content.models import Game

    return Game.objects.in_bulk(ids)


def _passage_hit(
    document: SearchDocument, passage: int | None, spans: list[tuple[int, int, int]]
) -> tuple[str, int | None]:
    """``("#601.2a", offset)`` of the document's passage nearest a question: the snippet
    shows it (from its first word of the question, when that is further in than the
    snippet is wide), and the link opens the numbered rule it shows; ``("", None)`` when
    there is none (no vector, or the passage is the title alone)."""
    if passage is None:
        return "", None
    found = passage_windows(document.body_text, limit=passage + 1)  # read no further
    if passage >= len(found):
        return "", None
    start = found[passage][0]
    end = found[passage + 1][0] if passage + 1 < len(found) else len(document.body_text)
    end = max(end, start + len(found[passage][1]))
    first = next((at for at, _end, _word in spans if start <= at < end), None)
    if first is not None and first - start > SNIPPET_WIDTH * 3 // 4:
        start = document.body_text.find(" ", first - SNIPPET_WIDTH // 4) + 1 or first
    rule = rule_at(document.body_text, start) if document.item_type == "entry" else None
    return (f"#{rule}" if rule else ""), start


def _rule_hit(
    document: SearchDocument, spans: list[tuple[int, int, int]], groups: int, in_title: int
) -> tuple[str, int | None]:
    """``("#601.2a", offset)`` when the hit is in a numbered paragraph of an entry's
    text, so the link opens the page at that rule (``rules.shared.anchors``) and the snippet
    shows it: the paragraph holding the most of the query's words, the first of equals.
    ``("", None)`` when the title holds every word or the best match is before any
    numbered rule."""
    text = document.body_text
    if document.item_type != "entry" or in_title == groups or "\n" not in text:
        return "", None
    by_rule: dict[str, tuple[set, int]] = {}  # rule → (words matched in it, first offset)
    best = None
    for start, _end, word in spans:
        rule = rule_at(text, start) or ""
        words, first = by_rule.setdefault(rule, (set(), start))
        words.add(word)
        if best is None or len(words) > len(by_rule[best][0]):
            best = rule
    if not best:
        return "", None
    first = by_rule[best][1]
    paragraph = text.rfind("\n", 0, first) + 1
    # The snippet opens with the rule's number where the match is near it.
    return f"#{best}", paragraph if first - paragraph <= SNIPPET_WIDTH * 3 // 4 else max(0, first - SNIPPET_WIDTH // 4)


def _url(document: SearchDocument, game_slug: str) -> str:
    if document.item_type == "entry":
        return reverse("rules:entry", kwargs={"game": game_slug, "slug": document.slug})
    if document.item_type == "erratum":
        return reverse("rules:errata", kwargs={"game": game_slug}) + f"#{document.slug}"
    return reverse("faq:list", kwargs={"game": game_slug}) + f"#{document.slug}"


_TOKEN = re.compile(r"[^\W_]+")


def _spans(text: str, matcher: "_Matcher", language: str) -> list[tuple[int, int, int]]:
    """Where the query's words are in ``text``: (start, end, which word of the query)."""
    spans = []
    seen: dict[str, int | None] = {}  # word → the query word it is (a text repeats its words)
    for match in _TOKEN.finditer(text):
        word = match.group(0)
        if word not in seen:
            folded = unicodedata.normalize("NFKC", word).casefold()
            seen[word] = matcher.which([term(folded, language), fold(folded)])
        found = seen[word]
        if found is not None:
            spans.append((match.start(), match.end(), found))
    return spans


def highlight(
    text: str,
    groups: list[list[str]],
    language: str,
    width: int = SNIPPET_WIDTH,
    at: int | None = None,
    spans: list[tuple[int, int, int]] | None = None,
) -> SafeString:
    """A snippet around the first matched word (or from offset ``at``), every matched
    word in <mark>; escaped. ``spans``: the text's ``_spans``, when already found."""
    text = text.replace("\n", " ")  # the text keeps its line breaks (index.plain_text): same offsets
    if spans is None:
        spans = _spans(text, _Matcher(groups), language)
    if not spans:
        return mark_safe(escape(_clip(text, 0, width)))  # noqa: S308 - escaped
    if at is None:
        start = max(0, spans[0][0] - width // 4)
        if start:
            start = text.find(" ", start) + 1 or start
    else:
        start = at
    end = min(len(text), start + width)
    out, position = [], start
    for a, b, _word in spans:
        if a < start or b > end:
            continue
        out.append(escape(text[position:a]))
        out.append(f"<mark>{escape(text[a:b])}</mark>")
        position = b
    out.append(escape(text[position:end]))
    prefix = "… " if start else ""
    suffix = " …" if end < len(text) else ""
    return mark_safe(prefix + "".join(out) + suffix)  # noqa: S308 - every piece is escaped


def _clip(text: str, start: int, width: int) -> str:
    return text[start : start + width] + (" …" if len(text) > start + width else "")
