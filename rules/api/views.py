"""Read-only viewsets of API v1 for games, sources, entries and errata.

Each viewset is a queryset and a serializer: the queryset starts from ``published()``
(so a draft cannot leak through a forgotten filter) and loads every relation the
serializer shows in a fixed number of queries, whatever the page size.
"""

from django.db.models import Case, Count, Prefetch, Q, Subquery, Value, When
from django.http import Http404, JsonResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BrowsableAPIRenderer
from rest_framework.viewsets import ReadOnlyModelViewSet

from rules.content.models import Entry, Erratum, Game, Source
from rules.content.querysets import Status
from rules.content.releases import KINDS, Release, entry_as_of, removals_subquery, removed_entries
from rules.derived.models import FeedKind, PublicItem
from rules.derived.rendering import absolute_links
from rules.shared.markdown import render_markdown

from . import filters, serializers
from .pagination import ListPagination, PageNumberPagination
from .previews import EntryPreviewActions
from .stored import StoredJSONRenderer, StoredListMixin
from .throttling import APIRateThrottle


class APIv1Settings:
    """What every v1 endpoint shares, pinned here rather than read from the global
    ``REST_FRAMEWORK`` defaults, so a later v2 can change them without moving v1.

    Conditional GET and caching are the whole site's (``rulesite.response_cache``):
    ``Last-Modified`` is when any public content last changed (an entry's JSON also
    shows its cross-reference targets, errata and FAQ questions, which change without
    touching the entry's ``updated_at``), the ETag a hash of the body.
    """

    permission_classes = [AllowAny]
    renderer_classes = [StoredJSONRenderer, BrowsableAPIRenderer]  # JSON's, joining stored items (stored)
    pagination_class = ListPagination
    filter_backends = [filters.FilterBackend]
    throttle_classes = [APIRateThrottle]  # fair use (rules.api.throttling)
    # Only well-formed ids reach the database (PostgreSQL refuses a NUL byte with an
    # error, not a miss); any other detail URL is answered by ``not_found``.
    lookup_value_regex = r"[0-9]+"


def not_found(request, *args, **kwargs):
    """Any other URL under the API prefix: a JSON 404 like every API error, rather than
    the site's HTML 404 page, whatever the method."""
    return JsonResponse({"detail": "Not found."}, status=404)


# The columns an entry's JSON shows (EntrySerializer builds it from these rows).
ENTRY_JSON_FIELDS = (
    "id", "game__slug", "language", "title", "slug", "aliases", "kind", "number", "body",
    "body_html", "page", "is_fragment", "updated_at", "relations", "corrections", "translation_status",
    "source_id", "source__title", "source__kind", "source__official",
)  # fmt: skip


def published_entries():
    """Published entries for nesting as summaries (id, title, slug, page URL)."""
    return Entry.objects.published().select_related("game").order_by("order", "title", "pk")


class GameViewSet(StoredListMixin, APIv1Settings, ReadOnlyModelViewSet):
    """Games, looked up by their slug (stable, and what every other resource names)."""

    stored_kind = FeedKind.GAME  # the list, from each game's stored JSON (rules.api.stored)

    def get_listed_queryset(self):
        # Without the entry counts: they are in each game's stored JSON.
        return (
            Game.objects.published()
            .annotate(public_updated_at=PublicItem.changed_at_of(FeedKind.GAME))
            .order_by("name", "pk")
        )
    serializer_class = serializers.GameSerializer
    filterset_class = filters.GameFilter
    lookup_field = "slug"
    lookup_value_regex = r"[-a-zA-Z0-9_]+"  # what Django's slug converter accepts

    def get_queryset(self):
        # entry_count is an annotation: no COUNT query per game. The content languages
        # are loaded for the whole page by GameSerializer.load_batch.
        return (
            Game.objects.published()
            .with_entry_counts()
            .annotate(public_updated_at=PublicItem.changed_at_of(FeedKind.GAME))
            .order_by("name", "pk")
        )


class SourceViewSet(APIv1Settings, ReadOnlyModelViewSet):
    """The documents entries, errata and questions cite.

    Sources have no status: like games they are public records (the items citing
    them are what gets published or not).
    """

    serializer_class = serializers.SourceSerializer  # a list's shape (the bulk files use it too)
    filterset_class = filters.SourceFilter

    def get_serializer_class(self):
        # One source lists each release's changes; a list only the releases (a first
        # release lists every rule it brought, thousands for a large document).
        detail = getattr(self, "action", None) == "retrieve"
        return serializers.SourceDetailSerializer if detail else serializers.SourceSerializer

    def get_queryset(self):
        # select_related game: its slug is in every row (one query, not one per source).
        # The bulk files (rules.api.bulk) read this queryset outside a request: a list.
        detail = getattr(self, "action", None) == "retrieve"
        releases = Release.objects.public().prefetch_related("changes") if detail else Release.objects.public()
        return (
            Source.objects.published()
            .select_related("game")
            .prefetch_related(Prefetch("releases", queryset=releases))
            .annotate(public_updated_at=PublicItem.changed_at_of(FeedKind.SOURCE))
            .order_by("game__name", "language", "title", "pk")
        )


