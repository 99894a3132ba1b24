"""Context shared by the public pages of rules and faq (one place, so they agree)."""

from django.conf import settings
from django.shortcuts import get_object_or_404
from django.urls import translate_url
from django.utils import translation

from .languages import native_name
from .models import Game


def game_context(game_slug: str) -> dict:
    """What every page of a game needs: the game, and which language its content is in.

    The URL's language selects the content; when the game has nothing in that language
    the page says so and shows the language that has the most.
    """
    game = get_object_or_404(Game.objects.published(), slug=game_slug)
    ui_language = translation.get_language()
    available = game.content_languages()
    content_language = game.content_language_for(ui_language, available) or ui_language
    return {
        "game": game,
        "game_name": game.name_in(content_language),
        "content_language": content_language,
        "content_missing": content_language != ui_language,
        "other_content_languages": [(code, native_name(code)) for code in available if code != content_language],
    }


def path_alternates(request) -> list[tuple[str, str]]:
    """hreflang alternates for a page whose URL differs only by its language prefix."""
    return [
        (code, request.build_absolute_uri(translate_url(request.path, code))) for code, _name in settings.LANGUAGES
    ]
