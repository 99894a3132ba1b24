"""Search: one service the search page, the API and the suggestions all use.

    results = search("recations", game="a-game-of-thrones-2nd-edition", language="en", type="entry")
    results.hits          # [Hit], the best ``limit`` (type, title, game, language, snippet, url, score)
    results.total         # how many results there are to page through: at most MAX_RESULTS
    results.truncated     # more matched: ``total`` is the best MAX_RESULTS of them
    results.pageable()    # the results for a paginator (Django's, DRF's)
    results.suggestion    # "reactions": a "did you mean", when nothing (or little) matched
    suggest("reac", language="en")  # [Suggestion]: titles and aliases as you type

A query is at most ``MAX_QUERY_LENGTH`` characters (``QueryTooLong`` otherwise); NUL
bytes, punctuation and full-text syntax are only ever text, so a query never errors.
Questions are answered a few at a time per process (``Busy`` when one waited too long:
``rules.shared.capacity``).
"""

from ..shared.capacity import Busy
from .service import (
    MAX_QUERY_LENGTH,
    MAX_RESULTS,
    TYPES,
    Hit,
    QueryTooLong,
    SearchResults,
    Suggestion,
    search,
    suggest,
)

__all__ = [
    "Busy",
    "MAX_QUERY_LENGTH",
    "MAX_RESULTS",
    "TYPES",
    "Hit",
    "QueryTooLong",
    "SearchResults",
    "Suggestion",
    "search",
    "suggest",
]
