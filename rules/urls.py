from django.urls import path

from . import feeds, views

app_name = "rules"

urlpatterns = [
    path("", views.home, name="home"),
    path("search/", views.search, name="search"),
    path("games/<slug:game>/", views.game_detail, name="game"),
    path("games/<slug:game>/rules/<slug:slug>/", views.entry_detail, name="entry"),
    path("games/<slug:game>/rules/<slug:slug>/compare/<slug:language>/", views.entry_compare, name="entry-compare"),
    path("games/<slug:game>/errata/", views.errata_list, name="errata"),
    # Atom feeds (rules.feeds): published items only, under the UI language prefix.
    path("feeds/changes/", feeds.SiteChangesFeed(), name="feed-changes"),
    path("games/<slug:game>/feeds/changes/", feeds.GameChangesFeed(), name="game-feed-changes"),
    path("games/<slug:game>/feeds/errata/", feeds.GameErrataFeed(), name="game-feed-errata"),
]
