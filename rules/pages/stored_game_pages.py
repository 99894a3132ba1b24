"""Game pages stored as an anonymous reader gets them, as entry pages are
(``rules.pages.stored_pages``; what both share: ``rules.pages.stored``).

The game's lists are stored already (``rules.derived.game_pages``), yet rendering the page
around them cost most of an uncached game page (the base template, the game's links and
counts, the sources: 4.7 ms of CPU, ``bench/cpu.py``). What the page shows depends on
the game's stored language rows (with the game), its sources and their public releases
in the content language shown, the UI language, the address and the code: so

- **The reader** (``rules.pages.views.game_detail``) reads the game's language rows and,
  in the same query, the stored page beside the row of the language the page shows
  (``GAME_PAGE_STORED``: a page is stored per game and UI language, with the content
  language it shows, so only one row carries it), then the sources (one query, two with
  releases). It is served the stored page when its inputs are those of the rows it just
  read; otherwise, or with no page stored, the page is rendered as before.
- **The lists are not read** on that path: they are a few hundred kilobytes for a large
  game, and the rows' ``fingerprint`` (of everything the lists are made from) stands for
  them in the digest. Rendering reads them as annotations beside the same columns
  (``GAME_PAGE_LISTS``), so the digest is the same whichever query gave the rows.
- **The worker stores them** with the entry pages (``stored_pages.refresh``), for each
  game a write changed, in each UI language, before the game's entry pages: a game page
  costs a reader more than an entry page.
- **Only for anonymous readers of the plain address** (``stored.servable``).
"""

from django.conf import settings
from django.db.models import F, OuterRef
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation

from ..builds.site import SiteRequest
from ..content.prepared import PreparedQuery
from ..derived import game_pages
from ..derived.models import GameLanguage
from . import stored
from .models import StoredGamePage
from .page_context import game_context, game_languages, game_sources


def _stored_beside(ui_language: str):
    """The stored page in ``ui_language`` of the outer row's game, if it shows the outer
    row's language (a subquery)."""
    return StoredGamePage.objects.filter(game=OuterRef("game"), content_language=OuterRef("language"),
                                         ui_language=ui_language)  # fmt: skip


# The game's language rows (without the lists) with the stored page beside the row of the
# language it shows: as HTML, or as its digest and gzip bytes for a client that takes gzip.
GAME_PAGE_STORED = PreparedQuery(
    GameLanguage, lambda slug, ui: game_languages(slug).annotate(**stored.stored_columns(_stored_beside(ui), False)), 2
)
GAME_PAGE_STORED_GZIP = PreparedQuery(
    GameLanguage, lambda slug, ui: game_languages(slug).annotate(**stored.stored_columns(_stored_beside(ui), True)), 2
)
# The same rows with the lists, for rendering (``glossary``, ``sections``).
GAME_PAGE_LISTS = PreparedQuery(
    GameLanguage,
    lambda slug: game_languages(slug).annotate(glossary=F("glossary_html"), sections=F("sections_html")),
    1,
)


def stored_page(request, game_slug: str, ui_language: str, gzip: bool) -> HttpResponse | None:
    """The page the worker stored for this reader if it was made of the rows read now;
    None: render it (``render_page``)."""
    query = GAME_PAGE_STORED_GZIP if gzip else GAME_PAGE_STORED
    rows, digest = query.with_digest(game_slug, ui_language)
    if not rows:  # no such game, or a game without content yet: rendered
        return None
    context = game_context(game_slug, rows)
    shown = context["shown"]
    if shown is None or getattr(shown, "stored_page", None) is None:
        return None  # nothing stored for this language: not worth reading the sources
    _sources, sources_digest = game_sources(context["game"].slug, context["content_language"])
    made_of = stored.inputs(request, ui_language, f"{digest}\n{sources_digest}")
    return stored.stored_response(made_of, shown.stored_page, getattr(shown, "stored_gzip", None), gzip)


def render_page(request, game_slug: str) -> HttpResponse:
    """The game page, rendered."""
    context, _rows = _read(game_slug)
    return _render(request, context)


def _read(game_slug: str) -> tuple[dict, str]:
    """The page's context in the active UI language (but the lists' links and badges,
    ``_render``) and the digest of the rows it is made of. Http404 for an unknown game."""
    rows, digest = GAME_PAGE_LISTS.with_digest(game_slug)
    context = game_context(game_slug, rows)
    context["sources"], sources_digest = game_sources(context["game"].slug, context["content_language"])
    return context, f"{digest}\n{sources_digest}"


def _render(request, context: dict) -> HttpResponse:
    language, shown = context["content_language"], context["shown"]
    ui_language = translation.get_language()
    context.update(
        {
            # The lists and counts were stored when the game was written (rules.derived.game_pages).
            "glossary_html": game_pages.for_reader(shown.glossary if shown else "", language, ui_language),
            "sections_html": game_pages.for_reader(shown.sections if shown else "", language, ui_language),
            "errata_count": shown.errata if shown else 0,
            "faq_count": shown.questions if shown else 0,
        }
    )
    return render(request, "rules/game_detail.html", context)


# -- the worker (called by ``stored_pages.refresh``) ----------------------------------------


def pages_to_store(game_slug: str, stored_inputs: dict[str, str]) -> list[StoredGamePage]:
    """The game's page in each UI language whose inputs are not ``stored_inputs`` (UI
    language → the stored page's inputs), rendered; a game without content yet has none."""
    pages = []
    for ui_language, _name in settings.LANGUAGES:
        # Read and rendered in the UI language, as a request is.
        with translation.override(ui_language):
            request = SiteRequest(reverse("rules:game", args=[game_slug]), ui_language=ui_language)
            try:
                context, rows = _read(game_slug)
            except Http404:  # deleted since the list of games was read
                return pages
            if context["shown"] is None:  # no content yet: no row to find a stored page beside
                return pages
            made_of = stored.inputs(request, ui_language, rows)
            if stored_inputs.get(ui_language) == made_of:
                continue
            body = _render(request, context).content
        pages.append(StoredGamePage.of(body, game=context["game"], ui_language=ui_language, inputs=made_of,
                                       content_language=context["content_language"]))  # fmt: skip
    return pages
