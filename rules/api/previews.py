"""Entry previews in API v1, for hover and tap previews on this site and on others.

- ``/api/v1/entries/preview/?game=&slug=[&language=]``: the entry an address of ours
  shows (``static/js/previews.js`` reads game, slug and language from a link's
  ``href``); 404 when there is none.
- ``/api/v1/entries/lookup/?game=&term=[&term=…][&language=]``: what ``[[Game: Term]]``
  written on another site names, for up to ``MAX_TERMS`` terms at once (one request per
  game and page for the embed script). Always 200: a term naming no entry, or a game
  we do not know, is an answer (``entry: null``), not an error.
- ``POST /api/v1/entries/lookup/`` with ``{"game", "terms", "language"}`` as JSON: the
  same lookup and answer, for lists whose URL would not fit in the server's request
  line (8190 bytes, gunicorn.conf.py): 50 terms of 300 characters percent-encode to up
  to 180 kB. A body over ``MAX_BODY_BYTES`` is a 413 before it is read.

Both answer with the same preview (``PreviewSerializer``): title, number, language,
game, the first lines as plain text, the page and the API URL. They are thin: the
finding is ``rules.search.previews``. Like every API GET they are cached whole, with ETag and
Last-Modified (``rulesite.response_cache``; a POST is not cached), and readable from any
origin (CORS on ``/api/``, ``DJANGO_CORS_ALLOWED_ORIGINS`` narrows it for the whole API).
A cross-origin JSON POST needs no more than that: POST is a CORS-safelisted method, so a
browser's preflight asks only for the ``Content-Type`` header, which django-cors-headers
allows by default; every other API URL answers a POST with 405.
"""

import re

from django.core.validators import ProhibitNullCharactersValidator
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, ParseError, ValidationError
from rest_framework.response import Response

from rules.search.previews import EXCERPT_LENGTH, MAX_TERMS, Preview, preview_by_slug, previews_by_term
from rules.shared.anchors import RULE_ID
from rules.shared.languages import CONTENT_LANGUAGE_CODES, CONTENT_LANGUAGES

from .filters import EMPTY_VALUE, one_of
from .schema import ErrorSerializer, text_parameter
from .serializers import links

GAME_SLUG_LENGTH = 100  # Game.slug
GAME_NAME_LENGTH = 200  # Game.name
SLUG_LENGTH = 200  # Entry.slug
TERM_LENGTH = 300  # Entry.title
NOT_EMPTY = "Must not be empty."
NO_ENTRY = "No published entry at this address."
# The largest lookup body: 50 terms of 300 characters, each character as JSON's
# "\ud83d\ude00" (12 bytes), is 181 kB; 256 KiB leaves room for any encoder's spacing.
MAX_BODY_BYTES = 256 * 1024


class PreviewSerializer(serializers.Serializer):
    """An entry's title and first lines."""

    id = serializers.IntegerField(read_only=True)
    title = serializers.CharField(read_only=True)
    number = serializers.CharField(
        read_only=True, help_text='The rule number ("2.3"), or "" where there is none.'
    )
    language = serializers.ChoiceField(choices=CONTENT_LANGUAGES, read_only=True)
    game = serializers.CharField(source="game_slug", read_only=True, help_text="Game slug.")
    game_name = serializers.CharField(
        read_only=True, help_text="The game's name in the entry's language."
    )
    excerpt = serializers.CharField(
        read_only=True,
        help_text=f"Plain text (not HTML): the entry's first lines, at most {EXCERPT_LENGTH} "
        'characters and "…", a line per paragraph or list item. "" when the entry has no text.',
    )
    truncated = serializers.BooleanField(
        read_only=True, help_text="Whether the entry says more than the excerpt."
    )
    url = serializers.URLField(
        read_only=True, help_text="The entry's page (UI in the entry's language)."
    )
    api_url = serializers.URLField(read_only=True, help_text="The entry in this API.")

    def to_representation(self, preview: Preview) -> dict:
        urls = links(self.context)
        return {
            "id": preview.id,
            "title": preview.title,
            "number": preview.number,
            "language": preview.language,
            "game": preview.game_slug,
            "game_name": preview.game_name,
            "excerpt": preview.excerpt,
            "truncated": preview.truncated,
            "url": urls.base + preview.path,
            "api_url": urls.api("api:entry-detail", preview.id),
        }


