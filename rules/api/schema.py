"""The OpenAPI schema of API v1 says what the API does, errors included.

drf-spectacular generates the schema from the views, serializers, filters and
paginators; this module adds what it cannot see on its own, through its extension
points (never a hand-written schema):

- ``AutoSchema`` (the ``DEFAULT_SCHEMA_CLASS``) documents the two errors every
  operation can answer, with their JSON shape (``Error``): 400 for an invalid or empty
  query parameter (``errors`` names each one; detail views run the filters too) and 404
  for an unknown item or a page past the last one; and the server's own 414 (HTML) for
  a request line over gunicorn.conf.py's 8190 bytes.
- ``StrictFilterExtension`` gives the text filters their bounds (``minLength: 1``, the
  maximum length, no NUL byte), read from the filters themselves (``rules.api.filters``);
  choices, booleans and dates already have theirs (an enum, ``boolean``, ``date-time``).
- ``rules.api.schema_view`` serves it (a module of its own: drf-spectacular's views
  import the schema class while they are being defined).

``scripts/api_contract.py`` checks the result against a live server with schemathesis.
"""

from drf_spectacular.contrib.django_filters import DjangoFilterExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

from .filters import ID_MAX, ID_MIN, IdFilter, TextFilter

# Django's CharField refuses NUL bytes (PostgreSQL cannot store them): a 400.
NO_NUL_BYTE = "^[^\\x00]*$"


def text_parameter(max_length: int | None) -> dict:
    """The schema of a text query parameter: not empty, not too long, no NUL byte."""
    schema = {"type": "string", "minLength": 1, "pattern": NO_NUL_BYTE}
    if max_length:
        schema["maxLength"] = max_length
    return schema


class ErrorSerializer(serializers.Serializer):
    """What every API error answers (``rules.api.exceptions``)."""

    detail = serializers.CharField(help_text="What is wrong, in a sentence.")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="400 only: each invalid query parameter (or field of a POSTed body) and its messages.",
    )


ERROR_RESPONSES = {
    400: OpenApiResponse(
        ErrorSerializer,
        description="A query parameter is invalid, or given with an empty value (leave a "
        "filter out not to filter by it). `errors` names each parameter with its messages.",
    ),
    404: OpenApiResponse(
        ErrorSerializer, description="No such published item, or a page past the last one."
    ),
    429: OpenApiResponse(
        ErrorSerializer,
        description="Too many requests from this address (600 a minute by default; responses served from the "
        "cache never count): wait the Retry-After header's seconds. Bulk files and the change feed are the cheap "
        "way to keep a copy.",
    ),
}


# Not the API's answer but the server's (gunicorn.conf.py's limit_request_line), for any
# URL: documented, so that a client knows it and what to do instead.
URI_TOO_LONG = {
    "description": "The request line (method, path and query, percent-encoded) is over 8190 "
    "bytes: refused by the server before the API, with a short HTML page, not JSON. Send a "
    "long lookup as a POST.",
    "content": {"text/html": {"schema": {"type": "string"}}},
}


class AutoSchema(SpectacularAutoSchema):
    def get_operation(self, *args, **kwargs):
        operation = super().get_operation(*args, **kwargs)
        if operation is None:  # excluded
            return None
        # Here rather than in get_response_serializers, which @extend_schema(responses=…)
        # replaces outright (the search endpoints).
        responses = operation.setdefault("responses", {})
        for code, response in ERROR_RESPONSES.items():
            if str(code) not in responses:
                responses[str(code)] = self._get_response_for_code(response, str(code))
        responses.setdefault("414", URI_TOO_LONG)
        return operation


class StrictFilterExtension(DjangoFilterExtension):
    """django-filter's parameters, with the bounds of ``TextFilter``."""

    priority = 1  # before drf-spectacular's own extension for DjangoFilterBackend

    def resolve_filter_field(self, auto_schema, model, filterset_class, field_name, filter_field):
        parameters = super().resolve_filter_field(
            auto_schema, model, filterset_class, field_name, filter_field
        )
        if isinstance(filter_field, TextFilter):
            for parameter in parameters:
                parameter["schema"].update(text_parameter(filter_field.extra.get("max_length")))
        if isinstance(filter_field, IdFilter):  # an id: a whole number the databases store
            for parameter in parameters:
                parameter["schema"] = {"type": "integer", "minimum": ID_MIN, "maximum": ID_MAX}
        return parameters
