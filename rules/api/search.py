"""Search in API v1: ``/api/v1/search/`` (ranked hits, paginated) and
``/api/v1/search/suggest/`` (titles and aliases as you type).

Both are thin: they validate the query parameters, call ``rules.search`` (the one
search service the site, the API and the suggestions share) and serialise what it
returns. The view issues no query of its own, so what a page of results costs is what
the search service costs, never a query per hit.

Validation follows the other lists: ``language`` and ``type`` are closed sets (a typo is
a 400 naming the parameter and what it accepts), ``game`` is a plain slug (unknown: no
results), a filter given empty is a 400 (leave it out for no filter), and ``q`` may be
anything up to ``MAX_QUERY_LENGTH`` characters, empty included: punctuation, NUL bytes
and full-text syntax are only ever text to the search service.
"""

import re

from django.core.validators import ProhibitNullCharactersValidator
from django.urls import reverse, translate_url
from django.utils import translation
from django.utils.cache import patch_cache_control
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response
from rest_framework.viewsets import ViewSet

from rules.search import (
    MAX_QUERY_LENGTH,
    MAX_RESULTS,
    TYPES,
    Busy,
    Hit,
    QueryTooLong,
    Suggestion,
    search,
    suggest,
)
from rules.shared.languages import CONTENT_LANGUAGE_CODES, CONTENT_LANGUAGES, UI_LANGUAGES, ui_language_for

from .filters import EMPTY_VALUE, one_of
from .pagination import PageNumberPagination, number_param
from .schema import ErrorSerializer, text_parameter
from .views import APIv1Settings

SUGGEST_LIMIT = 8
MAX_SUGGEST_LIMIT = 20
SUGGEST_MAX_AGE = 60  # seconds a suggestion answer may be cached, by anyone

# A query with no letter or digit in it cannot match anything.
_WORD = re.compile(r"\w")

# Where each type of hit has its API detail view.
API_DETAIL_ROUTES = {
    "entry": "api:entry-detail",
    "erratum": "api:erratum-detail",
    "question": "api:faq-detail",
}


def page_url(request, path: str, language: str) -> str:
    """The absolute URL of an item's page with the UI in the item's own language.

    The search service builds page URLs in the active UI language, which for the API is
    whatever the client's ``Accept-Language`` says. Every other API resource links the
    page in the item's own language (``html_url``); so does search, so the same hit has
    the same URL for every client. A URL that is not one of the site's pages is kept.
    """
    target = ui_language_for(language)
    # translate_url() resolves the path in the active language: use the path's own prefix.
    prefix = path.lstrip("/").split("/", 1)[0]
    with translation.override(prefix if prefix in UI_LANGUAGES else translation.get_language()):
        return request.build_absolute_uri(translate_url(path, target))


# --- Query parameters ---------------------------------------------------------------------


QUERY_TOO_LONG = f"Must be at most {MAX_QUERY_LENGTH} characters."


class QueryField(serializers.CharField):
    """``q``: any text up to MAX_QUERY_LENGTH characters. A NUL byte is read as a space
    (as the search service does), not refused: it cannot reach the database."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("default", "")
        kwargs.setdefault("max_length", MAX_QUERY_LENGTH)
        kwargs.setdefault("error_messages", {"max_length": QUERY_TOO_LONG})
        super().__init__(**kwargs)
        self.validators = [
            v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)
        ]

    def to_internal_value(self, data):
        # What the search service does with a NUL byte, here already: so the query
        # echoed back is the query searched, and "q=%00" is an empty query.
        return super().to_internal_value(str(data).replace("\x00", " ")).strip()


GAME_MAX_LENGTH = 100


class ChoiceField(serializers.ChoiceField):
    """One of the choices; an empty value is refused with the filters' message."""

    def to_internal_value(self, data):
        if data == "":
            self.fail("blank")
        return super().to_internal_value(data)


class SuggestParameters(serializers.Serializer):
    q = QueryField()
    # As in the other lists: at most 100 characters, no NUL byte, not empty, matched as
    # given; otherwise any slug (an unknown game simply has no results).
    game = serializers.CharField(
        required=False,
        default="",
        max_length=GAME_MAX_LENGTH,
        trim_whitespace=False,
        error_messages={"blank": EMPTY_VALUE},
    )
    language = ChoiceField(
        choices=CONTENT_LANGUAGE_CODES,
        required=False,
        default="",
        error_messages={"invalid_choice": one_of(CONTENT_LANGUAGE_CODES), "blank": EMPTY_VALUE},
    )


