"""The FAQ page of a game."""

from django.db.models import Prefetch
from django.shortcuts import render

from rules.content.models import Entry
from rules.pages.http import public_page
from rules.pages.page_context import game_context

from .models import Question


@public_page()
def question_list(request, game):
    context = game_context(game)
    context["questions"] = (
        Question.objects.published()
        .for_game(context["game"])
        .for_language(context["content_language"])
        .select_related("source")
        .prefetch_related(
            # related entries, published only, with their game for URLs: one query for all
            Prefetch(
                "related_entries",
                queryset=Entry.objects.published().select_related("game"),
                to_attr="published_related",
            )
        )
        .order_by("order", "pk")
    )
    return render(request, "faq/question_list.html", context)
