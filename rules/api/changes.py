"""``GET /api/v1/changes/?since=CURSOR``: the public change feed, for keeping a mirror.

Reads ``PublicChange`` (``rules.derived.public_changes``): what an anonymous reader
sees, oldest first, a page at a time by cursor (the rows' monotonic id; never an
offset, so nothing is skipped or repeated while the site changes). A client keeps the
response's ``cursor`` and asks again with it; ``next`` is null when it has everything
up to now. A cursor older than what is kept (``manage.py prune_changes``) answers
``410 Gone``: the client starts again from a full copy.

``?game=<slug>&language=<code>`` narrow it to what a bulk file of that game and language
holds (``rules.api.bulk`` reads its cursor the same way): a client keeping one game, such
as a browser's saved copy for reading offline (``static/js/offline.js``), reads only its
changes. A game's own rows have no language, so they pass any ``language``; a game's
rename also shows under its old slug, so a client following the old one learns the new.
"""

from urllib.parse import quote

from django import forms
from django.db.models import Max, Q
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response
from rest_framework.viewsets import ViewSet

from rules.content.journal import KEEP_DAYS
from rules.content.releases import Release
from rules.derived.models import FeedHorizon, FeedKind, PublicChange
from rules.shared.languages import CONTENT_LANGUAGE_CODES, CONTENT_LANGUAGES

from . import filters
from .pagination import number_param
from .schema import ErrorSerializer, text_parameter
from .serializers import links, timestamp
from .views import APIv1Settings

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
FIELDS = (
    "id", "kind", "object_id", "action", "game_slug", "language", "old_slug", "new_slug", "old_number",
    "new_number", "at", "release_id",
)  # fmt: skip
DETAIL = {
    FeedKind.GAME: "api:game-detail",
    FeedKind.SOURCE: "api:source-detail",
    FeedKind.ENTRY: "api:entry-detail",
    FeedKind.ERRATUM: "api:erratum-detail",
    FeedKind.QUESTION: "api:faq-detail",
}


class Gone(APIException):
    status_code = status.HTTP_410_GONE
    default_code = "gone"


class RemovedInChangeSerializer(serializers.Serializer):
    version = serializers.CharField()
    url = serializers.URLField(help_text="The release, with its change list.")


class ChangeSerializer(serializers.Serializer):
    """One change, as the schema describes it (``ChangeFeedViewSet.item`` builds it)."""

    cursor = serializers.IntegerField(help_text="Resume after this change with ?since=<cursor>.")
    kind = serializers.ChoiceField(choices=FeedKind.choices)
    id = serializers.IntegerField(help_text="The item's id (a game's internal id: games are looked up by slug).")
    action = serializers.ChoiceField(
        choices=PublicChange.Action.choices,
        help_text="created: it became public (new or published); updated: its JSON changed, embedded data "
        "included; deleted: it is no longer public (deleted, unpublished or archived); removed: it is no longer "
        "public because a release removed it (removed_in).",
    )
    url = serializers.URLField(allow_null=True, help_text="Its API detail as of this change; null when deleted.")
    game = serializers.CharField(help_text="The game's slug at the time of the change.")
    language = serializers.CharField(allow_blank=True, help_text='"" for a game.')
    at = serializers.DateTimeField()
    old_slug = serializers.CharField(allow_null=True, help_text="Set when its slug changed.")
    new_slug = serializers.CharField(allow_null=True)
    old_number = serializers.CharField(allow_null=True, help_text="Set when its rule number changed.")
    new_number = serializers.CharField(allow_null=True)
    removed_in = RemovedInChangeSerializer(allow_null=True, help_text="removed: the release that removed it.")


@extend_schema_serializer(many=False)  # one page, though the action is a list
class ChangePageSerializer(serializers.Serializer):
    cursor = serializers.IntegerField(help_text="Where to resume: ?since=<cursor>.")
    next = serializers.URLField(allow_null=True, help_text="The next page; null at the end.")
    results = ChangeSerializer(many=True)


