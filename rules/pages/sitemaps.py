"""The sitemaps: an index (``/sitemap.xml``), the pages of every game, and one sitemap
per game and language of its entries.

Decisions:

- **An index, and a sitemap per game and language**, as the protocol means for large
  sites (50,000 URLs per sitemap at most): a 40,000-entry site was one document of
  several megabytes, made again after every write and whenever a crawler added a
  query string. The index is one query and cached like every page. Each game's entries
  are a file built in the background (``rules.builds``) and served with ``ETag`` and
  ``Range``, so a crawler never waits for it and never makes it again.
- Pages whose URL differs only by the language prefix (home, a game, its FAQ and errata)
  use Django's i18n sitemaps (``/sitemaps/pages.xml``): one ``<url>`` per UI language,
  each naming the others as ``hreflang`` alternates, as the pages themselves do. No
  ``x-default`` here: the pages name the English URL as x-default, and Django's would
  be the unprefixed one; two answers to one question would only confuse crawlers.
- An entry is listed once, at its canonical URL (the UI in the entry's own language),
  not once per UI language: its other-UI variants show the same text. Its alternates
  are its published translations, each at its own canonical URL, named by their content
  language.
- A game's FAQ and errata pages are listed only when the game has published questions
  or errata: an empty page is not worth a crawl, and an unpublished item must not make
  one appear.
- Everything starts from ``published()``.
"""


from django.contrib.sitemaps import Sitemap
from django.db.models import Count, Max, Q
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from ..builds.models import BuiltFile
from ..builds.serving import serve
from ..content import version as content_version
from ..content.models import Entry, Game
from ..content.querysets import Status
from .http import public_page


class HomeSitemap(Sitemap):
    """The list of games, in every UI language."""

    i18n = True
    alternates = True

    def items(self):
        return ["rules:home"]

    def location(self, item):
        return reverse(item)


class GamePageSitemap(Sitemap):
    """One page of every game (``rules:game``, ``faq:list`` …), in every UI language.

    ``relation`` names the game's published items that the page shows (``entries``,
    ``errata``, ``faq_questions``): their last change is the page's ``lastmod``. With
    ``required``, games with none of them are left out.
    """

    i18n = True
    alternates = True

    def __init__(self, view_name: str, relation: str, *, required: bool = False):
        self.view_name = view_name
        self.relation = relation
        self.required = required

    def items(self):
        published = Q(**{f"{self.relation}__status": Status.PUBLISHED})
        games = Game.objects.published().annotate(
            last_change=Max(f"{self.relation}__updated_at", filter=published),
            published_count=Count(self.relation, filter=published),
        )
        if self.required:
            games = games.filter(published_count__gt=0)
        return games.order_by("slug")

    def location(self, game):
        return reverse(self.view_name, kwargs={"game": game.slug})

    def lastmod(self, game):
        return max(filter(None, [game.updated_at, game.last_change]))


# --- Entries: one sitemap per game and language, built in the background (rules.builds.sitemap)


@public_page()
def entry_sitemap(request, game, language):
    """The sitemap of a game's entries in one language, as built in the background."""
    game = get_object_or_404(Game.objects.published(), slug=game)
    if not Entry.objects.published().filter(game=game, language=language).exists():
        raise Http404("No entries in that language")
    file = BuiltFile.objects.for_request(BuiltFile.Kind.SITEMAP, game=game, language=language)
    return serve(request, file, content_version.of_request(request).token)


@public_page()
def sitemap_index(request):
    """``/sitemap.xml``: the site's pages, then one sitemap per game and language with
    published entries, each with its last change. One query; cached like every page."""
    rows = (
        Entry.objects.published()
        .order_by()
        .values("game__slug", "language")
        .annotate(last_change=Max("updated_at"))
        .order_by("game__slug", "language")
    )
    sitemaps = [(reverse("sitemap-pages"), None)] + [
        (
            reverse("sitemap-entries", kwargs={"game": row["game__slug"], "language": row["language"]}),
            row["last_change"].date().isoformat(),
        )
        for row in rows
    ]
    return render(
        request,
        "sitemap_index.xml",
        {"sitemaps": [(request.build_absolute_uri(path), lastmod) for path, lastmod in sitemaps]},
        content_type="application/xml",
    )
