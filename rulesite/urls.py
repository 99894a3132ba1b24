"""The site's URLs: pages under a language prefix, the API and admin without one."""

from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    # The read-only JSON API, versioned by URL prefix; no language prefix (see api_urls).
    path("api/v1/", include("rulesite.api_urls")),
]

urlpatterns += i18n_patterns(
    path("", include("rules.urls")),
    path("", include("faq.urls")),
)
