"""A game's link-preview card (``rules.builds.card``): the image a shared link of any of
its pages shows (``og:image``), in the reader's UI language, served as a built file.
Until the worker has drawn it, the site's own card: a preview always has an image."""

from django.shortcuts import get_object_or_404, redirect
from django.templatetags.static import static

from ..builds.models import BuiltFile
from ..builds.serving import serve
from ..content import version as content_version
from ..content.models import Game
from .http import public_page


@public_page()
def game_card(request, game):
    game = get_object_or_404(Game.objects.published(), slug=game)
    file = BuiltFile.objects.for_request(
        BuiltFile.Kind.CARD, game=game, language=request.LANGUAGE_CODE, ui_language=request.LANGUAGE_CODE
    )
    return serve(request, file, content_version.of_request(request).token, preparing=_site_card)


def _site_card(request):
    """Not drawn yet: the site's card, for now (a temporary redirect, never stored)."""
    response = redirect(static("img/card.png"))
    response["Cache-Control"] = "no-store"
    return response
