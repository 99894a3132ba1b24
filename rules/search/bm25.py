"""BM25 over the index terms, in Python: how the question path ranks its candidates.

The databases find the candidates (any word may match); this module ranks them, the
same way on SQLite and PostgreSQL. FTS5's ``bm25()`` and PostgreSQL's ``ts_rank_cd``
disagree (the latter has no inverse document frequency at all, so a question's common
words outweighed its rare ones there: questions found their answer in the top 3 for
0.54 of an easier set on PostgreSQL, 0.69 on SQLite). Here both give the same numbers.

Decisions:

- **BM25F-lite.** A document is its title terms (title and aliases), counted
  ``TITLE_WEIGHT`` times, and its body terms; term frequency saturates with ``K1``, and
  long entries are normalised by ``B`` against the candidates' mean length (the mean of
  the whole index would cost a query per search and ranks these the same).
- **A query word is a group of alternative terms** (its stems in the languages
  searched, and the compounds that end in it, ``rules.search.compounds``); a term of
  three characters or more matches as a prefix, as in the databases.
- **Document frequencies come from the database** (``backends.frequencies``, capped at
  5,000), over the whole index: a word common in every rules text weighs little (a
  count within a game or language filter cost SQLite seconds at 50,000 entries).
"""

import math
from bisect import bisect_left
from collections import Counter

K1 = 1.2
B = 0.75
TITLE_WEIGHT = 3.0


def matcher(groups: list[list[str]], vocabulary: set[str], prefix_from: int = 3) -> dict[str, list[int]]:
    """Index term → the query groups it matches, for every term in ``vocabulary``: a
    binary search per alternative in the sorted terms (prefixes are neighbours)."""
    ordered = sorted(vocabulary)
    out: dict[str, list[int]] = {}
    for index, group in enumerate(groups):
        for alternative in group:
            if len(alternative) < prefix_from:
                found = [alternative] if alternative in vocabulary else []
            else:
                at, found = bisect_left(ordered, alternative), []
                while at < len(ordered) and ordered[at].startswith(alternative):
                    found.append(ordered[at])
                    at += 1
            for term in found:
                hits = out.setdefault(term, [])
                if index not in hits:
                    hits.append(index)
    return out


def idf(document_frequency: int, total: int) -> float:
    return math.log(1 + (total - document_frequency + 0.5) / (document_frequency + 0.5))


def scores(
    documents: list, groups: list[list[str]], frequencies: list[int], total: int, prefix_from: int = 3
) -> dict[int, tuple[float, int]]:
    """Document id → (BM25 score, how many of the query's groups it holds)."""
    if not documents or not groups:
        return {}
    title_counts = {doc.pk: Counter(doc.title_terms.split()) for doc in documents}
    body_counts = {doc.pk: Counter(doc.body_terms.split()) for doc in documents}
    vocabulary = set().union(*title_counts.values(), *body_counts.values())
    matches = matcher(groups, vocabulary, prefix_from)
    weights = [idf(df, max(total, df)) for df in frequencies]
    lengths = {
        doc.pk: TITLE_WEIGHT * sum(title_counts[doc.pk].values()) + sum(body_counts[doc.pk].values())
        for doc in documents
    }
    mean = (sum(lengths.values()) / len(lengths)) or 1.0
    out = {}
    for doc in documents:
        frequency = [0.0] * len(groups)
        for counts, weight in ((title_counts[doc.pk], TITLE_WEIGHT), (body_counts[doc.pk], 1.0)):
            for term, count in counts.items():
                for index in matches.get(term, ()):
                    frequency[index] += weight * count
        norm = K1 * (1 - B + B * lengths[doc.pk] / mean)
        score = sum(w * f * (K1 + 1) / (f + norm) for w, f in zip(weights, frequency, strict=True) if f)
        out[doc.pk] = (score, sum(1 for f in frequency if f))
    return out
