"""Context shared by the public pages of rules and faq (one place, so they agree)."""

from django.conf import settings
from django.shortcuts import get_object_or_404
from django.urls import translate_url
from django.utils import translation

from .languages import native_name
from .models import Game
from .text import fold_diacritics


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


def entry_page_context(request, entry, translations: list | None = None) -> dict:
    """Everything the entry page shows about ``entry`` (loaded ``with_page_relations()``).

    One builder for the public page and the moderators' preview of a draft
    (``rules.admin.preview``), so the preview is the page a reader will get.
    ``translations`` saves the query when the caller has already loaded them.
    """
    ui_language = translation.get_language()
    game = entry.game
    if translations is None:
        translations = list(entry.translations())
    alternates = []
    for code, _name in settings.LANGUAGES:
        version = entry if entry.language == code else next((t for t in translations if t.language == code), entry)
        alternates.append((code, request.build_absolute_uri(version.url_in(code))))

    referenced_by = {ref.entry_id: ref.entry for ref in entry.referenced_by.all() if ref.entry_id != entry.pk}
    return {
        "game": game,
        "game_name": game.name_in(entry.language),
        "entry": entry,
        "content_language": entry.language,
        "content_missing": entry.language != ui_language,
        "see_also": [
            (ref.label, ref.target.get_absolute_url() if ref.target is not None and ref.target.is_published else None)
            for ref in entry.see_also_references
        ],
        "referenced_by": sorted(referenced_by.values(), key=lambda e: fold_diacritics(e.title)),
        "errata": list(entry.errata.all()),
        "faq_questions": list(entry.faq_questions.all()),
        "children": entry.published_children,
        "translations": [(t, native_name(t.language)) for t in translations],
        "alternates": alternates,
        "switcher_urls": {code: url for code, url in alternates},
    }


def item_page_context(game, content_language: str) -> dict:
    """``game_context`` for a page showing one known item (the moderators' preview of
    an erratum or a FAQ question): its game, in the item's own language."""
    return {
        "game": game,
        "game_name": game.name_in(content_language),
        "content_language": content_language,
        "content_missing": content_language != translation.get_language(),
        "other_content_languages": [],
    }


def path_alternates(request) -> list[tuple[str, str]]:
    """hreflang alternates for a page whose URL differs only by its language prefix."""
    return [
        (code, request.build_absolute_uri(translate_url(request.path, code))) for code, _name in settings.LANGUAGES
    ]