class ReleaseViewSet(APIv1Settings, ReadOnlyModelViewSet):
    """Releases of sources (each version a publisher issued), latest first; an item
    lists exactly what that version changed (``rules.content.releases``)."""

    filterset_class = filters.ReleaseFilter
    # Pages by number, newest first: a release has no updated_at to page by cursor on (it
    # changes only while it is the latest, and its change list is what a client reads).
    pagination_class = PageNumberPagination

    def get_serializer_class(self):
        detail = getattr(self, "action", None) == "retrieve"
        return serializers.ReleaseSerializer if detail else serializers.ReleaseListSerializer

    def get_queryset(self):
        releases = Release.objects.public().select_related("source__game").order_by("-created_at", "-pk")
        if getattr(self, "action", None) == "retrieve":
            return releases.prefetch_related("changes")
        # A list shows each release's counts by kind: counted in its one query.
        return releases.annotate(
            **{f"count_{kind}": Count("changes", filter=Q(changes__change=kind)) for kind in KINDS}
        )


class EntryViewSet(StoredListMixin, EntryPreviewActions, APIv1Settings, ReadOnlyModelViewSet):
    """Glossary entries and rule sections, looked up by id.

    Ids, not slugs: a slug is unique only per game and language, so a slug URL would
    need both in the path. ``?game=…&language=…&slug=…`` finds an entry by slug.
    ``preview/`` and ``lookup/`` give an entry's title and first lines (``previews``).
    """

    serializer_class = serializers.EntrySerializer
    filterset_class = filters.EntryFilter
    query_params = {**EntryPreviewActions.query_params, "retrieve": ("as_of",)}
    stored_kind = FeedKind.ENTRY

    def stored_list_applies(self, request) -> bool:
        # By number or slug a list finds removed rules too, with their removal: serialized.
        return super().stored_list_applies(request) and not self.asks_for_removed(request)

    @staticmethod
    def asks_for_removed(request) -> bool:
        return request is not None and any(name in request.query_params for name in ("number", "slug"))

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "as_of",
                str,
                description="A release of the entry's source (its version, or a date YYYY-MM-DD: the release "
                "in effect that day): the number, title and text as that release had them. 404 when there is "
                "no such release, or the entry was not in it.",
            )
        ]
    )
    def retrieve(self, request, *args, **kwargs):
        response = super().retrieve(request, *args, **kwargs)
        label = request.query_params.get("as_of", "").strip()[:100]
        if not label:
            return response
        entry = Entry.objects.select_related("source").get(pk=response.data["id"])
        release = Release.objects.as_of(entry.source, label) if entry.source_id else None
        if release is not None and release.pending:
            raise Http404("That release takes effect later: its planned changes are at /api/v1/releases/.")
        then = entry_as_of(entry, release) if release is not None else None
        if then is None or not then.exists:
            raise Http404("No such release of this entry's source, or the entry was not in it.")
        if not then.current:
            response.data.update(
                number=then.number,
                title=then.title,
                body=then.text,
                body_html=absolute_links(render_markdown(then.text), request),
            )
        response.data["as_of"] = release.version
        return response

    def get_listed_queryset(self):
        return (
            Entry.objects.published()
            .annotate(public_updated_at=PublicItem.changed_at_of(FeedKind.ENTRY))
            .order_by(*self.LIST_ORDER)
        )

    # By game (in the order games were added), language, order and title: the columns of
    # the index entry_published_in_order, so a page of a large game is an index range
    # scan, not a sort of every published entry by game name.
    LIST_ORDER = ("game_id", "language", "order", "title", "pk")

    def get_queryset(self):
        # Plain rows of the columns the JSON shows, game and source joined in; all it
        # shows of other items is stored with each entry (Entry.relations): one query for
        # a page of any size, and no model instance per entry.
        entries = Entry.objects.published()
        removed = {}
        asked = self.asks_for_removed(getattr(self, "request", None))  # no request: the bulk files
        if getattr(self, "action", None) == "retrieve" or asked:
            # A rule a release removed is found by its id, old number and address, with the
            # release that removed it (removed_in): an old citation learns it is gone.
            entries = Entry.objects.filter(Q(status=Status.PUBLISHED) | Q(pk__in=removed_entries()))
            removal = removals_subquery()
            removed = {
                f"removed_in_{name}": Case(
                    When(status=Status.ARCHIVED, then=Subquery(removal.values(field)[:1])), default=Value(None)
                )
                for name, field in (("id", "release_id"), ("version", "release__version"),
                                    ("effective_on", "release__effective_on"),
                                    ("language", "release__source__language"))
            }  # fmt: skip
        return (
            entries.annotate(public_updated_at=PublicItem.changed_at_of(FeedKind.ENTRY), **removed)
            .values(*ENTRY_JSON_FIELDS, "public_updated_at", *removed)
            .order_by(*self.LIST_ORDER)
        )


class ErratumViewSet(StoredListMixin, APIv1Settings, ReadOnlyModelViewSet):
    """Errata, looked up by id (their slugs, too, are unique only per game and language)."""

    stored_kind = FeedKind.ERRATUM
    serializer_class = serializers.ErratumSerializer
    filterset_class = filters.ErratumFilter

    def get_queryset(self):
        return (
            Erratum.objects.published()
            .annotate(public_updated_at=PublicItem.changed_at_of(FeedKind.ERRATUM))
            # game and source joined in: the game slug, page URL and source summary of
            # every erratum come without a query each.
            .select_related("game", "source")
            # affects: one query for the page instead of one per erratum, already
            # limited to published entries (with their games, for [[link]] URLs).
            .prefetch_related(
                Prefetch("affects", queryset=published_entries(), to_attr="published_affects")
            )
            .order_by("game__name", "language", "order", "title", "pk")
        )
