"""``/api/v1/schema/`` without echoing the query string.

``?version=`` must be this API's version (anything else is a JSON 404, and the file name
in ``Content-Disposition`` is fixed), ``?lang=`` one of the UI languages (else a JSON
400), and every error it answers is JSON, like the rest of the API.
"""

from django.conf import settings
from drf_spectacular.settings import spectacular_settings
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from .filters import one_of


class SchemaView(SpectacularAPIView):
    """``/api/v1/schema/``: YAML, or JSON with ``?format=json`` or by ``Accept``."""

    version = spectacular_settings.VERSION
    query_params = {"get": ("version", "lang")}  # and format (rules.pages.http)

    @extend_schema(exclude=True)  # as the view it extends: the schema is not in itself
    def get(self, request, *args, **kwargs):
        version = request.query_params.get("version")
        if version is not None and version != self.version:
            raise NotFound(f"There is no schema of that version; this API is {self.version}.")
        lang = request.query_params.get("lang")
        languages = [code for code, _name in settings.LANGUAGES]
        if lang is not None and lang not in languages:
            raise ValidationError({"lang": [one_of(languages)]})
        return super().get(request, *args, **kwargs)

    def _get_version_parameter(self, request):
        # drf-spectacular would take ?version= as given and write it into the
        # Content-Disposition file name (a NUL byte or a newline there was a 500, a quote
        # let the client name the file) and into info.version. There is one version,
        # checked above: the schema is the same with or without it.
        return None

    def finalize_response(self, request, response, *args, **kwargs):
        # Errors are JSON (the schema's renderers would write them as YAML).
        if isinstance(response, Response) and response.status_code >= 400:
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)


class DocsView(SpectacularSwaggerSplitView):
    """Swagger UI; ``?script`` serves its settings script as a file (no inline script)."""

    query_params = {"get": ("script",)}


class RedocView(SpectacularRedocView):
    query_params = {"get": ()}
