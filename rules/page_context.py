"""Context shared by the public pages of rules and faq (one place, so they agree)."""

from dataclasses import dataclass

from django.conf import settings
from django.shortcuts import get_object_or_404
from django.urls import translate_url
from django.utils import translation

from .collation import letter_groups, sort_by_title
from .languages import native_name
from .models import Entry, Game, entry_url_template


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


@dataclass(frozen=True)
class EntryListItem:
    """What a list of entries shows of one, without loading the entry (or its body)."""

    pk: int
    title: str
    number: str
    aliases: list
    is_fragment: bool
    parent_id: int | None
    url: str

    @property
    def display_title(self) -> str:  # Entry.__str__
        return f"{self.number}. {self.title}" if self.number and not self.title.endswith(self.number) else self.title


def game_contents(game, language: str) -> dict:
    """A game page's lists: the glossary A–Z by letter and the tree of rule sections.

    The glossary is in the alphabetical order of its language, under the letters of
    that language's index (``rules.collation``: Polish Ł after L, German Ä under A).

    One query of the few columns the lists show (no bodies, no model instances), and
    one ``reverse()`` for every link: a glossary has hundreds of entries.
    """
    rows = (
        Entry.objects.published()
        .for_game(game)
        .for_language(language)
        .order_by("order", "pk")
        .values_list("pk", "title", "number", "aliases", "is_fragment", "parent_id", "slug", "kind")
    )
    url = entry_url_template(game.slug)
    glossary, sections = [], []
    for *fields, slug, kind in rows:
        item = EntryListItem(*fields, url=url.format(slug=slug))
        (sections if kind == Entry.Kind.SECTION else glossary).append(item)
    letters = letter_groups(glossary, language)
    section_ids = {section.pk for section in sections}
    by_parent: dict[int | None, list[EntryListItem]] = {}
    for section in sections:  # in document order
        parent_id = section.parent_id if section.parent_id in section_ids else None
        by_parent.setdefault(parent_id, []).append(section)
    return {
        "letters": letters,
        "section_tree": [(top, by_parent.get(top.pk, [])) for top in by_parent.get(None, [])],
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

    referenced_by = {ref.entry_id: ref.entry for ref in entry.page_referrers if ref.entry_id != entry.pk}
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
        "referenced_by": sort_by_title(referenced_by.values(), entry.language),
        "errata": entry.page_errata,
        "faq_questions": entry.page_questions,
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
