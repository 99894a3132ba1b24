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
- ``*_html`` fields are Markdown rendered and sanitised by ``rules.markdown``, with
  ``[[Term]]`` links pointing at the linked entry's page.
"""

from collections import defaultdict
from collections.abc import Iterable

from django.db import models
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from rules.languages import CONTENT_LANGUAGE_CODES
from rules.markdown import LinkResolver, render_markdown
from rules.languages import ui_language_for
from rules.models import CrossReference, Entry, Erratum, Game, Source
from rules.querysets import Status
from rules.text import normalize_label


def page_path(obj) -> str:
    """The path of an item's public page, with the UI in the item's own language."""
    if isinstance(obj, Entry):
        return obj.canonical_url()
    with translation.override(ui_language_for(getattr(obj, "language", None))):
        return obj.get_absolute_url()


def published(items: Iterable) -> list:
    """Keep the published items of an already loaded (prefetched) relation."""
    return [item for item in items if item.status == Status.PUBLISHED]


def entry_link_resolver(entries: Iterable[Entry], request) -> LinkResolver:
    """A ``[[Term]]`` resolver over known entries, by normalised title or alias.

    Used where the links of a text are not stored as cross-references (errata, FAQ
    answers): a label resolves when it names one of the item's published entries.
    Titles win over aliases, as in ``rules.references.resolve_references``.
    """
    entries = published(entries)
    names = [(entry.title, entry) for entry in entries]
    names += [(str(alias), entry) for entry in entries for alias in entry.aliases or []]
    urls: dict[str, str] = {}
    for name, entry in names:
        urls.setdefault(normalize_label(name), request.build_absolute_uri(entry.canonical_url()))
    return lambda label: urls.get(normalize_label(label))


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


class SourceSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="api:source-detail")
    game = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    source_url = serializers.URLField(
        source="url", read_only=True, help_text="Where the document itself is."
    )

    class Meta:
        model = Source
        fields = [
            "id", "url", "game", "language", "title", "kind", "version", "official",
            "source_url", "attribution", "updated_at",
        ]  # fmt: skip


# Expects the queryset of EntryQuerySet.with_page_relations(). Translations are loaded
# per page by load_batch: entries share a translation_key, which is not a relation
# prefetch_related can follow.
class EntrySerializer(BatchLoadingMixin, serializers.ModelSerializer):
    """A glossary entry or rule section with everything its page shows."""

    batch_attr = "published_translations"

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

    class Meta:
        model = Entry
        fields = [
            "id", "url", "html_url", "game", "language", "title", "slug", "aliases", "kind",
            "number", "parent", "body", "body_html", "cross_references", "referenced_by",
            "children", "translations", "errata", "faq_questions", "source", "page",
            "is_fragment", "updated_at",
        ]  # fmt: skip
        list_serializer_class = BatchLoadingListSerializer

    def load_batch(self, entries: list[Entry]) -> None:
        # One query for the translations of the whole page instead of one per entry.
        keys = {entry.translation_key for entry in entries}
        versions = (
            Entry.objects.published()
            .filter(translation_key__in=keys)
            .select_related("game")  # the page URL needs the game's slug
            .order_by("language", "pk")
        )
        by_key: dict = defaultdict(list)
        for version in versions:
            by_key[version.translation_key].append(version)
        for entry in entries:
            others = by_key[entry.translation_key]
            entry.published_translations = [other for other in others if other.pk != entry.pk]

    @extend_schema_field(ParentSerializer(allow_null=True))
    def get_parent(self, entry: Entry):
        if entry.parent is None or not entry.parent.is_published:
            return None
        return ParentSerializer(entry.parent, context=self.context).data

    def get_body_html(self, entry: Entry) -> str:
        # The cross-references are prefetched with their targets: resolving [[links]]
        # costs no query. Only published targets become links; the rest stay "wanted".
        request = self.context["request"]
        urls = {
            ref.normalized_label: request.build_absolute_uri(ref.target.canonical_url())
            for ref in entry.cross_references.all()
            if ref.target is not None and ref.target.is_published
        }
        return str(render_markdown(entry.body, lambda label: urls.get(normalize_label(label))))

    @extend_schema_field(EntrySummarySerializer(many=True))
    def get_referenced_by(self, entry: Entry):
        # An entry linking twice (see-also and body) is listed once.
        sources = {ref.entry_id: ref.entry for ref in entry.referenced_by.all()}
        referrers = published(sources.values())
        return EntrySummarySerializer(referrers, many=True, context=self.context).data

    @extend_schema_field(ParentSerializer(many=True))
    def get_children(self, entry: Entry):
        children = getattr(entry, "published_children", None)
        if children is None:  # not prefetched: still never a draft
            children = entry.children.published().order_by("order", "pk")
        return ParentSerializer(published(children), many=True, context=self.context).data

    @extend_schema_field(TranslationSerializer(many=True))
    def get_translations(self, entry: Entry):
        translations = entry.published_translations
        return TranslationSerializer(translations, many=True, context=self.context).data

    @extend_schema_field(ErratumSummarySerializer(many=True))
    def get_errata(self, entry: Entry):
        errata = published(entry.errata.all())
        return ErratumSummarySerializer(errata, many=True, context=self.context).data

    @extend_schema_field(QuestionSummarySerializer(many=True))
    def get_faq_questions(self, entry: Entry):
        questions = published(entry.faq_questions.all())
        return QuestionSummarySerializer(questions, many=True, context=self.context).data


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

    class Meta:
        model = Erratum
        fields = [
            "id", "url", "html_url", "game", "language", "title", "slug", "kind",
            "original_text", "corrected_text", "corrected_html", "affects", "source", "page",
            "published_on", "updated_at",
        ]  # fmt: skip

    def get_corrected_html(self, erratum: Erratum) -> str:
        resolve = entry_link_resolver(erratum.published_affects, self.context["request"])
        return str(render_markdown(erratum.corrected_text, resolve))
