"""Atom feeds: recent changes of published entries (site-wide and per game) and a game's errata.

Decisions:

- Every queryset starts from ``published()``: a draft, an entry in review or an
  archived one is never an item, whatever else the feed filters on.
- Atom, not RSS: Atom says what a title is (plain text) and what a summary is (HTML),
  and it has ``updated`` and ``xml:lang`` on each item. Titles are handed over as plain
  text (the XML writer escapes them once; Django's RSS-era default escapes them twice),
  summaries are the same sanitised HTML the pages render.
- Each item carries its content language as ``xml:lang`` (the site-wide feed mixes
  languages; a game's feed is in the game's content language for the UI language, the
  one its pages show) and a stable id, a URN made from the item's primary key: it
  survives renames (new slug) and is the same in every UI language's feed, so a reader
  subscribed to two sees one item.
- Links keep the reader's UI language (``get_absolute_url`` in the active language), as
  the pages' own links do.
- An unknown game is a 404 (``game_context`` raises ``Http404``), never a 500.
"""

import datetime
import uuid

from django.contrib.syndication.views import Feed
from django.db.models import Count, Prefetch
from django.urls import reverse
from django.utils import translation
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext, ngettext

from ..content.models import CrossReference, Entry, Erratum
from ..content.releases import Release
from ..derived.rendering import for_ui_language
from ..shared.languages import native_name
from .page_context import game_context

FEED_LENGTH = 50

# Item ids: urn:uuid:<uuid5 of "rulesite:<type>:<pk>">, stable for the item's lifetime.
_ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "rulesite")


def item_id(kind: str, pk: int) -> str:
    return f"urn:uuid:{uuid.uuid5(_ID_NAMESPACE, f'{kind}:{pk}')}"


class LanguageTaggedAtomFeed(Atom1Feed):
    """Atom with ``xml:lang`` on each <entry>: an item's language may differ from the feed's."""

    def item_attributes(self, item):
        attributes = super().item_attributes(item)
        if item.get("language"):
            attributes["xml:lang"] = item["language"]
        return attributes


def entries_for_feed(queryset):
    """Published entries, newest change first, with what their titles, links and bodies need.

    game: joined in (links, titles); cross_references with their targets and the
    targets' games: one query for the whole feed instead of one per entry when the
    body's [[links]] are rendered.
    """
    return (
        queryset.published()
        .select_related("game")
        .prefetch_related(
            Prefetch(
                "cross_references", queryset=CrossReference.objects.select_related("target__game")
            )
        )
        .order_by("-updated_at", "-pk")[:FEED_LENGTH]
    )


class BaseFeed(Feed):
    feed_type = LanguageTaggedAtomFeed

    def item_title(self, item):
        return str(item)

    def item_extra_kwargs(self, item):
        return {"language": item.language}

    def item_updateddate(self, item):
        return item.updated_at


class EntryChangesMixin:
    def item_title(self, item):
        return item.display_title

    def item_description(self, item):
        return for_ui_language(item.body_html, item.language, translation.get_language())

    def item_guid(self, item):
        return item_id("entry", item.pk)

    def item_pubdate(self, item):
        return item.created_at


class SiteChangesFeed(EntryChangesMixin, BaseFeed):
    """The last changed published entries of every game, in every content language."""

    def title(self):
        return gettext("Recently changed entries · rulesite")

    def subtitle(self):
        return gettext("Glossary entries and rule sections of every game, newest change first.")

    def link(self):
        return reverse("rules:home")

    def items(self):
        return entries_for_feed(Entry.objects.all())

    def item_categories(self, item):
        # The game the entry belongs to, named in the entry's language.
        return [item.game.name_in(item.language)]


class GameFeed(BaseFeed):
    """A feed of one game, in the content language its pages show for this UI language."""

    def get_object(self, request, game):
        return game_context(game)  # Http404 for an unknown game

    @staticmethod
    def language_note(context) -> str:
        return native_name(context["content_language"])


class GameChangesFeed(EntryChangesMixin, GameFeed):
    def title(self, context):
        return gettext("%(game)s: recently changed entries") % {"game": context["game_name"]}

    def subtitle(self, context):
        return gettext("Entries in %(language)s, newest change first.") % {
            "language": self.language_note(context)
        }

    def link(self, context):
        return reverse("rules:game", kwargs={"game": context["game"].slug})

    def items(self, context):
        return entries_for_feed(
            Entry.objects.published()
            .for_game(context["game"])
            .for_language(context["content_language"])
        )


class GameErrataFeed(GameFeed):
    def title(self, context):
        return gettext("%(game)s: errata") % {"game": context["game_name"]}

    def subtitle(self, context):
        return gettext("Errata in %(language)s, newest first.") % {
            "language": self.language_note(context)
        }

    def link(self, context):
        return reverse("rules:errata", kwargs={"game": context["game"].slug})

    def items(self, context):
        return (
            Erratum.objects.published()
            .for_game(context["game"])
            .for_language(context["content_language"])
            .select_related("game")
            .order_by("-updated_at", "-pk")[:FEED_LENGTH]
        )

    def item_description(self, item):
        return for_ui_language(item.corrected_html, item.language, translation.get_language())

    def item_guid(self, item):
        return item_id("erratum", item.pk)

    def item_pubdate(self, item):
        # The date the publisher issued it, where known; else when it reached the site.
        if item.published_on:
            return datetime.datetime.combine(
                item.published_on, datetime.time.min, tzinfo=datetime.UTC
            )
        return item.created_at

    def item_categories(self, item):
        return [str(item.get_kind_display())]  # correction, clarification, rule change


class GameReleasesFeed(GameFeed):
    """One item per release of the game's sources in its content language: what changed."""

    def title(self, context):
        return gettext("%(game)s: new versions of the rules") % {"game": context["game_name"]}

    def subtitle(self, context):
        return gettext("Releases in %(language)s, newest first, each with what it changed.") % {
            "language": self.language_note(context)
        }

    def link(self, context):
        return reverse("rules:game", kwargs={"game": context["game"].slug})

    def items(self, context):
        return (
            Release.objects.filter(source__game=context["game"], source__language=context["content_language"])
            .public()
            .select_related("source__game")
            .annotate(change_total=Count("changes"))
            .order_by("-created_at", "-pk")[:FEED_LENGTH]
        )

    def item_title(self, item):
        return f"{item.source.title} {item.label}"

    def item_link(self, item):
        return reverse("rules:release", kwargs={"game": item.source.game.slug, "pk": item.pk})

    def item_description(self, item):
        return ngettext("%(count)d change.", "%(count)d changes.", item.change_total) % {"count": item.change_total}

    def item_extra_kwargs(self, item):
        return {"language": item.source.language}

    def item_guid(self, item):
        return item_id("release", item.pk)

    def item_updateddate(self, item):
        return item.created_at

    def item_pubdate(self, item):
        day = item.effective_on or item.published_on
        if day:
            return datetime.datetime.combine(day, datetime.time.min, tzinfo=datetime.UTC)
        return item.created_at