class LookupResultSerializer(serializers.Serializer):
    term = serializers.CharField(read_only=True, help_text="The term as asked.")
    entry = PreviewSerializer(
        read_only=True, allow_null=True, help_text="Null when no published entry has this name."
    )


class LookupResponseSerializer(serializers.Serializer):
    game = serializers.CharField(
        read_only=True,
        allow_null=True,
        help_text="The slug of the game found, or null when none has this slug or name.",
    )
    results = LookupResultSerializer(
        many=True, read_only=True, help_text="One per term, in the order asked."
    )


# --- query parameters ----------------------------------------------------------------------


def _text(max_length: int, **kwargs) -> serializers.CharField:
    """A required text parameter, matched as given: not empty, no NUL byte."""
    return serializers.CharField(
        max_length=max_length,
        trim_whitespace=False,
        error_messages={
            "blank": NOT_EMPTY,
            "max_length": f"Must be at most {max_length} characters.",
        },
        **kwargs,
    )


class ChoiceField(serializers.ChoiceField):
    """One of the choices; an empty value is refused with the filters' message."""

    def to_internal_value(self, data):
        if data == "":
            self.fail("blank")
        return super().to_internal_value(data)


def _language() -> ChoiceField:
    return ChoiceField(
        choices=CONTENT_LANGUAGE_CODES,
        required=False,
        default="",
        error_messages={"invalid_choice": one_of(CONTENT_LANGUAGE_CODES), "blank": EMPTY_VALUE},
    )


RULE_LENGTH = 32  # Entry.number


class PreviewParameters(serializers.Serializer):
    game = _text(GAME_SLUG_LENGTH)
    slug = _text(SLUG_LENGTH)
    language = _language()
    rule = serializers.RegexField(
        re.compile(rf"^{RULE_ID.pattern}\Z"),
        max_length=RULE_LENGTH,
        required=False,
        default="",
        trim_whitespace=False,  # " 601.2a" is not what the schema's pattern allows
        error_messages={
            "invalid": 'Must be a rule number such as "601.2a" (digits, dots, one letter).',
            "blank": EMPTY_VALUE,
            "max_length": f"Must be at most {RULE_LENGTH} characters.",
        },
    )


class LookupParameters(serializers.Serializer):
    game = _text(GAME_NAME_LENGTH)
    language = _language()


def checked(serializer_class, request) -> dict:
    """The validated parameters (each one's last value); a JSON 400 naming each bad one."""
    params = serializer_class(data=request.query_params.dict())
    params.is_valid(raise_exception=True)
    return params.validated_data


def term_problems(terms: list) -> list[str]:
    """What is wrong with a list of terms: 1 to MAX_TERMS, each text, not empty, not too
    long, no NUL byte. Messages name a term by its place, so the 400's ``errors`` stays
    one list per parameter or field."""
    if not terms:
        return ["Required: one or more terms."]
    if len(terms) > MAX_TERMS:
        return [f"At most {MAX_TERMS} terms."]
    problems = []
    for place, term in enumerate(terms, 1):
        if not isinstance(term, str):
            problems.append(f"Term {place}: Must be text.")
        elif term == "":
            problems.append(f"Term {place}: {NOT_EMPTY}")
        elif len(term) > TERM_LENGTH:
            problems.append(f"Term {place}: Must be at most {TERM_LENGTH} characters.")
        elif "\x00" in term:
            problems.append(f"Term {place}: {ProhibitNullCharactersValidator.message}")
    return problems


