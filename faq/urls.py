from django.urls import path

from rules.pages import suggestions

from . import views

app_name = "faq"

urlpatterns = [
    path("games/<slug:game>/faq/", views.question_list, name="list"),
    # A player's suggestion for an answer (rules.pages.suggestions).
    path("games/<slug:game>/faq/<slug:slug>/suggest/", suggestions.suggest_question, name="suggest"),
]
