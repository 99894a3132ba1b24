"""API v1: every app's routes under one browsable root, plus the OpenAPI schema and docs.

Mounted at ``/api/v1/`` outside ``i18n_patterns``: the API has no UI language, and
its URLs must not change with one. The route names live in the ``api`` namespace
(``api:entry-detail`` …), which the serializers' ``url`` fields reverse.
"""

from csp.decorators import csp_update
from django.urls import include, path, re_path
from rest_framework.routers import APIRootView, DefaultRouter

from faq.api.urls import router as faq_router
from rules.api.bulk import BulkDownloadView, BulkViewSet
from rules.api.changes import ChangeFeedViewSet
from rules.api.schema_view import DocsView, RedocView, SchemaView
from rules.api.search import SearchViewSet
from rules.api.urls import router as rules_router
from rules.api.views import not_found

app_name = "api"



class RootView(APIRootView):
    query_params = {"get": ()}  # reads none (rules.pages.http)


# DefaultRouter adds the API root view listing every endpoint.
router = DefaultRouter()
router.APIRootView = RootView
for app_router in (rules_router, faq_router):
    router.registry.extend(app_router.registry)
# Search spans both apps: /search/ and its /search/suggest/ action, listed in the root.
router.register("search", SearchViewSet, basename="search")
# The public change feed (keeping a mirror in sync): rules.api.changes.
router.register("changes", ChangeFeedViewSet, basename="changes")
# Bulk data files (a full copy in one download): rules.api.bulk.
router.register("bulk", BulkViewSet, basename="bulk")

REDOC_POLICY = csp_update({"style-src-elem": ["'self'", "'unsafe-inline'"], "worker-src": ["blob:"]})

urlpatterns = [
    # Never echoes ?version= or ?lang= (rules.api.schema).
    path("schema/", SchemaView.as_view(), name="schema"),
    # Swagger UI and ReDoc load their assets from drf-spectacular-sidecar (settings),
    # so the docs work offline and without a third-party CDN.
    # The split view serves its settings script as a file (docs/?script), not inline, so
    # the page runs under the site's Content-Security-Policy as it is.
    path(
        "docs/",
        DocsView.as_view(url_name="api:schema", template_name="api/swagger_ui.html"),
        name="docs",
    ),
    path(
        "redoc/",
        # The stock template loads Google Fonts; ours extends it without them.
        # ReDoc's style elements are made at run time (styled-components) and its search
        # index runs in a web worker started from a blob: URL: this page alone allows both
        # (each found needed in Chromium: tests/browser/test_csp.py). Inline style
        # attributes stay refused.
        REDOC_POLICY(RedocView.as_view(url_name="api:schema", template_name="api/redoc.html")),
        name="redoc",
    ),
    path("bulk/all.json", BulkDownloadView.as_view(), name="bulk-all"),
    path("bulk/<slug:game>/<str:language>.json", BulkDownloadView.as_view(), name="bulk-file"),
    path("", include(router.urls)),
    # Last: unknown paths, malformed ids. Only paths ending in "/", so that CommonMiddleware
    # still redirects "/api/v1/entries" to "/api/v1/entries/".
    # [\s\S], not ".": a path with an encoded newline in it is an API path too.
    re_path(r"^[\s\S]*/$", not_found),
]
