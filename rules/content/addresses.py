"""Addresses of entries: the URL of an entry's page as a template with ``{slug}``.

A page that lists hundreds of entries builds one template with one ``reverse()`` and
formats it per entry; a process keeps each template once made. Models, stored
relations (``rules.content.stored``), pages and the API read them; they import nothing of the
content model.
"""

from functools import lru_cache

from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import translation

from ..shared.languages import UI_LANGUAGES, ui_language_for

CONTENT_PARAMETER = "content"  # ?content=fr: this entry's own version, not the UI's translation


def entry_url_template(game_slug: str, ui_language: str | None = None) -> str:
    """``Entry.get_absolute_url`` in ``ui_language`` (by default the active one) as a
    template with ``{slug}``: one ``reverse()`` for a whole list of entries, where a game
    page has hundreds, and none at all once a process has made it (an entry page needs
    one per UI language)."""
    language = ui_language or translation.get_language()
    return _entry_url_template(game_slug, language, get_script_prefix(), get_urlconf())


@lru_cache(maxsize=2048)
def _entry_url_template(game_slug: str, language: str, script_prefix: str, urlconf) -> str:
    # Keyed by everything reverse() reads besides the URLconf's patterns, which do not
    # change while a process runs. The language is switched only to make one.
    with translation.override(language):
        return reverse("rules:entry", kwargs={"game": game_slug, "slug": "SLUG"}).replace("/SLUG/", "/{slug}/")


def entry_path_template(game_slug: str, language: str) -> str:
    """``Entry.canonical_url`` as a template with ``{slug}`` (see ``entry_url_template``)."""
    path = entry_url_template(game_slug, ui_language_for(language))
    return path if language in UI_LANGUAGES else f"{path}?{CONTENT_PARAMETER}={language}"