class ChangeFeedViewSet(APIv1Settings, ViewSet):
    """Every public change, oldest first, by cursor."""

    pagination_class = None
    filter_backends: list = []
    query_params = {"list": ("since", "limit", "game", "language")}  # what the response cache keys by

    @extend_schema(
        summary="Changes since a cursor (keep a mirror in sync)",
        description="What an anonymous reader sees change, oldest first: items that became public "
        "(`created`), whose JSON changed, embedded data included (`updated`), or that stopped being public "
        "(`deleted`; `removed` when a release removed it, named in `removed_in`). Drafts never appear. "
        "Keep `cursor` and ask again with `?since=<cursor>`; `next` is null "
        f"when you are up to date. Changes are kept {KEEP_DAYS} days: an older cursor answers 410, and the "
        "client starts again from a full copy. The cheap way to stay in sync: one request per poll. "
        "`game` and `language` narrow it to what one game's bulk file holds.",
        parameters=[
            OpenApiParameter(
                "since", {"type": "integer", "minimum": 0}, description="The cursor of the last change you have (0 or "
                "absent: from the oldest kept). A cursor beyond the newest change is a 400."
            ),
            OpenApiParameter(
                "limit", {"type": "integer", "minimum": 1},
                description=f"Changes per page, default {DEFAULT_LIMIT}; more than {MAX_LIMIT} gives {MAX_LIMIT}.",
            ),
            OpenApiParameter(
                "game", text_parameter(100),
                description="Only changes of this game (its slug), as the bulk file of a game holds them; a "
                "rename of the game also shows under its old slug.",
            ),
            OpenApiParameter(
                "language", {"type": "string", "enum": CONTENT_LANGUAGE_CODES},
                description="Only changes of items in this content language, and of games (which have none). "
                "With `game`: exactly what that game's bulk file of this language holds.",
            ),
        ],  # fmt: skip
        responses={
            200: ChangePageSerializer,
            410: OpenApiResponse(
                ErrorSerializer,
                description=f"The cursor is older than what is kept ({KEEP_DAYS} days): start again from a full copy.",
            ),
        },
    )
    def list(self, request):
        since = number_param(request, "since", 0, minimum=0)
        limit = number_param(request, "limit", DEFAULT_LIMIT, maximum=MAX_LIMIT)
        game, language = scope(request)
        horizon = FeedHorizon.current()
        if since < horizon:
            raise Gone(
                f"Changes up to cursor {horizon} are no longer kept (changes are kept {KEEP_DAYS} days). "
                "Start again from a full copy (a bulk file or the lists), then follow this feed from its cursor."
            )
        changes = narrowed(PublicChange.objects.filter(id__gt=since), game, language)
        rows = list(changes.order_by("id").values_list(*FIELDS)[: limit + 1])
        # Asked only of an empty page (a mirror that is up to date polls one): no change
        # has this cursor yet, and a mirror holding it (corrupted, or from another site)
        # would otherwise believe it is up to date for ever.
        if not rows and since > horizon and since > (PublicChange.objects.aggregate(newest=Max("id"))["newest"] or 0):
            raise ValidationError(
                {"since": ["This cursor is beyond the newest change: take it from a response of this feed."]}
            )
        more = len(rows) > limit
        rows = rows[:limit]
        urls = links({"request": request})
        releases = dict(
            Release.objects.filter(pk__in={row[-1] for row in rows if row[-1]}).values_list("pk", "version")
        )
        results = [item(row, urls, releases) for row in rows]
        cursor = rows[-1][0] if rows else since
        following = None
        if more:
            following = request.build_absolute_uri(f"{request.path}?{next_query(request, cursor, limit)}")
        return Response({"cursor": cursor, "next": following, "results": results})


class ScopeForm(forms.Form):
    """``game`` and ``language``, read as every filter of the API reads them: an empty
    value, a NUL byte or an unknown language is a 400 naming the parameter."""

    game = filters.TextField(required=False, max_length=100)
    language = filters.ChoiceField(required=False, choices=CONTENT_LANGUAGES)


def scope(request) -> tuple[str | None, str | None]:
    """The ``game`` and ``language`` asked for (None: not narrowed)."""
    form = ScopeForm(request.query_params)
    if not form.is_valid():
        raise ValidationError({name: list(messages) for name, messages in form.errors.items()})
    return form.cleaned_data["game"] or None, form.cleaned_data["language"] or None


def narrowed(changes, game: str | None, language: str | None):
    """The changes of one game and/or language, as ``rules.api.bulk`` scopes a file."""
    if game is not None:
        changes = changes.filter(Q(game_slug=game) | Q(kind=FeedKind.GAME, old_slug=game))
    if language is not None:
        changes = changes.filter(language__in=[language, ""])
    return changes


def next_query(request, cursor: int, limit: int) -> str:
    query = f"since={cursor}"
    if "limit" in request.query_params:
        query += f"&limit={limit}"
    for name in ("game", "language"):
        if name in request.query_params:
            query += f"&{name}={quote(request.query_params[name])}"
    return query


def item(row: tuple, urls, releases: dict[int, str]) -> dict:
    pk, kind, object_id, action, game, language, old_slug, new_slug, old_number, new_number, at, release = row
    if action in (PublicChange.Action.DELETED, PublicChange.Action.REMOVED):
        url = None
    elif kind == FeedKind.GAME:  # looked up by slug: a game's row names its slug as it was then
        url = urls.base + reverse(DETAIL[kind], kwargs={"slug": game})
    else:
        url = urls.api(DETAIL[kind], object_id)
    return {
        "cursor": pk,
        "kind": kind,
        "id": object_id,
        "action": action,
        "url": url,
        "game": game,
        "language": language,
        "at": timestamp(at),
        "old_slug": old_slug or None,
        "new_slug": new_slug or None,
        "old_number": old_number or None,
        "new_number": new_number or None,
        "removed_in": {"version": releases.get(release, ""), "url": urls.api("api:release-detail", release)}
        if release
        else None,
    }