class SearchParameters(SuggestParameters):
    type = ChoiceField(
        choices=TYPES,
        required=False,
        default="",
        error_messages={"invalid_choice": one_of(TYPES), "blank": EMPTY_VALUE},
    )


def parameters(serializer_class, request) -> dict:
    """The validated parameters (``""`` for an absent one); 400 JSON otherwise.

    A plain dict (each parameter's last value, as ``QueryDict.get``): given a QueryDict,
    DRF reads an empty optional value as an HTML form's empty field, i.e. as absent.
    """
    checked = serializer_class(data=request.query_params.dict())
    checked.is_valid(raise_exception=True)
    return checked.validated_data


def searchable(query: str) -> bool:
    return bool(_WORD.search(query))


class SearchBusy(APIException):
    """Every place for questions in this process stayed taken (``rules.shared.capacity``)."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "Too many questions are being answered right now: ask again in a moment."
    default_code = "busy"

    def __init__(self, retry_after: int):
        super().__init__()
        self.wait = retry_after  # DRF's handler sends it as Retry-After


BUSY = OpenApiResponse(
    ErrorSerializer,
    description="Too many questions at once on this server: ask again after the Retry-After header's seconds.",
)


def too_long() -> ValidationError:
    # The service's own check, should it ever count differently from max_length.
    return ValidationError({"q": [QUERY_TOO_LONG]})


def suggest_limit(request) -> int:
    """``limit``: from 1; more than MAX_SUGGEST_LIMIT is capped, anything else (an empty
    value too) a 400, as ``page_size`` is."""
    return number_param(request, "limit", SUGGEST_LIMIT, maximum=MAX_SUGGEST_LIMIT)


# --- Responses -------------------------------------------------------------------------------


class FormerNumberField(serializers.Field):
    """``{"number": "10", "until": "v2"}``: the hit had the number asked for until that release."""

    def to_representation(self, former):
        return {"number": former.number, "until": former.version}


extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "properties": {"number": {"type": "string"}, "until": {"type": "string"}},
        "example": {"number": "10", "until": "v2"},
    }
)(FormerNumberField)


class SearchHitSerializer(serializers.Serializer):
    """One search result: an entry, an erratum or a FAQ question."""

    type = serializers.ChoiceField(choices=TYPES, read_only=True)
    id = serializers.IntegerField(read_only=True)
    title = serializers.CharField(
        read_only=True, help_text="The entry's or erratum's title, or the question."
    )
    number = serializers.CharField(
        read_only=True, help_text='The rule number ("2.3"), or "" where there is none.'
    )
    game = serializers.CharField(source="game_slug", read_only=True, help_text="Game slug.")
    game_name = serializers.CharField(read_only=True)
    language = serializers.ChoiceField(choices=CONTENT_LANGUAGES, read_only=True)
    snippet = serializers.CharField(
        read_only=True,
        help_text="HTML: an excerpt of the matching text, escaped, with every matched word "
        "wrapped in <mark>…</mark>. Safe to insert as HTML; no other tags.",
    )
    url = serializers.SerializerMethodField(
        help_text="The item's public page (UI in the item's language)."
    )
    api_url = serializers.SerializerMethodField(help_text="The item in this API.")
    score = serializers.FloatField(
        read_only=True,
        help_text="Relevance; higher is better. For a question: the score held to the response's `cutoff` "
        "(the cosine of the hit's passage nearest the question; BM25 without semantic search).",
    )
    was = FormerNumberField(
        read_only=True,
        allow_null=True,
        help_text='For a rule-number query ("rule 10", "601.2a"): the number this rule had until a release '
        "renumbered it, and that release's version; null otherwise.",
    )

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, hit: Hit) -> str:
        return page_url(self.context["request"], hit.url, hit.language)

    @extend_schema_field({"type": "string", "format": "uri", "nullable": True})
    def get_api_url(self, hit: Hit) -> str | None:
        route = API_DETAIL_ROUTES.get(hit.type)
        if route is None:
            return None
        return self.context["request"].build_absolute_uri(reverse(route, kwargs={"pk": hit.id}))


class SuggestionSerializer(serializers.Serializer):
    title = serializers.CharField(read_only=True, help_text="The item's title.")
    type = serializers.ChoiceField(choices=TYPES, read_only=True)
    id = serializers.IntegerField(read_only=True)
    language = serializers.ChoiceField(choices=CONTENT_LANGUAGES, read_only=True)
    game = serializers.CharField(source="game_slug", read_only=True, help_text="Game slug.")
    url = serializers.SerializerMethodField(
        help_text="The item's public page (UI in the item's language)."
    )
    alias = serializers.CharField(
        read_only=True,
        allow_null=True,
        help_text='The alias the typed text matched ("Dein" for "Du, Dein"), or null when it matched the title.',
    )

    def to_representation(self, suggestion):
        data = super().to_representation(suggestion)
        data["alias"] = data["alias"] or None
        return data

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, suggestion: Suggestion) -> str:
        return page_url(self.context["request"], suggestion.url, suggestion.language)


class SuggestResponseSerializer(serializers.Serializer):
    query = serializers.CharField(read_only=True)
    results = SuggestionSerializer(many=True, read_only=True)


class SearchPagination(PageNumberPagination):
    """The lists' pagination over the results a search ranks (``rules.search``: at most
    MAX_RESULTS, all of them reachable), plus whether more matched, the query searched
    and a "did you mean"."""

    def paginate_hits(self, results, request, view=None):
        self.query, self.suggestion, self.truncated = results.query, results.suggestion, results.truncated
        self.corrected, self.read_as = results.corrected, results.kind
        self.confident, self.cutoff = getattr(results, "confident", None), getattr(results, "cutoff", None)
        return self.paginate_queryset(results.pageable(), request, view)

    def get_paginated_response(self, data):
        response = super().get_paginated_response(data)
        response.data = {
            "count": response.data["count"],
            "truncated": self.truncated,
            "next": response.data["next"],
            "previous": response.data["previous"],
            "query": self.query,
            "read_as": self.read_as,
            "suggestion": self.suggestion,
            "corrected": self.corrected,
            "confident": self.confident,
            "cutoff": self.cutoff,
            "results": response.data["results"],
        }
        return response

    def get_paginated_response_schema(self, schema):
        paginated = super().get_paginated_response_schema(schema)
        properties = paginated["properties"]
        paginated["properties"] = {
            "count": {
                **properties["count"],
                "maximum": MAX_RESULTS,
                "description": f"How many results there are to page through: every match, or the best "
                f"{MAX_RESULTS} when more matched (then `truncated` is true). Every page up to "
                "count / page_size, rounded up, has results; the last has `next` null.",
            },
            "truncated": {
                "type": "boolean",
                "description": f"More items matched than the best {MAX_RESULTS} given (`count`); the others "
                "cannot be paged to. Narrow the search with `game`, `language` or `type`.",
            },
            "next": properties["next"],
            "previous": properties["previous"],
            "query": {"type": "string", "description": "The query searched."},
            "read_as": {
                "type": "string",
                "enum": ["term", "question"],
                "description": "How the query was read: a term (every word must match; titles first) or a "
                "question (any of its words, question and function words left out, ranked by BM25 and, "
                "where the site has it, by meaning across languages).",
            },
            "suggestion": {
                "type": "string",
                "nullable": True,
                "description": 'A "did you mean" query when nothing (or little) matched.',
                "example": "reactions",
            },
            "corrected": {
                "type": "boolean",
                "description": "The results are those of `suggestion`, not of `query`, which matched "
                'nothing as typed ("Showing results for …").',
            },
            "confident": {
                "type": "boolean",
                "nullable": True,
                "description": "A question's: true when its results are the answers likely to be right (each "
                "hit's `score` at or above `cutoff`, at most 10); false when none was (\"no confident answer\"): "
                "the results are then the closest rules, to read with care. null for a term search.",
            },
            "cutoff": {
                "type": "number",
                "nullable": True,
                "description": "A question's: the score its hits were held to (calibrated on players' questions: "
                "the meaning's cosine, or BM25 where the site has no semantic search). null for a term search.",
            },
            "results": properties["results"],
        }
        paginated["required"] = [
            "count", "truncated", "next", "previous", "query", "read_as", "suggestion", "corrected",
            "confident", "cutoff", "results",
        ]
        return paginated


class _Empty:
    """SearchResults' shape for a query that cannot match anything."""

    def __init__(self, query: str):
        self.query, self.suggestion, self.truncated = query, None, False
        self.corrected, self.kind = False, "term"

    def pageable(self) -> list:
        return []


