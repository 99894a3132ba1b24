"""The site's URLs: pages under a language prefix; API, admin, sitemap and robots.txt without."""

from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.contrib.sitemaps.views import sitemap
from django.urls import include, path
from django.views.generic import TemplateView

from rules.pages.http import public_page
from rules.pages.offline import service_worker
from rules.pages.sitemaps import GamePageSitemap, HomeSitemap, entry_sitemap, sitemap_index

# The sections of the pages' sitemap (see rules.pages.sitemaps). The FAQ pages are faq's, so
# the project wires them here: rules does not know faq's URL names.
SITEMAPS = {
    "home": HomeSitemap,
    "games": GamePageSitemap("rules:game", "entries"),
    "faq": GamePageSitemap("faq:list", "faq_questions", required=True),
    "errata": GamePageSitemap("rules:errata", "errata", required=True),
}

urlpatterns = [
    path("admin/", admin.site.urls),
    # The read-only JSON API, versioned by URL prefix; no language prefix (see api_urls).
    path("api/v1/", include("rulesite.api_urls")),
    # Crawlers look for these at the root, in no language.
    path("sitemap.xml", sitemap_index, name="sitemap"),
    path("sitemaps/pages.xml", public_page("p")(sitemap), {"sitemaps": SITEMAPS}, name="sitemap-pages"),
    path("sitemaps/<slug:game>/<slug:language>.xml", entry_sitemap, name="sitemap-entries"),
    # The service worker, at the root so that it may control every page (rules.pages.offline).
    path("sw.js", service_worker, name="service-worker"),
    path(
        "robots.txt",
        public_page()(TemplateView.as_view(template_name="robots.txt", content_type="text/plain")),
        name="robots",
    ),
]

urlpatterns += i18n_patterns(
    path("", include("rules.pages.urls")),
    path("", include("faq.urls")),
)

# A failed request: a busy database gets a 503 "try again" page (JSON under /api/) that
# gives back what a form sent; anything else the plain 500 page (rulesite/errors.py).
handler500 = "rulesite.errors.server_error"