def checked_terms(request) -> list[str]:
    """Every ``term`` of the query string (see ``term_problems``)."""
    terms = request.query_params.getlist("term")
    if not terms:
        raise ValidationError({"term": ["This parameter is required: one or more terms."]})
    problems = term_problems(terms)
    if problems:
        raise ValidationError({"term": problems})
    return terms


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = (
        f"The request body is over {MAX_BODY_BYTES} bytes: at most {MAX_TERMS} terms of "
        f"{TERM_LENGTH} characters are looked up at once."
    )
    default_code = "payload_too_large"


@extend_schema_field({"type": "array", "items": text_parameter(TERM_LENGTH), "minItems": 1, "maxItems": MAX_TERMS})
class TermsField(serializers.Field):
    """The body's ``terms``: a list checked as the query's ``term`` (``term_problems``)."""

    def to_internal_value(self, data):
        if not isinstance(data, list):
            raise ValidationError(["Must be a list of terms."])
        problems = term_problems(data)
        if problems:
            raise ValidationError(problems)
        return data


@extend_schema_field(text_parameter(GAME_NAME_LENGTH))
class GameNameField(serializers.CharField):
    """Text only: DRF would take the number 0 as "0"."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class LookupBody(serializers.Serializer):
    """The JSON body of a lookup's POST: the GET's parameters, ``terms`` a list."""

    game = GameNameField(
        max_length=GAME_NAME_LENGTH,
        trim_whitespace=False,
        help_text="The game's slug, or its name in any language.",
        error_messages={
            "blank": NOT_EMPTY,
            "max_length": f"Must be at most {GAME_NAME_LENGTH} characters.",
            "invalid": "Must be text.",
        },
    )
    terms = TermsField(help_text=f"Titles or aliases, up to {MAX_TERMS}.")
    # Left out when not given (no default, which the schema's enum would not hold).
    language = ChoiceField(
        choices=CONTENT_LANGUAGES,
        required=False,
        help_text="The reader's language, as for the GET.",
        error_messages={"invalid_choice": one_of(CONTENT_LANGUAGE_CODES), "blank": EMPTY_VALUE},
    )


def checked_body(request) -> dict:
    """A POSTed lookup's fields: 413 over MAX_BODY_BYTES (before reading it), 400 for a
    body that is not a JSON object or names a bad field (each named), 415 for another
    media type (DRF's parser)."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > MAX_BODY_BYTES:
        raise PayloadTooLarge()
    if not isinstance(request.data, dict):
        raise ParseError('The body must be a JSON object: {"game": …, "terms": […], "language": …}.')
    body = LookupBody(data=request.data)
    body.is_valid(raise_exception=True)
    return body.validated_data


class EntryPreviewActions:
    """The two preview endpoints, as actions of the entries' viewset (mixed into it)."""

    # What each action reads (the response cache keys by exactly these: rules.pages.http).
    query_params = {
        "preview": tuple(PreviewParameters._declared_fields),
        "lookup": (*LookupParameters._declared_fields, "term"),
    }

    @extend_schema(
        summary="Preview the entry at a page address",
        description="The title and first lines of the published entry whose page is "
        "/<language>/games/<game>/rules/<slug>/: the version in `language` where there is "
        "one (with this slug, or as a translation), as the page shows it. For hover and "
        "tap previews of links to entries. 404 when no published entry has this address.",
        parameters=[
            OpenApiParameter(
                "game", text_parameter(GAME_SLUG_LENGTH), required=True, description="Game slug."
            ),
            OpenApiParameter(
                "slug", text_parameter(SLUG_LENGTH), required=True, description="The entry's slug."
            ),
            OpenApiParameter(
                "language",
                str,
                enum=CONTENT_LANGUAGE_CODES,
                description="The language of the address: its UI prefix, or its ?content= "
                "when it has one.",
            ),
            OpenApiParameter(
                "rule",
                {"type": "string", "pattern": f"^{RULE_ID.pattern}$", "minLength": 1, "maxLength": RULE_LENGTH},
                description="The address's fragment when it names a numbered rule (601.2a of "
                "…/rules/casting-spells/#601.2a): the excerpt starts at that rule where the "
                "text has it, and `url` keeps the fragment.",
            ),
        ],
        responses=PreviewSerializer,
    )
    @action(detail=False, methods=["get"], filter_backends=[], pagination_class=None)
    def preview(self, request):
        params = checked(PreviewParameters, request)
        found = preview_by_slug(
            params["game"], params["slug"], params["language"] or None, params["rule"] or None
        )
        if found is None:
            raise NotFound(NO_ENTRY)
        return Response(PreviewSerializer(found, context={"request": request}).data)

    @extend_schema(
        methods=["GET"],
        summary="Look up entries by title or alias",
        description="For each term, the preview of the published entry of the game whose "
        "title, else alias, it is (case, Unicode forms and surrounding punctuation aside, as "
        "[[Term]] links resolve; then with diacritics folded), or null. For "
        "[[Game: Term]] written on other sites (the embed script). Always 200. The whole "
        "request line must fit in the server's 8190 bytes (else 414): POST the same lookup "
        "when the terms are many or long.",
        parameters=[
            OpenApiParameter(
                "game",
                text_parameter(GAME_NAME_LENGTH),
                required=True,
                description="The game's slug, or its name in any language.",
            ),
            OpenApiParameter(
                "term",
                {
                    "type": "array",
                    "items": text_parameter(TERM_LENGTH),
                    "minItems": 1,
                    "maxItems": MAX_TERMS,
                },
                required=True,
                style="form",
                explode=True,
                description=f"A title or alias; repeat for more (up to {MAX_TERMS}).",
            ),
            OpenApiParameter(
                "language",
                str,
                enum=CONTENT_LANGUAGE_CODES,
                description="The reader's language: a name found in it wins over the same "
                "name in another, and an entry found in another language is given in this one "
                "where it has a version in it. Without it, a name found in several languages "
                "gives the first of " + ", ".join(CONTENT_LANGUAGE_CODES) + ".",
            ),
        ],
        responses=LookupResponseSerializer,
    )
    @extend_schema(
        methods=["POST"],
        summary="Look up entries by title or alias (many or long terms)",
        description="The GET's lookup with its parameters in a JSON body (`terms` a list), "
        "for lists whose URL would be too long: up to 50 terms of 300 characters, a body "
        f"of at most {MAX_BODY_BYTES} bytes. The same answer; not cached. Allowed from any "
        "origin, like the GET.",
        request=LookupBody,
        responses={
            200: LookupResponseSerializer,
            400: OpenApiResponse(
                ErrorSerializer,
                description="The body is not a JSON object, or a field is invalid: `errors` "
                "names each with its messages.",
            ),
            413: OpenApiResponse(ErrorSerializer, description=f"The body is over {MAX_BODY_BYTES} bytes."),
            415: OpenApiResponse(ErrorSerializer, description="The body is not `application/json`."),
        },
    )
    @action(detail=False, methods=["get", "post"], filter_backends=[], pagination_class=None)
    def lookup(self, request):
        if request.method == "POST":
            body = checked_body(request)
            game, terms, language = body["game"], body["terms"], body.get("language")
        else:
            # Every bad parameter is named at once, the terms' too.
            params, errors = LookupParameters(data=request.query_params.dict()), {}
            if not params.is_valid():
                errors.update(params.errors)
            try:
                terms = checked_terms(request)
            except ValidationError as error:
                errors.update(error.detail)
            if errors:
                raise ValidationError(errors)
            game, language = params.validated_data["game"], params.validated_data["language"]
        game, previews = previews_by_term(game, terms, language or None)
        context = {"request": request}
        results = [
            {
                "term": term,
                "entry": PreviewSerializer(found, context=context).data if found else None,
            }
            for term, found in zip(terms, previews, strict=True)
        ]
        return Response({"game": game, "results": results})