# --- The endpoints ---------------------------------------------------------------------------

GAME = OpenApiParameter(
    "game",
    text_parameter(GAME_MAX_LENGTH),
    description="Game slug, e.g. marvel-champions. An unknown slug: no results.",
)
LANGUAGE = OpenApiParameter(
    "language", str, enum=CONTENT_LANGUAGE_CODES, description="Content language code."
)
EMPTY_QUERY = (
    "A missing or empty q, or one of only punctuation and spaces, answers 200 with no results; "
    f"a q longer than {MAX_QUERY_LENGTH} characters is a 400."
)


class SearchViewSet(APIv1Settings, ViewSet):
    """Full-text search over published entries, errata and FAQ questions."""

    pagination_class = SearchPagination
    filter_backends: list = []
    # Answers depend on semantic search's vectors: cached under their token too (rulesite.cache_key).
    reads_vectors = True
    # What each action reads (the response cache keys by exactly these: rules.pages.http).
    query_params = {
        "list": tuple(SearchParameters._declared_fields),
        "suggest": (*SuggestParameters._declared_fields, "limit"),
    }

    @extend_schema(
        summary="Search entries, errata and FAQ questions",
        description="Published items matching q, best first, paginated like every list: at most the best "
        f"{MAX_RESULTS}, every one of them on a page (`count` says how many, `truncated` whether more matched); "
        "a page past the last is a 404. " + EMPTY_QUERY,
        parameters=[
            OpenApiParameter(
                "q",
                {"type": "string", "maxLength": MAX_QUERY_LENGTH},
                description=f"The search text, at most {MAX_QUERY_LENGTH} characters. "
                "Words, not a query language: quotes, operators and * are plain text.",
            ),
            GAME,
            LANGUAGE,
            OpenApiParameter("type", str, enum=list(TYPES), description="Only this type of item."),
        ],
        responses={200: SearchHitSerializer(many=True), 503: BUSY},
    )
    def list(self, request):
        params = parameters(SearchParameters, request)
        paginator = self.pagination_class()
        paginator.get_page_size(request)  # a bad page_size is a 400 before anything is searched
        query = params["q"]
        if searchable(query):
            try:
                results = search(
                    query,
                    game=params["game"] or None,
                    language=params["language"] or None,
                    type=params["type"] or None,
                    limit=0,  # the page's hits are built when the paginator slices them
                )
            except QueryTooLong:
                raise too_long() from None
            except Busy as busy:
                raise SearchBusy(busy.retry_after) from None
        else:
            results = _Empty(query)
        hits = paginator.paginate_hits(results, request, view=self)
        data = SearchHitSerializer(hits, many=True, context={"request": request}).data
        return paginator.get_paginated_response(data)

    @extend_schema(
        summary="Suggest titles as you type",
        description=f"Published titles and aliases starting with q, at most {SUGGEST_LIMIT} "
        f"(limit: up to {MAX_SUGGEST_LIMIT}). Answers may be cached for "
        f"{SUGGEST_MAX_AGE} seconds. " + EMPTY_QUERY,
        parameters=[
            OpenApiParameter(
                "q",
                {"type": "string", "maxLength": MAX_QUERY_LENGTH},
                description=f"What has been typed, at most {MAX_QUERY_LENGTH} characters.",
            ),
            GAME,
            LANGUAGE,
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1},
                description=f"How many suggestions, from 1 (default {SUGGEST_LIMIT}); more "
                f"than {MAX_SUGGEST_LIMIT} gives {MAX_SUGGEST_LIMIT}.",
            ),
        ],
        responses=SuggestResponseSerializer,
    )
    @action(detail=False, methods=["get"], pagination_class=None)
    def suggest(self, request):
        params = parameters(SuggestParameters, request)
        limit = suggest_limit(request)
        query = params["q"]
        suggestions: list[Suggestion] = []
        if searchable(query):
            try:
                suggestions = suggest(
                    query,
                    game=params["game"] or None,
                    language=params["language"] or None,
                    limit=limit,
                )
            except QueryTooLong:
                raise too_long() from None
        results = SuggestionSerializer(
            suggestions[:limit], many=True, context={"request": request}
        ).data
        response = Response({"query": query, "results": results})
        patch_cache_control(response, public=True, max_age=SUGGEST_MAX_AGE)
        return response
