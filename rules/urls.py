from django.urls import path

from . import views

app_name = "rules"

urlpatterns = [
    path("", views.home, name="home"),
    path("search/", views.search, name="search"),
    path("games/<slug:game>/", views.game_detail, name="game"),
    path("games/<slug:game>/rules/<slug:slug>/", views.entry_detail, name="entry"),
    path("games/<slug:game>/errata/", views.errata_list, name="errata"),
]
