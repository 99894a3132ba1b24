"""Serializers of API v1: the JSON shape clients depend on.

Conventions every resource follows:

- ``url`` is the item's absolute API URL, ``html_url`` the absolute URL of its public
  page with the UI in the item's own language (the default language when the UI does
  not speak it), so both are stable for a given item whatever the client's
  ``Accept-Language``.
- Nested items are short summaries with their own ``url``; only published items are
  ever nested. The viewsets prefetch them already filtered; the serializers check the
  status again wherever they read a plain relation, so a viewset that forgets a
  ``Prefetch`` shows fewer items, never a draft.
- ``*_html`` fields are the HTML stored when the text was written (``rules.derived.rendering``:
  Markdown rendered and sanitised, ``[[Term]]`` links pointing at the linked entry's
  page), with site links made absolute. Nothing is rendered per request.
- Speed: an entry carries a dozen nested lists, so ``EntrySerializer`` builds its
  JSON as plain dictionaries (``to_representation``) from the prefetched relations,
  with URLs from one ``reverse()`` per kind and request (``Links``). Its declared
  fields still describe the same shape for the OpenAPI schema, and
  ``tests/api/test_entries.py`` checks the two agree field by field.
"""

import datetime
from collections import defaultdict
from collections.abc import Iterable

from django.db import models
from django.urls import reverse
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from rules.content.addresses import entry_path_template
from rules.content.models import CrossReference, Entry, Erratum, Game, Source
from rules.content.querysets import Status
from rules.content.releases import KINDS, count_by_kind
from rules.derived.rendering import absolute_links
from rules.shared.anchors import rule_ids
from rules.shared.languages import CONTENT_LANGUAGE_CODES, ui_language_for


def page_path(obj) -> str:
    """The path of an item's public page, with the UI in the item's own language."""
    if isinstance(obj, Entry):
        return obj.canonical_url()
    with translation.override(ui_language_for(getattr(obj, "language", None))):
        return obj.get_absolute_url()


def published(items: Iterable) -> list:
    """Keep the published items of an already loaded (prefetched) relation."""
    return [item for item in items if item.status == Status.PUBLISHED]


class Links:
    """Absolute URLs of API items and entry pages, from one ``reverse()`` per kind.

    One per request (``links(context)``): a page of 100 entries links some 2,000 items,
    and a ``reverse()`` each was a large part of the time spent on it.
    """

    def __init__(self, request):
        self.base = request.build_absolute_uri("/")[:-1]
        self._api: dict[str, str] = {}
        self._pages: dict[tuple[str, str], str] = {}

    def api(self, view_name: str, pk: int) -> str:
        template = self._api.get(view_name)
        if template is None:
            template = reverse(view_name, kwargs={"pk": 999_999_999}).replace("999999999", "{pk}")
            self._api[view_name] = template
        return self.base + template.format(pk=pk)

    def entry_page(self, game_slug: str, language: str, slug: str) -> str:
        """``Entry.canonical_url``, absolute."""
        template = self._pages.get((game_slug, language))
        if template is None:
            template = self._pages[game_slug, language] = entry_path_template(game_slug, language)
        return self.base + template.format(slug=slug)

    def release_page(self, game_slug: str, language: str, pk: int) -> str:
        """A release's "what changed" page, with the UI in the source's language."""
        with translation.override(ui_language_for(language)):
            return self.base + reverse("rules:release", kwargs={"game": game_slug, "pk": pk})


def timestamp(value: datetime.datetime) -> str:
    """A stored time as every timestamp of the API writes it (``DateTimeField`` with the
    settings' ISO 8601 and UTC: "2026-11-24T10:05:03.123456Z"), for rows serialized
    without their declared fields: a quarter of the field's time, which looks up the
    current time zone for each value (tests/api/test_entries.py keeps the two equal)."""
    text = value.astimezone(datetime.UTC).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


