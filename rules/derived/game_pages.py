"""What a game's page shows of its content in each language, stored when written.

A game's page lists every published entry of one language: the glossary A–Z under the
letters of that language's index, and the tree of rule sections. Made on each request
that is a query of every entry, ICU sort keys and a few hundred ``<li>``s: most of an
uncached game page (12 ms of CPU for 619 entries). So the pipeline stores them here,
per game and content language (``GameLanguage``), with what the page says around them
(how many entries, errata and FAQ questions the language has, which languages the game
has content in), and the page is one query for the game and its languages and one
template around stored HTML (``rules.pages.views.game_detail``).

Decisions:

- **One copy per content language, not per UI language.** The lists' links are stored
  in the content language's own UI prefix and the "incomplete" badge as a placeholder
  (``INCOMPLETE``, a comment no escaped title can contain); ``for_reader`` moves the
  links to the reader's prefix and puts the badge in the reader's language with two
  ``str.replace`` calls, as entry bodies' links are (``rendering.for_ui_language``).
- **Fingerprinted.** The lists are made again only when the rows they show changed
  (titles, numbers, aliases, order, parents, slugs, the game's slug); counts are read
  for every game the unit touched (three grouped counts).
- **Every language of the game**, with a row for each language that has published
  entries, errata or questions; a language with none left loses its row.
"""

import hashlib
from html import escape

import icu
from django.apps import apps
from django.db.models import Count
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from ..content.addresses import entry_url_template
from ..content.prepared import prepared_rows
from ..content.querysets import Status
from ..shared.collation import letter_groups
from ..shared.text import numbered_title
from .models import GameLanguage
from .rendering import _language_prefix, ui_language_for

VERSION = "1"  # bump when the stored markup changes: every list is made again
INCOMPLETE = "<!--incomplete-->"
SECTION = "section"  # Entry.Kind.SECTION (the content model's choice, by value)
COLUMNS = ("pk", "title", "number", "aliases", "is_fragment", "parent_id", "slug", "kind")


class Row:
    __slots__ = ("pk", "title", "number", "aliases", "is_fragment", "parent_id", "url")

    def __init__(self, pk, title, number, aliases, is_fragment, parent_id, url):
        self.pk, self.title, self.number, self.aliases = pk, title, number, aliases
        self.is_fragment, self.parent_id, self.url = is_fragment, parent_id, url


def refresh(game_id: int) -> int:
    """Bring one game's ``GameLanguage`` rows up to date; how many lists were made again."""
    game = next(iter(_slug(game_id)), None)
    # The lists (hundreds of KB for a large game) are read and written only when made again:
    # a save of a row with them deferred writes its other columns.
    rows_stored = GameLanguage.objects.filter(game_id=game_id).defer("glossary_html", "sections_html")
    stored = {row.language: row for row in rows_stored}
    if game is None:
        return 0  # deleted: its rows went with it
    counts = _counts(game_id)
    made = 0
    for language, (entries, errata, questions) in counts.items():
        row = stored.pop(language, None) or GameLanguage(game_id=game_id, language=language)
        rows = _rows(game_id, language) if entries else []
        fingerprint = _fingerprint(game, language, rows)
        changed = (row.entries, row.errata, row.questions) != (entries, errata, questions)
        if row.pk is None or changed or row.fingerprint != fingerprint:
            if row.pk is None or row.fingerprint != fingerprint:
                row.glossary_html, row.sections_html = _lists(game, language, rows)
                row.fingerprint = fingerprint
                made += 1
            row.entries, row.errata, row.questions = entries, errata, questions
            row.save()
    if stored:
        GameLanguage.objects.filter(pk__in=[row.pk for row in stored.values()]).delete()
    return made


# The reads: the same SQL for every game (rules.content.prepared: compiled once).


@prepared_rows(int)
def _slug(game_id: int):
    return apps.get_model("rules.Game")._default_manager.filter(pk=game_id).values_list("slug", flat=True)


def _published_per_language(label: str):
    """Language → how many published rows of that model one game has."""

    @prepared_rows(int)
    def counts(game_id: int):
        published = apps.get_model(label)._default_manager.filter(game_id=game_id, status=Status.PUBLISHED)
        return published.order_by().values_list("language").annotate(n=Count("pk"))

    return counts


# faq's by name (rules never imports faq)
COUNTED = [_published_per_language(label) for label in ("rules.Entry", "rules.Erratum", "faq.Question")]


