"""Entry previews in API v1, for hover and tap previews on this site and on others.

- ``/api/v1/entries/preview/?game=&slug=[&language=]``: the entry an address of ours
  shows (``static/js/previews.js`` reads game, slug and language from a link's
  ``href``); 404 when there is none.
- ``/api/v1/entries/lookup/?game=&term=[&term=…][&language=]``: what ``[[Game: Term]]``
  written on another site names, for up to ``MAX_TERMS`` terms at once (one request per
  game and page for the embed script). Always 200: a term naming no entry, or a game
  we do not know, is an answer (``entry: null``), not an error.

Both answer with the same preview (``PreviewSerializer``): title, number, language,
game, the first lines as plain text, the page and the API URL. They are thin: the
finding is ``rules.previews``. Like every API GET they are cached whole, with ETag and
Last-Modified (``rulesite.response_cache``), and readable from any origin (CORS on
``/api/``, ``DJANGO_CORS_ALLOWED_ORIGINS`` narrows it for the whole API).
"""

import re

from django.core.validators import ProhibitNullCharactersValidator
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from rules.anchors import RULE_ID
from rules.languages import CONTENT_LANGUAGE_CODES, CONTENT_LANGUAGES
from rules.previews import EXCERPT_LENGTH, MAX_TERMS, Preview, preview_by_slug, previews_by_term

from .filters import EMPTY_VALUE, one_of
from .schema import text_parameter
from .serializers import links

GAME_SLUG_LENGTH = 100  # Game.slug
GAME_NAME_LENGTH = 200  # Game.name
SLUG_LENGTH = 200  # Entry.slug
TERM_LENGTH = 300  # Entry.title
NOT_EMPTY = "Must not be empty."
NO_ENTRY = "No published entry at this address."


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


def checked_terms(request) -> list[str]:
    """Every ``term`` given: 1 to MAX_TERMS, each not empty, not too long, no NUL byte.
    Messages name the term by its place, so the 400's ``errors`` stays one list."""
    terms = request.query_params.getlist("term")
    if not terms:
        raise ValidationError({"term": ["This parameter is required: one or more terms."]})
    if len(terms) > MAX_TERMS:
        raise ValidationError({"term": [f"At most {MAX_TERMS} terms."]})
    problems = []
    for place, term in enumerate(terms, 1):
        if term == "":
            problems.append(f"Term {place}: {NOT_EMPTY}")
        elif len(term) > TERM_LENGTH:
            problems.append(f"Term {place}: Must be at most {TERM_LENGTH} characters.")
        elif "\x00" in term:
            problems.append(f"Term {place}: {ProhibitNullCharactersValidator.message}")
    if problems:
        raise ValidationError({"term": problems})
    return terms


class EntryPreviewActions:
    """The two preview endpoints, as actions of the entries' viewset (mixed into it)."""

    # What each action reads (the response cache keys by exactly these: rules.http).
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
        summary="Look up entries by title or alias",
        description="For each term, the preview of the published entry of the game whose "
        "title, else alias, it is (case, Unicode forms and surrounding punctuation aside, as "
        "[[Term]] links resolve; then with diacritics folded), or null. For "
        "[[Game: Term]] written on other sites (the embed script). Always 200.",
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
    @action(detail=False, methods=["get"], filter_backends=[], pagination_class=None)
    def lookup(self, request):
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
        params = params.validated_data
        game, previews = previews_by_term(params["game"], terms, params["language"] or None)
        context = {"request": request}
        results = [
            {
                "term": term,
                "entry": PreviewSerializer(found, context=context).data if found else None,
            }
            for term, found in zip(terms, previews, strict=True)
        ]
        return Response({"game": game, "results": results})