class UpdatedAtField(serializers.DateTimeField):
    """When the item's JSON last changed, embedded data included (what it shows of other
    items, its game's slug): the ``public_updated_at`` the viewsets annotate
    (``rules.derived.models.PublicItem``), else the row's own ``updated_at``."""

    def __init__(self, **kwargs):
        kwargs.setdefault("read_only", True)
        kwargs.setdefault("help_text", UPDATED_AT_HELP)
        super().__init__(**kwargs)

    def get_attribute(self, instance):
        return getattr(instance, "public_updated_at", None) or instance.updated_at


UPDATED_AT_HELP = (
    "When this item's JSON last changed, including what it embeds of other items "
    "(a linked entry renamed, an erratum or FAQ question added, a translation linked)."
)


def links(context) -> Links:
    if "links" not in context:
        context["links"] = Links(context["request"])
    return context["links"]


@extend_schema_field(OpenApiTypes.URI)
class PageURLField(serializers.Field):
    """The absolute URL of the item's public page (see ``page_path``)."""

    def __init__(self, **kwargs):
        kwargs.update(source="*", read_only=True)
        super().__init__(**kwargs)

    def to_representation(self, value):
        return self.context["request"].build_absolute_uri(page_path(value))


class BatchLoadingListSerializer(serializers.ListSerializer):
    """Lets the item serializer load, in one query for the whole page, what no
    ``prefetch_related`` can express (see ``BatchLoadingMixin``)."""

    def to_representation(self, data):
        items = list(data.all() if isinstance(data, models.manager.BaseManager) else data)
        self.child.load_batch(items)
        return super().to_representation(items)


class BatchLoadingMixin:
    """For serializers with a field that is not a relation Django can prefetch.

    ``load_batch(items)`` sets ``batch_attr`` on every item with one query; a page of
    items is loaded by ``BatchLoadingListSerializer`` before rendering, a single item
    (detail view) loads itself on first use.
    """

    batch_attr: str

    def load_batch(self, items: list) -> None:
        raise NotImplementedError

    def to_representation(self, instance):
        if not hasattr(instance, self.batch_attr):
            self.load_batch([instance])
        return super().to_representation(instance)


# --- Summaries: the short form of an item nested in another -----------------------


class SourceSummarySerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:source-detail")

    class Meta:
        model = Source
        fields = ["id", "title", "kind", "official", "url"]


class EntrySummarySerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:entry-detail")

    class Meta:
        model = Entry
        fields = ["id", "title", "slug", "url"]


class EntryLinkSerializer(EntrySummarySerializer):
    """An entry with its API URL and its page."""

    html_url = PageURLField()

    class Meta(EntrySummarySerializer.Meta):
        fields = [*EntrySummarySerializer.Meta.fields, "html_url"]


class TranslationSerializer(EntryLinkSerializer):
    class Meta(EntryLinkSerializer.Meta):
        fields = ["id", "language", "title", "slug", "url", "html_url"]


class ParentSerializer(EntrySummarySerializer):
    class Meta(EntrySummarySerializer.Meta):
        fields = ["id", "title", "slug", "number", "url"]


class ErratumSummarySerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:erratum-detail")

    class Meta:
        model = Erratum
        fields = ["id", "title", "url"]


# A plain Serializer, not a ModelSerializer: ``rules`` never imports ``faq``. The questions
# arrive through the ``faq_questions`` reverse relation, and the URL is faq's route by name.
class QuestionSummarySerializer(serializers.Serializer):
    """A FAQ question about an entry."""

    id = serializers.IntegerField(read_only=True)
    question = serializers.CharField(read_only=True)
    url = serializers.HyperlinkedIdentityField(view_name="api:faq-detail")


class CrossReferenceSerializer(serializers.ModelSerializer):
    target = serializers.SerializerMethodField(
        help_text="Null while no published entry has this title or alias."
    )

    class Meta:
        model = CrossReference
        fields = ["label", "in_body", "target"]

    @extend_schema_field(EntryLinkSerializer(allow_null=True))
    def get_target(self, ref: CrossReference):
        # Resolution only ever points at published entries, but a target unpublished a
        # moment ago must not show until the references are resolved again.
        if ref.target is None or not ref.target.is_published:
            return None
        return EntryLinkSerializer(ref.target, context=self.context).data


# --- Resources -------------------------------------------------------------------


