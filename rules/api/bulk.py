"""Bulk data files: everything published in one JSON download, plus the change-feed
cursor it was made at, so a mirror is one download and then ``/changes/?since=<cursor>``.

- ``GET /api/v1/bulk/`` lists the files: one of everything (``game`` null) and one per
  game and language, each with its ``url``, ``size``, ``sha256``, ``updated_at`` and
  ``cursor`` (null until first made).
- ``GET /api/v1/bulk/all.json``, ``/api/v1/bulk/<game>/<language>.json``: the file, as
  last built, gzip-compressed for clients that take it, with ``ETag`` and ``Range``
  (``rules.builds.serving``); a 503 with ``Retry-After`` while it is being made.

Made by the background worker (``rules.builds``), never in a request, when the public
change feed moved past the file's cursor: its kind here (``BulkJSON``) reads the cursor
*first*, then the rows, so the file holds at least every change up to its cursor and
replaying later changes over it is harmless. Items are in the list endpoints' shape,
by the same querysets (published only) and serializers; where a list is assembled from
each item's stored JSON (``rules.api.stored``), its section is too, in the list's order,
with the site's address: a 10,000-entry file is a join of stored bytes rather than
10,000 serializer runs (a section with an item whose JSON is not stored yet is serialized
whole, as before). Apps add their items with ``register`` (faq adds ``questions``: rules
never imports faq).
"""

import json
from collections.abc import Callable
from dataclasses import dataclass

from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.http import JsonResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers as drf
from rest_framework.exceptions import NotFound
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSet

from rules.builds.kinds import KINDS, Kind
from rules.builds.models import BuiltFile
from rules.builds.serving import RETRY_AFTER, not_ready, serve
from rules.builds.site import SiteRequest
from rules.builds.tasks import request_build
from rules.content import version as content_version
from rules.content.models import Game
from rules.derived import stored_json
from rules.derived.models import FeedKind, PublicChange, PublicItem
from rules.shared.languages import CONTENT_LANGUAGE_CODES
from rules.shared.text_bytes import read_text_as_bytes

from . import serializers, stored, views
from .schema import ErrorSerializer

FORMAT = 1  # the files' layout; a change a client must know of is a new number


def scoped(queryset, game_id, language, *, game_field="game_id"):
    """A list endpoint's queryset, limited to a game and language (None: all)."""
    if game_id is not None:
        queryset = queryset.filter(**{game_field: game_id})
    if language is not None:
        queryset = queryset.filter(language=language)
    return queryset


def one_game(queryset, game_id, language):
    """Games: the file's game (they have no language)."""
    return queryset if game_id is None else queryset.filter(pk=game_id)


@dataclass(frozen=True)
class Section:
    """One list of a bulk file: its key, its list endpoint's viewset (its queryset of
    published items and its serializer) and how that is limited to a game and language
    (``scope``: queryset, game_id | None, language | None -> queryset)."""

    name: str
    viewset: type
    scope: Callable = scoped

    def json(self, game_id: int | None, language: str | None, request) -> bytes:
        """The section's items as a JSON list: their stored JSON joined, when the list is
        assembled from it and every item has its own; else serialized."""
        view = self.viewset()
        view.action, view.format_kwarg = "list", None
        if getattr(view, "stored_kind", None) in stored_json.stored_kinds():
            rows = view.stored_rows(self.scope(view.get_listed_queryset(), game_id, language), as_bytes=True)
            try:
                sql, params = rows.query.get_compiler(rows.db).as_sql()
            except EmptyResultSet:  # a filter that can match nothing
                return b"[]"
            with connections[rows.db].cursor() as cursor:
                read_text_as_bytes(cursor)  # the bodies as the bytes they are sent as
                cursor.execute(sql, params)
                bodies = [body for (body,) in cursor.fetchall()]
            if None not in bodies:
                return b"[" + stored_json.with_base(b",".join(bodies), stored.base_of(request)) + b"]"
        rows = self.scope(view.get_queryset(), game_id, language)
        data = self.viewset.serializer_class(rows, many=True, context={"request": request}).data
        return json.dumps(data, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":")).encode()


SECTIONS: list[Section] = []