def _counts(game_id: int) -> dict[str, tuple[int, int, int]]:
    """Language → (published entries, errata, FAQ questions) of one game."""
    counts: dict[str, list[int]] = {}
    for index, counted in enumerate(COUNTED):
        for language, n in counted(game_id):
            counts.setdefault(language, [0, 0, 0])[index] = n
    return {language: tuple(values) for language, values in counts.items()}


@prepared_rows(int, str)
def _rows(game_id: int, language: str):
    Entry = apps.get_model("rules.Entry")
    published = Entry._default_manager.filter(game_id=game_id, language=language, status=Status.PUBLISHED)
    return published.order_by("order", "pk").values_list(*COLUMNS)


def _fingerprint(game_slug: str, language: str, rows: list[tuple]) -> str:
    """Of everything the lists are made from: ICU's version too (its collation and letters
    change with it), so ``migrate``'s refresh after an upgrade makes every list again."""
    made_from = (VERSION, icu.ICU_VERSION, game_slug, language, rows)
    return hashlib.blake2b(repr(made_from).encode(), digest_size=16).hexdigest()


def _lists(game_slug: str, language: str, rows: list[tuple]) -> tuple[str, str]:
    """(the glossary's letter index and list, the sections' tree) as HTML, links in the
    language's own UI prefix, the badge a placeholder."""
    with translation.override(ui_language_for(language)):
        url = entry_url_template(game_slug)
    glossary, sections = [], []
    for pk, title, number, aliases, is_fragment, parent_id, slug, kind in rows:
        item = Row(pk, title, number, aliases, is_fragment, parent_id, url.format(slug=slug))
        (sections if kind == SECTION else glossary).append(item)
    return _glossary_html(glossary, language), _sections_html(sections, language)


def _glossary_html(items: list[Row], language: str) -> str:
    if not items:
        return ""
    groups = letter_groups(items, language)
    lang = escape(language)
    index = " ".join(f'<a href="#{escape(g.anchor)}">{escape(g.letter)}</a>' for g in groups)
    parts = [f'<p class="letter-index" lang="{lang}">{index} </p>', f'<dl class="glossary" lang="{lang}">']
    for group in groups:
        parts.append(f'<dt id="{escape(group.anchor)}">{escape(group.letter)}</dt>')
        parts.append("<dd><ul>" + "\n".join(_item(entry) for entry in group.items) + "</ul></dd>")
    parts.append("</dl>")
    return "\n".join(parts)


def _item(entry: Row) -> str:
    aliases = f' <span class="aliases">({escape(", ".join(map(str, entry.aliases)))})</span>' if entry.aliases else ""
    badge = INCOMPLETE if entry.is_fragment else ""
    return f'<li><a href="{escape(entry.url)}">{escape(entry.title)}</a>{aliases}{badge}</li>'


def _sections_html(sections: list[Row], language: str) -> str:
    if not sections:
        return ""
    ids = {section.pk for section in sections}
    by_parent: dict[int | None, list[Row]] = {}
    for section in sections:  # in document order
        by_parent.setdefault(section.parent_id if section.parent_id in ids else None, []).append(section)
    parts = [f'<ol class="sections" lang="{escape(language)}">']
    for top in by_parent.get(None, []):
        children = by_parent.get(top.pk, [])
        inner = ""
        if children:
            inner = '<ol class="subsections">' + "".join(f"<li>{_link(child)}</li>" for child in children) + "</ol>"
        parts.append(f"<li>{_link(top)}{inner}</li>")
    parts.append("</ol>")
    return "\n".join(parts)


def _link(section: Row) -> str:
    return f'<a href="{escape(section.url)}">{escape(numbered_title(section.number, section.title))}</a>'


# --- reading ----------------------------------------------------------------------------


def for_reader(html: str, content_language: str, ui_language: str) -> SafeString:
    """A stored list with its links in the reader's UI prefix and the "incomplete" badge
    in the reader's language."""
    if not html:
        return mark_safe("")
    stored = ui_language_for(content_language)
    if stored != ui_language:
        old, new = _language_prefix(stored), _language_prefix(ui_language)
        html = html.replace(f'href="{old}', f'href="{new}')
    if INCOMPLETE in html:
        badge = f' <span class="badge" lang="{escape(ui_language)}">{escape(gettext("incomplete"))}</span>'
        html = html.replace(INCOMPLETE, badge)
    return mark_safe(html)  # noqa: S308 - every value was escaped when stored