# entry_count comes from the viewset's with_entry_counts() annotation.
class GameSerializer(BatchLoadingMixin, serializers.ModelSerializer):
    """A game, with how much published content it has and in which languages."""

    batch_attr = "published_languages"

    url = serializers.HyperlinkedIdentityField(view_name="api:game-detail", lookup_field="slug")
    html_url = PageURLField()
    localized_names = serializers.DictField(child=serializers.CharField(), read_only=True)
    entry_count = serializers.IntegerField(
        read_only=True, help_text="Published entries in every language."
    )
    languages = serializers.SerializerMethodField(
        help_text="Content languages with published entries."
    )
    updated_at = UpdatedAtField()

    class Meta:
        model = Game
        fields = [
            "slug", "name", "localized_names", "publisher", "year", "bgg_id",
            "entry_count", "languages", "url", "html_url", "updated_at",
        ]  # fmt: skip
        list_serializer_class = BatchLoadingListSerializer

    def load_batch(self, games: list[Game]) -> None:
        # One query for the languages of the whole page instead of one per game.
        pairs = (
            Entry.objects.published()
            .filter(game__in=[game.pk for game in games])
            .order_by()
            .values_list("game_id", "language")
            .distinct()
        )
        by_game: dict[int, set[str]] = defaultdict(set)
        for game_id, language in pairs:
            by_game[game_id].add(language)
        for game in games:
            found = by_game[game.pk]
            game.published_languages = [code for code in CONTENT_LANGUAGE_CODES if code in found]

    def get_languages(self, game: Game) -> list[str]:
        return game.published_languages


@extend_schema_field(
    {
        "type": "string",
        "anyOf": [{"type": "string", "format": "uri"}, {"type": "string", "enum": [""]}],
    }
)
class OptionalURLField(serializers.CharField):
    """A URL, or ``""`` where none is known (a model ``URLField`` with ``blank=True``).

    Read only; a ``CharField`` because drf-spectacular adds ``format: uri`` to every
    ``URLField``, next to the schema given here, and "" is no URI."""


class ReleaseSummarySerializer(serializers.Serializer):
    """A release of a source: its label, dates and page; ``url`` has its change list."""

    id = serializers.IntegerField()
    url = serializers.URLField(help_text="The release with its change list.")
    version = serializers.CharField()
    published_date = serializers.DateField(allow_null=True)
    effective_date = serializers.DateField(allow_null=True)
    upcoming = serializers.BooleanField(help_text="Its effective date is still ahead.")
    initial = serializers.BooleanField(
        help_text="The source as first imported, before it had versions (its changes list every item as added)."
    )
    html_url = serializers.URLField(help_text="Its \"what changed\" page.")


def release_summary(release, urls: "Links") -> dict:
    return {
        "id": release.pk,
        "url": urls.api("api:release-detail", release.pk),
        "version": release.version,
        "published_date": release.published_on.isoformat() if release.published_on else None,
        "effective_date": release.effective_on.isoformat() if release.effective_on else None,
        "upcoming": release.upcoming,
        "initial": release.initial,
        "html_url": urls.release_page(release.source.game.slug, release.source.language, release.pk),
    }


class ChangeCountsSerializer(serializers.Serializer):
    reworded = serializers.IntegerField()
    retitled = serializers.IntegerField()
    renumbered = serializers.IntegerField()
    added = serializers.IntegerField()
    removed = serializers.IntegerField()


class ReleaseListSerializer(ReleaseSummarySerializer):
    source = serializers.IntegerField()
    counts = ChangeCountsSerializer(help_text="How many items of each kind of change (every kind, 0 included).")

    def to_representation(self, release) -> dict:
        return {
            **release_summary(release, links(self.context)),
            "source": release.source_id,
            "counts": {str(kind): getattr(release, f"count_{kind}", 0) for kind in KINDS},
        }


class ReleaseChangeSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["entry", "erratum", "question"])
    id = serializers.IntegerField(help_text="The item's id (a removed item's is served only with ?number= or ?slug=).")
    change = serializers.ChoiceField(
        choices=[str(kind) for kind in KINDS],
        help_text="One kind per item, the first that applies: reworded (its text), retitled (its title, beyond the "
        "number it holds), renumbered (only its number), added, removed.",
    )
    number = serializers.CharField(help_text='"" for an item without a number; a removed rule\'s last number.')
    previous_number = serializers.CharField(allow_null=True, help_text="Where the number changed: the one before.")
    title = serializers.CharField()
    previous_title = serializers.CharField(allow_null=True, help_text="Where the title changed: the one before.")
    slug = serializers.CharField(help_text="Its address's last part in this release.")
    previous_slug = serializers.CharField(
        allow_null=True, help_text="Where its address changed: the one before (it redirects to the new one)."
    )
    diff_html = serializers.CharField(allow_null=True, help_text="reworded: the word diff (<del>, <ins>).")
    successor = serializers.IntegerField(
        allow_null=True, help_text="removed: the id of the item of this release its text went to, if any."
    )


class ReleaseSerializer(ReleaseSummarySerializer):
    """A release with exactly what it changed, and how many of each kind."""

    source = serializers.IntegerField()
    notes = serializers.CharField()
    counts = ChangeCountsSerializer(help_text="How many items of each kind of change (every kind, 0 included).")
    changes = ReleaseChangeSerializer(many=True)

    def to_representation(self, release) -> dict:
        changes = list(release.changes.all())
        return {
            **release_summary(release, links(self.context)),
            "source": release.source_id,
            "notes": release.notes,
            "counts": count_by_kind(changes),
            "changes": [change_line(change) for change in changes],
        }


def change_line(change) -> dict:
    """A release's change as ``ReleaseChangeSerializer`` describes it."""
    return {
        "type": change.item_type,
        "id": change.item_id,
        "change": change.change,
        "number": change.number,
        "previous_number": change.previous_number if change.moved else None,
        "title": change.title,
        "previous_title": change.previous_title if change.retitled else None,
        "slug": change.slug,
        "previous_slug": change.previous_slug if change.readdressed else None,
        "diff_html": change.diff_html or None,
        "successor": change.successor_id,
    }


class ReleaseWithChangesSerializer(ReleaseSummarySerializer):
    counts = ChangeCountsSerializer()
    changes = ReleaseChangeSerializer(many=True)


class SourceSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:source-detail")
    game = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    source_url = OptionalURLField(
        source="url",
        read_only=True,
        help_text='Where the document itself is; "" when that is not known.',
    )
    updated_at = UpdatedAtField()
    releases = serializers.SerializerMethodField(
        help_text="Its releases, latest first; in a list without their changes (each one's url has them)."
    )

    class Meta:
        model = Source
        fields = [
            "id", "url", "game", "language", "title", "kind", "version", "official",
            "source_url", "attribution", "releases", "updated_at",
        ]  # fmt: skip

    @extend_schema_field(ReleaseSummarySerializer(many=True))
    def get_releases(self, source: Source) -> list[dict]:
        urls = links(self.context)
        return [release_summary(release, urls) for release in source.releases.all()]


class SourceDetailSerializer(SourceSerializer):
    """One source: each release with exactly what it changed."""

    releases = serializers.SerializerMethodField(help_text="Its releases, latest first, each with its changes.")

    @extend_schema_field(ReleaseWithChangesSerializer(many=True))
    def get_releases(self, source: Source) -> list[dict]:
        urls = links(self.context)
        out = []
        for release in source.releases.all():
            changes = list(release.changes.all())
            out.append(
                {
                    **release_summary(release, urls),
                    "counts": count_by_kind(changes),
                    "changes": [change_line(change) for change in changes],
                }
            )
        return out


class FormerNumberSerializer(serializers.Serializer):
    number = serializers.CharField()
    until = serializers.CharField(help_text="The version of the release from which it had another number.")
    until_effective_date = serializers.DateField(allow_null=True)
    release_html_url = serializers.URLField()


