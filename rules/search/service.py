"""The search service's public shapes (see the package docstring)."""

from dataclasses import dataclass, field

from django.utils.safestring import SafeString

MAX_QUERY_LENGTH = 200
TYPES = ("entry", "erratum", "question")


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


@dataclass
class SearchResults:
    query: str
    hits: list[Hit] = field(default_factory=list)
    total: int = 0
    suggestion: str | None = None  # "did you mean"


@dataclass
class Suggestion:
    type: str
    id: int
    title: str  # the title, or the alias that matched
    matched_alias: bool
    game_slug: str
    language: str
    url: str


def search(
    query: str,
    *,
    game: str | None = None,
    language: str | None = None,
    type: str | None = None,  # noqa: A002 - the API's parameter name
    limit: int = 100,
) -> SearchResults:
    # INTERIM: entries only, over the stop-gap; replaced by the index-backed engine.
    from ..models import Game
    from .stopgap import search_entries

    query = _checked(query)
    if type not in (None, "", "entry"):
        return SearchResults(query)
    game_obj = Game.objects.filter(slug=game).first() if game else None
    if game and game_obj is None:
        return SearchResults(query)
    hits = [
        Hit("entry", h.entry.pk, h.entry.display_title, h.entry.game.slug, h.entry.game.name, h.entry.language,
            h.snippet, h.entry.get_absolute_url(), h.score, h.entry.number)
        for h in search_entries(query, language=language or None, game=game_obj, limit=limit)
    ]
    return SearchResults(query, hits, len(hits))


def suggest(query: str, *, game: str | None = None, language: str | None = None, limit: int = 8) -> list[Suggestion]:
    # INTERIM: prefix of titles, over the stop-gap's data.
    from ..models import Entry

    query = _checked(query).strip()
    if not query:
        return []
    entries = Entry.objects.published().select_related("game").filter(title__istartswith=query)
    if game:
        entries = entries.filter(game__slug=game)
    if language:
        entries = entries.filter(language=language)
    return [
        Suggestion("entry", e.pk, e.title, False, e.game.slug, e.language, e.get_absolute_url())
        for e in entries.order_by("title")[:limit]
    ]


def _checked(query: str) -> str:
    query = (query or "").replace("\x00", " ")
    if len(query) > MAX_QUERY_LENGTH:
        raise QueryTooLong(f"the query is longer than {MAX_QUERY_LENGTH} characters")
    return query