def register(name: str, viewset: type, scope: Callable = scoped) -> None:
    if all(section.name != name for section in SECTIONS):
        SECTIONS.append(Section(name, viewset, scope))


register("games", views.GameViewSet, one_game)
for name, viewset in (("sources", views.SourceViewSet), ("entries", views.EntryViewSet),
                      ("errata", views.ErratumViewSet)):  # fmt: skip
    register(name, viewset)


@dataclass(frozen=True)
class BulkState:
    cursor: int  # what the fingerprint reads: the file is made again when it moves


class BulkJSON(Kind):
    def gather(self, file: BuiltFile) -> BulkState | None:
        changes = PublicChange.objects.order_by("-id")
        if file.game_id is not None:
            if not PublicItem.objects.filter(game_id=file.game_id, language=file.language).exists():
                return None  # nothing published in it (any more)
            # The game's own rows have no language; its items', theirs.
            changes = changes.filter(game_slug=file.game.slug, language__in=[file.language, ""])
        return BulkState(changes.values_list("id", flat=True).first() or 0)

    def render(self, file: BuiltFile, gathered: BulkState) -> bytes:
        game_id = file.game_id
        language = file.language or None
        request = SiteRequest("/api/v1/bulk/")
        document = {
            "format": FORMAT,
            "cursor": gathered.cursor,
            "made_at": serializers.timestamp(timezone.now()),
            "game": file.game.slug if file.game is not None else None,
            "language": language,
        }
        head = json.dumps(document, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":")).encode()
        sections = b"".join(
            b',"' + section.name.encode() + b'":' + section.json(game_id, language, request) for section in SECTIONS
        )
        return head[:-1] + sections + b"}"

    def filename(self, file: BuiltFile) -> str:
        return f"{file.game.slug}-{file.language}.json" if file.game is not None else "all.json"


KINDS[BuiltFile.Kind.BULK] = BulkJSON("application/json", "json", compress=True)


# --- the endpoints ---------------------------------------------------------------------------


def _file(game: Game | None, language: str) -> BuiltFile:
    return BuiltFile.objects.for_request(BuiltFile.Kind.BULK, game=game, language=language)


def wanted_files() -> list[tuple[Game | None, str, str]]:
    """(game, language, path) of every bulk file there is to have: the file of everything,
    then one per game and language with published items."""
    pairs = (
        PublicItem.objects.filter(kind__in=[FeedKind.ENTRY, FeedKind.ERRATUM, FeedKind.QUESTION])
        .order_by("game_slug", "language")
        .values_list("game_id", "game_slug", "language")
        .distinct()
    )
    games = {game.pk: game for game in Game.objects.filter(pk__in={pair[0] for pair in pairs})}
    files = [(None, "", "/api/v1/bulk/all.json")]
    files += [
        (games[game_id], language, f"/api/v1/bulk/{slug}/{language}.json")
        for game_id, slug, language in pairs
        if game_id in games
    ]
    return files


def file_records() -> list[tuple[Game | None, str, str, BuiltFile]]:
    """(game, language, path, record) of every bulk file there is to have: the records in
    one query, a missing one made (once per file ever)."""
    wanted = wanted_files()
    stored = {
        (file.game_id, file.language): file
        for file in BuiltFile.objects.filter(kind=BuiltFile.Kind.BULK).order_by("pk")
    }
    return [
        (game, language, path, stored.get((game.pk if game else None, language)) or _file(game, language))
        for game, language, path in wanted
    ]


def being_prepared(request):
    detail = f"This file is being made; ask again in {RETRY_AFTER} seconds."
    return not_ready(JsonResponse({"detail": detail}, status=503))


