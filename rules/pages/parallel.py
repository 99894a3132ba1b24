"""Parallel view: one entry and its version in another language, side by side.

Groups play with cards in several languages; a player reads the rule in theirs and in
the card's. ``/<ui>/games/<game>/rules/<slug>/compare/<language>/`` shows the entry
``slug`` beside its version in ``language`` (two columns, stacked on a phone), each in
its own ``lang``, each with its errata applied and its translation status, as on its
own page. Every translated entry links it from its "Other languages" list.

Decisions:

- **Which entry is on the left.** Slugs are unique per language, not per game: a slug may
  name entries in several languages. The left one is the one asked for with
  ``?content=`` (the entry page's own parameter), else the one in the UI's language, else
  the first by language code, among those with a published version in ``language``.
  Links carry ``?content=`` when the entry is not in the UI's language.
- **One query** for both versions (the entries with that slug, and the versions in
  ``language`` of the same translation key, with their game and source), plus the
  content version: everything else is stored with the entries (``rules.derived.relations``,
  ``rules.derived.corrections``, ``rules.derived.translation_status``). The page is cached like every
  public page.
- **A real 404** (in the reader's UI language) when there is no such entry, no version
  in that language, or ``language`` is not a content language.
"""

from functools import lru_cache

from django.db.models import Q
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import translation

from ..content.addresses import CONTENT_PARAMETER, entry_path_template
from ..content.models import Entry
from ..shared.languages import CONTENT_LANGUAGE_CODES, native_name
from .page_context import game_name, path_alternates


def versions(game_slug: str, slug: str, language: str, ui_language: str, wanted: str | None):
    """(the entry, its published version in ``language``), or None. One query."""
    if language not in CONTENT_LANGUAGE_CODES:
        return None
    keys = Entry.objects.filter(game__slug=game_slug, slug=slug).values("translation_key")
    rows = list(
        Entry.objects.published()
        .for_page()
        .filter(game__slug=game_slug)
        .filter(Q(slug=slug) | Q(language=language, translation_key__in=keys))
        .order_by()
    )
    pairs = sorted(
        (
            (left, right)
            for left in rows
            if left.slug == slug and left.language != language
            for right in rows
            if right.language == language and right.translation_key == left.translation_key
        ),
        key=lambda pair: pair[0].language,
    )
    for preferred in (wanted, ui_language):
        pair = next((pair for pair in pairs if pair[0].language == preferred), None)
        if pair is not None:
            return pair
    return pairs[0] if pairs else None


def compare_url(game_slug: str, slug: str, entry_language: str, language: str) -> str:
    """The side-by-side page of the entry ``slug`` (in ``entry_language``) and its
    version in ``language``, in the active UI language."""
    ui_language = translation.get_language()
    path = _compare_url_template(game_slug, ui_language, get_script_prefix(), get_urlconf())
    path = path.format(slug=slug, language=language)
    return path if entry_language == ui_language else f"{path}?{CONTENT_PARAMETER}={entry_language}"


@lru_cache(maxsize=2048)
def _compare_url_template(game_slug: str, ui_language: str, script_prefix: str, urlconf) -> str:
    # Keyed by everything reverse() reads (see rules.content.addresses.entry_url_template).
    url = reverse("rules:entry-compare", kwargs={"game": game_slug, "slug": "SLUG", "language": "LANG"})
    return url.replace("/SLUG/", "/{slug}/").replace("/LANG/", "/{language}/")


def column(entry) -> dict:
    """What one column shows of its entry."""
    return {
        "entry": entry,
        "language_name": native_name(entry.language),
        "url": entry_path_template(entry.game.slug, entry.language).format(slug=entry.slug),
        "errata": entry.related.errata,
    }


def compare_context(request, left, right) -> dict:
    game = left.game
    others = [t for t in left.related.translations if t.language != right.language]
    columns = [{**column(left), "beside": right.language}, {**column(right), "beside": left.language}]
    return {
        "game": game,
        "game_name": game_name(game),
        "content_language": left.language,
        "left": columns[0],
        "right": columns[1],
        "columns": columns,
        "swap_url": compare_url(game.slug, right.slug, right.language, left.language),
        "other_comparisons": [
            (native_name(t.language), t.language, compare_url(game.slug, left.slug, left.language, t.language))
            for t in others
        ],
        "alternates": path_alternates(request),
    }
