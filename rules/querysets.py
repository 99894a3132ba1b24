"""QuerySets with intent-named methods: every public surface starts from ``published()``.

Pages, the API, search, feeds and the sitemap all chain from these, so a draft or an
archived item cannot leak through a forgotten filter.
"""

from django.db import models
from django.db.models import Count, Prefetch, Q


class Status(models.TextChoices):
    DRAFT = "draft", "draft"
    REVIEW = "review", "in review"
    PUBLISHED = "published", "published"
    ARCHIVED = "archived", "archived"


class PublishableQuerySet(models.QuerySet):
    def published(self):
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


# What a page or the API shows of an entry it links to (title, number, address, status).
LINKED_ENTRY_FIELDS = ("title", "slug", "number", "language", "status", "game__slug")


class EntryQuerySet(PublishableQuerySet):
    def top_level(self):
        return self.filter(parent__isnull=True)

    def with_page_relations(self):
        """Everything an entry page or an API entry shows, in a fixed number of queries.

        Each relation is prefetched once for the whole list, so the query count does not
        grow with the number of entries, cross-references, errata or FAQ questions. Into
        lists (``to_attr``): reading ``relation.all()`` would clone a queryset per entry
        and relation, a third of the time of an API page.
        """
        from .models import CrossReference, Entry, Erratum

        # faq builds on rules, never the reverse: reach FAQ questions through the reverse
        # relation by name, not by importing faq.
        Question = self.model._meta.get_field("faq_questions").related_model

        # Linked entries are shown by title and address only: their columns, no bodies.
        linked = [f"{{}}__{name}" for name in LINKED_ENTRY_FIELDS]
        # parent__game: the parent's link needs its game's slug.
        return self.select_related("game", "source", "parent__game").prefetch_related(
            # cross_references: see-also and [[links]], each with its target's game for URLs
            Prefetch(
                "cross_references",
                queryset=CrossReference.objects.select_related("target__game")
                .only("entry_id", "label", "in_body", "order", *(f.format("target") for f in linked))
                .order_by("in_body", "order", "pk"),
                to_attr="page_references",
            ),
            # referenced_by: only from published entries (a draft must not reveal itself)
            Prefetch(
                "referenced_by",
                queryset=CrossReference.objects.filter(entry__status=Status.PUBLISHED)
                .select_related("entry__game")
                .only("target_id", *(f.format("entry") for f in linked))
                .order_by("entry__title"),
                to_attr="page_referrers",
            ),
            Prefetch(
                "errata",
                # Meta.ordering's "game" would join the games again only to sort by
                # name, the costliest part of compiling the query: one game here.
                queryset=Erratum.objects.published().select_related("game").order_by("language", "order", "title", "pk"),
                to_attr="page_errata",
            ),
            Prefetch(
                "faq_questions",
                queryset=Question.objects.published()
                .select_related("game")
                .order_by("language", "order", "question", "pk"),
                to_attr="page_questions",
            ),
            Prefetch(
                "children",
                queryset=Entry.objects.published()
                .select_related("game")
                .only("parent_id", *LINKED_ENTRY_FIELDS)
                .order_by("order", "pk"),
                to_attr="published_children",
            ),
        )