class AnyAccept(BaseContentNegotiation):
    """A file is what it is: any ``Accept`` gets it (DRF would answer 406 to one that
    names no renderer of the API's)."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None


class BulkDownloadView(APIView):
    """One bulk file, as last built (its build asked for when content changed)."""

    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = AnyAccept
    # Never limited: stored bytes sent as a static file is (ETag, Range), the cheap way
    # to a full copy that the rate is there to steer clients to (rules.api.throttling).
    throttle_classes: list = []
    query_params = {"get": ()}  # reads none (rules.pages.http)

    def get(self, request, game: str | None = None, language: str | None = None):
        if game is None:
            file = _file(None, "")
        else:
            if language not in CONTENT_LANGUAGE_CODES:
                raise NotFound("No such content language.")
            found = Game.objects.published().filter(slug=game).first()
            if found is None or not PublicItem.objects.filter(game_id=found.pk, language=language).exists():
                raise NotFound("Nothing is published in that game and language.")
            file = _file(found, language)
        return serve(request._request, file, content_version.of_request(request).token, preparing=being_prepared)


class BulkFileSerializer(drf.Serializer):
    url = drf.URLField()
    game = drf.CharField(allow_null=True, help_text="The game's slug; null for the file of every game.")
    language = drf.CharField(allow_null=True, help_text="null for the file of every game.")
    size = drf.IntegerField(allow_null=True, help_text="Bytes, uncompressed; null until first made.")
    sha256 = drf.CharField(allow_null=True, help_text="Of the uncompressed bytes.")
    updated_at = drf.DateTimeField(allow_null=True)
    cursor = drf.IntegerField(
        allow_null=True, help_text="The change feed's cursor it holds every change up to: then follow "
        "/changes/?since=<cursor>."
    )


class BulkViewSet(views.APIv1Settings, ViewSet):
    """The bulk data files."""

    pagination_class = None
    filter_backends: list = []
    query_params = {"list": ()}

    @extend_schema(
        summary="Bulk data files (a full copy in one download)",
        description="Every published game, source, entry, erratum and FAQ question, in one JSON file of "
        "everything and one per game and language, in the list endpoints' shape, with the change feed's "
        "`cursor` it was made at. Download one, then follow `/api/v1/changes/?since=<cursor>`: the cheap "
        "way to keep a full mirror (rather than paging every list). Files are made in the background when "
        "content changes; a file not made yet answers 503 with Retry-After.",
        responses=BulkFileSerializer(many=True),
    )
    def list(self, request):
        token = content_version.of_request(request).token
        listed = []
        for game, language, path, file in file_records():
            url = request.build_absolute_uri(path)
            if file.pk is not None and file.checked_token != token and file.requested_token != token:
                request_build(file, token)  # ready, or nearly, when the client asks for it
            stored = file.is_stored and not file.withdrawn
            listed.append(
                {
                    "url": url,
                    "game": game.slug if game is not None else None,
                    "language": language or None,
                    "size": file.size if stored else None,
                    "sha256": file.sha256 if stored else None,
                    "updated_at": serializers.timestamp(file.built_at) if stored and file.built_at else None,
                    "cursor": file.cursor if stored else None,
                }
            )
        # Never from the response cache: files are made after the content version moved
        # (building does not move it), so a cached list would keep saying "not made yet".
        return Response(listed, headers={"Cache-Control": "no-store"})


BulkDownloadView.get = extend_schema(
    summary="A bulk data file",
    description="The file as last built: `format`, `cursor`, `made_at`, `game`, `language`, then `games`, "
    "`sources`, `entries`, `errata` and `questions` in the list endpoints' item shape. Sent gzip-compressed "
    "to clients that accept it; `ETag` and `Range` are supported.",
    responses={
        (200, "application/json"): OpenApiResponse(
            inline_serializer(
                "BulkFileContent",
                {
                    "format": drf.IntegerField(),
                    "cursor": drf.IntegerField(),
                    "made_at": drf.DateTimeField(),
                    "game": drf.CharField(allow_null=True),
                    "language": drf.CharField(allow_null=True),
                    "games": serializers.GameSerializer(many=True),
                    "sources": serializers.SourceSerializer(many=True),
                    "entries": serializers.EntrySerializer(many=True),
                    "errata": serializers.ErratumSerializer(many=True),
                    "questions": drf.ListField(child=drf.DictField(), help_text="As /api/v1/faq/ lists them."),
                },
            )
        ),
        206: OpenApiResponse(OpenApiTypes.BINARY, description="The range asked for."),
        416: OpenApiResponse(description="A range past the end."),
        503: OpenApiResponse(ErrorSerializer, description="Being made: ask again after Retry-After seconds."),
    },
)(BulkDownloadView.get)
