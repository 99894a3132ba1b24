"""Putting rankings together: words and meaning, the reader's language, translations.

Decisions:

- **Reciprocal rank fusion** (Cormack et al. 2009): a document's score is the sum over
  the rankings it is in of ``weight / (K + rank)``. Ranks, not scores: BM25 and cosine
  similarity are on scales that cannot be added, and RRF needs no calibration per
  language or per database. ``K`` is the usual 60. A document both rankings agree on
  beats one either ranks first alone.
- **Meaning weighs twice the words** (``MEANING``): the fusion ranks questions only (a
  term keeps the term path), and players' questions share few words with the rule that
  answers them, so the words mostly add noise (slang, "what now?", a word of the
  question that the rules use elsewhere). hit@3 / MRR@10 with the meaning ranking at 1,
  1.5, 2, 3 and 4 times the words' (``bench/question_search.py``): hard-dev 0.86/0.77,
  0.88/0.77, 0.88/0.78, 0.88/0.79, 0.86/0.77; dev 0.96/0.87, 0.97/0.88, 0.96/0.86,
  0.97/0.86, 0.97/0.86; eval-a+b 0.93/0.86, 0.93/0.87, 0.94/0.87, 0.94/0.87,
  0.94/0.87. Adding scores instead (the cosine plus a saturated BM25 at 0.02 to 0.2 of
  it) was no better (hard-dev 0.83–0.86). (Before the passages were sentence windows,
  0.8, 1.0 and 1.2 gave the same hit@3 on dev.)
- **The reader's language first, not only**: with no language chosen, a document in
  the reader's language has its fused score multiplied by ``READER`` (1.1: worth about
  six places near the top of both rankings): an answer in the reader's language beats a
  near-equal one in another language, not a far better one, so an English question still
  finds the German entry when only German has the answer, and an English entry that only
  shares the question's common words does not bury it.
- **A word match counts half in another language's document** (``OTHER_WORDS``): a
  question in English sharing a word with a Polish entry shares a name, a loanword or a
  quoted card text, rarely the answer. On the development questions this lifted the
  cross-language MRR from 0.714 to 0.750 and changed nothing in the same language (0.5
  and 0.25 alike).
- **Translations first**: when a hit is an entry in another language and the entry
  has a published translation in the reader's language, the translation takes the hit's
  place and the original follows it (each once). "An English question finds the
  German entry, with its English translation first."
"""

from ..content.querysets import Status

K = 60
WORDS = 1.0
MEANING = 2.0
READER = 1.1
OTHER_WORDS = 0.5
TRANSLATION_WINDOW = 50  # the first hits looked at for a translation


def fuse(
    by_words: list[int],
    by_meaning: list[int],
    languages: dict[int, str],
    reader: str | None,
    asked_in: str | None = None,
) -> list[tuple[int, float]]:
    """Document ids with their fused score, best first (ties: the word ranking's order).
    ``asked_in``: the question's language; a word match in another language's document
    counts ``OTHER_WORDS`` as much."""
    scores: dict[int, float] = {}
    for rank, doc_id in enumerate(by_words, start=1):
        weight = WORDS if asked_in is None or languages.get(doc_id) == asked_in else WORDS * OTHER_WORDS
        scores[doc_id] = scores.get(doc_id, 0.0) + weight / (K + rank)
    for rank, doc_id in enumerate(by_meaning, start=1):
        scores[doc_id] = scores.get(doc_id, 0.0) + MEANING / (K + rank)
    if reader:
        for doc_id in scores:
            if languages.get(doc_id) == reader:
                scores[doc_id] *= READER
    order = {doc_id: index for index, doc_id in enumerate([*by_words, *by_meaning])}
    return sorted(scores.items(), key=lambda item: (-item[1], order.get(item[0], 0)))


def translations_first(ranked: list[tuple], reader: str | None) -> list[tuple]:
    """``ranked`` ((score, SearchDocument, in_title), best first) with each entry in
    another language preceded by its translation in ``reader``'s language, when there
    is a published one; two queries at most, whatever the number of hits."""
    from ..content.models import Entry
    from .models import SearchDocument

    if not reader:
        return ranked
    foreign = [
        document.item_id
        for _score, document, _in_title in ranked[:TRANSLATION_WINDOW]
        if document.item_type == "entry" and document.language != reader
    ]
    if not foreign:
        return ranked
    # Two lookups by index: the foreign entries' keys, then the reader's published
    # versions sharing them. (One query with "pk in … or (language, status)" made SQLite
    # and PostgreSQL read every published entry of the reader's language: 24 ms a
    # question at 50,000 entries.)
    keys = dict(Entry.objects.filter(pk__in=foreign).values_list("pk", "translation_key"))
    versions = {
        key: pk
        for pk, key in Entry.objects.filter(
            translation_key__in=set(keys.values()), language=reader, status=Status.PUBLISHED
        ).values_list("pk", "translation_key")
    }
    if not versions:
        return ranked
    documents = {
        document.item_id: document
        for document in SearchDocument.objects.filter(item_type="entry", item_id__in=versions.values())
    }
    out, placed = [], set()
    for score, document, in_title in ranked:
        if document.pk in placed:
            continue
        translation = documents.get(versions.get(keys.get(document.item_id)))
        if document.item_type == "entry" and translation is not None and translation.pk not in placed:
            out.append((score, translation, 0))
            placed.add(translation.pk)
        out.append((score, document, in_title))
        placed.add(document.pk)
    return out
