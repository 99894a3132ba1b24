"""The sitemap's sections: the home page, each game's pages, and every published entry.

Decisions:

- Pages whose URL differs only by the language prefix (home, a game, its FAQ and errata)
  use Django's i18n sitemaps: one ``<url>`` per UI language, each naming the others as
  ``hreflang`` alternates, as the pages themselves do. No ``x-default`` here: the pages
  name the English URL as x-default, and Django's would be the unprefixed one; two
  answers to one question would only confuse crawlers.
- An entry is listed once, at its canonical URL (the UI in the entry's own language),
  not once per UI language: its other-UI variants show the same text. Its alternates
  are its published translations, each at its own canonical URL, named by their content
  language.
- A game's FAQ and errata pages are listed only when the game has published questions
  or errata: an empty page is not worth a crawl, and an unpublished item must not make
  one appear.
- Everything starts from ``published()``. The query count is fixed, whatever the number
  of entries: one COUNT and one page query per section, and one query for the
  translations of all entries.
"""

from collections import defaultdict

from django.contrib.sitemaps import Sitemap
from django.db.models import Count, Max, Q
from django.urls import reverse

from .models import Entry, Game
from .querysets import Status


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


class EntrySitemap(Sitemap):
    """Every published entry at its canonical URL, with its translations as alternates."""

    def items(self):
        return (
            Entry.objects.published()
            .select_related("game")
            .only("slug", "language", "translation_key", "updated_at", "game__slug")
            .order_by("game__slug", "language", "slug", "pk")
        )

    def location(self, entry):
        return entry.canonical_url()

    def lastmod(self, entry):
        return entry.updated_at

    def get_urls(self, page=1, site=None, protocol=None):
        urls = super().get_urls(page=page, site=site, protocol=protocol)
        domain, protocol = self.get_domain(site), self.get_protocol(protocol)
        versions = self._translated_versions()
        for url in urls:
            group = versions.get(url["item"].translation_key, [])
            url["alternates"] = [
                {
                    "lang_code": version.language,
                    "location": f"{protocol}://{domain}{version.canonical_url()}",
                }
                for version in group
            ]
        return urls

    @staticmethod
    def _translated_versions() -> dict:
        """translation key → its published versions, for the keys with more than one.

        One query for the whole sitemap (a subquery picks the shared keys), rather than
        one per entry or a list of every key of the page as query parameters.
        """
        shared = (
            Entry.objects.published()
            .order_by()
            .values("translation_key")
            .annotate(n=Count("pk"))
            .filter(n__gt=1)
            .values("translation_key")
        )
        rows = (
            Entry.objects.published()
            .filter(translation_key__in=shared)
            .select_related("game")
            .only("slug", "language", "translation_key", "game__slug")
            .order_by("language", "pk")
        )
        groups = defaultdict(list)
        for row in rows:
            groups[row.translation_key].append(row)
        return groups
