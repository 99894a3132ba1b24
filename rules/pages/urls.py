from django.urls import path

from . import cards, feeds, offline, releases, rulebook_views, suggestions, views
from .http import public_page

app_name = "rules"

urlpatterns = [
    path("", views.home, name="home"),
    path("search/", views.search, name="search"),
    # Installable and offline (rules.pages.offline; the service worker itself is at /sw.js).
    path("manifest.webmanifest", offline.manifest, name="manifest"),
    path("offline/", offline.offline_page, name="offline"),
    path("games/<slug:game>/", views.game_detail, name="game"),
    path("games/<slug:game>/card.png", cards.game_card, name="game-card"),
    path("games/<slug:game>/rules/<slug:slug>/", views.entry_detail, name="entry"),
    path("games/<slug:game>/rules/<slug:slug>/compare/<slug:language>/", views.entry_compare, name="entry-compare"),
    path("games/<slug:game>/errata/", views.errata_list, name="errata"),
    # Players' suggestions (rules.pages.suggestions): never cached; the status page is private.
    path("games/<slug:game>/rules/<slug:slug>/suggest/", suggestions.suggest_entry, name="suggest-entry"),
    path("games/<slug:game>/errata/<slug:slug>/suggest/", suggestions.suggest_erratum, name="suggest-erratum"),
    path("suggestions/<slug:token>/", suggestions.suggestion_status, name="suggestion"),
    path("games/<slug:game>/releases/<int:pk>/", releases.release_detail, name="release"),
    path("games/<slug:game>/releases/<int:pk>/rules/", releases.release_index, name="release-index"),
    path("games/<slug:game>/rules/<slug:slug>/releases/", releases.entry_releases, name="entry-releases"),
    # Reading straight through (rules.content.rulebook, rules.builds.booklet): contents, printed booklets.
    path("games/<slug:game>/rules/", rulebook_views.contents, name="contents"),
    path("games/<slug:game>/print/<slug:part>/", rulebook_views.booklet, name="booklet"),
    path("games/<slug:game>/print/<slug:part>.pdf", rulebook_views.booklet_pdf, name="booklet-pdf"),
    # Atom feeds (rules.pages.feeds): published items only, under the UI language prefix.
    path("feeds/changes/", public_page()(feeds.SiteChangesFeed()), name="feed-changes"),
    path("games/<slug:game>/feeds/changes/", public_page()(feeds.GameChangesFeed()), name="game-feed-changes"),
    path("games/<slug:game>/feeds/errata/", public_page()(feeds.GameErrataFeed()), name="game-feed-errata"),
    path("games/<slug:game>/feeds/releases/", public_page()(feeds.GameReleasesFeed()), name="game-feed-releases"),
]
