"""QuerySets with intent-named methods: every public surface starts from ``published()``.

Pages, the API, search, feeds and the sitemap all chain from these, so a draft or an
archived item cannot leak through a forgotten filter.
"""

from django.db import models
from django.db.models import Count, Q


class Status(models.TextChoices):
    DRAFT = "draft", "draft"
    REVIEW = "review", "in review"
    PUBLISHED = "published", "published"
    ARCHIVED = "archived", "archived"


class PublishableQuerySet(models.QuerySet):
    def published(self):
        """What readers may see. A row a large import is still writing is a draft until the
        import's last transaction publishes all of them at once (``held_by_import``,
        ``rules.importing.rows``): public is told by the status alone, here and in every
        check of it, so no surface can show half an import."""
        return self.filter(status=Status.PUBLISHED)

    def for_language(self, language: str):
        return self.filter(language=language)

    def for_game(self, game):
        return self.filter(game=game)


class GameQuerySet(models.QuerySet):
    def published(self):
        """Games are public records; what is public *of* them is filtered per item."""
        return self.all()

    def with_entry_counts(self):
        published = Q(entries__status=Status.PUBLISHED)
        return self.annotate(entry_count=Count("entries", filter=published, distinct=True))


class SourceQuerySet(models.QuerySet):
    def published(self):
        """Sources are public citations; they carry no draft text of their own."""
        return self.all()


class EntryQuerySet(PublishableQuerySet):
    def top_level(self):
        return self.filter(parent__isnull=True)

    def for_page(self):
        """What an entry page shows, in one query: the entry with its game and source.

        Everything it shows of other items (see-also targets, entries linking here,
        errata, FAQ questions, sub-sections, translations) is stored with it, computed
        when something is written (``rules.derived.relations``, ``Entry.related``).
        """
        return self.select_related("game", "source")