class NavigationSerializer(serializers.Serializer):
    """Where the entry sits in reading order, as its page's previous/next links show it."""

    sequence = serializers.ChoiceField(
        choices=["rules", "glossary"], help_text="rules: the numbered rulebook; glossary: alphabetical."
    )
    previous = ParentSerializer(allow_null=True)
    next = ParentSerializer(allow_null=True)
    ancestors = ParentSerializer(many=True, help_text="Its sections, outermost first.")


class AppliedErratumSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    url = serializers.URLField()
    footnote = serializers.IntegerField(
        allow_null=True, help_text="Its mark in corrected_html; null when its passage was not found."
    )
    places = serializers.IntegerField(help_text="How many places of the text it changed.")


class CorrectionsSerializer(serializers.Serializer):
    """The text as the page shows it: the printed text with its errata applied."""

    corrected_html = serializers.CharField(
        allow_null=True, help_text="The body with errata applied (inserted text in <ins>); null when none changed it."
    )
    printed_html = serializers.CharField(allow_null=True, help_text="The printed body with the replaced text in <del>.")
    errata = AppliedErratumSerializer(many=True)


class TranslationStatusSerializer(serializers.Serializer):
    original = TranslationSerializer(help_text="The entry this one translates.")
    up_to_date = serializers.BooleanField(
        help_text="The original has not changed since this translation was made from it."
    )
    checked_on = serializers.DateField(
        allow_null=True, help_text="The date of the original's version it was made from; null when not known."
    )


class RuleAnchorSerializer(serializers.Serializer):
    number = serializers.CharField(help_text="A rule number opening a paragraph of the body, e.g. 601.2a.")
    html_url = serializers.URLField(help_text="The page, scrolled to that rule.")


class RemovedInSerializer(serializers.Serializer):
    version = serializers.CharField()
    effective_date = serializers.DateField(allow_null=True)
    url = serializers.URLField(help_text="The release, with its change list.")
    html_url = serializers.URLField(help_text="Its \"what changed\" page.")


