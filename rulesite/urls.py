"""The site's URLs: pages under a language prefix, the API and admin without one."""

from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
]

urlpatterns += i18n_patterns(
    path("", include("rules.urls")),
    path("", include("faq.urls")),
)
