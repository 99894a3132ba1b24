"""Context shared by the public pages of rules and faq (one place, so they agree)."""


from django.conf import settings
from django.shortcuts import get_object_or_404
from django.urls import translate_url
from django.utils import translation

from ..content.addresses import entry_url_template
from ..content.models import Entry, Game, Source, most_content_first
from ..content.prepared import PreparedQuery
from ..content.querysets import Status
from ..content.releases import Release
from ..derived.models import GameLanguage
from ..shared.languages import native_name


def game_name(game) -> str:
    """The game's name as every page shows it to this reader: in the reader's UI language
    (the home page's card, the game's page, its entries, search results alike), whatever
    the language of the content on the page."""
    return game.name_in(translation.get_language())


def reader_counts(games, ui_language: str) -> dict[int, tuple[str, int]]:
    """Game id → (the language its page shows this reader, its published entries in that
    language): the reader's language when the game has content in it, else the language
    with the most (``Game.content_language_for``, for every game in three queries)."""
    from django.db.models import Count

    from ..content.models import Erratum

    totals: dict[int, dict[str, int]] = {}
    entries: dict[tuple[int, str], int] = {}
    ids = [game.pk for game in games]
    rows = [
        Entry.objects.published().filter(game_id__in=ids),
        Erratum.objects.published().filter(game_id__in=ids),
        # faq builds on rules: its questions are reached through the game, by name
        Game._meta.get_field("faq_questions").related_model.objects.filter(game_id__in=ids, status=Status.PUBLISHED),
    ]
    for index, queryset in enumerate(rows):
        for game_id, language, n in queryset.order_by().values_list("game_id", "language").annotate(n=Count("pk")):
            totals.setdefault(game_id, {})
            totals[game_id][language] = totals[game_id].get(language, 0) + n
            if index == 0:
                entries[game_id, language] = n
    shown = {}
    by_id = {game.pk: game for game in games}
    for game_id, counts in totals.items():
        language = by_id[game_id].content_language_for(ui_language, most_content_first(counts))
        shown[game_id] = (language, entries.get((game_id, language), 0))
    return shown


# A game's stored languages with the game, by its slug: the same SQL for every game page,
# so it is compiled once (rules.content.prepared). Every game is public
# (``Game.objects.published()`` is all of them), so the game found here may be shown.
# Without the game page's lists (up to a few hundred kilobytes a language), which only
# the game page reads (``rules.pages.stored_game_pages``), beside these same columns.
LISTS = ("glossary_html", "sections_html")


def game_languages(slug: str):
    return GameLanguage.objects.filter(game__slug=slug).select_related("game").defer(*LISTS).order_by()


GAME_LANGUAGES = PreparedQuery(GameLanguage, game_languages, 1)


def game_context(game_slug: str, rows: list[GameLanguage] | None = None) -> dict:
    """What every page of a game needs: the game, and which language its content is in.

    The URL's language selects the content; when the game has nothing in that language
    the page says so and shows the language that has the most. The languages and how
    much each has are stored (``rules.derived.game_pages``): one query with the game,
    whatever the size of the game (a second, for the game alone, when it has no content
    yet). ``shown`` is the stored row of the language shown, or None. ``rows``: the
    game's rows, when the caller read them (``GAME_LANGUAGES`` with more beside them).
    """
    stored = {row.language: row for row in (GAME_LANGUAGES(game_slug) if rows is None else rows)}
    if stored:
        game = next(iter(stored.values())).game
    else:
        game = get_object_or_404(Game.objects.published(), slug=game_slug)
    ui_language = translation.get_language()
    available = most_content_first({language: row.total for language, row in stored.items()})
    content_language = game.content_language_for(ui_language, available) or ui_language
    return {
        "game": game,
        "game_name": game_name(game),
        "content_language": content_language,
        "content_missing": content_language != ui_language,
        "other_content_languages": [(code, native_name(code)) for code in available if code != content_language],
        "shown": stored.get(content_language),
    }


# A game's sources in one language, and their public releases: read per request, not
# stored (announcing an upcoming release changes no item), each compiled once.
GAME_SOURCES = PreparedQuery(
    Source, lambda slug, language: Source.objects.published().filter(game__slug=slug, language=language), 2
)
SOURCE_RELEASES = PreparedQuery(
    Release,
    lambda slug, language: Release.objects.public().filter(source__game__slug=slug, source__language=language),
    2,
)


def game_sources(game_slug: str, language: str) -> tuple[list[Source], str]:
    """The game page's sources in ``language``, each with ``public_releases`` (newest
    first, ``Release.objects.public()``): one query, two when there are sources; and the
    digest of the rows read (``PreparedQuery.with_digest``)."""
    sources, digest = GAME_SOURCES.with_digest(game_slug, language)
    if sources:
        releases: dict[int, list[Release]] = {}
        rows, releases_digest = SOURCE_RELEASES.with_digest(game_slug, language)
        for release in rows:
            releases.setdefault(release.source_id, []).append(release)
        for source in sources:
            source.public_releases = releases.get(source.pk, [])
        digest = f"{digest} {releases_digest}"
    return sources, digest


def entry_page_context(request, entry) -> dict:
    """Everything the entry page shows about ``entry`` (loaded ``for_page()``): the entry
    and what it stores of other items (``Entry.related``), no query of its own.

    One builder for the public page and the moderators' preview of a draft
    (``rules.admin.preview``), so the preview is the page a reader will get.
    """
    ui_language = translation.get_language()
    game, related = entry.game, entry.related
    versions = {t.language: t.slug for t in related.translations}
    alternates = []
    for code, _name in settings.LANGUAGES:
        # The entry's own version in that language if it has one, else this entry.
        slug = entry.slug if entry.language == code else versions.get(code, entry.slug)
        alternates.append((code, request.build_absolute_uri(entry_url_in(game.slug, slug, code))))
    return {
        "game": game,
        "game_name": game_name(game),
        "entry": entry,
        "content_language": entry.language,
        "content_missing": entry.language != ui_language,
        "parent": related.parent,
        "see_also": related.see_also,
        "referenced_by": related.referenced_by,
        "errata": related.errata,
        "faq_questions": related.questions,
        "children": related.children,
        "translations": [(t, native_name(t.language)) for t in related.translations],
        "alternates": alternates,
        "switcher_urls": dict(alternates),
    }


def entry_url_in(game_slug: str, slug: str, ui_language: str) -> str:
    """``Entry.url_in`` from slugs (no entry loaded)."""
    return entry_url_template(game_slug, ui_language).format(slug=slug)


def item_page_context(game, content_language: str) -> dict:
    """``game_context`` for a page showing one known item (the moderators' preview of
    an erratum or a FAQ question): its game, in the item's own language."""
    return {
        "game": game,
        "game_name": game_name(game),
        "content_language": content_language,
        "content_missing": content_language != translation.get_language(),
        "other_content_languages": [],
    }


def path_alternates(request) -> list[tuple[str, str]]:
    """hreflang alternates for a page whose URL differs only by its language prefix."""
    return [
        (code, request.build_absolute_uri(translate_url(request.path, code))) for code, _name in settings.LANGUAGES
    ]