# Serializes the plain rows of EntryViewSet.get_queryset() (ENTRY_JSON_FIELDS): everything
# an entry shows of other items is stored with it (Entry.relations, rules.derived.relations).
class EntrySerializer(serializers.ModelSerializer):
    """A glossary entry or rule section with everything its page shows."""

    url = serializers.HyperlinkedIdentityField(view_name="api:entry-detail")
    html_url = PageURLField()
    game = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    aliases = serializers.ListField(child=serializers.CharField(), read_only=True)
    parent = serializers.SerializerMethodField(
        help_text="The published section this entry belongs to."
    )
    body = serializers.CharField(
        read_only=True, help_text="Markdown; [[Term]] links other entries."
    )
    body_html = serializers.SerializerMethodField(help_text="The body rendered and sanitised.")
    cross_references = CrossReferenceSerializer(many=True, read_only=True)
    referenced_by = serializers.SerializerMethodField(help_text="Published entries linking here.")
    children = serializers.SerializerMethodField(help_text="Published sub-sections, in order.")
    translations = serializers.SerializerMethodField(help_text="This entry in other languages.")
    errata = serializers.SerializerMethodField(help_text="Published errata affecting this entry.")
    faq_questions = serializers.SerializerMethodField(help_text="Published FAQ questions about it.")
    source = SourceSummarySerializer(read_only=True, allow_null=True)
    corrections = serializers.SerializerMethodField(help_text="Null when no published erratum affects it.")
    translation_status = serializers.SerializerMethodField(help_text="Null when it is no translation.")
    navigation = serializers.SerializerMethodField(help_text="Null when it is in no reading order.")
    anchors = serializers.SerializerMethodField(help_text="Rules inside the body that can be linked to.")
    previous_numbers = FormerNumberSerializer(
        many=True, read_only=True, help_text="Numbers it had before a release renumbered it, oldest first."
    )
    as_of = serializers.CharField(
        allow_null=True, read_only=True, help_text="With ?as_of=: the release whose text this is; else null."
    )
    removed_in = RemovedInSerializer(
        allow_null=True,
        read_only=True,
        help_text="A rule a release removed (found by its id, ?number= or ?slug=): that release; its body is its "
        "last text. Null for a rule on the site.",
    )
    updated_at = UpdatedAtField()

    class Meta:
        model = Entry
        fields = [
            "id", "url", "html_url", "game", "language", "title", "slug", "aliases", "kind",
            "number", "parent", "body", "body_html", "cross_references", "referenced_by",
            "children", "translations", "errata", "faq_questions", "source", "page",
            "is_fragment", "corrections", "translation_status", "navigation", "anchors", "previous_numbers",
            "as_of", "removed_in", "updated_at",
        ]  # fmt: skip

    # The declared fields above describe this shape for the schema; this builds it from a
    # row, without building the declared fields (a deep copy of them per request).
    def to_representation(self, entry: dict) -> dict:
        related, urls = entry["relations"] or {}, links(self.context)
        game_slug, language = entry["game__slug"], entry["language"]

        def summary(other: dict, *extra: str) -> dict:
            # EntrySummarySerializer's fields, then the extra ones
            api_url = urls.api("api:entry-detail", other["id"])
            return {
                "id": other["id"], "title": other["title"], "slug": other["slug"],
                **{name: other[name] for name in extra}, "url": api_url,
            }  # fmt: skip

        def link(other: dict, *extra: str) -> dict:  # EntryLinkSerializer, TranslationSerializer
            page = urls.entry_page(game_slug, other.get("language", language), other["slug"])
            return {**summary(other, *extra), "html_url": page}

        parent, pk = related.get("parent"), entry["id"]
        return {
            "id": pk,
            "url": urls.api("api:entry-detail", pk),
            "html_url": urls.entry_page(game_slug, language, entry["slug"]),
            "game": game_slug,
            "language": language,
            "title": entry["title"],
            "slug": entry["slug"],
            "aliases": [str(alias) for alias in entry["aliases"] or []],
            "kind": entry["kind"],
            "number": entry["number"],
            "parent": summary(parent, "number") if parent else None,
            "body": entry["body"],
            "body_html": absolute_links(entry["body_html"], self.context["request"]),
            "cross_references": [
                {
                    "label": ref["label"],
                    "in_body": ref["in_body"],
                    "target": link(ref["target"]) if ref["target"] else None,
                }
                for ref in related.get("references", [])
            ],
            "referenced_by": [summary(other) for other in related.get("referenced_by", [])],
            "children": [summary(child, "number") for child in related.get("children", [])],
            "translations": [link(other, "language") for other in related.get("translations", [])],
            "errata": [
                {"id": item["id"], "title": item["title"], "url": urls.api("api:erratum-detail", item["id"])}
                for item in related.get("errata", [])
            ],
            "faq_questions": [
                {"id": item["id"], "question": item["question"], "url": urls.api("api:faq-detail", item["id"])}
                for item in related.get("questions", [])
            ],
            "source": None
            if entry["source_id"] is None
            else {
                "id": entry["source_id"],
                "title": entry["source__title"],
                "kind": entry["source__kind"],
                "official": entry["source__official"],
                "url": urls.api("api:source-detail", entry["source_id"]),
            },
            "page": entry["page"],
            "is_fragment": entry["is_fragment"],
            "corrections": self.corrections_of(entry["corrections"], urls),
            "translation_status": self.translation_status_of(entry["translation_status"], link),
            "navigation": self.navigation_of(related.get("navigation"), summary),
            "anchors": self.anchors_of(entry["body_html"], urls.entry_page(game_slug, language, entry["slug"])),
            "previous_numbers": [
                {
                    "number": former["number"],
                    "until": former["until"]["version"],
                    "until_effective_date": former["until"]["effective_on"],
                    "release_html_url": urls.release_page(game_slug, language, former["until"]["id"]),
                }
                for former in related.get("previous_numbers", [])
            ],
            "as_of": None,
            "removed_in": self.removal_of(entry, urls),
            "updated_at": timestamp(entry.get("public_updated_at") or entry["updated_at"]),
        }

    @staticmethod
    def removal_of(entry: dict, urls) -> dict | None:
        """The release that removed the rule (annotated by EntryViewSet), or None."""
        release = entry.get("removed_in_id")
        if release is None:
            return None
        effective = entry.get("removed_in_effective_on")
        return {
            "version": entry["removed_in_version"],
            "effective_date": effective.isoformat() if hasattr(effective, "isoformat") else effective,
            "url": urls.api("api:release-detail", release),
            "html_url": urls.release_page(entry["game__slug"], entry["removed_in_language"], release),
        }

    def corrections_of(self, stored: dict, urls) -> dict | None:
        if not stored or not stored.get("errata"):
            return None
        request = self.context["request"]

        def html(name: str) -> str | None:
            return absolute_links(stored[name], request) if stored.get(name) else None

        return {
            "corrected_html": html("corrected_html"),
            "printed_html": html("printed_html"),
            "errata": [
                {
                    "id": item["id"], "title": item["title"], "url": urls.api("api:erratum-detail", item["id"]),
                    "footnote": item["number"], "places": item["places"],
                }  # fmt: skip
                for item in stored["errata"]
            ],
        }

    @staticmethod
    def translation_status_of(stored: dict, link) -> dict | None:
        if not stored or not stored.get("original"):
            return None
        return {
            "original": link(stored["original"], "language"),
            "up_to_date": bool(stored.get("up_to_date")),
            "checked_on": stored.get("checked_on"),
        }

    @staticmethod
    def navigation_of(place: dict | None, summary) -> dict | None:
        if not place:
            return None
        return {
            "sequence": place["sequence"],
            "previous": summary(place["previous"], "number") if place["previous"] else None,
            "next": summary(place["next"], "number") if place["next"] else None,
            "ancestors": [summary(item, "number") for item in place["ancestors"]],
        }

    @staticmethod
    def anchors_of(body_html: str, page: str) -> list[dict]:
        return [{"number": number, "html_url": f"{page}#{number}"} for number in rule_ids(body_html)]

    # Schema only: to_representation builds these values.
    @extend_schema_field(CorrectionsSerializer(allow_null=True))
    def get_corrections(self, entry: Entry): ...

    @extend_schema_field(TranslationStatusSerializer(allow_null=True))
    def get_translation_status(self, entry: Entry): ...

    @extend_schema_field(NavigationSerializer(allow_null=True))
    def get_navigation(self, entry: Entry): ...

    @extend_schema_field(RuleAnchorSerializer(many=True))
    def get_anchors(self, entry: Entry): ...

    @extend_schema_field(ParentSerializer(allow_null=True))
    def get_parent(self, entry: Entry): ...

    def get_body_html(self, entry: Entry) -> str: ...

    @extend_schema_field(EntrySummarySerializer(many=True))
    def get_referenced_by(self, entry: Entry): ...

    @extend_schema_field(ParentSerializer(many=True))
    def get_children(self, entry: Entry): ...

    @extend_schema_field(TranslationSerializer(many=True))
    def get_translations(self, entry: Entry): ...

    @extend_schema_field(ErratumSummarySerializer(many=True))
    def get_errata(self, entry: Entry): ...

    @extend_schema_field(QuestionSummarySerializer(many=True))
    def get_faq_questions(self, entry: Entry): ...


# ``affects`` reads the viewset's ``published_affects`` prefetch (it fails loudly, rather
# than leak drafts, if a queryset forgets it).
class ErratumSerializer(serializers.ModelSerializer):
    """A correction to a printed rule and the entries it affects."""

    url = serializers.HyperlinkedIdentityField(view_name="api:erratum-detail")
    html_url = PageURLField()
    game = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    corrected_html = serializers.SerializerMethodField(
        help_text="The corrected text rendered and sanitised."
    )
    affects = EntrySummarySerializer(source="published_affects", many=True, read_only=True)
    source = SourceSummarySerializer(read_only=True, allow_null=True)
    updated_at = UpdatedAtField()

    class Meta:
        model = Erratum
        fields = [
            "id", "url", "html_url", "game", "language", "title", "slug", "kind",
            "original_text", "corrected_text", "corrected_html", "affects", "source", "page",
            "published_on", "updated_at",
        ]  # fmt: skip

    def get_corrected_html(self, erratum: Erratum) -> str:
        return absolute_links(erratum.corrected_html, self.context["request"])
